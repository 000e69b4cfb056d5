// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness for a dump converted in parts (as `DumpStreamParts` does): the
// stream cut at `<?xml` declarations (DocumentSplitter), each part parsed on its own
// with the first bytes of the next (its probe) and renumbered, parts whose cut did not
// hold joined (DumpParts.convertSequentially, the reference the threaded converters
// are tested equal to). The lines and the summary must be those of one parse of the
// whole stream, byte for byte; any difference is printed and aborts.
//
// The input is the dump, with every 0xFF byte made a document boundary (a line feed and
// an XML declaration), so that the fuzzer's documents come as dumps of several; an
// input that begins as gzip is skipped (the parts are cut from the inflated stream). A hash
// of the bytes picks the backend (swift, expat or libxml2), strict or not, and the
// parts' minimum size (1 to 256 bytes: a cut at nearly every declaration).
import FeedStream

#if canImport(Glibc)
import Glibc
#endif

private let declaration = Array("\n<?xml version=\"1.0\"?>".utf8)

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzParts(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    // The parts are cut from the uncompressed stream: gzip is the other harnesses'.
    if size >= 2 && raw[0] == 0x1F && raw[1] == 0x8B { return 0 }
    let h = inputHash(raw)
    var stream: [UInt8] = []
    stream.reserveCapacity(size)
    for b in raw {
        if b == 0xFF { stream += declaration } else { stream.append(b) }
    }
    let backends: [FeedBackend] = [.swift, .expat, .libxml2]
    let backend = backends[Int((h >> 8) % 3)]
    let strict = (h >> 16) & 1 == 1
    let minimum = 1 + (h >> 24) % 256
    let parser = backend.makeParser(strict: strict)

    let whole = convert(parser, .bytes(stream))
    let parts: (lines: [UInt8], summary: ParseSummary, parts: Int, cuts: Int)
    do {
        parts = try stream.withUnsafeBytes {
            try DumpParts.convertSequentially($0, minimumPartBytes: minimum, parser: parser, source: "fuzz")
        }
    } catch {
        fatalError("fuzz: parts threw \(error)")
    }
    if parts.lines != whole.lines || parts.summary != whole.summary {
        report("fuzz_parts: \(backend)\(strict ? " strict" : ""), parts of at least \(minimum) bytes "
               + "(\(parts.parts) parts, \(parts.cuts) cuts) differ from the whole stream:")
        report(parts.lines != whole.lines ? firstDifference(whole.lines, parts.lines)
                                          : "summary: whole \(whole.summary), parts \(parts.summary)")
        abort()
    }
    return 0
}
