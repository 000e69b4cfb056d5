// SPDX-License-Identifier: Apache-2.0
// A push JSON tokenizer (RFC 8259) for JSON Feed: bytes arrive in chunks of any size,
// values are reported as they complete, nothing of the document is held but the string
// or number being read and, for a value the consumer asks to keep raw (a `_` extension),
// that value's bytes. Shared by every backend through JSONFeedReader.

/// What the consumer wants done with the value that is about to begin.
enum JSONDisposition {
    /// Report its events.
    case report
    /// Check its syntax only.
    case mute
    /// Check its syntax and hand over its raw bytes, as written, when it ends.
    case capture
}

enum JSONValueKind { case object, array, string, number, literal }

/// The consumer of a tokenizer's events.
protocol JSONTokenSink: AnyObject {
    /// A document's root object begins (its first byte is at `offset` in the stream).
    func documentStart(offset: UInt64) throws
    /// The root object ended.
    func documentEnd() throws
    /// A value of `kind` begins at `pos` (in an object, after its key). May throw a
    /// limit (made by ``JSONTokenizer/fail(_:at:limit:)``).
    func willBegin(_ kind: JSONValueKind, at pos: UInt64) throws -> JSONDisposition
    /// An object's key, decoded.
    func key(_ bytes: UnsafeRawBufferPointer)
    /// A string (decoded), number or literal (as written) ended.
    func scalar(_ kind: JSONValueKind, _ bytes: UnsafeRawBufferPointer)
    /// A reported object or array ended.
    func end() throws
    /// A captured value ended: its bytes as written.
    func captured(_ bytes: UnsafeRawBufferPointer)
}

/// A syntax error or a limit, positioned in the document.
struct JSONTokError: Error {
    var message: String
    var isLimit: Bool
    var line: Int
    var column: Int
    var offset: UInt64   // in the stream
}

final class JSONTokenizer {
    private enum State {
        case top, objKeyOrEnd, objKey, colon, value, arrValueOrEnd, afterValue
        case string, escape, unicode, number, literal, failed
    }

    private var state = State.top
    /// Open containers, innermost last: true for an object.
    private var stack: [Bool] = []
    private var stringIsKey = false
    private var scratch: [UInt8] = []
    private var unicodeCount = 0
    private var unicodeValue: UInt32 = 0
    private var highSurrogate: UInt32 = 0
    private var literal: StaticString = "true"
    private var literalPos = 0
    // Muted or captured value: the stack depth it began at, else -1.
    private var quietDepth = -1
    private var capturing = false
    private var capture: [UInt8] = []
    private var captureStart = 0   // in the current chunk
    /// Where the captured value began (its first byte): a capture over the field-text
    /// limit fails there, however the input was cut.
    private var captureAt: (line: Int, column: Int, offset: UInt64) = (0, 0, 0)
    /// Where the string being read began (its opening quote): a string over the
    /// field-text limit fails there, however the input was cut.
    private var stringStart: UInt64 = 0

    // Positions.
    private(set) var offset: UInt64 = 0           // of the next byte, in the stream
    private var documentOffset: UInt64 = 0
    private var line = 1
    private var lineStart: UInt64 = 0
    /// The start of the line before (an error at the line feed that ended it: a control
    /// character in a string, found by the swift fuzzer — the column underflowed).
    private var previousLineStart: UInt64 = 0
    private var bomBytes = 0

    let maxDepth: Int
    let maxFieldBytes: Int
    let maxDocumentBytes: UInt64
    weak var sink: (any JSONTokenSink)?

    init(limits: FeedLimits) {
        maxDepth = FeedLimits.effective(limits.maxDepth)
        maxFieldBytes = FeedLimits.effective(limits.maxFieldBytes)
        maxDocumentBytes = UInt64(FeedLimits.effective(limits.maxDocumentBytes))
    }

    func reset() {
        state = .top
        stack.removeAll(keepingCapacity: true)
        scratch.removeAll(keepingCapacity: true)
        capture.removeAll(keepingCapacity: true)
        quietDepth = -1
        capturing = false
        offset = 0
        documentOffset = 0
        line = 1
        lineStart = 0
        previousLineStart = 0
        bomBytes = 0
    }

    /// True while a document is open.
    var inDocument: Bool { state != .top && state != .failed }
    /// True once an error stopped the stream (the rest is skipped).
    var failed: Bool { state == .failed }

    /// Stops reading: the rest of the input is skipped.
    func stop() { state = .failed }

    /// Stops the stream with an error at stream offset `i` (in the current line).
    func fail(_ message: String, at i: UInt64, limit: Bool = false) -> JSONTokError {
        state = .failed
        // The line feed just counted is the last character of the line before.
        let (l, from) = i < lineStart ? (line - 1, previousLineStart) : (line, lineStart)
        return JSONTokError(message: message, isLimit: limit, line: l, column: Int(i - min(i, from)) + 1, offset: i)
    }

    /// The error for input that ends inside a document.
    func finishError() -> JSONTokError? {
        guard inDocument else { return nil }
        return fail("unexpected end of input", at: offset)
    }

    private var quiet: Bool { quietDepth >= 0 }

    /// Feeds a chunk; throws JSONTokError (the stream stops) or what the sink threw.
    func parse(_ chunk: UnsafeRawBufferPointer) throws {
        guard let base = chunk.baseAddress?.assumingMemoryBound(to: UInt8.self), chunk.count > 0 else { return }
        let n = chunk.count
        let start = offset
        var i = 0
        captureStart = 0
        defer {
            if capturing && state != .failed { capture.append(contentsOf: UnsafeBufferPointer(start: base + captureStart, count: max(0, i - captureStart))) }
        }
        while i < n {
            if state == .failed { i = n; offset = start + UInt64(n); return }
            let c = base[i]
            let pos = start + UInt64(i)
            if state != .top && pos - documentOffset >= maxDocumentBytes {
                offset = pos
                throw fail(FeedLimits.Message.maxDocumentBytes(over: maxDocumentBytes), at: pos, limit: true)
            }
            if c == 0x0A && state != .number { line += 1; previousLineStart = lineStart; lineStart = pos + 1 }
            switch state {
            case .failed:
                break
            case .top:
                if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { break }
                // A byte order mark at the start of the stream (its bytes may come apart).
                if pos < 3 && bomBytes == Int(pos) && c == (pos == 0 ? 0xEF : pos == 1 ? 0xBB : 0xBF) {
                    bomBytes += 1
                    break
                }
                documentOffset = pos
                line = 1
                lineStart = pos
                previousLineStart = pos
                offset = pos
                try sink?.documentStart(offset: pos)
                if c != 0x7B { throw fail("expected '{' (a JSON Feed is an object)", at: pos) }
                stack.append(true)
                state = .objKeyOrEnd
            case .objKeyOrEnd, .objKey:
                if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { break }
                if c == 0x22 {
                    stringIsKey = true
                    scratch.removeAll(keepingCapacity: true)
                    stringStart = pos
                    state = .string
                } else if c == 0x7D && state == .objKeyOrEnd {
                    if try closeContainer(&i, base) { continue }
                } else {
                    throw fail(state == .objKey ? "expected a string (a key)" : "expected a string (a key) or '}'", at: pos)
                }
            case .colon:
                if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { break }
                if c != 0x3A { throw fail("expected ':'", at: pos) }
                state = .value
            case .value, .arrValueOrEnd:
                if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { break }
                if c == 0x5D && state == .arrValueOrEnd {
                    if try closeContainer(&i, base) { continue }
                    break
                }
                let kind: JSONValueKind
                switch c {
                case 0x7B: kind = .object
                case 0x5B: kind = .array
                case 0x22: kind = .string
                case 0x2D, 0x30...0x39: kind = .number
                case 0x74, 0x66, 0x6E: kind = .literal
                default: throw fail("expected a value", at: pos)
                }
                if !quiet {
                    switch try sink?.willBegin(kind, at: pos) ?? .mute {
                    case .report: break
                    case .mute: quietDepth = stack.count
                    case .capture:
                        quietDepth = stack.count
                        capturing = true
                        capture.removeAll(keepingCapacity: true)
                        captureStart = i
                        captureAt = (line, Int(pos - lineStart) + 1, pos)
                    }
                }
                switch kind {
                case .object, .array:
                    if stack.count >= maxDepth {
                        throw fail(FeedLimits.Message.count("nesting depth", stack.count + 1, maxDepth), at: pos, limit: true)
                    }
                    stack.append(kind == .object)
                    state = kind == .object ? .objKeyOrEnd : .arrValueOrEnd
                case .string:
                    stringIsKey = false
                    scratch.removeAll(keepingCapacity: true)
                    stringStart = pos
                    state = .string
                case .number:
                    scratch.removeAll(keepingCapacity: true)
                    scratch.append(c)
                    state = .number
                case .literal:
                    literal = c == 0x74 ? "true" : c == 0x66 ? "false" : "null"
                    literalPos = 1
                    state = .literal
                }
            case .afterValue:
                if c == 0x20 || c == 0x0A || c == 0x0D || c == 0x09 { break }
                let inObject = stack.last!
                if c == 0x2C {
                    state = inObject ? .objKey : .value
                } else if (c == 0x7D && inObject) || (c == 0x5D && !inObject) {
                    if try closeContainer(&i, base) { continue }
                } else {
                    throw fail(inObject ? "expected ',' or '}'" : "expected ',' or ']'", at: pos)
                }
            case .string:
                // The run of plain bytes up to the next quote, backslash or control byte.
                var j = i
                while j < n {
                    let b = base[j]
                    if b == 0x22 || b == 0x5C || b < 0x20 { break }
                    j += 1
                }
                if j > i {
                    loneSurrogateEnds()
                    if !quiet {
                        scratch.append(contentsOf: UnsafeBufferPointer(start: base + i, count: j - i))
                    }
                    if scratch.count > maxFieldBytes { throw stringOverLimit() }
                    i = j
                    continue
                }
                if c == 0x22 {
                    if stringIsKey {
                        loneSurrogateEnds()
                        state = .colon
                        if !quiet { scratch.withUnsafeBytes { sink?.key($0) } }
                    } else {
                        try valueEnd(.string, &i, base, inclusive: true)
                        continue
                    }
                } else if c == 0x5C {
                    state = .escape
                } else {
                    throw fail("control character in a string", at: pos)
                }
            case .escape:
                var out: UInt8 = 0
                switch c {
                case 0x22, 0x5C, 0x2F: out = c
                case 0x62: out = 0x08
                case 0x66: out = 0x0C
                case 0x6E: out = 0x0A
                case 0x72: out = 0x0D
                case 0x74: out = 0x09
                case 0x75:
                    unicodeCount = 0
                    unicodeValue = 0
                    state = .unicode
                default: throw fail("invalid escape in a string", at: pos)
                }
                if state == .escape {
                    loneSurrogateEnds()
                    if !quiet { scratch.append(out) }
                    if scratch.count > maxFieldBytes { throw stringOverLimit() }
                    state = .string
                }
            case .unicode:
                let d: UInt32
                switch c {
                case 0x30...0x39: d = UInt32(c - 0x30)
                case 0x41...0x46: d = UInt32(c - 0x41 + 10)
                case 0x61...0x66: d = UInt32(c - 0x61 + 10)
                default: throw fail("invalid \\u escape in a string", at: pos)
                }
                unicodeValue = unicodeValue << 4 | d
                unicodeCount += 1
                if unicodeCount == 4 {
                    unicodeDone()
                    if scratch.count > maxFieldBytes { throw stringOverLimit() }
                    state = .string
                }
            case .number:
                if (c >= 0x30 && c <= 0x39) || c == 0x2E || c == 0x65 || c == 0x45 || c == 0x2B || c == 0x2D {
                    scratch.append(c)
                    if scratch.count > 4096 { throw fail("number too long", at: pos, limit: true) }
                    break
                }
                if !JSONTokenizer.validNumber(scratch) { throw fail("invalid number", at: pos - UInt64(scratch.count)) }
                try valueEnd(.number, &i, base, inclusive: false)
                continue
            case .literal:
                let lit = literal.utf8Start
                if c != lit[literalPos] { throw fail("invalid literal (true, false or null)", at: pos) }
                literalPos += 1
                if literalPos == literal.utf8CodeUnitCount {
                    try valueEnd(.literal, &i, base, inclusive: true)
                    continue
                }
            }
            i += 1
        }
        // A captured value goes on past this chunk: never held past the limit.
        if capturing && capture.count + (n - captureStart) > maxFieldBytes { throw captureOverLimit() }
        offset = start + UInt64(n)
    }

    /// A string's text passed the field-text limit: the document fails at its opening
    /// quote (on the line being read: a string holds no line feed).
    private func stringOverLimit() -> JSONTokError {
        fail(FeedLimits.Message.maxFieldBytes(over: maxFieldBytes), at: stringStart, limit: true)
    }

    /// A captured value's JSON text passed the field-text limit: the document fails at
    /// its first byte (it may have begun lines before).
    private func captureOverLimit() -> JSONTokError {
        state = .failed
        return JSONTokError(message: FeedLimits.Message.maxFieldBytes(over: maxFieldBytes), isLimit: true,
                            line: captureAt.line, column: captureAt.column, offset: captureAt.offset)
    }

    /// At the end of the input: a number that was its last bytes ends there.
    func finish() throws {
        if state == .number {
            if !JSONTokenizer.validNumber(scratch) { throw fail("invalid number", at: offset - UInt64(scratch.count)) }
            // A number cannot be a root (roots are objects): it is always inside one.
            state = .afterValue
        }
    }

    /// A high surrogate not followed by a low one: U+FFFD where it stood.
    @inline(__always)
    private func loneSurrogateEnds() {
        if highSurrogate != 0 { appendScalar(0xFFFD); highSurrogate = 0 }
    }

    private func appendScalar(_ v: UInt32) {
        guard !quiet else { return }
        appendUTF8(Unicode.Scalar(v) == nil ? 0xFFFD : v, to: &scratch)
    }

    private func unicodeDone() {
        let v = unicodeValue
        if v >= 0xD800 && v <= 0xDBFF {
            if highSurrogate != 0 { appendScalar(0xFFFD) }
            highSurrogate = v
            return
        }
        if v >= 0xDC00 && v <= 0xDFFF {
            if highSurrogate != 0 {
                appendScalar(0x10000 + ((highSurrogate - 0xD800) << 10) + (v - 0xDC00))
                highSurrogate = 0
            } else {
                appendScalar(0xFFFD)
            }
            return
        }
        loneSurrogateEnds()
        appendScalar(v)
    }

    /// A scalar ended at base[i] (inclusive) or just before it. Advances i past what was
    /// consumed.
    private func valueEnd(_ kind: JSONValueKind, _ i: inout Int, _ base: UnsafePointer<UInt8>,
                          inclusive: Bool) throws {
        loneSurrogateEnds()
        let end = inclusive ? i + 1 : i
        state = .afterValue
        if quietDepth == stack.count {
            try endQuiet(base, end)
        } else if !quiet {
            if kind == .literal {
                sink?.scalar(kind, UnsafeRawBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
            } else {
                scratch.withUnsafeBytes { sink?.scalar(kind, $0) }
            }
        }
        i = end
    }

    /// Closes the innermost container at base[i]; returns true when i was advanced.
    private func closeContainer(_ i: inout Int, _ base: UnsafePointer<UInt8>) throws -> Bool {
        stack.removeLast()
        if quietDepth == stack.count {
            try endQuiet(base, i + 1)
        } else if !quiet {
            try sink?.end()
        }
        if stack.isEmpty {
            state = .top
            i += 1
            try sink?.documentEnd()
            return true
        }
        state = .afterValue
        return false
    }

    private func endQuiet(_ base: UnsafePointer<UInt8>, _ end: Int) throws {
        quietDepth = -1
        if capturing {
            capturing = false
            if capture.count + (end - captureStart) > maxFieldBytes { throw captureOverLimit() }
            capture.append(contentsOf: UnsafeBufferPointer(start: base + captureStart, count: end - captureStart))
            capture.withUnsafeBytes { sink?.captured($0) }
        }
    }

    /// RFC 8259's number grammar.
    static func validNumber(_ s: [UInt8]) -> Bool {
        var i = 0
        let n = s.count
        if i < n && s[i] == 0x2D { i += 1 }
        guard i < n else { return false }
        if s[i] == 0x30 {
            i += 1
        } else if s[i] >= 0x31 && s[i] <= 0x39 {
            while i < n && s[i] >= 0x30 && s[i] <= 0x39 { i += 1 }
        } else {
            return false
        }
        if i < n && s[i] == 0x2E {
            i += 1
            let d = i
            while i < n && s[i] >= 0x30 && s[i] <= 0x39 { i += 1 }
            if i == d { return false }
        }
        if i < n && (s[i] == 0x65 || s[i] == 0x45) {
            i += 1
            if i < n && (s[i] == 0x2B || s[i] == 0x2D) { i += 1 }
            let d = i
            while i < n && s[i] >= 0x30 && s[i] <= 0x39 { i += 1 }
            if i == d { return false }
        }
        return i == n
    }
}
