// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The one place where an input is routed by its content: a JSON Feed (first byte `{`,
/// after a byte order mark and white space, plain or gzip) goes to ``JSONFeedReader``,
/// whatever the backend, so that every backend writes the same lines for it; anything
/// else goes to the backend's XML path. Every backend's `parse` goes through here.
///
/// Sniffing reads the input's first bytes without losing them: a path is opened once,
/// here, for the sniff and the read (``openFile(_:)``; a failed open is the input's `io`
/// error, reported here), and a regular file of less than one read's slice is read whole
/// (``DescriptorReader/readWhole(_:status:)``) and sniffed and parsed from memory (one
/// system call fewer per file, and no separate read of its start); a larger file or
/// another seekable descriptor has its start read with `pread`, a
/// pipe or a chunk source has its first chunk handed on before the rest. The start of a
/// gzip stream is inflated with one stage kept for the parser's life (a stage made for
/// each input cost 3-4% of converting 3,000 small files, a quarter of them gzip).
package final class FeedFront {
    private let maxItemBytes: Int
    private let limits: FeedLimits
    private var reader: JSONFeedReader?
    /// What inflates a gzip JSON Feed (the parser's ``InflaterChoosing/inflater``).
    package var inflater = GzipInflater.default {
        didSet { reader?.inflater = inflater }
    }
    /// Inflates the start of gzip inputs for the sniff (``InputStage/peekInflated(_:limit:using:_:)``).
    private var peekStage: InputStage?

    package init(maxItemBytes: Int, limits: FeedLimits) {
        self.maxItemBytes = maxItemBytes
        self.limits = limits
    }

    /// Parses `input` as JSON Feed, or hands it (its first bytes kept) to `xml`.
    package func parse(_ input: FeedInput, parser: any FeedParser, handler: some FeedHandler,
                       xml: (FeedInput) throws -> ParseSummary) throws -> ParseSummary {
        if case .file(let path) = input {
            let fd = Self.openFile(path)
            guard fd >= 0 else { return try parser.reportOpenFailure(errno: errno, to: handler) }
            defer { close(fd) }
            // A small regular file is read whole (open, fstat, one pread, close: no
            // separate look at its start, no read to see the end) and parsed from memory,
            // as `feedstream convert` reads one; anything else is read from the descriptor.
            var st = stat()
            if fstat(fd, &st) == 0, let whole = DescriptorReader.readWhole(fd, status: st) {
                return try parse(.bytes(whole), at: nil, parser: parser, handler: handler, xml: xml)
            }
            return try parse(.fileDescriptor(fd), at: 0, parser: parser, handler: handler, xml: xml)
        }
        return try parse(input, at: nil, parser: parser, handler: handler, xml: xml)
    }

    /// `offset`: where a descriptor is known to be (nil: asked).
    private func parse(_ input: FeedInput, at offset: off_t?, parser: any FeedParser, handler: some FeedHandler,
                       xml: (FeedInput) throws -> ParseSummary) throws -> ParseSummary {
        let (isJSON, routed) = sniff(input, at: offset)
        guard isJSON else { return try xml(routed) }
        if reader == nil {
            reader = JSONFeedReader(maxItemBytes: maxItemBytes, limits: limits)
            reader!.inflater = inflater
        }
        return try reader!.parse(routed, parser: parser, handler: handler)
    }

    static let sniffBytes = 64 << 10

    /// Opens `path` for reading, as every parser opens an input it is given by path:
    /// read only, closed on `exec` (a program that starts processes on other threads
    /// must not hand them the descriptor). -1 with `errno` set when it cannot be opened.
    /// The backends' and the JSON Feed reader's own `.file` cases are reached only by
    /// callers that pass a path past ``parse(_:parser:handler:xml:)``.
    package static func openFile(_ path: String) -> Int32 { open(path, O_RDONLY | O_CLOEXEC) }

    /// Whether `input` holds a JSON document, and the input to parse it from (the same,
    /// or one that yields the bytes read to tell).
    private func sniff(_ input: FeedInput, at offset: off_t?) -> (Bool, FeedInput) {
        switch input {
        case .bytes(let b):
            return (b.withUnsafeBytes { verdict($0) ?? false }, input)
        case .file(let path):
            let fd = Self.openFile(path)
            if fd < 0 { return (false, input) }
            defer { close(fd) }
            return (peek(fd, at: 0), input)
        case .fileDescriptor(let fd):
            let at = offset ?? lseek(fd, 0, SEEK_CUR)
            if at >= 0 { return (peek(fd, at: at), input) }
            // A pipe: its first chunk is read here and handed on first.
            let source = SniffedPipe(fd: fd, verdict: verdict)
            let json = source.first.withUnsafeBytes { verdict($0) ?? false }
            return (json, .chunks(FeedChunks { try source.next() }))
        case .chunks(let chunks):
            let source = SniffedChunks(chunks)
            let json = source.sniff(verdict)
            return (json, .chunks(source.chunks))
        }
    }

    /// Reads from `offset` without moving the descriptor: 512 bytes (the first byte that
    /// tells is nearly always among them, also through a gzip header and its first block's
    /// code tables), more (up to sniffBytes) only while the bytes do not tell (white
    /// space, a longer gzip start). Every byte read here is read again by the parse.
    private func peek(_ fd: Int32, at offset: off_t) -> Bool {
        var size = 512
        while true {
            let buf = UnsafeMutableRawBufferPointer.allocate(byteCount: size, alignment: 16)
            defer { buf.deallocate() }
            var n = 0
            while n < size {
                let r = pread(fd, buf.baseAddress! + n, size - n, offset + off_t(n))
                if r < 0 && errno == EINTR { continue }
                if r <= 0 { break }
                n += r
            }
            if let verdict = verdict(UnsafeRawBufferPointer(rebasing: buf[0..<n])) { return verdict }
            if n < size || size >= Self.sniffBytes { return false }
            size *= 4
        }
    }


    /// nil when `b` does not tell yet (white space only, or too little of a gzip stream);
    /// else whether the first byte that is not a byte order mark or white space is `{`
    /// (for gzip, in the inflated bytes).
    private func verdict(_ b: UnsafeRawBufferPointer) -> Bool? {
        if b.count >= 2 && b[0] == 0x1F && b[1] == 0x8B {   // as far as the first byte that tells
            if peekStage == nil { peekStage = InputStage(limits: .unlimited) }
            return InputStage.peekInflated(b, limit: Self.sniffBytes, using: peekStage!) { Self.firstByteIsBrace($0) }
        }
        return Self.firstByteIsBrace(b)
    }

    /// nil when `b` is all white space (or a byte order mark).
    private static func firstByteIsBrace(_ b: UnsafeRawBufferPointer) -> Bool? {
        // Too few bytes to tell a byte order mark or gzip's magic yet.
        let bom: [UInt8] = [0xEF, 0xBB, 0xBF]
        if b.count < 3 && b.elementsEqual(bom.prefix(b.count)) { return nil }
        if b.count == 1 && b[0] == 0x1F { return nil }
        var i = 0
        if b.count >= 3 && b[0] == 0xEF && b[1] == 0xBB && b[2] == 0xBF { i = 3 }
        while i < b.count {
            let c = b[i]
            if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { i += 1; continue }
            return c == 0x7B
        }
        return nil
    }
}

/// A pipe read once: the first chunk is kept to be handed on first.
private final class SniffedPipe: @unchecked Sendable {
    let fd: Int32
    var first: [UInt8] = []
    private var firstGiven = false
    private var readError: Int32 = 0
    private let buffer: UnsafeMutableRawPointer
    private let size = 256 << 10

    init(fd: Int32, verdict: (UnsafeRawBufferPointer) -> Bool?) {
        self.fd = fd
        buffer = .allocate(byteCount: size, alignment: 16)
        // Reads until the bytes tell (a pipe may deliver a document slowly: no more).
        while first.count < FeedFront.sniffBytes {
            let n = read(fd, buffer, size)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { readError = errno }
            if n <= 0 { break }
            first.append(contentsOf: UnsafeRawBufferPointer(start: buffer, count: n))
            if first.withUnsafeBytes(verdict) != nil { break }
        }
    }

    deinit { buffer.deallocate() }

    func next() throws -> UnsafeRawBufferPointer? {
        if !firstGiven {
            firstGiven = true
            if !first.isEmpty {
                return first.withUnsafeBytes { UnsafeRawBufferPointer(start: $0.baseAddress, count: $0.count) }
            }
        }
        if readError != 0 { throw FeedError(code: .io, message: "read error: " + String(cString: strerror(readError))) }
        while true {
            let n = read(fd, buffer, size)
            if n < 0 && errno == EINTR { continue }
            if n < 0 { throw FeedError(code: .io, message: "read error: " + String(cString: strerror(errno))) }
            return n == 0 ? nil : UnsafeRawBufferPointer(start: buffer, count: n)
        }
    }
}

/// A chunk source whose first chunks were looked at (copied, since a chunk lives only
/// until the next is pulled): handed on again one by one, then the rest.
private final class SniffedChunks: @unchecked Sendable {
    private let base: FeedChunks
    private var held: [[UInt8]] = []
    /// The gap each held chunk stands for (``FeedChunks/gap``), and its compressed count
    /// (``FeedChunks/compressed``): the base's tell of the chunk it gave last.
    private var heldGaps: [StreamGap?] = []
    private var heldCompressed: [UInt64?] = []
    private var currentCompressed: UInt64?
    private var given = 0
    private var current: [UInt8] = []
    private var currentGap: StreamGap?
    private var failure: (any Error)?

    init(_ base: FeedChunks) { self.base = base }

    /// Pulls chunks until their bytes tell JSON from the rest (or sniffBytes, or the end).
    func sniff(_ verdict: (UnsafeRawBufferPointer) -> Bool?) -> Bool {
        var seen: [UInt8] = []
        while seen.count < FeedFront.sniffBytes {
            let chunk: UnsafeRawBufferPointer?
            do {
                chunk = try base.next()
            } catch {
                failure = error
                break
            }
            guard let chunk else { break }
            held.append(Array(chunk))
            heldGaps.append(base.gap?())
            heldCompressed.append(base.compressed?())
            seen.append(contentsOf: chunk)
            if let answer = seen.withUnsafeBytes(verdict) { return answer }
        }
        return false
    }

    private func next() throws -> UnsafeRawBufferPointer? {
        if given < held.count {
            current = held[given]
            currentGap = heldGaps[given]
            currentCompressed = heldCompressed[given]
            held[given] = []
            given += 1
            return current.withUnsafeBytes { UnsafeRawBufferPointer(start: $0.baseAddress, count: $0.count) }
        }
        if let failure {
            self.failure = nil
            throw failure
        }
        let chunk = try base.next()
        currentGap = base.gap?()
        currentCompressed = base.compressed?()
        return chunk
    }

    var chunks: FeedChunks {
        if base.compressed != nil {
            return FeedChunks(inflated: { try self.next() }, compressed: { self.currentCompressed }, gap: { self.currentGap },
                              origin: base.origin)
        }
        return FeedChunks { try self.next() }
    }
}
