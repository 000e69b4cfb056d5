// SPDX-License-Identifier: Apache-2.0
/// The type of every member of the JSON Lines output, for loaders that would otherwise
/// guess (`feedstream schema`): DuckDB's `read_json(..., columns=...)`, Spark's
/// `spark.read.schema(...)`, and JSON Schema (pandas `dtype`, validators).
///
/// Derived from the member types of RecordLayout.swift, never listed here: free text and
/// `_raw` dates are strings, the numbers the converter writes are integers, normalized
/// dates are timestamps.
package enum RecordSchema {
    /// Which lines the schema describes: `--per item` output (item lines and feed lines
    /// in one file: the union of their members) or `--per feed` (document lines).
    package enum Lines: String, CaseIterable, Sendable {
        case item, feed
    }

    package enum Format: String, CaseIterable, Sendable {
        case duckdb, spark
        case jsonSchema = "json-schema"
    }

    /// The members of one line of `lines` output, each once, in writing order.
    package static func fields(_ lines: Lines) -> [MemberField] {
        switch lines {
        case .item: return union(RecordLayout.itemLine, RecordLayout.feedLine)
        case .feed: return RecordLayout.documentLine
        }
    }

    /// `a`'s members, then those of `b` that `a` lacks; objects present in both get the
    /// union of their members. (A key with two different non-object types would keep
    /// `a`'s: `conflicts` finds them, and a test checks there are none.)
    package static func union(_ a: [MemberField], _ b: [MemberField]) -> [MemberField] {
        var out = a
        for f in b {
            if let i = out.firstIndex(where: { $0.key == f.key }) {
                if case .object(let x) = out[i].type, case .object(let y) = f.type {
                    out[i] = MemberField(f.key, .object(union(x, y)))
                }
            } else {
                out.append(f)
            }
        }
        return out
    }

    /// Keys typed differently in `a` and `b` (paths joined with dots).
    package static func conflicts(_ a: [MemberField], _ b: [MemberField], prefix: String = "") -> [String] {
        var found: [String] = []
        for f in b {
            guard let g = a.first(where: { $0.key == f.key }) else { continue }
            if case .object(let x) = g.type, case .object(let y) = f.type {
                found += conflicts(x, y, prefix: prefix + f.key + ".")
            } else if g.type != f.type {
                found.append(prefix + f.key)
            }
        }
        return found
    }

    /// The schema as text, ending with a newline.
    package static func text(_ format: Format, lines: Lines) -> String {
        let f = fields(lines)
        switch format {
        case .duckdb: return duckdbColumns(f) + "\n"
        case .spark: return f.map { "\(sparkName($0.key)) \(spark($0.type))" }.joined(separator: ", ") + "\n"
        case .jsonSchema:
            return "{\"$schema\":\"https://json-schema.org/draft/2020-12/schema\",\"title\":\"FeedStream JSON Lines, "
                + "schema 1, --per \(lines.rawValue)\",\"type\":\"object\",\"properties\":"
                + jsonProperties(f) + "}\n"
        }
    }

    // MARK: DuckDB: a struct literal for read_json's `columns`

    private static func duckdbColumns(_ fields: [MemberField]) -> String {
        "{" + fields.map { "'\($0.key)': '\(duckdb($0.type))'" }.joined(separator: ", ") + "}"
    }

    private static func duckdb(_ t: MemberType) -> String {
        switch t {
        case .string: return "VARCHAR"
        case .integer: return "BIGINT"
        case .number: return "DOUBLE"
        case .boolean: return "BOOLEAN"
        case .timestamp: return "TIMESTAMPTZ"
        case .array(let e): return duckdb(e) + "[]"
        // Quoted names (`group`, `type` are keywords); inside the single-quoted literal.
        case .object(let fs): return "STRUCT(" + fs.map { "\"\($0.key)\" \(duckdb($0.type))" }.joined(separator: ", ") + ")"
        }
    }

    // MARK: Spark: a DDL string for spark.read.schema

    private static func sparkName(_ key: String) -> String { "`\(key)`" }

    private static func spark(_ t: MemberType) -> String {
        switch t {
        case .string: return "STRING"
        case .integer: return "BIGINT"
        case .number: return "DOUBLE"
        case .boolean: return "BOOLEAN"
        case .timestamp: return "TIMESTAMP"
        case .array(let e): return "ARRAY<\(spark(e))>"
        case .object(let fs): return "STRUCT<" + fs.map { "\(sparkName($0.key)): \(spark($0.type))" }.joined(separator: ", ") + ">"
        }
    }

    // MARK: JSON Schema

    private static func jsonProperties(_ fields: [MemberField]) -> String {
        "{" + fields.map { "\"\($0.key)\":\(json($0.type))" }.joined(separator: ",") + "}"
    }

    private static func json(_ t: MemberType) -> String {
        switch t {
        case .string: return "{\"type\":\"string\"}"
        case .integer: return "{\"type\":\"integer\"}"
        case .number: return "{\"type\":\"number\"}"
        case .boolean: return "{\"type\":\"boolean\"}"
        case .timestamp: return "{\"type\":\"string\",\"format\":\"date-time\"}"
        case .array(let e): return "{\"type\":\"array\",\"items\":\(json(e))}"
        case .object(let fs): return "{\"type\":\"object\",\"properties\":\(jsonProperties(fs))}"
        }
    }
}
