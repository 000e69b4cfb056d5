// SPDX-License-Identifier: Apache-2.0
import Foundation
import FeedStreamTestSupport
import XCTest

/// The output as its consumers load it: `feedstream schema` describes every
/// member with its type, every shard of the real corpus loads into one DuckDB table
/// with it, and a leap second is read by Python, DuckDB and pandas. The loading is done
/// by Tests/consumers/consumers.py; a check whose Python module is missing skips with a
/// line saying so ("consumer check skipped"), on which .ci/run fails (Tests/consumers/setup.sh installs them).
final class ConsumerTests: CLITestCase {
    /// Runs consumers.py CHECK with the built binary; its output is the test's message.
    private func consumers(_ check: String, _ args: [String] = []) throws {
        try pythonCheck("Tests/consumers/consumers.py", [check, binary.path] + args)
    }

    /// Every member of convert's output, in both layouts, is in the JSON Schema with its
    /// type (so the DuckDB and Spark schemas, made from the same types, cover it too), and
    /// every normalized date is read by `datetime.fromisoformat`.
    func testEveryOutputMemberIsInTheSchemaWithItsType() throws {
        let crawl = try tempDir().appendingPathComponent("crawl.warc.gz")   // lines with their warc member
        try sh("python3 corpus/generate.py warc --size-mb 0.3 -o '\(crawl.path)' 2>/dev/null")
        try consumers("schema-keys", ["corpus/feeds", "corpus/encodings", "corpus/bad", crawl.path])
    }

    func testEveryRealCorpusShardLoadsIntoOneDuckDBTable() throws {
        let real = Self.repo.appendingPathComponent("../shared/corpus/real").standardizedFileURL
        if !(FileManager.default.fileExists(atPath: real.path)) { throw skip("real corpus: \(real.path) is not present") }
        try consumers("duckdb", [real.path])
    }

    /// `-o FILE.gz` and `-o FILE.zst` load into DuckDB (with `feedstream schema`) and
    /// pandas with the rows of the plain output.
    func testCompressedOutputLoadsIntoDuckDBAndPandas() throws {
        try consumers("compressed", ["corpus/feeds", "corpus/encodings", "corpus/bad"])
    }

    /// `:60` is written `:59` in the normalized member (Python, DuckDB and pandas reject
    /// `:60`); the `_raw` member keeps it.
    func testLeapSecondIsReadByPythonDuckDBAndPandas() throws {
        try consumers("leap")
    }

    /// The three formats name the same members; the DuckDB and Spark ones type them as
    /// documented.
    func testSchemaFormats() throws {
        let duckdb = try run(["schema", "--format", "duckdb"])
        XCTAssertEqual(duckdb.status, 0, duckdb.err)
        XCTAssertTrue(duckdb.out.hasPrefix("{'schema': 'BIGINT', 'kind': 'VARCHAR', 'source': 'VARCHAR', 'warc': 'STRUCT(\"record_id\" VARCHAR, \"target_uri\" VARCHAR, \"date\" VARCHAR, \"offset\" BIGINT)', 'document': 'BIGINT', 'index': 'BIGINT', 'feed': 'STRUCT(\"format\" VARCHAR, "), duckdb.out)
        XCTAssertTrue(duckdb.out.contains("'published': 'TIMESTAMPTZ', 'published_raw': 'VARCHAR'"), duckdb.out)
        XCTAssertTrue(duckdb.out.contains("'ttl': 'VARCHAR'"), duckdb.out)
        XCTAssertTrue(duckdb.out.contains("'items': 'BIGINT'"), duckdb.out)
        let spark = try run(["schema", "--format", "spark"])
        XCTAssertTrue(spark.out.hasPrefix("`schema` BIGINT, `kind` STRING, `source` STRING, `warc` STRUCT<`record_id`: STRING, `target_uri`: STRING, `date`: STRING, `offset`: BIGINT>, `document` BIGINT, `index` BIGINT, "), spark.out)
        XCTAssertTrue(spark.out.contains("`published` TIMESTAMP, `published_raw` STRING"), spark.out)
        XCTAssertTrue(spark.out.contains("`links` ARRAY<STRUCT<`href`: STRING, `rel`: STRING"), spark.out)
        let json = try run(["schema", "--format", "json-schema"])
        let item = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(json.out.utf8)) as? [String: Any])
        let properties = try XCTUnwrap(item["properties"] as? [String: Any])
        let document = try run(["schema", "--format", "json-schema", "--per", "feed"])
        let doc = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(document.out.utf8)) as? [String: Any])
        let docItems = try XCTUnwrap((doc["properties"] as? [String: Any])?["items"] as? [String: Any])
        XCTAssertEqual(docItems["type"] as? String, "array")
        XCTAssertEqual((properties["items"] as? [String: Any])?["type"] as? String, "integer")
        // Every top-level DuckDB column is a JSON Schema property, and the reverse.
        let columns = Set(duckdb.out.matches(of: /'([a-z_]+)': '/).map { String($0.1) })
        XCTAssertEqual(columns, Set(properties.keys))
        XCTAssertEqual(try run(["schema", "--format", "csv"]).status, 2)
    }
}
