// SPDX-License-Identifier: Apache-2.0
import FeedStream
import Dispatch
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// What a progress display reads while a run goes on, and the cancellation flag.
///
/// `@unchecked Sendable`: every stored property is only touched under `lock`.
final class LiveState: @unchecked Sendable {
    private let lock = ConditionLock()
    private var progress = BatchProgress()
    private var cancelled = false
    private var sequencer: OutputSequencer?
    /// Per worker: the descriptor being parsed in place (its read position is the bytes
    /// read), or the bytes a reading stage has read.
    private var openFile: [Int32]
    private var reading: [UInt64]
    /// Per worker: the bytes read of an input closed but not summarized (yet, or ever:
    /// an input cut short by ``cancel()``).
    private var closed: [UInt64]
    /// Workers with no input left, whose threads can read parts of another worker's input.
    private var spareWorkers = 0

    init(workers: Int) {
        openFile = Array(repeating: -1, count: workers)
        reading = Array(repeating: 0, count: workers)
        closed = Array(repeating: 0, count: workers)
    }

    /// Clears the progress of the last run; not the cancellation (``clearCancellation()``).
    func reset() {
        lock.withLock {
            progress = BatchProgress()
            spareWorkers = 0
            for i in openFile.indices { openFile[i] = -1; reading[i] = 0; closed[i] = 0 }
        }
    }

    /// The run's sequencer, stopped by ``cancel()``.
    func attach(_ sequencer: OutputSequencer?) { lock.withLock { self.sequencer = sequencer } }

    var isCancelled: Bool { lock.withLock { cancelled } }

    /// The run has returned: the next one starts uncancelled.
    func clearCancellation() { lock.withLock { cancelled = false } }

    func cancel() {
        let s: OutputSequencer? = lock.withLock {
            cancelled = true
            return sequencer
        }
        s?.stop()
    }

    /// Items and documents parsed since the last call; returns false when cancelled.
    func add(items: Int, documents: Int) -> Bool {
        lock.withLock {
            progress.items += items
            progress.documents += documents
            return !cancelled
        }
    }

    /// A worker found no input left: its thread is free for another's parts.
    func returnSpareWorkers(_ n: Int) { lock.withLock { spareWorkers += n } }

    /// Takes up to `n` of the free workers; returns how many.
    func takeSpareWorkers(upTo n: Int) -> Int {
        lock.withLock {
            let k = min(n, spareWorkers)
            spareWorkers -= k
            return k
        }
    }

    func parsing(fd: Int32, worker: Int) { lock.withLock { openFile[worker] = fd } }
    func read(_ bytes: UInt64, worker: Int) { lock.withLock { reading[worker] = bytes } }

    /// The worker is done reading its input; with the input's summary once converted.
    func endInput(worker: Int, summary: ParseSummary? = nil, lost: Bool = false) {
        lock.withLock {
            if let summary {
                progress.inputsDone += 1
                if lost { progress.inputsFailed += 1 }
                progress.bytesIn += summary.bytesIn
                closed[worker] = 0
            } else {
                closed[worker] = openFile[worker] >= 0
                    ? UInt64(max(0, lseek(openFile[worker], 0, SEEK_CUR))) : reading[worker]
            }
            openFile[worker] = -1
            reading[worker] = 0
        }
    }

    func snapshot() -> BatchProgress {
        lock.withLock {
            var p = progress
            for c in closed { p.bytesIn += c }
            for (fd, bytes) in zip(openFile, reading) {
                // A registered descriptor is still open (the worker unregisters it under
                // this lock before closing it), so its offset is this input's.
                p.bytesIn += fd >= 0 ? UInt64(max(0, lseek(fd, 0, SEEK_CUR))) : bytes
            }
            return p
        }
    }
}
