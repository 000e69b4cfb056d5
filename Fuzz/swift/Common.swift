// SPDX-License-Identifier: Apache-2.0
// Shared by the Swift harnesses (compiled into each): converting bytes to JSON Lines
// with a backend, feeding them in chunks, compressing them.
import FeedStream

#if canImport(Glibc)
import Glibc
#endif

/// FNV-1a of the input: picks the variant, chunk sizes and options deterministically,
/// so a crashing input reproduces alone.
func inputHash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
    var h: UInt64 = 0xcbf2_9ce4_8422_2325
    for b in bytes { h = (h ^ UInt64(b)) &* 0x100_0000_01b3 }
    return h
}

/// The limits an input runs under: one input in eight a small field-text limit (1 to 64
/// bytes, fuzz_core.c's choice from the same bits), the others the defaults.
func fuzzLimits(_ h: UInt64) -> FeedLimits {
    (h >> 44) % 8 == 0 ? FeedLimits(maxFieldBytes: 1 + Int((h >> 48) % 64)) : .default
}

/// xorshift64*.
struct ChunkSizes {
    var state: UInt64
    init(seed: UInt64) { state = seed | 1 }
    mutating func next() -> Int {
        state ^= state >> 12
        state ^= state << 25
        state ^= state >> 27
        let r = state &* 0x2545_F491_4F6C_DD1D
        switch r & 3 {
        case 0: return 1                                  // byte by byte
        case 1: return 1 + Int((r >> 8) % 16)             // splits inside tokens
        case 2: return 1 + Int((r >> 8) % 4096)
        default: return 1 + Int((r >> 8) % 300_000)       // across the 256 KiB chunk
        }
    }
}

/// The chunks of `bytes` as ``FeedChunks`` (the buffer must outlive the parse).
final class ChunkFeeder: @unchecked Sendable {
    private let bytes: UnsafeRawBufferPointer
    private var at = 0
    private var sizes: ChunkSizes
    init(_ bytes: UnsafeRawBufferPointer, seed: UInt64) {
        self.bytes = bytes
        sizes = ChunkSizes(seed: seed)
    }
    var chunks: FeedChunks {
        FeedChunks { [self] in
            guard at < bytes.count else { return nil }
            let n = min(sizes.next(), bytes.count - at)
            defer { at += n }
            return UnsafeRawBufferPointer(rebasing: bytes[at..<(at + n)])
        }
    }
}

/// The JSON Lines `parser` writes for `input`, and its summary.
func convert(_ parser: any FeedParser, _ input: FeedInput) -> (lines: [UInt8], summary: ParseSummary) {
    let out = MemoryOutput()
    let writer = JSONLinesWriter(output: out)
    writer.source = "fuzz"
    do {
        let summary = try parser.parse(input, handler: writer)
        try writer.flush()
        return (out.bytes, summary)
    } catch {
        // Parsers throw only what the handler threw or out of memory; the writer
        // into memory never throws.
        fatalError("fuzz: parse threw \(error)")
    }
}

/// `bytes` gzip-compressed, as one member or two (split at `split`).
func gzip(_ bytes: [UInt8], split: Int?) -> [UInt8] {
    let out = MemoryOutput()
    let parts = split.map { [bytes[..<$0], bytes[$0...]] } ?? [bytes[...]]
    for part in parts {
        let gz = GzipOutput(out)
        do {
            try Array(part).withUnsafeBytes { try gz.write($0) }
            try gz.finish()
        } catch { fatalError("fuzz: gzip into memory failed: \(error)") }
    }
    return out.bytes
}

/// First lines where `a` and `b` differ, for the crash report.
func firstDifference(_ a: [UInt8], _ b: [UInt8]) -> String {
    let la = a.split(separator: 0x0A, omittingEmptySubsequences: false)
    let lb = b.split(separator: 0x0A, omittingEmptySubsequences: false)
    for i in 0..<max(la.count, lb.count) {
        let x = i < la.count ? String(decoding: la[i], as: UTF8.self) : "(none)"
        let y = i < lb.count ? String(decoding: lb[i], as: UTF8.self) : "(none)"
        if x != y { return "line \(i + 1):\n  - \(x)\n  + \(y)" }
    }
    return "(same lines)"
}

/// Aborts when `lines` are not UTF-8: JSON text is (RFC 8259), whatever the input was.
func requireUTF8(_ lines: [UInt8], _ harness: String) {
    guard String(validating: lines, as: UTF8.self) == nil else { return }
    report("\(harness): the JSON Lines are not UTF-8:\n" + String(decoding: lines, as: UTF8.self))
    abort()
}

/// Writes a line to standard error at once (print's buffer is lost on abort).
func report(_ message: String) {
    fputs(message + "\n", stderr)
}
