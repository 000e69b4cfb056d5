// SPDX-License-Identifier: Apache-2.0
import Dispatch
import Foundation

/// Ctrl-C (SIGINT), SIGTERM (what `kill`, Slurm and most schedulers send) and every
/// other signal whose default is to end the process and that can be caught (``stopping``):
/// the first one stops the run cleanly — no input is started after it, the running
/// ones are abandoned, temporary output is removed, and the process exits with
/// 128 + the signal number (130, 143), whenever it comes until the process exits: during
/// the conversion, the commit of the outputs (which then leaves none in place:
/// ``renameUnlessInterrupted(_:evenIfInterrupted:)``), `--stats` or the summary. Parsers stop where they
/// look (every few hundred items, every read of a pipe); a process that has not ended
/// within ``grace`` (a long stretch of input with no item and no document in it, a
/// `--stats` FIFO no one reads) is not waited for: it removes the temporary files and
/// exits then, with the same status. A second signal exits at once, after removing the
/// temporary files. SIGPIPE (the reader
/// of the output is gone: `| head`) exits at once too, with 141, after removing them. A
/// signal ignored when the process started (``ignoredAtStart(_:)``: `nohup`'s SIGHUP)
/// stays ignored. SIGKILL cannot be caught: ``OutputFile`` removes the temporaries that
/// dead processes left beside its output.
///
/// The handler is installed with `sigaction` (SA_RESTART) and only writes the signal
/// number to a pipe that a dedicated thread reads. Not a `DispatchSource`: on Linux,
/// libdispatch registers signal sources later, on its manager thread, so a signal
/// arriving just after start-up could be lost (or kill the process) in between.
///
/// `@unchecked Sendable`: every stored property is only touched under `lock`.
final class Interrupt: @unchecked Sendable {
    static let shared = Interrupt()

    private let lock = NSLock()
    private var signal: Int32 = 0
    private var onFirst: (@Sendable () -> Void)?
    private var temporaries: Set<String> = []
    private var installed = false

    /// How long the run has, after the first signal, to stop by itself.
    static let grace: DispatchTimeInterval = .seconds(1)

    /// The signals handled: those that end a process by default and can be caught.
    static let stopping: [Int32] = [SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE, SIGUSR1, SIGUSR2, SIGALRM,
                                    SIGXCPU, SIGXFSZ, SIGVTALRM, SIGPROF]

    /// Installs the handlers; `onFirst` runs on the first signal (on another thread).
    func install(onFirst: @escaping @Sendable () -> Void) {
        let first = lock.withLock {
            self.onFirst = onFirst
            defer { installed = true }
            return !installed
        }
        guard first else { return }
        var fds: [Int32] = [0, 0]
        guard pipe(&fds) == 0 else { return }
        _ = fcntl(fds[0], F_SETFD, FD_CLOEXEC)
        _ = fcntl(fds[1], F_SETFD, FD_CLOEXEC)
        signalPipe = fds[1]
        let reader = fds[0]
        DispatchQueue(label: "feedstream.signals").async { [self] in
            var sig: UInt8 = 0
            while true {
                let n = read(reader, &sig, 1)
                if n == 1 { received(Int32(sig)) } else if n < 0 && errno == EINTR { continue } else { return }
            }
        }
        for sig in Self.stopping where !Self.ignoredAtStart(sig) {
            var action = sigaction()
            #if canImport(Glibc)
            action.__sigaction_handler.sa_handler = { sig in
                var b = UInt8(truncatingIfNeeded: sig)
                _ = write(signalPipe, &b, 1)
            }
            #else
            action.__sigaction_u.__sa_handler = { sig in
                var b = UInt8(truncatingIfNeeded: sig)
                _ = write(signalPipe, &b, 1)
            }
            #endif
            action.sa_flags = SA_RESTART
            sigemptyset(&action.sa_mask)
            sigaction(sig, &action, nil)
        }
    }

    /// True when `sig` was ignored when the process started: `nohup` ignores SIGHUP, a
    /// non-interactive shell ignores SIGINT and SIGQUIT in the jobs it starts with `&`.
    /// Those stay ignored (as GNU `sort` leaves them): catching them would stop a
    /// `nohup` run when its terminal closes.
    private static func ignoredAtStart(_ sig: Int32) -> Bool {
        var current = sigaction()
        guard sigaction(sig, nil, &current) == 0 else { return false }
        #if canImport(Glibc)
        let handler = current.__sigaction_handler.sa_handler
        #else
        let handler = current.__sigaction_u.__sa_handler
        #endif
        return current.sa_flags & SA_SIGINFO == 0 && unsafeBitCast(handler, to: Int.self) == 1   // SIG_IGN
    }

    /// The signal received, or 0.
    var received: Int32 { lock.withLock { signal } }
    var isPending: Bool { received != 0 }


    /// Creates a file with `create` (which returns a descriptor, or -1 with `errno`
    /// set) and, when it was created, marks it to remove if the process is stopped
    /// before it is kept: both under the lock that a signal's clean-up takes, so that a
    /// signal finds the file either not yet created or already marked (a signal
    /// arriving between the two left it behind).
    func createTemporary(_ path: String, _ create: () -> Int32) -> Int32 {
        lock.withLock {
            let fd = create()
            if fd >= 0 { temporaries.insert(path) }
            return fd
        }
    }

    /// The file made by ``createTemporary(_:_:)`` is no longer this run's to remove.
    func keep(_ path: String) { _ = lock.withLock { temporaries.remove(path) } }

    /// A rename into place that failed.
    struct RenameFailure: Error {
        var temporary: String
        var errno: Int32
    }

    /// Renames each temporary to its target under the lock a signal's clean-up takes,
    /// unless a signal came first: then the temporaries are removed and the result is
    /// false, so a signal during the commit leaves no output file, and one after it
    /// finds every file in place.
    func renameUnlessInterrupted(_ pairs: [(temporary: String, target: String)], evenIfInterrupted: Bool = false)
        throws -> Bool
    {
        try lock.withLock {
            if signal != 0 && !evenIfInterrupted {
                for p in pairs {
                    unlink(p.temporary)
                    temporaries.remove(p.temporary)
                }
                return false
            }
            for p in pairs {
                if rename(p.temporary, p.target) != 0 { throw RenameFailure(temporary: p.temporary, errno: errno) }
                temporaries.remove(p.temporary)
            }
            return true
        }
    }

    /// Removes the temporaries and ends the process with `128 + sig`, under the lock:
    /// no temporary is created in between.
    private func removeTemporariesAndExit(_ sig: Int32) -> Never {
        lock.lock()
        for f in temporaries { unlink(f) }
        _exit(128 + sig)
    }

    private func received(_ sig: Int32) {
        let (first, action): (Bool, (@Sendable () -> Void)?) = lock.withLock {
            let first = signal == 0
            if first { signal = sig }
            return (first, onFirst)
        }
        if first && sig != SIGPIPE {
            action?()
            DispatchQueue.global().asyncAfter(deadline: .now() + Self.grace) { [self] in
                let message = "feedstream: interrupted; not ended within a second: ended now, "
                    + "files not yet in place removed\n"
                _ = message.withCString { write(2, $0, strlen($0)) }
                removeTemporariesAndExit(sig)
            }
        } else {
            removeTemporariesAndExit(sig)
        }
    }
}

/// Where the signal handler writes; set once, before the handler is installed.
nonisolated(unsafe) private var signalPipe: Int32 = -1
