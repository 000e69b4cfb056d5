// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A bounded single-producer, single-consumer hand-off between a parsing thread and an
/// async consumer: the back-pressure of ``FeedItemSequence`` and ``FeedEventSequence``.
///
/// The producer blocks (a condition variable, on its own thread) while `capacity`
/// elements wait; the consumer suspends (a continuation, no thread held) while none
/// does. Cancelling wakes both: the producer's next ``send(_:)`` returns false, which
/// stops the parse, and the consumer's pending ``next()`` returns nil.
///
/// Wake-ups are batched: a waiting consumer is resumed once `batch` elements are
/// buffered, not for each one (each resume costs context switches on both sides, more
/// than a small item takes to parse). The producer calls ``flush()`` before anything
/// that may block it (reading input), and ``finish(failure:)`` flushes, so an element
/// never waits on a parser that has stopped producing.
///
/// `@unchecked Sendable`: every stored property is read and written under `lock`.
final class EventChannel<Element: Sendable>: @unchecked Sendable {
    private let lock = ConditionLock()
    private let capacity: Int
    private let batch: Int
    private var ring: [Element?]
    private var head = 0
    private var count = 0
    private var waiter: CheckedContinuation<Result<Element?, FeedError>, Never>?
    private var finished = false
    private var failure: FeedError?
    private var cancelled = false
    private var producerDone = false

    init(capacity: Int) {
        precondition(capacity > 0, "the buffer holds at least one element")
        self.capacity = capacity
        batch = min(capacity, 16)
        ring = Array(repeating: nil, count: capacity)
    }

    // ---- producer (the parsing thread) -------------------------------------------------

    /// Hands `element` to the consumer, waiting while the buffer is full. Returns false
    /// when the consumer has gone (cancelled or dropped its iterator): stop parsing.
    func send(_ element: Element) -> Bool {
        lock.lock()
        while count == capacity && !cancelled { lock.wait() }
        if cancelled {
            lock.unlock()
            return false
        }
        ring[(head + count) % capacity] = element
        count += 1
        // A full batch wakes the consumer (batch <= capacity: never blocked first).
        let waiter = count >= batch ? takeWaiterWithElement() : nil
        lock.unlock()
        if let (continuation, element) = waiter { continuation.resume(returning: .success(element)) }
        return true
    }

    /// Wakes a waiting consumer if anything is buffered. The producer calls it before
    /// it may block (reading input).
    func flush() {
        lock.lock()
        let waiter = count > 0 ? takeWaiterWithElement() : nil
        lock.unlock()
        if let (continuation, element) = waiter { continuation.resume(returning: .success(element)) }
    }

    /// With the lock held: the waiting consumer and the element it gets, if one waits.
    private func takeWaiterWithElement()
        -> (CheckedContinuation<Result<Element?, FeedError>, Never>, Element?)?
    {
        guard let waiter else { return nil }
        self.waiter = nil
        return (waiter, pop())
    }

    /// With the lock held and count > 0: the oldest element; wakes a producer waiting
    /// for room.
    private func pop() -> Element? {
        let element = ring[head]
        ring[head] = nil
        head = (head + 1) % capacity
        count -= 1
        lock.broadcast()
        return element
    }

    /// True once the consumer has gone.
    var isCancelled: Bool { lock.withLock { cancelled } }

    /// The end of the stream: the consumer gets what is buffered, then `failure` (if
    /// any) thrown, then nil. Called once, last, by the producer.
    func finish(failure: FeedError?) {
        lock.lock()
        finished = true
        producerDone = true
        self.failure = failure
        let waiter = self.waiter
        self.waiter = nil
        let element = waiter != nil && count > 0 ? pop() : nil
        lock.broadcast()
        lock.unlock()
        guard let waiter else { return }
        // What is buffered comes first; an empty buffer means the end is next.
        if let element { waiter.resume(returning: .success(element)) } else { waiter.resume(returning: takeEnd()) }
    }

    // ---- consumer ----------------------------------------------------------------------

    /// The next element, nil at the end or once cancelled; throws the stream's failure
    /// once, after the elements sent before it.
    ///
    /// Runs on the caller's actor (`isolation`), so a loop on the main actor does not
    /// hop to the global executor and back for each element; an element already
    /// buffered is taken without suspending.
    func next(isolation actor: isolated (any Actor)? = #isolation) async throws(FeedError) -> Element? {
        lock.lock()
        if count > 0 && !cancelled && !Task.isCancelled {
            let element = pop()
            lock.unlock()
            return element
        }
        lock.unlock()
        let result = await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Result<Element?, FeedError>, Never>) in
                lock.lock()
                if cancelled {
                    lock.unlock()
                    continuation.resume(returning: .success(nil))
                } else if count > 0 {
                    let element = pop()
                    lock.unlock()
                    continuation.resume(returning: .success(element))
                } else if finished {
                    lock.unlock()
                    continuation.resume(returning: takeEnd())
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            cancel()
        }
        return try result.get()
    }

    /// The consumer is gone: wake and stop the producer, end a pending ``next()``.
    func cancel() {
        lock.lock()
        cancelled = true
        ring = ring.map { _ in nil }   // release what was buffered
        count = 0
        let waiter = self.waiter
        self.waiter = nil
        lock.broadcast()
        lock.unlock()
        waiter?.resume(returning: .success(nil))
    }

    /// The failure once, then nil forever.
    private func takeEnd() -> Result<Element?, FeedError> {
        lock.withLock {
            defer { failure = nil }
            return failure.map { .failure($0) } ?? .success(nil)
        }
    }

    /// Waits until the producer has called ``finish(failure:)`` or `seconds` pass;
    /// true if it has. For tests: the parsing thread has let go of everything.
    func waitForProducer(seconds: Double) -> Bool {
        let deadline = monotonicNanoseconds() + UInt64(seconds * 1e9)
        while true {
            if lock.withLock({ producerDone }) { return true }
            if monotonicNanoseconds() >= deadline { return false }
            usleep(1000)
        }
    }
}

private func monotonicNanoseconds() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

/// Runs `body` on a new detached thread (pthread: the library does not use Foundation).
/// Returns false if the thread could not be started.
package func startThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }
    let context = Unmanaged.passRetained(Body(body)).toOpaque()
    var attributes = pthread_attr_t()
    pthread_attr_init(&attributes)
    defer { pthread_attr_destroy(&attributes) }
    pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
    #if canImport(Darwin)
    var thread: pthread_t?
    let started = pthread_create(&thread, &attributes, { raw in
        Unmanaged<Body>.fromOpaque(raw).takeRetainedValue().run()
        return nil
    }, context)
    #else
    var thread = pthread_t()
    let started = pthread_create(&thread, &attributes, { raw in
        Unmanaged<Body>.fromOpaque(raw!).takeRetainedValue().run()
        return nil
    }, context)
    #endif
    if started != 0 {
        Unmanaged<Body>.fromOpaque(context).release()
        return false
    }
    return true
}
