// SPDX-License-Identifier: Apache-2.0
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// A pthread mutex with one condition variable: the batch machinery's only
/// synchronization primitive (the library avoids Foundation, and `Synchronization`'s
/// `Mutex` has no condition variable).
///
/// `@unchecked Sendable` is sound: the mutex and condition live at fixed heap
/// addresses for the object's whole life and are only touched through pthread calls,
/// which are thread-safe by contract.
package final class ConditionLock: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)

    package init() {
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    package func lock() { pthread_mutex_lock(mutex) }
    package func unlock() { pthread_mutex_unlock(mutex) }

    @inline(__always)
    package func withLock<T>(_ body: () throws -> T) rethrows -> T {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body()
    }

    /// Releases the lock, sleeps until ``broadcast()`` (or a spurious wake-up), and
    /// takes the lock again. Call with the lock held, in a loop that rechecks the state.
    package func wait() { pthread_cond_wait(condition, mutex) }

    /// Wakes every thread in ``wait()``.
    package func broadcast() { pthread_cond_broadcast(condition) }
}
