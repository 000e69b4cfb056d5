// SPDX-License-Identifier: Apache-2.0
import FeedStream
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

extension FeedBench {
    /// Runs `executable` with `arguments` (standard input and error on `/dev/null`,
    /// standard output read here) and returns the peak resident memory the child
    /// reported of itself: the last line of its standard output, a decimal number of
    /// bytes (what a child in `--peak-child` mode prints from ``ownPeakMemory()``).
    /// Nil when the child could not run, failed or printed no such line.
    ///
    /// The child says its own peak because the parent cannot learn it: the resident
    /// high-water mark is process-wide, and on Linux the `ru_maxrss` that `wait4`
    /// returns for a child carries the high-water mark of the process that spawned it
    /// over the exec (`posix_spawn` shares the parent's memory until then), so every
    /// child of a bench that has run a big workload would "peak" at the bench's own
    /// peak. `VmHWM`, read by the child after its exec, counts its own pages only.
    public static func childPeakMemory(executable: String, arguments: [String]) -> UInt64? {
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var fds: [Int32] = [-1, -1]
        guard pipe(&fds) == 0 else { return nil }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, fds[1], 1)
        posix_spawn_file_actions_addclose(&actions, fds[0])
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        var pid = pid_t()
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0
        close(fds[1])
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 4096)
        while spawned {
            let n = buffer.withUnsafeMutableBytes { read(fds[0], $0.baseAddress, $0.count) }
            if n > 0 { output += buffer.prefix(n); continue }
            if n < 0 && errno == EINTR { continue }
            break
        }
        close(fds[0])
        guard spawned else { return nil }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            if errno != EINTR { return nil }
        }
        // Exited normally with status 0 (WIFEXITED && WEXITSTATUS == 0).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else { return nil }
        let lines = String(decoding: output, as: UTF8.self).split(separator: "\n")
        return lines.last.flatMap { UInt64($0) }
    }

    /// This process's own peak resident memory in bytes: `VmHWM` from
    /// `/proc/self/status` on Linux (the pages of this process since its exec, not
    /// those of the process that started it), `ru_maxrss` elsewhere. Nil when
    /// neither can be read.
    public static func ownPeakMemory() -> UInt64? {
        #if os(Linux)
        guard let file = fopen("/proc/self/status", "r") else { return nil }
        defer { fclose(file) }
        var line = [CChar](repeating: 0, count: 256)
        while fgets(&line, Int32(line.count), file) != nil {
            let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
            guard text.hasPrefix("VmHWM:") else { continue }
            let kB = text.dropFirst(6).split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { UInt64($0) }
            return kB.map { $0 * 1024 }
        }
        return nil
        #else
        var usage = rusage()
        guard getrusage(RUSAGE_SELF, &usage) == 0 else { return nil }
        return UInt64(usage.ru_maxrss)   // bytes on Darwin
        #endif
    }

    /// The pseudo-contender that holds `megabytes` MB of touched memory and parses
    /// nothing: a known peak to check the peak-memory column against (the id
    /// `ballast-<megabytes>`; never part of a report).
    public static func ballastID(megabytes: Int) -> String { "ballast-\(megabytes)" }

    /// Runs the ballast pseudo-contender `id` if it is one: touches the memory, keeps
    /// it until the peak is read. True when `id` was a ballast id.
    static func runBallast(_ id: String) -> Bool {
        guard id.hasPrefix("ballast-"), let mb = Int(id.dropFirst("ballast-".count)), mb >= 0 else { return false }
        let size = mb << 20
        guard let p = malloc(max(size, 1)) else { return true }
        memset(p, 1, size)   // every page resident
        Ballast.held = p     // kept until exit, past the peak's reading
        return true
    }
}

/// Where the ballast pseudo-contender keeps its memory.
private enum Ballast {
    nonisolated(unsafe) static var held: UnsafeMutableRawPointer?
}
