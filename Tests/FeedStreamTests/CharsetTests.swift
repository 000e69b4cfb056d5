// SPDX-License-Identifier: Apache-2.0
import FeedStream
@testable import FeedStreamCore
@testable import FeedStreamSwift
@testable import FeedStreamBatch
@testable import FeedStreamTools
import Foundation
import FeedStreamTestSupport
import XCTest

/// Charsets are decoded once, the way expat decodes them, by every backend: the same
/// charsets accepted, the same bytes rejected, the same UTF-8 out, whatever the input's
/// chunking (docs/SCHEMA.md, "Backends"). Each case has its own expected output bytes.
/// A failed document's `skipped` is the rest of the input: each case is one document.
final class CharsetTests: XCTestCase {
    /// `data` in chunks of `size` bytes.
    private func chunked(_ data: [UInt8], _ size: Int) -> FeedInput {
        final class Cursor: @unchecked Sendable {
            let data: [UInt8]
            var offset = 0
            var chunk: UnsafeMutableRawBufferPointer
            init(_ bytes: [UInt8], _ size: Int) {
                data = bytes
                chunk = .allocate(byteCount: max(size, 1), alignment: 1)
            }
            deinit { chunk.deallocate() }
        }
        let cursor = Cursor(data, size)
        return .chunks(FeedChunks {
            guard cursor.offset < cursor.data.count else { return nil }
            let n = min(size, cursor.data.count - cursor.offset)
            cursor.data.withUnsafeBytes { src in
                cursor.chunk.copyMemory(from: UnsafeRawBufferPointer(rebasing: src[cursor.offset..<(cursor.offset + n)]))
            }
            cursor.offset += n
            return UnsafeRawBufferPointer(rebasing: cursor.chunk[0..<n])
        })
    }

    /// Checks that every backend, given `data` whole, in chunks of 1 byte and 4 KB and as a file,
    /// writes exactly `expected` (JSON Lines, source "t"), error positions included.
    private func assertEveryBackendWrites(_ data: [UInt8], _ expected: String, _ name: String,
                                          backends: [FeedBackend] = FeedBackend.allCases,
                                          file: StaticString = #filePath, line: UInt = #line) throws {
        // A file too: the C core reads it straight into expat's own buffer.
        let path = FileManager.default.temporaryDirectory.appendingPathComponent("charset-\(UUID().uuidString).xml").path
        try Data(data).write(to: URL(fileURLWithPath: path))
        defer { try? FileManager.default.removeItem(atPath: path) }
        for backend in backends {
            let want = Array(expected.utf8)
            for (how, input) in [("whole", FeedInput.bytes(data)), ("1-byte chunks", chunked(data, 1)),
                                 ("4 KB chunks", chunked(data, 4096)), ("file", FeedInput.file(path: path))] {
                let out = MemoryOutput()
                let writer = JSONLinesWriter(output: out)
                writer.source = "t"
                // Strict: these cases are about what the charset stage accepts and rejects
                // (the recovery path would re-read a rejected document; RecoveryTests).
                try backend.makeParser(limits: .default, strict: true).parse(input, handler: writer)
                try writer.flush()
                // Bytes, not Strings (String == holds for canonically equivalent text).
                XCTAssertTrue(out.bytes == want, "\(name): \(backend.rawValue), \(how):\n\(out.string)",
                              file: file, line: line)
            }
        }
    }

    private func doc(_ prefix: String, _ middle: [UInt8], _ suffix: String) -> [UInt8] {
        Array(prefix.utf8) + middle + Array(suffix.utf8)
    }

    func testWindows1255CombiningMarksAreNotComposed() throws {
        // Vav (E5) + dagesh (CC): two characters, U+05D5 U+05BC (D7 95 D6 BC), never
        // iconv's composed U+FB35 (EF AC B5). A long run, so that 4 KB chunks cut it.
        let pair: [UInt8] = [0xE5, 0xCC]
        let many = [UInt8]((0..<3000).flatMap { _ in pair })
        let data = doc("<?xml version=\"1.0\" encoding=\"windows-1255\"?>\n<rss version=\"2.0\"><channel><title>T</title><item><title>",
                       pair, "</title><description>") + many + Array("</description></item></channel></rss>\n".utf8)
        let vavDagesh = "\u{05D5}\u{05BC}"
        XCTAssertEqual(Array(vavDagesh.utf8), [0xD7, 0x95, 0xD6, 0xBC])
        let expected = """
            {"schema":1,"kind":"item","source":"t","document":1,"index":0,"feed":{"format":"rss20","title":"T"},\
            "title":"\(vavDagesh)","title_type":"text","summary":"\(String(repeating: vavDagesh, count: 3000))","summary_type":"html"}
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"windows-1255","title":"T","title_type":"text","items":1}

            """
        try assertEveryBackendWrites(data, expected, "windows-1255")
    }

    func testWindows1258IsNotComposedEither() throws {
        // "a" + combining acute (CC in windows-1258): U+0061 U+0301, not U+00E1.
        let data = doc("<?xml version=\"1.0\" encoding=\"windows-1258\"?><rss version=\"2.0\"><channel><title>", [0x61, 0xEC],
                       "</title></channel></rss>")
        let expected = """
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"windows-1258","title":"a\u{0301}","title_type":"text","items":0}

            """
        XCTAssertEqual(Array("a\u{0301}".utf8), [0x61, 0xCC, 0x81])
        try assertEveryBackendWrites(data, expected, "windows-1258")
    }

    /// TIS-620 as Python's codec reads it: bytes 0x80-0x9F (which iconv leaves undefined)
    /// are the C1 controls, written as windows-1252's characters, which for Thai feeds (in
    /// practice windows-874) are the right quotes, dashes and ellipsis, so a document using
    /// them does not fail at the first. 0xA0 stays undefined, as in Python's codec.
    func testTIS620ReadsBytes80To9FAsPythonDoes() throws {
        // ก (A1), “ (93) ... ” (94), … (85), – (96), € (80), and 81 (no windows-1252
        // character: the C1 control U+0081 as it is).
        let data = doc("<?xml version=\"1.0\" encoding=\"TIS-620\"?><rss version=\"2.0\"><channel><title>",
                       [0xA1, 0x20, 0x93, 0xA1, 0x94, 0x85, 0x96, 0x80, 0x81], "</title></channel></rss>")
        let expected = """
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"tis-620",\
            "title":"\u{0E01} \u{201C}\u{0E01}\u{201D}\u{2026}\u{2013}\u{20AC}\u{0081}","title_type":"text","items":0}

            """
        try assertEveryBackendWrites(data, expected, "tis-620")
        // 0xA0: undefined in TIS-620 (iconv's and Python's): the document fails there.
        let bad = doc("<?xml version=\"1.0\" encoding=\"tis620\"?><rss version=\"2.0\"><channel><title>",
                      [0xA1, 0xA0], "</title></channel></rss>")
        for backend in FeedBackend.allCases {
            let text = try jsonLines(.bytes(bad), source: "t", parser: backend.makeParser(limits: .default, strict: true)).text
            XCTAssertTrue(text.contains("\"error\":{\"code\":\"xml\""), "\(backend): \(text)")
            XCTAssertTrue(text.contains("\"offset\":75"), "\(backend): \(text)")
        }
    }

    func testUTF7IsAnUnknownEncodingForEveryBackend() throws {
        // expat rejects UTF-7's byte map ('+' is not itself): "unknown encoding" at the
        // name, in every backend (libxml2 alone would accept it, leaving "A+ImIDkQ."
        // undecoded).
        let data = Array("<?xml version=\"1.0\" encoding=\"UTF-7\"?>\n<rss version=\"2.0\"><channel><title>A+ImIDkQ.</title></channel></rss>\n".utf8)
        let expected = """
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"unknown","items":0,\
            "error":{"code":"xml","message":"unknown encoding","line":1,"column":31,"offset":30,"skipped":\(data.count - 30)}}

            """
        try assertEveryBackendWrites(data, expected, "UTF-7")
    }

    /// A dump of documents in a multi-byte charset (GB2312: 中 D6 D0, 文 CE C4): where
    /// each ends is found in its input bytes, so the next starts right after it, whatever
    /// the chunking, on every backend; a document that fails costs only itself.
    func testDocumentsInAMultiByteCharsetFollowEachOther() throws {
        let zhongwen: [UInt8] = [0xD6, 0xD0, 0xCE, 0xC4]
        func document(_ n: Int, broken: Bool = false) -> [UInt8] {
            var d = Array("<?xml version=\"1.0\" encoding=\"GB2312\"?>\n<rss version=\"2.0\"><channel><title>".utf8)
                + zhongwen + Array("\(n)</title>\n".utf8)
            for i in 0..<40 {
                // Items of 33 to 53 bytes: characters across every alignment.
                d += Array("<item><title>".utf8) + zhongwen + Array(" \(n)-\(i)</title>".utf8)
                    + Array(repeating: 0x20, count: i % 21) + Array("</item>\n".utf8)
                if broken && i == 20 { d += Array("<item><title>".utf8) + zhongwen + Array("</titel></item>\n".utf8) }
            }
            return d + Array("</channel></rss>\n".utf8)
        }
        let data = document(1) + document(2, broken: true) + document(3)
        for backend in FeedBackend.allCases {
            for (how, input) in [("whole", FeedInput.bytes(data)), ("1-byte chunks", chunked(data, 1)),
                                 ("100-byte chunks", chunked(data, 100))] {
                let out = MemoryOutput()
                let writer = JSONLinesWriter(output: out)
                try backend.makeParser(limits: .default).parse(input, handler: writer)
                try writer.flush()
                var titles: [Int: [String]] = [:], errors: [Int: String] = [:]
                for line in out.string.split(separator: "\n") {
                    let r = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    let document = try XCTUnwrap(r["document"] as? Int)
                    if r["kind"] as? String == "item" { titles[document, default: []].append(r["title"] as? String ?? "") }
                    if let e = r["error"] as? [String: Any] { errors[document] = e["message"] as? String }
                }
                let context = "\(backend.rawValue), \(how)"
                XCTAssertEqual(titles[1], (0..<40).map { "中文 1-\($0)" }, context)
                XCTAssertEqual(titles[2]?.prefix(21), (0..<21).map { "中文 2-\($0)" }[...], context)
                // expat's "mismatched tag", libxml2's "Opening and ending tag mismatch: ...".
                XCTAssertTrue(errors[2]?.lowercased().contains("mismatch") == true, "\(context): \(errors)")
                XCTAssertEqual(titles[3], (0..<40).map { "中文 3-\($0)" }, context)
                XCTAssertNil(errors[1], context)
                XCTAssertNil(errors[3], context)
            }
        }
    }

    func testISO2022JPEscapesAreInvalidForEveryBackend() throws {
        // The charset is accepted (its ASCII is ASCII), but ESC is no character of its
        // byte map: the document fails at the first escape, after the item before it.
        let data = doc("<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?>\n<rss version=\"2.0\"><channel><title>T</title><item><title>a</title></item><item><title>",
                       [0x1B, 0x24, 0x42, 0x46, 0x7C, 0x4B, 0x5C, 0x1B, 0x28, 0x42], "</title></item></channel></rss>\n")
        let expected = """
            {"schema":1,"kind":"item","source":"t","document":1,"index":0,"feed":{"format":"rss20","title":"T"},"title":"a","title_type":"text"}
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"iso-2022-jp","title":"T","title_type":"text","items":1,\
            "error":{"code":"xml","message":"not well-formed (invalid token)","line":2,"column":87,"offset":131,"skipped":\(data.count - 131)}}

            """
        try assertEveryBackendWrites(data, expected, "ISO-2022-JP")
        // Plain ASCII in ISO-2022-JP is fine.
        let ascii = Array("<?xml version=\"1.0\" encoding=\"ISO-2022-JP\"?><rss version=\"2.0\"><channel><title>T</title></channel></rss>".utf8)
        try assertEveryBackendWrites(ascii, """
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"iso-2022-jp","title":"T","title_type":"text","items":0}

            """, "ISO-2022-JP, ASCII")
    }

    func testGB18030FourByteSequencesAreInvalidForEveryBackend() throws {
        // Two-byte sequences decode (A2 E3: the euro sign); a four-byte one (81 30 85 38:
        // U+00B5) is invalid at its first byte, as in expat.
        let good = doc("<?xml version=\"1.0\" encoding=\"GB18030\"?>\n<rss version=\"2.0\"><channel><title>", [0xA2, 0xE3],
                       "</title><item><title>a</title></item><item><title>")
            + [0x81, 0x30, 0x85, 0x38] + Array("</title></item></channel></rss>\n".utf8)
        let expected = """
            {"schema":1,"kind":"item","source":"t","document":1,"index":0,"feed":{"format":"rss20","title":"\u{20AC}"},"title":"a","title_type":"text"}
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"gb18030","title":"\u{20AC}","title_type":"text","items":1,\
            "error":{"code":"xml","message":"not well-formed (invalid token)","line":2,"column":87,"offset":128,"skipped":\(good.count - 128)}}

            """
        // The pure-Swift backend scans UTF-8 (the euro sign before the error is 3 bytes
        // there, 2 in the document): its position is mapped back to the document's.
        try assertEveryBackendWrites(good, expected, "GB18030")
    }

    /// UTF-16 text of `title` in a two-item document, little-endian
    /// with a byte order mark, or big-endian without; `units` replaces the title's
    /// U+FFFF placeholder.
    private func utf16Document(_ units: [UInt16], bigEndian: Bool) -> [UInt8] {
        let before = "<?xml version=\"1.0\" encoding=\"UTF-16\"?><rss version=\"2.0\"><channel><title>T</title><item><title>AB"
        let after = "XCD</title></item><item><title>2</title></item></channel></rss>"
        let all = Array(before.utf16) + units + Array(after.utf16)
        let body = all.flatMap { u -> [UInt8] in
            bigEndian ? [UInt8(u >> 8), UInt8(u & 0xFF)] : [UInt8(u & 0xFF), UInt8(u >> 8)]
        }
        return (bigEndian ? [] : [0xFF, 0xFE]) + body
    }

    func testUnpairedSurrogateIsAnErrorOnEveryBackend() throws {
        // A high surrogate followed by "X" is no character: expat itself would pair it
        // with the X and write U+1F458. Every backend rejects the
        // document there, with the same line and column, the item before it kept.
        for (name, units, bigEndian) in [("lone high, LE", [UInt16(0xD83D)], false),
                                          ("lone high, BE", [0xD83D], true),
                                          ("high high low, LE", [0xD83D, 0xD83D, 0xDC58], false),
                                          ("lone low, LE", [0xDC58], false)] {
            let data = utf16Document(units, bigEndian: bigEndian)
            // Characters before the surrogate: 98, then a byte order mark (a column, 2 bytes).
            let mark = bigEndian ? 0 : 1
            let expected = """
                {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"utf-16\(bigEndian ? "be" : "le")","title":"T","title_type":"text","items":0,\
                "error":{"code":"xml","message":"not well-formed (invalid token)","line":1,"column":\(99 + mark),"offset":\(2 * mark + 196),"skipped":\(data.count - 2 * mark - 196)}}

                """
            try assertEveryBackendWrites(data, expected, name)
        }
        // UTF-16BE without a mark whose first character is not `<` (a space: 00 20):
        // expat's own sniffing reads it as UTF-16BE (a zero first byte), and so does every
        // backend now. The C core took it for UTF-8 and left expat to it: the lone
        // surrogate went unmarked and expat joined it with the X (`AB👘CD`, exit 0, no
        // `encoding`); the Swift backend and libxml2 rejected the document at its first byte.
        // corpus/fuzz-regressions/utf16be-without-mark-space-first.xml is this document.
        let spaceFirst = Array(" <rss version=\"2.0\"><channel><title>T</title><item><title>a</title></item><item><title>AB".utf16)
            + [0xD83D] + Array("XCD</title></item></channel></rss>\n".utf16)
        let beBytes = spaceFirst.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] }
        try assertEveryBackendWrites(beBytes, """
            {"schema":1,"kind":"item","source":"t","document":1,"index":0,"feed":{"format":"rss20","title":"T"},"title":"a","title_type":"text"}
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"utf-16be","title":"T","title_type":"text","items":1,\
            "error":{"code":"xml","message":"not well-formed (invalid token)","line":1,"column":90,"offset":178,"skipped":\(beBytes.count - 178)}}

            """, "UTF-16BE without a mark, a space first")
        XCTAssertEqual(beBytes, try [UInt8](Data(contentsOf: Paths.corpus.appendingPathComponent(
            "fuzz-regressions/utf16be-without-mark-space-first.xml"))))
        // A pair is one character: U+1F458, 4 bytes of UTF-8.
        let pair = utf16Document([0xD83D, 0xDC58], bigEndian: false)
        try assertEveryBackendWrites(pair, """
            {"schema":1,"kind":"item","source":"t","document":1,"index":0,"feed":{"format":"rss20","title":"T"},"title":"AB\u{1F458}XCD","title_type":"text"}
            {"schema":1,"kind":"item","source":"t","document":1,"index":1,"feed":{"format":"rss20","title":"T"},"title":"2","title_type":"text"}
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"utf-16le","title":"T","title_type":"text","items":2}

            """, "pair")
    }

    /// The issue-16 document: "T\u{E9}\u{1F600}" as the title, in `encode`'s charset.
    private func encoded(_ declaration: String?, _ encode: (String) -> [UInt8]) -> [UInt8] {
        let decl = declaration.map { "<?xml version=\"1.0\" encoding=\"\($0)\"?>" } ?? ""
        return encode(decl + "<rss version=\"2.0\"><channel><title>T\u{E9}\u{1F600}</title></channel></rss>")
    }

    private func utf32(_ s: String, bigEndian: Bool, mark: Bool) -> [UInt8] {
        ((mark ? [0x0000_FEFF] : []) + s.unicodeScalars.map(\.value)).flatMap { v -> [UInt8] in
            let b = [UInt8(v >> 24), UInt8((v >> 16) & 0xFF), UInt8((v >> 8) & 0xFF), UInt8(v & 0xFF)]
            return bigEndian ? b : b.reversed()
        }
    }

    private func feedLine(_ encoding: String?, title: String = "T\u{E9}\u{1F600}") -> String {
        let e = encoding.map { ",\"encoding\":\"\($0)\"" } ?? ""
        return """
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0"\(e),"title":"\(title)","title_type":"text","items":0}

            """
    }

    /// Only expat's built-in names are UTF-16 or UTF-32: a name that merely begins like
    /// one ("UTF-16HE") is one expat does not know. In a UTF-16 document it is the
    /// declaration's error, in an 8-bit one an unknown encoding, on every backend (the
    /// Swift tokenizer took any name beginning "utf-16" for UTF-16: the differential
    /// fuzzer's finding, a dump whose first document declared "UTF-16HE").
    /// A UTF-8 byte order mark before a declaration naming an 8-bit charset by an alias
    /// (`IBM855` for cp855, `cp1251` for windows-1251): the mark is skipped and the
    /// document read in the declared charset, on every backend. The C core set the
    /// charset as expat's protocol encoding, so expat read the mark in it and failed at
    /// the first byte, and the search for the next document found the declaration as a
    /// document of its own (found by the differential fuzzer).
    func testAByteOrderMarkBeforeACharsetNamedByAnAlias() throws {
        for (name, byte, charset, character) in [("IBM855", UInt8(0xE9), "cp855", "ж"),
                                                 ("cp1251", 0xE9, "windows-1251", "й"),
                                                 ("windows-1251", 0xE9, "windows-1251", "й")] {
            let data = [0xEF, 0xBB, 0xBF] + Array("<?xml version=\"1.0\" encoding=\"\(name)\"?>\n<rss version=\"2.0\"><channel><title>x".utf8)
                + [byte] + Array("</title></channel></rss>\n".utf8)
            let expected = """
                {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"\(charset)","title":"x\(character)","title_type":"text","items":0}

                """
            try assertEveryBackendWrites(data, expected, name)
        }
    }

    /// A UTF-8 byte order mark before a declaration naming an 8-bit charset, by its own
    /// name or by an alias: the document is read in the declared charset on every
    /// backend (expat, given Latin-1 as its protocol encoding, read the mark in it, the
    /// mark won and the document failed at its first byte past ASCII), and the mark is
    /// one column on the first line (expat counted its 3 bytes where it read the
    /// declaration itself; the Swift backend trapped on a negative column when the
    /// charset was ASCII, which cannot decode the mark).
    func testAByteOrderMarkBeforeAnEightBitCharsetIsOneColumn() throws {
        let mark: [UInt8] = [0xEF, 0xBB, 0xBF]
        for (name, charset, character) in [("latin1", "iso-8859-1", "é"), ("l1", "iso-8859-1", "é"),
                                           ("ISO-8859-1", "iso-8859-1", "é"), ("windows-1252", "windows-1252", "é"),
                                           ("cp1251", "windows-1251", "й")] {
            let head = "<?xml version=\"1.0\" encoding=\"\(name)\"?><rss version=\"2.0\"><channel><title>x"
            let good = mark + Array(head.utf8) + [0xE9] + Array("</title></channel></rss>\n".utf8)
            try assertEveryBackendWrites(good, """
                {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"\(charset)","title":"x\(character)","title_type":"text","items":0}

                """, name)
            // A `<` that starts no markup, on the first line: its offset counts the
            // mark's 3 bytes, its column the mark as one character.
            let bad = mark + Array(head.utf8) + [0xE9] + Array(" <</title></channel></rss>\n".utf8)
            let at = 3 + head.utf8.count + 3   // the second `<`
            let out = try backendLines(bad, strict: true)
            for (backend, text) in out {
                XCTAssertTrue(text.contains(#""line":1,"column":\#(at - 1),"offset":\#(at)"#),
                              "\(name), \(backend): \(text)")
            }
        }
        // ASCII cannot decode the mark: the first byte past ASCII is the error.
        for name in ["ascii", "US-ASCII"] {
            let head = "<?xml version=\"1.0\" encoding=\"\(name)\"?><rss version=\"2.0\"><channel><title>x"
            let data = mark + Array(head.utf8) + [0xE9] + Array("</title></channel></rss>\n".utf8)
            let at = 3 + head.utf8.count
            for (backend, text) in try backendLines(data, strict: true) {
                XCTAssertTrue(text.contains(#""line":1,"column":\#(at - 1),"offset":\#(at)"#),
                              "\(name), \(backend): \(text)")
            }
        }
    }

    /// Each backend's JSON Lines for `data` (whole), by backend name.
    private func backendLines(_ data: [UInt8], strict: Bool) throws -> [(String, String)] {
        try FeedBackend.allCases.map { backend in
            let out = MemoryOutput()
            let writer = JSONLinesWriter(output: out)
            writer.source = "t"
            try backend.makeParser(limits: .default, strict: strict).parse(.bytes(data), handler: writer)
            try writer.flush()
            return (backend.rawValue, out.string)
        }
    }

    func testNamesThatOnlyBeginLikeUTF16AreNotUTF16OnEveryBackend() throws {
        let utf16BE = { (s: String) in Array(s.utf16).flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
        for declaration in ["UTF-16", "utf-16be", "utf16"] {
            try assertEveryBackendWrites(encoded(declaration, utf16BE), feedLine("utf-16be"),
                                         "UTF-16BE declared \(declaration)")
        }
        // The name is character 30 (`<?xml version="1.0" encoding="`): column 31, and
        // byte 60 in UTF-16, byte 30 in UTF-8.
        for declaration in ["UTF-16HE", "utf-16bex", "UTF-32X", "UTF-8"] {
            let data = encoded(declaration, utf16BE)
            let expected = """
                {"schema":1,"kind":"feed","source":"t","document":1,"format":"unknown","items":0,\
                "error":{"code":"xml","message":"encoding specified in XML declaration is incorrect","line":1,"column":31,"offset":60,"skipped":\(data.count - 60)}}

                """
            try assertEveryBackendWrites(data, expected, "UTF-16BE declared \(declaration)")
        }
        for declaration in ["UTF-16HE", "UTF-32X"] {
            let data = encoded(declaration) { Array($0.utf8) }
            let expected = """
                {"schema":1,"kind":"feed","source":"t","document":1,"format":"unknown","items":0,\
                "error":{"code":"xml","message":"unknown encoding","line":1,"column":31,"offset":30,"skipped":\(data.count - 30)}}

                """
            try assertEveryBackendWrites(data, expected, "UTF-8 declared \(declaration)")
        }
    }

    func testUTF32WithAndWithoutAMarkOnEveryBackend() throws {
        // expat does not read UTF-32; every backend does, the same way,
        // and says so in the feed record.
        for bigEndian in [false, true] {
            let order = bigEndian ? "be" : "le"
            for mark in [true, false] {
                for declaration in [nil, "UTF-32", "utf-32\(order)", "u32"] {
                    let data = encoded(declaration) { utf32($0, bigEndian: bigEndian, mark: mark) }
                    try assertEveryBackendWrites(data, feedLine("utf-32\(order)"),
                                                 "UTF-32\(order), mark \(mark), declared \(declaration ?? "-")")
                }
            }
            // The other byte order declared, or UTF-16: the declaration's error, at its name
            // (character 30; a mark is a column), in input bytes on every backend.
            for declaration in ["utf-32\(bigEndian ? "le" : "be")", "UTF-16"] {
                let data = encoded(declaration) { utf32($0, bigEndian: bigEndian, mark: true) }
                let expected = """
                    {"schema":1,"kind":"feed","source":"t","document":1,"format":"unknown","items":0,\
                    "error":{"code":"xml","message":"encoding specified in XML declaration is incorrect","line":1,"column":32,"offset":124,"skipped":\(data.count - 124)}}

                    """
                try assertEveryBackendWrites(data, expected, "UTF-32\(order) declared \(declaration)")
            }
        }
        // A value that is no character (a surrogate, U+D800): the document fails there.
        var bad = encoded(nil) { utf32($0, bigEndian: false, mark: true) }
        let at = 4 * 37   // the mark, then "<rss version="2.0"><channel><title>T"
        XCTAssertEqual(bad[at], 0xE9)
        bad.replaceSubrange(at..<(at + 4), with: [0x00, 0xD8, 0x00, 0x00])
        let expected = """
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"utf-32le","items":0,\
            "error":{"code":"xml","message":"not well-formed (invalid token)","line":1,"column":38,"offset":\(at),"skipped":\(bad.count - at)}}

            """
        try assertEveryBackendWrites(bad, expected, "UTF-32 surrogate")
    }

    func testCharsetAliasesPythonAndIconvAcceptOnEveryBackend() throws {
        // One table (charset_aliases.def) for every backend: Python's and iconv's names.
        for name in ["latin1", "l1", "latin_1", "ISO8859-1", "iso_8859_1", "cp819"] {
            let data = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?><rss version=\"2.0\"><channel><title>T\u{E9}</title></channel></rss>"
                .unicodeScalars.map { UInt8($0.value) })
            try assertEveryBackendWrites(data, feedLine("iso-8859-1", title: "T\u{E9}"), name)
        }
        for name in ["cp1252", "windows_1252", "Windows-1252"] {
            // 0x80 is the euro sign in windows-1252.
            let data = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?><rss version=\"2.0\"><channel><title>T".utf8) + [0x80]
                + Array("</title></channel></rss>".utf8)
            try assertEveryBackendWrites(data, feedLine("windows-1252", title: "T\u{20AC}"), name)
        }
        for name in ["utf8", "u8", "UTF_8", "utf", "cp65001"] {
            try assertEveryBackendWrites(encoded(name) { Array($0.utf8) }, feedLine(nil), name)
        }
        for name in ["u16", "utf16", "utf_16", "UTF16", "UTF-16"] {
            let data = encoded(name) { [0xFF, 0xFE] + $0.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] } }
            try assertEveryBackendWrites(data, feedLine("utf-16le"), name)
        }
        for name in ["utf_16be", "UnicodeBigUnmarked", "utf16be"] {
            let data = encoded(name) { $0.utf16.flatMap { [UInt8($0 >> 8), UInt8($0 & 0xFF)] } }
            try assertEveryBackendWrites(data, feedLine("utf-16be"), name)
        }
        for name in ["ascii", "us", "ANSI_X3.4-1968"] {
            let data = Array("<?xml version=\"1.0\" encoding=\"\(name)\"?><rss version=\"2.0\"><channel><title>T</title></channel></rss>".utf8)
            try assertEveryBackendWrites(data, feedLine("us-ascii", title: "T"), name)
        }
        // A name neither knows: the same error everywhere.
        let unknown = Array("<?xml version=\"1.0\" encoding=\"no-such-charset\"?><rss version=\"2.0\"><channel><title>T</title></channel></rss>".utf8)
        try assertEveryBackendWrites(unknown, """
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"unknown","items":0,\
            "error":{"code":"xml","message":"unknown encoding","line":1,"column":31,"offset":30,"skipped":\(unknown.count - 30)}}

            """, "unknown")
    }

    func testLatin1NameCharactersAreExpatsInTheDocumentAndXMLsInReplacementTexts() throws {
        // expat reads an ISO-8859-1 document with its Latin-1 table, where ª, µ and º are
        // name-start characters; in UTF-8 and in a replacement text (read as UTF-8) they
        // are none (XML 1.0). libxml2 follows XML 1.0 everywhere, in its own words.
        func latin1(_ s: String) -> [UInt8] { s.unicodeScalars.map { UInt8($0.value) } }
        let names = "<!DOCTYPE \u{AA}rss [<!ENTITY \u{AA}e \"x\">]><?p\u{B5} y?>"
            + "<rss version=\"2.0\"><channel><title>T&\u{AA}e;</title></channel></rss>"
        try assertEveryBackendWrites(latin1("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?>" + names),
                                     feedLine("iso-8859-1", title: "Tx"), "Latin-1 names", backends: [.expat, .swift])
        let utf8 = Array(("<?xml version=\"1.0\" encoding=\"UTF-8\"?>" + names).utf8)
        try assertEveryBackendWrites(utf8, """
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"unknown","items":0,\
            "error":{"code":"xml","message":"not well-formed (invalid token)","line":1,"column":49,"offset":48,"skipped":\(utf8.count - 48)}}

            """, "the same names in UTF-8", backends: [.expat, .swift])   // libxml2: its own words
        let replacement = latin1("<?xml version=\"1.0\" encoding=\"ISO-8859-1\"?><!DOCTYPE rss [<!ENTITY e \"<\u{BA}x/>\">]>"
            + "<rss version=\"2.0\"><channel><title>T&e;</title></channel></rss>")
        let at = 115   // the reference
        XCTAssertEqual(replacement[at], UInt8(ascii: "&"))
        try assertEveryBackendWrites(replacement, """
            {"schema":1,"kind":"feed","source":"t","document":1,"format":"rss20","version":"2.0","encoding":"iso-8859-1","items":0,\
            "error":{"code":"xml","message":"not well-formed (invalid token)","line":1,"column":116,"offset":\(at),"skipped":\(replacement.count - at)}}

            """, "a Latin-1 name in a replacement text", backends: [.expat, .swift])
    }

    func testTheAliasTableIsWellFormedAndReadByEveryBackend() throws {
        try assertGeneratorIsCurrent("scripts/check-charsets.py", arguments: [])
        // The Swift backend reads the same table (the charset stage's).
        for (name, expected) in [("UTF_16", "utf-16"), ("u16", "utf-16"), ("L1", "iso-8859-1"), ("x-no-such", nil)] {
            var n = name
            let got = n.withUTF8 { XMLTranscoder.alias(UnsafeRawBufferPointer($0)) }
            XCTAssertEqual(got, expected, name)
        }
    }

    func testDiffComparesBytesNotCanonicalEquivalence() throws {
        // U+FB35 and U+05D5 U+05BC are canonically equivalent: equal as Swift Strings,
        // different bytes. The diff must report them.
        let composed = Array(#"{"schema":1,"kind":"item","title":"\#u{FB35}"}"#.utf8)
        let decomposed = Array(#"{"schema":1,"kind":"item","title":"\#u{05D5}\#u{05BC}"}"#.utf8)
        XCTAssertEqual(String(decoding: composed, as: UTF8.self), String(decoding: decomposed, as: UTF8.self))
        var found: [(String, String, String, String)] = []
        BackendDiff.compareLines(composed, decomposed, "item 0") { found.append(($0, $1, $2, $3)) }
        XCTAssertEqual(found.count, 1)
        XCTAssertEqual(found.first?.1, "title")
        XCTAssertEqual(found.first?.2, "\"\u{FB35}\" [22 EF AC B5 22]")
        XCTAssertEqual(found.first?.3, "\"\u{05D5}\u{05BC}\" [22 D7 95 D6 BC 22]")
        // The same bytes: nothing.
        found.removeAll()
        BackendDiff.compareLines(composed, composed, "item 0") { found.append(($0, $1, $2, $3)) }
        XCTAssertEqual(found.count, 0)
    }

    func testDiffReadsAsConvertDoesAndFindsNoDifferenceOnTheWindows1255Feed() throws {
        // A real-world windows-1255 feed whose 11 records hold combining marks: every
        // backend writes them as decoded, none composes them, so the diff finds nothing.
        let file = Paths.sharedReal.appendingPathComponent("chardet__tests_windows-1255-hebrew_notes.co.il.6.xml")
        if !(FileManager.default.fileExists(atPath: file.path)) { throw skip("real corpus: \(file.path) is not present") }
        var report = BackendDiff.Report()
        try BackendDiff(backends: FeedBackend.allCases, jobs: 2).compare(.file(file.path), into: &report)
        XCTAssertEqual(report.inputs, 1)
        XCTAssertEqual(report.records, 20, "19 items and the feed line, each counted once however many backends")
        XCTAssertEqual(report.differences, [])
        // And the bytes themselves: every backend's output is expat's, and has the
        // uncomposed pair (D7 95 D6 BC) where iconv composes.
        let data = try [UInt8](Data(contentsOf: file))
        let reference = try jsonLines(.bytes(data), source: "f", parser: ExpatFeedParser()).text
        XCTAssertTrue(Array(reference.utf8).windowContains([0xD7, 0x95, 0xD6, 0xBC]))
        XCTAssertFalse(Array(reference.utf8).windowContains([0xEF, 0xAC, 0xB5]))
        for backend in FeedBackend.allCases {
            let out = try jsonLines(chunked(data, 4096), source: "f", parser: backend.makeParser(limits: .default))
            XCTAssertTrue(Array(out.text.utf8) == Array(reference.utf8), backend.rawValue)
        }
    }
}

private extension Array where Element == UInt8 {
    func windowContains(_ needle: [UInt8]) -> Bool {
        guard needle.count <= count else { return false }
        return (0...(count - needle.count)).contains { i in self[i..<(i + needle.count)].elementsEqual(needle) }
    }
}
