// SPDX-License-Identifier: Apache-2.0
import Dispatch
import FeedStream

/// The workers of a run that have no input left, hired to parse the parts of another
/// worker's input (``WARCParts``, ``DumpStreamParts``): at most `jobs - 1`, each with a
/// parser of its own, handed back to the run when its work returns.
///
/// `@unchecked Sendable`: the stored `var`s are only touched under `lock`.
final class PartHelpers: @unchecked Sendable {
    private let options: BatchConverter.Options
    private let live: LiveState
    private let label: String
    private let group = DispatchGroup()
    private let lock = ConditionLock()
    private var count = 0

    init(options: BatchConverter.Options, live: LiveState, label: String) {
        self.options = options
        self.live = live
        self.label = label
    }

    /// Starts `work` on each worker of the run left idle, up to `jobs - 1` hired in all;
    /// `work` gets a parser of its own and returns when nothing is left for it.
    func hire(_ work: @escaping @Sendable (any FeedParser) -> Void) {
        let wanted = options.jobs - 1 - lock.withLock { count }
        guard wanted > 0 else { return }
        let n = live.takeSpareWorkers(upTo: wanted)
        guard n > 0 else { return }
        let first = lock.withLock {
            defer { count += n }
            return count
        }
        for h in first..<(first + n) {
            DispatchQueue(label: "\(label).\(h)").async(group: group) { [options, live] in
                work(options.newParser())
                live.returnSpareWorkers(1)
            }
        }
    }

    /// Helpers hired so far.
    var hired: Int { lock.withLock { count } }

    /// Waits for every helper's work to return.
    func wait() { group.wait() }
}

/// Where an input converted in parts sends its lines, errors and the count of errors
/// not kept: the worker's output and meter.
struct PartOutput {
    /// The lines, in order.
    let write: (UnsafeRawBufferPointer) throws -> Void
    /// Each error, in order.
    let report: (FeedError) throws -> Void
    /// The tally of errors not kept past ``BatchInputResult/maxErrors``.
    let dropped: (ErrorTally) -> Void
}

/// Counts of errors by what they mean for the run: all of them, the "not a feed"
/// reports among them, and those that lost something (``FeedError/lostSomething``).
struct ErrorTally: Sendable {
    var count = 0
    var notFeeds = 0
    var losses = 0

    mutating func add(_ error: FeedError) {
        count += 1
        if error.code == .notAFeed { notFeeds += 1 }
        if error.lostSomething { losses += 1 }
    }

    mutating func add(_ other: ErrorTally) {
        count += other.count
        notFeeds += other.notFeeds
        losses += other.losses
    }
}

extension FeedError {
    /// True when the error means that something of the input was not converted: a
    /// document, a record, bytes of the input. False for a document read by the recovery
    /// path after it failed as XML (its content is kept, marked recovered), for a
    /// well-formed document that is not a feed (there was nothing to convert), and for a
    /// web archive's revisit of a feed (its payload is in another capture).
    var lostSomething: Bool {
        if code == .notAFeed || code == .revisit { return false }
        return !(recovered && code == .malformedXML)
    }
}

/// Bytes handed to a closure (a part written as it is read).
final class ClosureOutput: ByteOutput {
    let body: (UnsafeRawBufferPointer) throws -> Void
    init(_ body: @escaping (UnsafeRawBufferPointer) throws -> Void) { self.body = body }
    func write(_ bytes: UnsafeRawBufferPointer) throws { try body(bytes) }
}

/// A part's errors: kept in order (up to ``BatchInputResult/maxErrors``; past it only
/// counted), or, for a part whose lines go straight out, reported at once.
final class PartErrors: FeedHandler {
    private let report: ((FeedError) throws -> Void)?
    private let streamOffsetBase: UInt64
    /// The kept errors, each with whether its offset counts from the start of the stream
    /// (``nextIsStreamOffset`` was set when it came) rather than from the part's.
    private(set) var kept: [(FeedError, streamOffset: Bool)] = []
    /// The kept errors.
    var errors: [FeedError] { kept.map(\.0) }
    /// The errors past the cap, counted only.
    private(set) var dropped = ErrorTally()
    /// The first error reported (a part whose errors go straight out).
    private(set) var first: FeedError?
    /// Set just before an error whose offset counts from the start of the stream.
    var nextIsStreamOffset = false

    /// - Parameters:
    ///   - report: where each error goes at once; nil to keep them.
    ///   - streamOffsetBase: added to the offset of a reported error that counts from the
    ///     start of the stream (the bytes before the part).
    init(report: ((FeedError) throws -> Void)? = nil, streamOffsetBase: UInt64 = 0) {
        self.report = report
        self.streamOffsetBase = streamOffsetBase
    }

    func parser(_ parser: any FeedParser, didFail error: FeedError) throws {
        defer { nextIsStreamOffset = false }
        if let report {
            var e = error
            if nextIsStreamOffset { e.offset += streamOffsetBase }
            if first == nil { first = e }
            try report(e)
        } else if kept.count < BatchInputResult.maxErrors {
            kept.append((error, nextIsStreamOffset))
        } else {
            dropped.add(error)
        }
    }
}
