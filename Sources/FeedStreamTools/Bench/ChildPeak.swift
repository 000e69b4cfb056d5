import FeedStream
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

extension FeedBench {
    /// Runs `executable` with `arguments` (standard input, output and error on
    /// `/dev/null`) and returns the child's peak resident memory in bytes
    /// (`ru_maxrss` from `wait4`), or nil when it could not run or failed.
    ///
    /// The resident high-water mark is process-wide, so one process cannot tell one
    /// backend's peak from another's: `feedstream bench` re-executes itself once per
    /// contender with a hidden flag and reads the child's peak here.
    public static func childPeakMemory(executable: String, arguments: [String]) -> UInt64? {
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
        defer { for p in argv { free(p) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        for fd: Int32 in [0, 1, 2] {
            posix_spawn_file_actions_addopen(&actions, fd, "/dev/null", fd == 0 ? O_RDONLY : O_WRONLY, 0)
        }
        var pid = pid_t()
        guard posix_spawn(&pid, executable, &actions, nil, argv, environ) == 0 else { return nil }
        var status: Int32 = 0
        var usage = rusage()
        while wait4(pid, &status, 0, &usage) < 0 {
            if errno != EINTR { return nil }
        }
        // Exited normally with status 0 (WIFEXITED && WEXITSTATUS == 0).
        guard status & 0x7f == 0, (status >> 8) & 0xff == 0 else { return nil }
        #if os(Linux)
        return UInt64(usage.ru_maxrss) * 1024   // kilobytes on Linux
        #else
        return UInt64(usage.ru_maxrss)          // bytes on Darwin
        #endif
    }
}
