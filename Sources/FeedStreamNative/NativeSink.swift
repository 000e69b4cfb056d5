import FeedStreamCore
import FeedStreamSwift
internal import CFeedStream
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// The callbacks' context: the current parser and handler, and the error the handler
/// threw, which waits here until the C call returns and is then rethrown. `parser` is
/// set only during a parse (the public parser owns this sink: no cycle outlives a call).
final class NativeSink {
    var parser: (any FeedParser)?
    var handler: (any FeedHandler)?
    var error: (any Error)?
    /// The recovery path (nil for a strict parser), and what it did during this parse.
    var recovery: FeedRecovery?
    var recoveredItems = 0
    var recoveredDocuments = 0
    var firstRecovered: FeedError?
    var unrecovered = 0

    @inline(__always)
    static func from(_ ctx: UnsafeMutableRawPointer?) -> NativeSink {
        Unmanaged<NativeSink>.fromOpaque(ctx!).takeUnretainedValue()
    }

    /// Runs `body` with the parser and the handler; returns non-zero (stop) if it threw.
    @inline(__always)
    func call(_ body: (any FeedParser, any FeedHandler) throws -> Void) -> Int32 {
        guard let handler, let parser else { return 0 }
        do {
            try body(parser, handler)
            return 0
        } catch {
            self.error = error
            return 1
        }
    }
}
