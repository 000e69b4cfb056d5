// SPDX-License-Identifier: Apache-2.0
import FeedStream
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Merges the outputs of inputs converted in parallel into one output: in input order
/// (ordered), or block by block as they come (unordered), with bounded memory.
///
/// Ordered: the earliest unfinished input is the *head*. Its worker writes straight
/// to the output. Other workers keep their blocks in memory until their input becomes
/// the head; when the blocks held reach `budget` bytes they wait. The head's worker
/// never waits for memory, so the run always moves on, and memory stays under
/// `budget` plus one block per worker — however big an input that finished early is.
/// When the head finishes, the finished inputs after it go out in order, and the next
/// unfinished one becomes the head.
///
/// Unordered: every block goes straight out. A block is whole lines, so lines of
/// different inputs may interleave, each line intact, and one input's lines keep
/// their order.
///
/// Results reach `deliver` one at a time, in the order their outputs went out.
///
/// `@unchecked Sendable`: `output` and `deliver` are used only while holding `writing`,
/// the state only while holding `state`. Lock order: `writing`, then `state`.
final class OutputSequencer: @unchecked Sendable {
    private let output: any ByteOutput
    private let deliver: (BatchInputResult) -> Void
    private let ordered: Bool
    private let budget: Int
    private let window: Int

    private let writing = ConditionLock()
    private let state = ConditionLock()
    private var head = 0
    private var slots: [Int: Slot] = [:]
    private var buffered = 0
    private var stopped = false

    private struct Slot {
        var blocks: [[UInt8]] = []
        var result: BatchInputResult?
    }

    /// - Parameters:
    ///   - budget: bytes of output held for inputs that are not the head.
    ///   - window: how many inputs past the head may be started (bounds what is held
    ///     for inputs that produce no output).
    init(output: any ByteOutput, ordered: Bool, budget: Int, window: Int,
         deliver: @escaping (BatchInputResult) -> Void) {
        self.output = output
        self.ordered = ordered
        self.budget = budget
        self.window = window
        self.deliver = deliver
    }

    /// Waits until input `index` may start. False when the run stopped.
    func admit(_ index: Int) -> Bool {
        guard ordered else { return state.withLock { !stopped } }
        state.lock()
        defer { state.unlock() }
        while !stopped && index - head >= window { state.wait() }
        return !stopped
    }

    /// Writes a block (whole lines) of input `index`'s output.
    func write(_ bytes: UnsafeRawBufferPointer, for index: Int) throws {
        if ordered {
            state.lock()
            while true {
                if stopped {
                    state.unlock()
                    throw BatchCancelled()
                }
                if index == head { break }
                if buffered + bytes.count <= budget {
                    slots[index, default: Slot()].blocks.append(Array(bytes))
                    buffered += bytes.count
                    state.unlock()
                    return
                }
                state.wait()
            }
            state.unlock()
        }
        // The head (or any input, unordered). Its held blocks were handed out by the
        // finisher that made it the head, which holds `writing` until they are out.
        writing.lock()
        defer { writing.unlock() }
        if state.withLock({ stopped }) { throw BatchCancelled() }
        try emit(bytes)
    }

    /// Item and feed lines written out so far (read once the workers are done).
    private(set) var itemLines = 0
    private(set) var feedLines = 0

    /// Writes whole lines out, counting them by kind (`{"schema":1,"kind":"item"...`),
    /// so that an interrupted run counts what it wrote. Under `writing`.
    private func emit(_ bytes: UnsafeRawBufferPointer) throws {
        try output.write(bytes)
        let kindAt = 20   // the byte after `{"schema":1,"kind":"`
        var start = 0
        while start + kindAt < bytes.count {
            switch bytes[start + kindAt] {
            case UInt8(ascii: "i"): itemLines += 1
            case UInt8(ascii: "f"): feedLines += 1
            default: break
            }
            guard let nl = memchr(bytes.baseAddress! + start, 0x0A, bytes.count - start) else { break }
            start = bytes.baseAddress!.distance(to: UnsafeRawPointer(nl)) + 1
        }
    }

    /// Input `index` is done: its result goes out once its output has.
    func finish(_ index: Int, result: BatchInputResult) throws {
        guard ordered else {
            writing.withLock { deliver(result) }
            return
        }
        state.lock()
        guard index == head else {
            slots[index, default: Slot()].result = result
            state.unlock()
            return   // the head's worker sends it out later
        }
        state.unlock()

        // Only the head's worker moves the head, so it is still `index` here; its own
        // output went straight out (a slot it may have holds no blocks), so its result
        // goes first, with no slot stored for it.
        writing.lock()
        defer { writing.unlock() }
        state.lock()
        slots[head] = nil
        head += 1
        var finished: [Slot] = []
        while !slots.isEmpty, let slot = slots[head], slot.result != nil {
            finished.append(slot)
            slots[head] = nil
            head += 1
        }
        var next: [[UInt8]] = []
        if !slots.isEmpty, slots[head] != nil {
            next = slots[head]!.blocks
            slots[head]!.blocks = []
        }
        let released = finished.reduce(0) { $0 + $1.blocks.reduce(0) { $0 + $1.count } }
            + next.reduce(0) { $0 + $1.count }
        buffered -= released
        let stop = stopped
        state.broadcast()
        state.unlock()
        if stop { throw BatchCancelled() }

        deliver(result)
        for slot in finished {
            for block in slot.blocks { try block.withUnsafeBytes { try emit($0) } }
            deliver(slot.result!)
        }
        for block in next { try block.withUnsafeBytes { try emit($0) } }
    }

    /// Stops the run: waiting workers wake and every later call throws.
    func stop() {
        state.withLock {
            stopped = true
            slots = [:]
            buffered = 0
            state.broadcast()
        }
    }

    /// Flushes the output, once every input is done.
    func flush() throws {
        try writing.withLock { try output.flush() }
    }
}
