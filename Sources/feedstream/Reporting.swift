// SPDX-License-Identifier: Apache-2.0
import Dispatch
import FeedStream
import FeedStreamBatch
import FeedStreamTools
import Foundation

/// Standard error, shared by the progress bar (redrawn in place) and the lines printed
/// above it.
///
/// `@unchecked Sendable`: `barShown` is only touched under `lock`.
final class Terminal: @unchecked Sendable {
    private let lock = NSLock()
    private var barShown = false

    func line(_ text: String) {
        lock.withLock {
            write((barShown ? "\r\u{1B}[K" : "") + text + "\n")
            barShown = false
        }
    }

    func bar(_ text: String) {
        lock.withLock {
            write("\r\u{1B}[K" + text)
            barShown = true
        }
    }

    func clearBar() {
        lock.withLock {
            if barShown { write("\r\u{1B}[K") }
            barShown = false
        }
    }

    private func write(_ s: String) {
        var s = s
        s.withUTF8 { b in
            var p = b.baseAddress
            var left = b.count
            while left > 0, let q = p {
                let n = Foundation.write(2, q, left)
                if n <= 0 { if n < 0 && errno == EINTR { continue } else { return } }
                p = q + n
                left -= n
            }
        }
    }
}

/// Reports each finished input: one line per error on standard error
/// (`feedstream: PATH: document 3, line 10, column 5: mismatched tag`) and, with
/// `--errors`, one JSON record per error.
///
/// `@unchecked Sendable`: the converter calls ``didFinishInput(_:)`` one call at a
/// time; nothing else touches the mutable state until the run has returned.
final class RunReporter: BatchObserver, @unchecked Sendable {
    private let terminal: Terminal
    private let errorsFile: OutputFile?
    private var record: [UInt8] = []
    private(set) var writeError: (any Error)?

    init(terminal: Terminal, errorsFile: OutputFile?) {
        self.terminal = terminal
        self.errorsFile = errorsFile
    }

    func didFinishInput(_ result: BatchInputResult) {
        let name = result.input.name
        for error in result.errors {
            terminal.line(oneLine("feedstream: \(name): \(error)"))
            if errorsFile != nil { append(error, file: name) }
            if let unread = error.unreadRange {
                terminal.line(oneLine("feedstream: \(name): document \(error.document): \(unreadReason(unread))"
                                      + " at offset \(unread.lowerBound)"))
                if errorsFile != nil { appendUnread(unread, document: error.document, file: name) }
            }
        }
        if result.droppedErrors > 0 {
            terminal.line(oneLine("feedstream: \(name): \(result.droppedErrors) more errors not listed"))
            if errorsFile != nil { appendDropped(result.droppedErrors, file: name) }
        }
        guard let errorsFile, !record.isEmpty, writeError == nil else { return }
        do {
            try record.withUnsafeBytes { try errorsFile.output.write($0) }
        } catch {
            writeError = error
        }
        record.removeAll(keepingCapacity: true)
    }

    /// `{"file":…,"document":3,"line":10,"column":5,"reason":"mismatched tag","code":"xml","offset":822}`
    private func append(_ e: FeedError, file: String) {
        var s = "{\"file\":" + jsonString(file)
        s += ",\"document\":\(e.document),\"line\":\(e.line),\"column\":\(e.column)"
        s += ",\"reason\":" + jsonString(e.message) + ",\"code\":" + jsonString(e.code.rawValue)
        s += ",\"offset\":\(e.offset)" + (e.skipped > 0 ? ",\"skipped\":\(e.skipped)" : "")
        if let c = e.compressedRange { s += ",\"compressed_offset\":\(c.lowerBound),\"compressed_length\":\(c.count)" }
        s += e.recovered ? ",\"recovered\":true}\n" : "}\n"
        record.append(contentsOf: s.utf8)
    }

    /// The record of bytes a failed document left unread (``FeedError/unreadRange``):
    /// `{"file":…,"document":2,"line":0,"column":0,"reason":"74 bytes not read after the
    /// error","code":"skipped","offset":61,"length":74}`.
    private func appendUnread(_ range: Range<UInt64>, document: Int, file: String) {
        var s = "{\"file\":" + jsonString(file)
        s += ",\"document\":\(document),\"line\":0,\"column\":0"
        s += ",\"reason\":" + jsonString(unreadReason(range)) + ",\"code\":\"skipped\""
        s += ",\"offset\":\(range.lowerBound),\"length\":\(range.count)}\n"
        record.append(contentsOf: s.utf8)
    }

    private func unreadReason(_ range: Range<UInt64>) -> String {
        "\(range.count) \(range.count == 1 ? "byte" : "bytes") not read after the error"
    }

    /// The input's last record when errors past ``BatchInputResult/maxErrors`` were not
    /// kept: `{"file":…,"document":0,"line":0,"column":0,"reason":"N more errors not
    /// listed","code":"errors_dropped","offset":0,"dropped":N}` (docs/SCHEMA.md).
    private func appendDropped(_ n: Int, file: String) {
        var s = "{\"file\":" + jsonString(file)
        s += ",\"document\":0,\"line\":0,\"column\":0"
        s += ",\"reason\":" + jsonString("\(n) more errors not listed") + ",\"code\":\"errors_dropped\""
        s += ",\"offset\":0,\"dropped\":\(n)}\n"
        record.append(contentsOf: s.utf8)
    }
}

/// `s` as one line of standard error: every control character (C0, DEL, C1; a newline
/// in a file name, a tokenizer's two-line message, an escape sequence) written as an
/// escape — `\n`, `\r`, `\t`, else `\u{XX}` — and a backslash as `\\`, so one error is
/// one line and nothing raw reaches the terminal.
func oneLine(_ s: String) -> String {
    var out = ""
    out.reserveCapacity(s.utf8.count)
    for u in s.unicodeScalars {
        switch u {
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where u.value < 0x20 || (u.value >= 0x7F && u.value < 0xA0):
            out += "\\u{" + String(u.value, radix: 16, uppercase: true) + "}"
        case _ where PathBytes.carried(u) != nil:   // a file name's byte that is not UTF-8
            out += "\\x" + String(PathBytes.carried(u)!, radix: 16, uppercase: true)
        default: out.unicodeScalars.append(u)
        }
    }
    return out
}

/// A JSON string literal.
func jsonString(_ s: String) -> String {
    var out = "\""
    for u in s.unicodeScalars {
        switch u {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case _ where u.value < 0x20: out += String(format: "\\u%04x", u.value)
        case _ where PathBytes.carried(u) != nil:   // a file name's byte that is not UTF-8 (as the JSON Lines)
            out += String(format: "\\udc%02x", PathBytes.carried(u)!)
        default: out.unicodeScalars.append(u)
        }
    }
    return out + "\""
}

/// What the run will read, counted on a background thread by walking the same inputs,
/// so the progress bar can show a fraction and an ETA.
///
/// `@unchecked Sendable`: the stored totals are only touched under `lock`.
final class InputCensus: @unchecked Sendable {
    private let lock = NSLock()
    private var files = 0
    private var bytes: UInt64 = 0
    private var done = false

    /// Starts counting (nothing to count when the list comes from standard input).
    init(roots: [String], listPath: String?, filter: PathFilter, shard: Shard?) {
        guard listPath != "-" else { return }
        DispatchQueue.global(qos: .utility).async { [self] in
            let list = listPath.flatMap { try? LineReader(path: $0) }
            for input in InputWalker(Roots(arguments: roots, list: list), filter: filter)
            where shard?.contains(input) ?? true {
                if Interrupt.shared.isPending { return }
                var size: UInt64 = 0
                var st = stat()
                if let path = input.path, stat(PathBytes.cString(path), &st) == 0 { size = UInt64(st.st_size) }
                lock.withLock {
                    files += 1
                    bytes += size
                }
            }
            lock.withLock { done = true }
        }
    }

    /// Files and bytes, once every input has been counted.
    var totals: (files: Int, bytes: UInt64)? { lock.withLock { done ? (files, bytes) : nil } }
}

/// The progress bar on standard error: files, MB read, items, items/s, ETA.
final class ProgressBar: @unchecked Sendable {
    // @unchecked: the timer's handler is the only user of `lastItems`/`lastTime` (a
    // serial dispatch source); the rest is immutable.
    private let converter: BatchConverter
    private let terminal: Terminal
    private let census: InputCensus
    private let start = ContinuousClock.now
    private let timer: any DispatchSourceTimer
    private var rate = 0.0
    private var lastItems = 0
    private var lastTime = 0.0

    /// Whether to draw the bar: on a terminal, never on the terminal the data goes to
    /// (a bar redrawn in place would land in the middle of a line of output).
    static func wanted(quiet: Bool, toStandardOutput: Bool) -> Bool {
        !quiet && isatty(2) != 0 && !(toStandardOutput && isatty(1) != 0)
    }

    init(converter: BatchConverter, terminal: Terminal, census: InputCensus) {
        self.converter = converter
        self.terminal = terminal
        self.census = census
        timer = DispatchSource.makeTimerSource(queue: .global(qos: .utility))
        timer.schedule(deadline: .now() + .milliseconds(250), repeating: .milliseconds(250))
        timer.setEventHandler { [self] in draw() }
        timer.resume()
    }

    func stop() {
        timer.cancel()
        terminal.clearBar()
    }

    private func draw() {
        let p = converter.progress()
        let elapsed = seconds(since: start)
        // items/s over the last second or so, smoothed.
        let dt = elapsed - lastTime
        if dt > 0 {
            let now = Double(p.items - lastItems) / dt
            rate = lastTime == 0 ? now : 0.7 * rate + 0.3 * now
        }
        lastItems = p.items
        lastTime = elapsed
        let mb = Double(p.bytesIn) / 1e6
        var parts: [String] = []
        if let t = census.totals, t.bytes > 0 {
            let fraction = min(1, Double(p.bytesIn) / Double(t.bytes))
            let width = 20
            let filled = Int(fraction * Double(width))
            parts.append("[" + String(repeating: "#", count: filled) + String(repeating: "-", count: width - filled)
                         + "] " + String(format: "%3d%%", Int(fraction * 100)))
            parts.append("\(p.inputsDone)/\(t.files) files")
            parts.append(String(format: "%.1f/%.1f MB", mb, Double(t.bytes) / 1e6))
            parts.append("\(p.items) items")
            parts.append(String(format: "%.0f items/s", rate))
            let bytesPerSecond = Double(p.bytesIn) / max(elapsed, 0.001)
            parts.append("ETA " + (bytesPerSecond > 0 && p.bytesIn > 0
                                   ? clock(Double(t.bytes - min(t.bytes, p.bytesIn)) / bytesPerSecond) : "--"))
        } else {
            parts.append("\(p.inputsDone) files")
            parts.append(String(format: "%.1f MB", mb))
            parts.append("\(p.items) items")
            parts.append(String(format: "%.0f items/s", rate))
            parts.append("ETA --")
        }
        if p.inputsFailed > 0 { parts.append("\(p.inputsFailed) failed") }
        terminal.bar(parts.joined(separator: "  "))
    }

    private func clock(_ s: Double) -> String {
        let t = Int(s.rounded())
        return t >= 3600 ? String(format: "%d:%02d:%02d", t / 3600, t / 60 % 60, t % 60)
            : String(format: "%d:%02d", t / 60, t % 60)
    }
}

/// `1 file`, `2 files` (or the plural given).
func plural(_ n: Int, _ one: String, _ many: String? = nil) -> String {
    n == 1 ? one : many ?? one + "s"
}

func seconds(since start: ContinuousClock.Instant) -> Double {
    let d = ContinuousClock.now - start
    return Double(d.components.seconds) + Double(d.components.attoseconds) / 1e18
}

/// The end-of-run report: the summary line and the `--stats` JSON.
struct RunReport {
    var summary: BatchSummary
    var bytesOut: UInt64        // to the output, after compression
    var seconds: Double
    var jobs: Int
    var ordered: Bool
    var per: String
    var shard: Shard?

    private var mbPerSecond: Double { seconds > 0 ? Double(summary.bytesXML) / 1e6 / seconds : 0 }

    /// Documents that were feeds, and those of them that failed (a document that is not
    /// a feed, such as an HTML page, is counted apart).
    private var feeds: (all: Int, failed: Int) {
        (summary.documents - summary.notFeedDocuments, summary.failedDocuments - summary.notFeedDocuments)
    }

    /// Three ways, files and feeds alike: clean (no error), recovered (documents read by
    /// the recovery path, nothing lost), failed (something lost):
    /// `feedstream: 3000 files (2990 clean, 9 recovered, 1 failed); 3000 feeds (2990 clean, 9 recovered, 1 failed), 1 not a feed, 66451 items; …`
    var line: String {
        let s = summary
        let cleanFiles = s.inputs - s.recoveredInputs - s.failedInputs
        let cleanFeeds = feeds.all - s.recoveredDocuments - feeds.failed
        return "feedstream: \(s.inputs) \(plural(s.inputs, "file")) (\(cleanFiles) clean, \(s.recoveredInputs) recovered, "
            + "\(s.failedInputs) failed); "
            + (s.skippedInputs > 0 ? "skipped \(s.skippedInputs) non-XML \(plural(s.skippedInputs, "file")); " : "")
            + "\(feeds.all) \(plural(feeds.all, "feed")) (\(cleanFeeds) clean, \(s.recoveredDocuments) recovered, "
            + "\(feeds.failed) failed), "
            + (s.notFeedDocuments > 0 ? "\(s.notFeedDocuments) not \(plural(s.notFeedDocuments, "a feed", "feeds")), " : "")
            + "\(s.items) \(plural(s.items, "item")); "
            + (s.warcInputs > 0 ? "\(s.warc.records) WARC \(plural(s.warc.records, "record")) (\(s.warc.feedRecords) "
                + "\(plural(s.warc.feedRecords, "feed")), \(s.warc.records - s.warc.feedRecords) skipped); " : "")
            + String(format: "%.1f MB in, %.1f MB XML, %.1f MB out; %.2f s, %.1f MB/s",
                     Double(s.bytesIn) / 1e6, Double(s.bytesXML) / 1e6, Double(bytesOut) / 1e6, seconds, mbPerSecond)
            + (s.interrupted ? "; interrupted" : "")
    }

    /// The members documented in docs/CLI.md ("--stats").
    var json: String {
        let s = summary
        var j = "{"
        // files_found = files_ok + files_failed + files_skipped: every input accounted for;
        // files_ok = files_clean + files_recovered.
        j += "\"files_found\":\(s.inputs + s.skippedInputs),"
        j += "\"files\":\(s.inputs),\"files_ok\":\(s.inputs - s.failedInputs),\"files_failed\":\(s.failedInputs),\"files_skipped\":\(s.skippedInputs)"
        j += ",\"files_clean\":\(s.inputs - s.recoveredInputs - s.failedInputs),\"files_recovered\":\(s.recoveredInputs)"
        j += ",\"feeds\":\(feeds.all),\"feeds_failed\":\(feeds.failed),\"feeds_recovered\":\(s.recoveredDocuments)"
        j += ",\"feeds_clean\":\(feeds.all - s.recoveredDocuments - feeds.failed)"
        j += ",\"not_feeds\":\(s.notFeedDocuments)"
        j += ",\"items\":\(s.items)"
        j += ",\"warc_records\":\(s.warc.records),\"warc_feed_records\":\(s.warc.feedRecords),\"warc_skipped\":{"
        j += s.warc.skipped.sorted { $0.key < $1.key }.map { jsonString($0.key) + ":\($0.value)" }.joined(separator: ",") + "}"
        j += ",\"bytes_in\":\(s.bytesIn),\"bytes_xml\":\(s.bytesXML),\"bytes_out\":\(bytesOut)"
        j += String(format: ",\"mb_in\":%.3f,\"mb_xml\":%.3f,\"mb_out\":%.3f",
                    Double(s.bytesIn) / 1e6, Double(s.bytesXML) / 1e6, Double(bytesOut) / 1e6)
        j += String(format: ",\"seconds\":%.3f,\"mb_per_s\":%.2f", seconds, mbPerSecond)
        j += ",\"jobs\":\(jobs),\"ordered\":\(ordered),\"per\":\(jsonString(per))"
        j += ",\"shard\":" + (shard.map { jsonString($0.description) } ?? "null")
        j += ",\"interrupted\":\(s.interrupted)}\n"
        return j
    }
}
