// SPDX-License-Identifier: Apache-2.0
internal import CZlib
internal import CFeedStreamInflate
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Compresses everything written into one gzip stream and passes the compressed bytes on
/// to another output, compressing on threads of its own.
///
/// The stream is one gzip member whose deflate data is made of independent blocks
/// (pigz's layout): the uncompressed bytes are cut every ``blockSize`` bytes, each block
/// is deflated on its own (`cfs_deflate_block`: ISA-L at levels 1 to 3 where it is
/// installed, else zlib) with the 32 KiB before it as its dictionary, and ends on a byte
/// boundary (a sync flush), so blocks compress in parallel and join into one valid
/// stream that every gzip reader reads; the trailer's CRC-32 is the blocks' CRCs
/// combined. The bytes written depend only on what was written, the level, the
/// deflater (ISA-L or zlib) and where ``flush()`` was called: never on the number of
/// threads or how the writes were cut.
///
/// Call ``finish()`` once at the end: it writes the gzip trailer, without which the file
/// is truncated for every reader. ``flush()`` makes the bytes written so far decodable
/// without ending the stream (it ends the block early).
///
/// ```swift
/// let gz = GzipOutput(FileDescriptorOutput(fd: fd), threads: 2)
/// let writer = JSONLinesWriter(output: gz)
/// ... parse ...
/// try writer.flush()
/// try gz.finish()
/// ```
///
/// One thread writes to it, as to any ``ByteOutput``; the compressing threads only
/// compress, and every write to `base` is made on the writing thread.
package final class GzipOutput: ByteOutput {
    /// Uncompressed bytes per block (pigz's default).
    package static let blockSize = 128 << 10
    /// The level of `feedstream convert -o FILE.gz` unless `--compress-level` says
    /// otherwise: a fast one, so that compressing keeps up with the conversion
    /// (`feedstream bench --compressed-output` measures it); 6 is gzip's own default.
    package static let defaultLevel = 2
    /// The dictionary each block starts with: deflate's window.
    static let window = 32 << 10

    private let base: any ByteOutput
    private let level: Int32
    private let isal: Bool
    private let pool: Pool?
    /// The block being filled: the previous block's last ``window`` bytes (its
    /// dictionary), then its own bytes.
    private var block: Block
    /// Blocks handed out: the index of the next one.
    private var submitted = 0
    /// Blocks written to `base`: the index of the next one.
    private var written = 0
    private var crc: UInt = 0
    private var length: UInt64 = 0
    private var headerWritten = false
    private var finished = false
    /// Compresses on the writing thread when there is no pool.
    private var inline: Deflater?

    /// Compressed bytes handed to the underlying output.
    package private(set) var bytesWritten: UInt64 = 0

    /// A gzip stream written to `base`.
    ///
    /// - Parameters:
    ///   - base: where the compressed bytes go.
    ///   - level: 1 (fastest) to 9 (smallest); 6 is gzip's default.
    ///   - threads: threads that compress (0: the writing thread does). The output is the
    ///     same for every value.
    ///   - isal: deflate levels 1 to 3 with ISA-L where it is installed (other bytes than
    ///     zlib's, as valid); false: always zlib.
    package init(_ base: any ByteOutput, level: Int = GzipOutput.defaultLevel, threads: Int = 0, isal: Bool = true) {
        precondition((1...9).contains(level), "gzip level is 1...9")
        precondition(threads >= 0)
        self.base = base
        self.level = Int32(level)
        self.isal = isal
        block = Block(after: nil)
        pool = threads > 0 ? Pool(threads: threads, level: Int32(level), isal: isal) : nil
    }

    /// Whether blocks at `level` are deflated by ISA-L here: levels 1 to 3 where ISA-L is
    /// installed (its deflate is much faster than zlib's), zlib otherwise.
    package static func deflatesWithISAL(level: Int) -> Bool {
        level <= 3 && cfs_deflate_isal_available() != 0
    }

    deinit {
        pool?.stop()
        inline?.free()
    }

    package func write(_ bytes: UnsafeRawBufferPointer) throws {
        guard var p = bytes.baseAddress, bytes.count > 0 else { return }
        precondition(!finished, "GzipOutput: write after finish()")
        var left = bytes.count
        while left > 0 {
            let n = min(left, Self.blockSize - block.count)
            block.append(p, n)
            p += n
            left -= n
            if block.count == Self.blockSize { try submit(last: false) }
        }
    }

    /// Makes everything written so far decodable (the block ends here), and flushes the
    /// underlying output.
    package func flush() throws {
        guard !finished else { return try base.flush() }
        if block.count > 0 { try submit(last: false) }
        try drain(all: true)
        try base.flush()
    }

    /// Ends the gzip stream (the last block, the trailer with CRC and length) and flushes
    /// the underlying output. Writing afterwards is an error.
    package func finish() throws {
        guard !finished else { return }
        try submit(last: true)
        try drain(all: true)
        var trailer = [UInt8](repeating: 0, count: 8)
        for i in 0..<4 {
            trailer[i] = UInt8(truncatingIfNeeded: crc >> (8 * i))
            trailer[4 + i] = UInt8(truncatingIfNeeded: length >> (8 * i))
        }
        try put(trailer)
        finished = true
        pool?.stop()
        try base.flush()
    }

    /// Hands the block out to compress (or compresses it here), and starts the next one
    /// with its last ``window`` bytes as dictionary.
    private func submit(last: Bool) throws {
        let job = Job(index: submitted, block: block, last: last)
        block = Block(after: block)
        submitted += 1
        if let pool {
            pool.add(job)
            try drain(all: false)
        } else {
            if inline == nil { inline = Deflater(level: level, isal: isal) }
            inline!.run(job)
            try writeOut(job)
            written += 1
        }
    }

    /// Writes the compressed blocks that are done, in order; with `all`, waits for every
    /// block handed out. Without it, waits only while too many are in flight (so memory
    /// stays bounded when the compressors fall behind).
    private func drain(all: Bool) throws {
        guard let pool else { return }
        while written < submitted {
            guard let job = pool.take(written, wait: all || submitted - written > pool.maxInFlight) else { return }
            try writeOut(job)
            written += 1
        }
    }

    private func writeOut(_ job: Job) throws {
        if !headerWritten {
            // ID1 ID2 CM=deflate FLG=0 MTIME=0 XFL=0 OS=3 (Unix), as zlib writes it.
            try put([0x1F, 0x8B, 8, 0, 0, 0, 0, 0, 0, 3])
            headerWritten = true
        }
        try put(UnsafeRawBufferPointer(start: job.output, count: job.outputCount))
        crc = crc32_combine(crc, job.crc, Int(job.block.count))
        length &+= UInt64(job.block.count)
    }

    private func put(_ bytes: [UInt8]) throws { try bytes.withUnsafeBytes { try put($0) } }

    private func put(_ bytes: UnsafeRawBufferPointer) throws {
        try base.write(bytes)
        bytesWritten += UInt64(bytes.count)
    }
}

/// The bytes of one block: its dictionary (the stream's ``GzipOutput/window`` bytes
/// before it), then its data.
private final class Block: @unchecked Sendable {
    // @unchecked: filled by the writing thread, then read by one compressing thread only
    // after it was handed over under the pool's lock.
    let storage: UnsafeMutablePointer<UInt8>
    let dictionary: Int
    /// Data bytes.
    private(set) var count = 0

    /// The first block, or the one after `previous`, primed with its last bytes.
    init(after previous: Block?) {
        storage = .allocate(capacity: GzipOutput.window + GzipOutput.blockSize)
        dictionary = previous.map { min($0.dictionary + $0.count, GzipOutput.window) } ?? 0
        if let previous, dictionary > 0 {
            storage.update(from: previous.data + previous.count - dictionary, count: dictionary)
        }
    }

    deinit { storage.deallocate() }

    var data: UnsafeMutablePointer<UInt8> { storage + dictionary }

    func append(_ p: UnsafeRawPointer, _ n: Int) {
        (data + count).update(from: p.assumingMemoryBound(to: UInt8.self), count: n)
        count += n
    }
}

/// A block to compress, and what it became.
private final class Job: @unchecked Sendable {
    // @unchecked: one thread touches it at a time, handed over under the pool's lock.
    let index: Int
    let block: Block
    let last: Bool
    var output: UnsafeMutablePointer<UInt8>?
    var outputCount = 0
    var crc: UInt = 0

    init(index: Int, block: Block, last: Bool) {
        self.index = index
        self.block = block
        self.last = last
    }

    deinit { output?.deallocate() }
}

/// One thread's block deflater (`cfs_deflate`, CFeedStreamInflate).
private struct Deflater {
    private let d: OpaquePointer

    init(level: Int32, isal: Bool) {
        let engine = isal && level <= 3 ? CFS_INFLATE_ISAL : CFS_INFLATE_ZLIB
        guard let d = cfs_deflate_new(engine, level) else { fatalError("FeedStream: deflate: out of memory") }
        self.d = d
    }

    func free() { cfs_deflate_free(d) }

    /// Compresses the job's block: primed with its dictionary, deflated to a byte
    /// boundary (the last block: to the stream's end).
    func run(_ job: Job) {
        let block = job.block
        let bound = cfs_deflate_bound(block.count)
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: bound)
        let n = cfs_deflate_block(d, block.storage, block.dictionary, block.data, block.count, job.last ? 1 : 0,
                                  out, bound)
        if n == 0 { fatalError("FeedStream: deflate failed: out of memory") }
        job.output = out
        job.outputCount = n
        job.crc = UInt(cfs_crc32(0, block.data, block.count))
    }
}

/// The compressing threads: jobs in, in any order; done jobs out by index.
private final class Pool: @unchecked Sendable {
    // @unchecked: every field is touched under `lock`.
    private let lock = ConditionLock()
    private var queue: [Job] = []
    private var done: [Int: Job] = [:]
    private var stopped = false
    /// Blocks handed out and not yet written, past which the writer waits.
    let maxInFlight: Int

    init(threads: Int, level: Int32, isal: Bool) {
        maxInFlight = 16 * threads + 8
        for _ in 0..<threads {
            let started = startThread { [self] in
                let deflater = Deflater(level: level, isal: isal)
                defer { deflater.free() }
                while let job = next() {
                    deflater.run(job)
                    lock.withLock {
                        done[job.index] = job
                        lock.broadcast()
                    }
                }
            }
            if !started { fatalError("FeedStream: could not start a compressing thread") }
        }
    }

    func add(_ job: Job) {
        lock.withLock {
            queue.append(job)
            lock.broadcast()
        }
    }

    /// The next job to compress, oldest first; nil once stopped.
    private func next() -> Job? {
        lock.withLock {
            while queue.isEmpty && !stopped { lock.wait() }
            return stopped ? nil : queue.removeFirst()
        }
    }

    /// Job `index` once compressed; with `wait` false, nil when it is not done yet.
    func take(_ index: Int, wait: Bool) -> Job? {
        lock.withLock {
            while done[index] == nil {
                if !wait { return nil }
                lock.wait()
            }
            return done.removeValue(forKey: index)
        }
    }

    func stop() {
        lock.withLock {
            stopped = true
            queue.removeAll()
            lock.broadcast()
        }
    }
}
