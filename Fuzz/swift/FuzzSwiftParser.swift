// SPDX-License-Identifier: Apache-2.0
// libFuzzer harness for the pure-Swift backend: SwiftFeedParser's input stage (plain,
// gzip, multi-member gzip, chunks), its XML tokenizer (XMLTokenizer.swift) and its feed
// state machine (SwiftFeedMachine.swift), through the JSON Lines writer.
//
// Each input is converted twice: whole (`.bytes`), then as a variant chosen from a
// hash of the bytes — split into chunks of pseudo-random sizes from 1 byte up, or
// gzip-compressed (one or two members) and chunked — and, one input in four, a third
// time with the same parser (reuse). The harness aborts when the outputs differ:
// chunk boundaries and compression must never change a line, before a document error
// or after it (the search for the next document and the recovery of a failed one do not
// depend on the cuts). The whole input's lines must be UTF-8 (requireUTF8).
import FeedStream

#if canImport(Glibc)
import Glibc
#endif

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzSwiftParser(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    let bytes = Array(raw)
    let h = inputHash(raw)
    let maxItemBytes = (h >> 20) % 8 == 0 ? 1 + Int((h >> 24) % 256) : 0
    // One input in eight under a small field-text limit: its error (line, column, offset)
    // must not depend on the cuts either.
    let limits = fuzzLimits(h)
    let looksGzip = size >= 2 && bytes[0] == 0x1F && bytes[1] == 0x8B
    var variant = 1 + Int((h >> 8) % 3)
    if looksGzip && variant != 1 { variant = 1 }
    if let forced = getenv("FUZZ_VARIANT") { variant = Int(atoi(forced)) }   // to study a finding

    let reference = convert(SwiftFeedParser(maxItemBytes: maxItemBytes, limits: limits), .bytes(bytes)).lines
    requireUTF8(reference, "fuzz_swift")

    let parser = SwiftFeedParser(maxItemBytes: maxItemBytes, limits: limits)
    let input = variant == 1 ? bytes : gzip(bytes, split: variant == 3 && size > 0 ? Int(h % UInt64(size)) : nil)
    let runs = (h >> 40) % 4 == 0 ? 2 : 1
    for run in 0..<runs {
        let lines = input.withUnsafeBytes { buffer in
            convert(parser, .chunks(ChunkFeeder(buffer, seed: h).chunks)).lines
        }
        if lines != reference {
            report("fuzz_swift: variant \(variant) (run \(run + 1) of this parser) differs from the whole input:")
            report(firstDifference(reference, lines))
            if getenv("FUZZ_SHOW") != nil {
                report("--- whole:\n" + String(decoding: reference, as: UTF8.self))
                report("--- variant:\n" + String(decoding: lines, as: UTF8.self))
            }
            abort()
        }
    }
    return 0
}
