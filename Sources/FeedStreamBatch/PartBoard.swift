// SPDX-License-Identifier: Apache-2.0
import FeedStream

/// Who converts which part of one input converted in parts, and the results of parts
/// converted ahead: the one scheduler of the parts of a dump (``DumpStreamParts``) and
/// of a web archive (``WARCParts``).
///
/// The thread putting the parts together asks for each part in order (``result(_:own:free:mine:ahead:)``):
/// it gets the result a helper left, or converts the part itself when nobody took it,
/// or, while a helper converts it, converts the next free part for later. Helpers
/// (``PartHelpers``) take free parts until none is left (``help(free:exhausted:isOver:convert:)``).
/// Which parts are free to take now (the owner's window) and when none will ever be is
/// the owner's, passed in as closures called with the lock held.
///
/// `@unchecked Sendable`: the stored `var`s are only touched under `lock`, the owner's.
final class PartBoard<Work, Output>: @unchecked Sendable {
    private let lock: ConditionLock
    private var taken: Set<Int> = []
    private var results: [Int: Result<Output, any Error>] = [:]
    /// Parts before it are put together: a result for one of them is not kept.
    private var floor = 0

    /// What the thread putting the parts together does next.
    private enum Next { case ready(Result<Output, any Error>), mine, ahead(Int, Work), wait }

    /// A board whose state is guarded by `lock`, the owner's.
    init(lock: ConditionLock) { self.lock = lock }

    /// Whether a thread took part `j`. Call with the lock held.
    func isTaken(_ j: Int) -> Bool { taken.contains(j) }

    /// Part `k` is gone (taken out of the parts by the owner). Call with the lock held.
    func forget(_ k: Int) {
        taken.remove(k)
        results[k] = nil
    }

    /// The parts from `k` up to `next` are put together (or skipped): their claims and
    /// results go. Call with the lock held.
    func advance(from k: Int, to next: Int) {
        for i in k..<next { forget(i) }
        floor = max(floor, next)
    }

    /// Part `k`'s output, for the thread putting the parts together: the result a helper
    /// left; else `mine(own)` (this part's work, converted here) when nobody took it;
    /// while a helper converts it, this thread converts the first free part (`free`,
    /// called with the lock held) with `ahead`, for later, or waits.
    func result(_ k: Int, own: Work, free: () -> (Int, Work)?, mine: (Work) throws -> Output,
                ahead: (Work) throws -> Output) throws -> Output {
        while true {
            let next: Next = lock.withLock {
                if let r = results[k] { return .ready(r) }
                if !taken.contains(k) {
                    taken.insert(k)
                    return .mine
                }
                if let (j, w) = free() {
                    taken.insert(j)
                    return .ahead(j, w)
                }
                lock.wait()
                return .wait
            }
            switch next {
            case .ready(let r):
                return try r.get()
            case .mine:
                return try mine(own)
            case .ahead(let j, let w):
                keep(j, Result { try ahead(w) })
            case .wait:
                continue
            }
        }
    }

    /// A helper's work: takes the first free part (`free`) and converts it, again and
    /// again, until `exhausted` says none will be free any more or the run `isOver`
    /// (both called with the lock held; a helper waits between).
    func help(free: () -> (Int, Work)?, exhausted: () -> Bool, isOver: () -> Bool, convert: (Work) throws -> Output) {
        while true {
            let next: (Int, Work)? = lock.withLock {
                while !isOver() {
                    if let (j, w) = free() {
                        taken.insert(j)
                        return (j, w)
                    }
                    if exhausted() { return nil }
                    lock.wait()
                }
                return nil
            }
            guard let (j, w) = next else { return }
            keep(j, Result { try convert(w) })
        }
    }

    private func keep(_ j: Int, _ r: Result<Output, any Error>) {
        lock.withLock {
            if j >= floor { results[j] = r }
            lock.broadcast()
        }
    }
}
