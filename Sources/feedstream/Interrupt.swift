import Dispatch
import Foundation

/// Ctrl-C (SIGINT) and SIGTERM (what `kill`, Slurm and most schedulers send):
/// the first one stops the run cleanly — no input is started after it, the running
/// ones are abandoned, temporary output is removed, and the process exits with
/// 128 + the signal number (130, 143). A second one exits at once, after removing the
/// temporary files.
///
/// The signals are ignored at the process level and handled from a dispatch source,
/// so no system call is ever interrupted half-way (a write always completes whole).
///
/// `@unchecked Sendable`: every stored property is only touched under `lock`.
final class Interrupt: @unchecked Sendable {
    static let shared = Interrupt()

    private let lock = NSLock()
    private var sources: [any DispatchSourceSignal] = []
    private var signal: Int32 = 0
    private var onFirst: (@Sendable () -> Void)?
    private var temporaries: Set<String> = []

    /// Installs the handlers; `onFirst` runs on the first signal (on a dispatch thread).
    func install(onFirst: @escaping @Sendable () -> Void) {
        lock.withLock { self.onFirst = onFirst }
        for sig in [SIGINT, SIGTERM] {
            Foundation.signal(sig, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: sig, queue: .global())
            source.setEventHandler { [self] in received(sig) }
            source.resume()
            lock.withLock { sources.append(source) }
        }
    }

    /// The signal received, or 0.
    var received: Int32 { lock.withLock { signal } }
    var isPending: Bool { received != 0 }

    /// A file to remove if the process is stopped before it is kept.
    func removeOnExit(_ path: String) { _ = lock.withLock { temporaries.insert(path) } }
    func keep(_ path: String) { _ = lock.withLock { temporaries.remove(path) } }

    private func received(_ sig: Int32) {
        let (first, action, files): (Bool, (@Sendable () -> Void)?, Set<String>) = lock.withLock {
            let first = signal == 0
            if first { signal = sig }
            return (first, onFirst, temporaries)
        }
        if first {
            action?()
        } else {
            for f in files { unlink(f) }
            _exit(128 + sig)
        }
    }
}
