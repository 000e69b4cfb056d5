// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Where finished output bytes go.
public protocol ByteOutput: AnyObject {
    /// Writes all of `bytes` or throws.
    func write(_ bytes: UnsafeRawBufferPointer) throws
    /// Makes written bytes durable/visible (e.g. flushes a compressor). Default: nothing.
    func flush() throws
}

extension ByteOutput {
    /// Does nothing: outputs without a buffer of their own need no flush.
    public func flush() throws {}
}

/// An error writing output.
public struct OutputError: Error, Sendable, CustomStringConvertible {
    /// The `errno` of the failed `write(2)`.
    public var errno: Int32
    /// An error for `errno`.
    package init(errno: Int32) { self.errno = errno }
    /// "write failed: " and the system's message for ``errno``.
    public var description: String { "write failed: " + String(cString: strerror(errno)) }
}

/// Writes to a file descriptor (not closed by this object).
///
/// `Sendable`: its only state is the descriptor. Writes from several threads at once
/// are each safe but may interleave, so share one only where that is acceptable
/// (`feedstream convert` orders its workers' output itself).
public final class FileDescriptorOutput: ByteOutput, Sendable {
    /// The file descriptor written to.
    package let fd: Int32
    /// Writes to `fd`, which stays open and owned by the caller.
    public init(fd: Int32) { self.fd = fd }

    /// The process's standard output (descriptor 1).
    public static var standardOutput: FileDescriptorOutput { FileDescriptorOutput(fd: 1) }

    /// Writes all of `bytes`, retrying interrupted and partial writes.
    /// - Throws: ``OutputError`` when `write(2)` fails.
    public func write(_ bytes: UnsafeRawBufferPointer) throws {
        var p = bytes.baseAddress
        var left = bytes.count
        while left > 0, let base = p {
            let n = systemWrite(fd, base, left)
            if n < 0 {
                if errno == EINTR { continue }
                throw OutputError(errno: errno)
            }
            p = base + n
            left -= n
        }
    }
}

/// Collects output in memory (tests, small jobs).
public final class MemoryOutput: ByteOutput {
    /// Everything written so far.
    public private(set) var bytes: [UInt8] = []
    /// An empty output.
    public init() {}
    /// Appends `b`.
    public func write(_ b: UnsafeRawBufferPointer) throws { bytes.append(contentsOf: b) }
    /// The output decoded as UTF-8.
    public var string: String { String(decoding: bytes, as: UTF8.self) }
}

/// The JSON writer's output: growable bytes (``ScratchBytes``) and the writer's state.
struct ByteBuffer: ~Copyable {
    private var storage: ScratchBytes
    var base: UnsafeMutablePointer<UInt8> { storage.base }
    var count: Int { storage.count }
    /// JSON nesting state for the record walker (see JSONLinesWriter.swift).
    var depth = 0
    var commas: UInt64 = 0
    /// False: HTML and XHTML content is written as written (RecordSink).
    var resolvesMarkupURIs = true {
        didSet { feedMemberRevision = .unknown }
    }
    /// The strings written now are well-formed UTF-8 (an item's fields from the strict
    /// Swift tokenizer, ``FeedItemView/textIsUTF8``): escaped without checking it again
    /// (``appendTrustedJSONEscaped(_:closing:)``).
    var trustsUTF8 = false
    /// Sets the document's location (``documentBytes``), copied into bytes this buffer owns.
    mutating func setDocumentBase(_ bytes: [UInt8]) {
        feedMemberRevision = .unknown
        documentBytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() }
        guard !bytes.isEmpty else { return documentBytes = UnsafeRawBufferPointer(start: nil, count: 0) }
        let copy = UnsafeMutableRawBufferPointer.allocate(byteCount: bytes.count, alignment: 1)
        copy.copyBytes(from: bytes)
        documentBytes = UnsafeRawBufferPointer(copy)
    }
    /// The document's location, when known (RecordSink): bytes this buffer owns, so that
    /// reading them per member retains nothing.
    private(set) var documentBytes = UnsafeRawBufferPointer(start: nil, count: 0)
    /// The `,"feed":{…}` member of the last item written, and the feed record's
    /// publication it was written from (JSONLinesWriter.swift): the next item of the same
    /// publication copies it. Bytes this buffer owns (no reference counting per item).
    var feedMember = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    var feedMemberCount = 0
    var feedMemberRevision = FeedRevision.unknown
    /// The kept `feed` member had text read again (``TextRules``): each item line
    /// that copies it says so too.
    var feedMemberRedecoded = false
    /// The line's members whose text ``TextRules`` read again (JSONLinesWriter.swift:
    /// the `redecoded` member), in the order written, each once; the top-level member
    /// being written (``topKey``) is the one named for a value inside it.
    var redecodedKeys = UnsafeMutablePointer<StaticString>.allocate(capacity: ByteBuffer.redecodedCapacity)
    var redecodedCount = 0
    static let redecodedCapacity = 128
    var topKey: StaticString = ""
    /// The key of the string member being written (set where a string may be read
    /// again: not for one copied as it is).
    var currentKey: StaticString = ""
    /// Where ``TextRules`` writes a string it reads again (grown as needed, kept).
    var redecodeScratch = UnsafeMutablePointer<UInt8>.allocate(capacity: 256)
    var redecodeCapacity = 256
    /// The byte classes of JSON string escaping (JSONEscaping.swift).
    let jsonClasses = jsonByteClass
    /// The UTF-8 automaton's table (JSONEscaping.swift).
    let utf8StepTable = utf8Steps

    init(capacity: Int) {
        storage = ScratchBytes(capacity: capacity)
    }

    deinit {
        storage.free()
        feedMember.baseAddress.map { $0.deallocate() }
        documentBytes.baseAddress.map { UnsafeMutableRawPointer(mutating: $0).deallocate() }
        redecodedKeys.deallocate()
        redecodeScratch.deallocate()
    }

    var bytes: UnsafeRawBufferPointer { storage.bytes(0, storage.count) }

    mutating func removeAll() { storage.removeAll() }
    mutating func truncate(to n: Int) { storage.truncate(to: n) }

    @inline(__always)
    mutating func reserve(_ n: Int) { storage.reserve(n) }

    @inline(__always)
    mutating func append(_ c: UInt8) { storage.append(c) }

    @inline(__always)
    mutating func append(_ p: UnsafeRawPointer, _ n: Int) {
        storage.append(p.assumingMemoryBound(to: UInt8.self), n)
    }

    @inline(__always)
    mutating func append(_ s: StaticString) {
        append(UnsafeRawPointer(s.utf8Start), s.utf8CodeUnitCount)
    }

    mutating func append(decimal v: UInt64) {
        // A number below 10: its digit (most document and item numbers of a file); else
        // the digits from the last, copied without a call.
        if v < 10 { return append(UInt8(truncatingIfNeeded: 0x30 &+ v)) }
        write(upTo: 20) { out in
            var tmp: (UInt64, UInt64, UInt64) = (0, 0, 0)
            var n = 0
            var x = v
            withUnsafeMutableBytes(of: &tmp) { t in
                repeat {
                    t[23 &- n] = UInt8(truncatingIfNeeded: 0x30 &+ x % 10)
                    x /= 10
                    n &+= 1
                } while x > 0
                copyBytes(to: out, from: t.baseAddress! + (24 &- n), n)
            }
            return n
        }
    }

    /// Appends `n` bytes for which room was reserved.
    @inline(__always)
    mutating func putReserved(_ p: UnsafeRawPointer, _ n: Int) { storage.putReserved(p, n) }

    /// Appends one byte for which room was reserved.
    @inline(__always)
    mutating func putReserved(_ c: UInt8) { storage.putReserved(c) }

    /// Reserves `n` bytes and lets `body` write into them; `body` returns how many it used.
    @inline(__always)
    mutating func write(upTo n: Int, _ body: (UnsafeMutablePointer<UInt8>) -> Int) { storage.write(upTo: n, body) }
}
