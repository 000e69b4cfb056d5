// SPDX-License-Identifier: Apache-2.0
import FeedStreamTestSupport
import Foundation
import XCTest

/// A concatenated gzip dump with damaged members, converted as a user converts an
/// archive: every intact member's documents come out, each skipped range is an error
/// record naming its compressed bytes, and the output and records are the same however
/// it runs (a file, standard input, one thread, the read-ahead thread, parts on several
/// cores) and on every backend.
final class GzipGapCLITests: CLITestCase {
    func testADumpWithDamagedMembersKeepsEveryIntactOneWhateverTheReadPath() throws {
        let dir = try tempDir()
        let plain = dir.appendingPathComponent("dump.xml")
        let dump = dir.appendingPathComponent("damaged.xml.gz")
        let expected = dir.appendingPathComponent("gaps.json")
        try sh("python3 corpus/generate.py dump --size-mb 8 --seed 11 -o '\(plain.path)' > /dev/null")
        // Members of 150 KB of the text, cut anywhere (not where documents begin),
        // compressed apart; then one corrupt, one cut short (the next follows at once),
        // garbage between two, a damaged header. The script writes where each gap runs.
        try sh("""
            python3 - '\(plain.path)' '\(dump.path)' '\(expected.path)' <<'PY'
            import gzip, json, sys
            text = open(sys.argv[1], 'rb').read()
            ms = [bytearray(gzip.compress(text[i:i + 150000], mtime=0)) for i in range(0, len(text), 150000)]
            ms[7][len(ms[7]) // 2] ^= 0x5A
            ms[15] = ms[15][:len(ms[15]) // 2]
            ms[30][12] ^= 0xFF
            out, gaps = bytearray(), []
            for i, m in enumerate(ms):
                if i == 22:
                    gaps.append([len(out), len(out) + 18])
                    out += b'not a gzip member '
                if i in (7, 15, 30):
                    gaps.append([len(out), len(out) + len(m)])
                out += m
            open(sys.argv[2], 'wb').write(out)
            json.dump(sorted(gaps), open(sys.argv[3], 'w'))
            PY
            """)
        let size = try XCTUnwrap(FileManager.default.attributesOfItem(atPath: dump.path)[.size] as? Int)
        XCTAssertGreaterThan(size, 1 << 20, "over the read-ahead threshold")
        let stream = try Data(contentsOf: dump)

        var outputs: [String: (out: String, errors: String)] = [:]
        for (label, args, stdin) in [
            ("-j 1", ["-j", "1", dump.path], false),
            ("-j 2", ["-j", "2", dump.path], false),
            ("-j 4 (parts)", ["-j", "4", dump.path], false),
            ("--no-pipeline", ["-j", "1", "--no-pipeline", dump.path], false),
            ("standard input", ["-j", "2", "-"], true),
            ("expat -j 4", ["-j", "4", "--backend", "expat", dump.path], false),
            ("libxml2 -j 2", ["-j", "2", "--backend", "libxml2", dump.path], false),
        ] as [(String, [String], Bool)] {
            let errors = dir.appendingPathComponent("errors.jsonl")
            let r = try run(["convert", "-q", "--errors", errors.path] + args, stdin: stdin ? Data(stream) : nil)
            XCTAssertEqual(r.status, 1, "\(label): something was lost, and said so: \(r.err)")
            let source = stdin ? "-" : dump.path
            let out = r.out.replacingOccurrences(of: "\"source\":\"\(source)\"", with: "\"source\":\"S\"")
            let records = try String(contentsOf: errors, encoding: .utf8)
                .replacingOccurrences(of: "\"file\":\"\(source)\"", with: "\"file\":\"S\"")
            outputs[label] = (out, records)
        }
        let first = try XCTUnwrap(outputs["-j 1"])
        for (label, o) in outputs {
            XCTAssertEqual(o.out, first.out, "\(label): the lines")
            XCTAssertEqual(o.errors, first.errors, "\(label): the error records")
        }

        // The gaps: each damaged member's bytes, from its first to the next member's,
        // and the garbage.
        let gaps = first.errors.split(separator: "\n").compactMap { line -> [Int]? in
            guard let o = try? JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any],
                  let at = o["compressed_offset"] as? Int, let n = o["compressed_length"] as? Int else { return nil }
            XCTAssertEqual(o["code"] as? String, "gzip")
            XCTAssertEqual(o["document"] as? Int, 0)
            return [at, at + n]
        }
        let want = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: expected)) as? [[Int]])
        XCTAssertEqual(gaps, want)

        // Every document that lies whole in intact members is converted: the items differ
        // from the intact dump's only around the four gaps.
        func items(_ out: String, _ source: String) -> Set<String> {
            Set(out.split(separator: "\n").filter { $0.contains("\"kind\":\"item\"") }.map { line in
                line.replacingOccurrences(of: "\"source\":\"\(source)\"", with: "")
                    .replacingOccurrences(of: #""document":[0-9]+"#, with: "", options: .regularExpression)
            })
        }
        let wanted = items(try run(["convert", "-q", plain.path]).out, plain.path)
        let got = items(first.out, "S")
        XCTAssertGreaterThan(wanted.count, 3000)
        // At most an item per gap differs: the one a gap cut, as recovered.
        XCTAssertLessThanOrEqual(got.subtracting(wanted).count, gaps.count, "nothing made up")
        XCTAssertLessThan(wanted.subtracting(got).count, wanted.count / 10, "only the documents the gaps cut")
    }
}

/// A zstd dump, as archives publish them: the same lines as its gzip twin, however it
/// runs; a damaged frame keeps the frames after it.
final class ZstdInputCLITests: CLITestCase {
    func testAZstdDumpConvertsToTheLinesOfItsGzipTwinWhateverTheReadPath() throws {
        let dir = try tempDir()
        let plain = dir.appendingPathComponent("dump.xml")
        let gz = dir.appendingPathComponent("dump.xml.gz")
        try sh("python3 corpus/generate.py dump --size-mb 6 --seed 5 -o '\(gz.path)' > /dev/null && gzip -dc '\(gz.path)' > '\(plain.path)'")
        let text = try [UInt8](Data(contentsOf: plain))
        // Frames of 200 KB, cut anywhere; a copy with one frame damaged.
        let frames = stride(from: 0, to: text.count, by: 200_000).map { zstd(Array(text[$0..<min($0 + 200_000, text.count)])) }
        let zst = dir.appendingPathComponent("dump.xml.zst")
        try Data(frames.flatMap { $0 }).write(to: zst)
        var damaged = frames
        damaged[3][damaged[3].count / 2] ^= 0x5A
        let broken = dir.appendingPathComponent("broken.xml.zst")
        try Data(damaged.flatMap { $0 }).write(to: broken)

        func lines(_ r: (status: Int32, out: String, err: String), _ source: String) -> String {
            r.out.replacingOccurrences(of: "\"source\":\"\(source)\"", with: "\"source\":\"S\"")
        }
        let twin = try run(["convert", "-q", gz.path])
        XCTAssertEqual(twin.status, 0, twin.err)
        for args in [["-j", "1"], ["-j", "2"], ["-j", "4"], ["-j", "1", "--no-pipeline"]] {
            let r = try run(["convert", "-q"] + args + [zst.path])
            XCTAssertEqual(r.status, 0, "\(args): \(r.err)")
            XCTAssertEqual(lines(r, zst.path), lines(twin, gz.path), "\(args)")
        }
        let piped = try run(["convert", "-q", "-"], stdin: try Data(contentsOf: zst))
        XCTAssertEqual(lines(piped, "-"), lines(twin, gz.path), "standard input")

        var outputs: Set<String> = []
        for args in [["-j", "1"], ["-j", "2"], ["-j", "4"]] {
            let errors = dir.appendingPathComponent("errors.jsonl")
            let r = try run(["convert", "-q", "--errors", errors.path] + args + [broken.path])
            XCTAssertEqual(r.status, 1, "\(args)")
            let records = try String(contentsOf: errors, encoding: .utf8)
            let start = frames[0..<3].map(\.count).reduce(0, +)
            XCTAssertTrue(records.contains("\"code\":\"zstd\",\"offset\":"), records)
            XCTAssertTrue(records.contains("\"compressed_offset\":\(start),\"compressed_length\":\(frames[3].count)}"), records)
            outputs.insert(r.out + records)
            // The items of the frames after it are there: the last document's among them.
            func items(_ text: String) -> [String] {
                text.split(separator: "\n").filter { $0.contains("\"kind\":\"item\"") }.map {
                    $0.replacingOccurrences(of: #""document":[0-9]+"#, with: "", options: .regularExpression)
                }
            }
            let got = Set(items(lines(r, broken.path)))
            let all = items(lines(twin, gz.path))
            XCTAssertTrue(got.isSuperset(of: all.suffix(20)), "\(args): the last items")
            XCTAssertGreaterThan(got.count, all.count * 9 / 10, "\(args)")
        }
        XCTAssertEqual(outputs.count, 1, "the same lines and records whatever -j")
    }
}
