// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FeedStream
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// `feedstream schema`: the type of every member of convert's output, for loaders that
/// would otherwise guess one per file (RecordSchema, from the record layout).
struct Schema: ParsableCommand {
    static let configuration = CommandConfiguration(
        abstract: "Print the type of every output member, for DuckDB, Spark or JSON Schema.",
        discussion: """
            Free text and the _raw dates are strings, the numbers feedstream writes \
            (document, index, items, error positions) integers, normalized dates \
            timestamps (UTC), guid_is_permalink and truncated booleans. With --per item \
            (convert's default) the schema covers item and feed lines, which share one \
            file; with --per feed, document lines.

            duckdb: a struct literal for read_json's columns parameter; spark: a DDL \
            string for spark.read.schema; json-schema: a JSON Schema (2020-12).

            EXAMPLES:
              duckdb -c "SELECT count(*) FROM read_json('items.jsonl', columns=$(feedstream schema --format duckdb))"
              feedstream schema --format spark > items.ddl
            """)

    @Option(help: "duckdb, spark or json-schema.")
    var format: RecordSchema.Format

    @Option(help: "The lines described: item (item and feed lines) or feed (document lines), as convert's --per.")
    var per: RecordSchema.Lines = .item

    func run() throws {
        var text = RecordSchema.text(format, lines: per)
        text.withUTF8 { _ = write(1, $0.baseAddress, $0.count) }
    }
}

extension RecordSchema.Format: ExpressibleByArgument {}
extension RecordSchema.Lines: ExpressibleByArgument {}
