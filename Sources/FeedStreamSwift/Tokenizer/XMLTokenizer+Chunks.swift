// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// The chunk layer: input in chunks of any size, a construct cut by a chunk boundary completed from the next one, documents in another charset decoded first.
extension SwiftXMLTokenizer {
    enum Stop {
        case more(Int)                  // bytes before this offset are processed
        case rootEnd(Int)
        case error(Int, String)
        case switchEncoding(Int)        // bytes from here on are in another encoding
    }

    enum UTF8Outcome {
        case ok, rootEnd(Int), error(XMLTokError, Int)
        /// The bytes from this offset of the input on are in another encoding (bytes
        /// carried over from before the input, if any, are in `rawPending`).
        case switchEncoding(Int)
        var outcome: XMLTokOutcome {
            switch self {
            case .ok, .switchEncoding: .ok
            case .rootEnd(let n): .rootEnd(consumed: n)
            case .error(let e, let n): .error(e, consumed: n)
            }
        }
    }

    /// UTF-8 in: scans what is complete, carries over what is not. A construct cut by
    /// the end of the previous chunk is completed from the start of this one, taking
    /// only as many bytes as it needs (doubling), so whole chunks are never copied.
    func parseUTF8(_ data: UnsafeRawBufferPointer, final: Bool, checkpoint: Bool) throws -> UTF8Outcome {
        let dataBase = data.baseAddress?.assumingMemoryBound(to: UInt8.self)
        let dataCount = data.count
        var off = 0
        if carry.count > 0 {
            var oldLength = carry.count
            var k = min(dataCount, max(256, oldLength))
            while true {
                if k > 0 { carry.append(dataBase!, k) }
                let whole = k == dataCount
                let base = UnsafePointer(carry.base)
                let stop = try scan(base, carry.count, final: final && whole)
                switch stop {
                case .more(let q):
                    advance(base, q)
                    if whole {
                        carry.removeFirst(q)
                        if checkpoint && !final, let over = markupOverLimit(consumed: max(q - oldLength, 0)) { return over }
                        return final ? finish() : .ok
                    }
                    if q >= oldLength {
                        off = q - oldLength
                        carry.removeAll()
                    } else {
                        carry.removeFirst(q)
                        carry.removeLast(k)
                        oldLength -= q
                        k = min(dataCount, k * 2)
                        continue
                    }
                case .rootEnd(let q):
                    processed += q   // (no lines counted: nothing is positioned after the root's end)
                    carry.removeAll()
                    return .rootEnd(max(q - oldLength, 0))
                case .error(let q, let message):
                    let e = error(message, base, q)
                    carry.removeAll()
                    return .error(e, max(q - oldLength, 0))
                case .switchEncoding(let q):
                    advance(base, q)
                    rawPending.removeAll()
                    if q < oldLength { rawPending.append(base + q, oldLength - q) }
                    carry.removeAll()
                    return .switchEncoding(max(q - oldLength, 0))
                }
                break
            }
        }
        guard let dataBase, off < dataCount else {
            return final ? finish() : .ok
        }
        let base = dataBase + off
        let count = dataCount - off
        let stop = try scan(base, count, final: final)
        switch stop {
        case .more(let q):
            advance(base, q)
            if q < count { carry.append(base + q, count - q) }
            if checkpoint && !final, let over = markupOverLimit(consumed: off + q) { return over }
            return final ? finish() : .ok
        case .rootEnd(let q):
            processed += q   // (no lines counted: nothing is positioned after the root's end)
            return .rootEnd(off + q)
        case .error(let q, let message):
            return .error(error(message, base, q), off + q)
        case .switchEncoding(let q):
            advance(base, q)
            rawPending.removeAll()
            return .switchEncoding(off + q)
        }
    }

    /// The construct held unfinished (carried over to the next chunk, or the CDATA section
    /// being read) passed maxMarkupBytes: the document fails where it began, its `<`
    /// (checked at each markup checkpoint, ``parse(_:final:)``, as the C adapters are).
    func markupOverLimit(consumed: Int) -> UTF8Outcome? {
        let pending = phase == .cdata ? processed + carry.count - cdataStart : carry.count
        guard pending > maxMarkupBytes else { return nil }
        limitError = true
        let message = FeedLimits.Message.maxMarkupBytes(over: maxMarkupBytes)
        var e = error(message, nil, 0)
        if phase == .cdata {
            e = XMLTokError(message: message, line: cdataLine,
                            column: cdataStart - cdataLineStart + 1 + (cdataLine == 1 ? markColumns : 0),
                            offset: cdataStart, isLimit: true)
        }
        e.overMarkup = true
        carry.removeAll()
        return .error(e, consumed)
    }

    /// The end of the document's bytes, with the root not closed (in a CDATA section
    /// whose bytes were all delivered: expat's "unclosed CDATA section", whatever the cuts).
    func finish() -> UTF8Outcome {
        let message = carry.count > 0 ? "unclosed token" : phase == .cdata ? "unclosed CDATA section" : "no element found"
        let e = error(message, nil, 0)
        carry.removeAll()
        return .error(e, 0)
    }

    /// Another encoding: decoded to UTF-8 in slices, then scanned. Consumption is
    /// counted in bytes of `data` (bytes still pending from earlier calls come first).
    func parseTranscoded(_ data: UnsafeRawBufferPointer, final: Bool, checkpoint: Bool) throws -> XMLTokOutcome {
        var off = 0
        let slice = 1 << 15
        let pendingAtEntry = rawPending.count
        var dropped = 0   // bytes removed from the front of rawPending since entry
        repeat {
            let take = min(data.count - off, slice)
            let last = off + take == data.count
            if take > 0 { rawPending.append(data.baseAddress!.assumingMemoryBound(to: UInt8.self) + off, take) }
            decoded.removeAll()
            let input = rawPending.bytes(0, rawPending.count)
            let (consumed, invalidAt) = transcoder!.decode(input, final: final && last, into: decoded)
            let r = try parseUTF8(decoded.bytes, final: final && last && invalidAt == nil, checkpoint: checkpoint && last)
            switch r {
            case .ok, .switchEncoding:
                if let invalidAt {
                    // Before a declaration could be read: the document is in the charset
                    // its first bytes gave, as the C core names it (no declaration error
                    // came; found by the differential fuzzer).
                    if phase == .declInUTF16 { machine.encoding(transcoder!.name) }
                    // At the character that cannot be decoded: after what was decoded
                    // before it, scanned or still carried (an unfinished token).
                    var e = error("not well-formed (invalid token)", UnsafePointer(carry.base), carry.count)
                    if final && last, let partial = truncatedUnit(input, at: invalidAt) {
                        // The input ends inside a UTF-16 character: expat's tokenizers see
                        // the input end there (XML_TOK_PARTIAL, XML_TOK_PARTIAL_CHAR): a
                        // token still open fails at its start, else where the bytes end.
                        if carry.count > 0 && phase != .cdata {
                            e = error(partial ? "partial character" : "unclosed token", nil, 0)
                        } else {
                            e.message = partial ? "partial character" : phase == .cdata ? "unclosed CDATA section" : "unclosed token"
                        }
                    }
                    return .error(e, consumed: max(dropped + consumed - pendingAtEntry, 0))
                }
                rawPending.removeFirst(consumed)
                dropped += consumed
            case .rootEnd(let q):
                let n = inputBytes(producing: q, from: input)
                rawPending.removeAll()
                return .rootEnd(consumed: max(dropped + n - pendingAtEntry, 0))
            case .error(let e, let q):
                // Resume just past the error, in input bytes (not at the slice's start,
                // which made the document search go back over the document; found by
                // fuzzing).
                let n = inputBytes(producing: q, from: input)
                rawPending.removeAll()
                return .error(e, consumed: max(dropped + n - pendingAtEntry, 0))
            }
            off += take
        } while off < data.count
        return .ok
    }

    /// Whether the bytes of `input` from `at` (where decoding failed) are a UTF-16
    /// character the input ends inside: an odd byte (false), or a high surrogate with
    /// no unit after it, an odd byte at most (true: a partial character); nil when they
    /// are something else (a character that is none: not well-formed).
    func truncatedUnit(_ input: UnsafeRawBufferPointer, at: Int) -> Bool? {
        guard let transcoder, transcoder.isUTF16 else { return nil }
        let rest = input.count - at
        if rest == 1 { return false }
        guard rest == 2 || rest == 3 else { return nil }
        let unit = transcoder.kind == .utf16LE ? UInt16(input[at]) | UInt16(input[at + 1]) << 8
            : UInt16(input[at]) << 8 | UInt16(input[at + 1])
        return (0xD800...0xDBFF).contains(unit) ? true : nil
    }

    /// True when the document's offsets (errors) count UTF-8 bytes of decoded text, not
    /// its input bytes.
    var isTranscoded: Bool { switched != nil }

    /// The input offset (from the document's start) of the character at UTF-8 offset `u`
    /// of the document as the tokenizer read it (error offsets count those): `u` itself
    /// for a document read as UTF-8; for a transcoded one, the fewest input bytes whose
    /// decoding yields `u` bytes, found by decoding `input` (the document's bytes from its
    /// start, as far as they go) again. Used on errors only (the search for the next
    /// document resumes after the error's input byte: the input stage's resync_from).
    func inputOffset(ofUTF8 u: Int, in input: UnsafeRawBufferPointer) -> Int {
        guard let (start, initial) = switched, u > start, input.count > start,
              let src = input.baseAddress?.assumingMemoryBound(to: UInt8.self) else { return u }
        let need = u - start   // UTF-8 bytes after the switch
        var t = initial
        let block = 4096
        let dest = UnsafeMutablePointer<UInt8>.allocate(capacity: XMLTranscoder.maxOutput(forInput: block + 8))
        defer { dest.deallocate() }
        var i = start, produced = 0
        while i < input.count {
            let n = min(block, input.count - i)
            let before = t
            let r = t.decode(UnsafeRawBufferPointer(start: src + i, count: n), final: false, to: dest)
            if produced + r.written >= need {
                // In this block: the shortest prefix that yields enough.
                var lo = 0, hi = r.consumed
                while lo < hi {
                    let mid = (lo + hi) / 2
                    var t2 = before
                    let w = t2.decode(UnsafeRawBufferPointer(start: src + i, count: mid), final: false, to: dest).written
                    if produced + w >= need { hi = mid } else { lo = mid + 1 }
                }
                return i + lo
            }
            produced += r.written
            if r.invalidAt != nil || r.consumed == 0 { return i + r.consumed }
            i += r.consumed
        }
        return i
    }

    /// The column of input offset `raw` (of the document's bytes `input`, from its
    /// start), counted in characters as expat counts it: the error positions of the
    /// scanner count UTF-8 bytes, which a character past U+007F makes more. nil when
    /// `input` does not reach `raw`.
    func inputColumn(ofInput raw: Int, in input: UnsafeRawBufferPointer) -> Int? {
        guard raw >= 0, raw <= input.count, let base = input.baseAddress else { return nil }
        if let (from, t) = switched, t.isWide { return wideColumn(ofInput: raw, from: from, t, in: input) }
        let p = base.assumingMemoryBound(to: UInt8.self)
        // An ASCII-compatible charset: a line ends at byte 0x0A or 0x0D (a CR LF pair is
        // one end), as expat counts them.
        var start = raw
        while start > 0 && p[start - 1] != 0x0A && p[start - 1] != 0x0D { start -= 1 }
        // A UTF-8 byte order mark on the line: one column (as expat counts it), and not
        // decoded in a declared charset (in ASCII its bytes are no characters at all).
        var mark = 0
        if start == 0 && markColumns == -2 && raw >= 3 {
            start = 3
            mark = 1
        }
        var utf8 = UnsafeRawBufferPointer(rebasing: input[start..<raw])
        var decoded: UnsafeMutablePointer<UInt8>?
        defer { decoded?.deallocate() }
        if let (_, initial) = switched {
            var t = initial
            let out = UnsafeMutablePointer<UInt8>.allocate(capacity: XMLTranscoder.maxOutput(forInput: utf8.count + 8))
            decoded = out
            let r = t.decode(utf8, final: true, to: out)
            utf8 = UnsafeRawBufferPointer(start: out, count: r.written)
        }
        // Every byte but a continuation byte begins a character.
        var chars = 0
        for c in utf8 where c & 0xC0 != 0x80 { chars += 1 }
        return chars + 1 + mark
    }

    /// The line of input offset `raw` of the document's bytes `input`, as expat counts
    /// lines: a line ends at a line feed, a carriage return, or the pair of them (the
    /// scanner counts line feeds only). nil in a UTF-16 or UTF-32 document, or when
    /// `input` does not reach `raw`.
    func inputLine(ofInput raw: Int, in input: UnsafeRawBufferPointer) -> Int? {
        guard raw >= 0, raw <= input.count else { return nil }
        if let (_, t) = switched, t.isWide { return nil }
        var line = 1
        var k = 0
        while k < raw {
            let c = input[k]
            if c == 0x0D {
                line += 1
                if k + 1 < raw && input[k + 1] == 0x0A { k += 1 }
            } else if c == 0x0A {
                line += 1
            }
            k += 1
        }
        return line
    }

    /// ``inputColumn(ofInput:in:)`` in a UTF-16 or UTF-32 document, transcoded from
    /// input offset `from` (after its byte order mark, if any) by `initial`: the line
    /// starts after the last line feed unit before `raw`; its characters are counted by
    /// decoding it (a surrogate pair is one, as in expat), and on the document's first
    /// line its byte order mark is one column.
    func wideColumn(ofInput raw: Int, from: Int, _ initial: XMLTranscoder,
                            in input: UnsafeRawBufferPointer) -> Int? {
        let p = input.baseAddress!.assumingMemoryBound(to: UInt8.self)
        let unit = initial.isUTF16 ? 2 : 4
        let mark = markColumns < 0   // a byte order mark (markColumns is 1 - its bytes)
        let first = from
        guard raw >= first, (raw - first) % unit == 0 else { return nil }
        let littleEndian = initial.kind == .utf16LE || initial.kind == .utf32LE
        func isLineFeed(_ k: Int) -> Bool {
            for j in 0..<unit where p[k + j] != (j == (littleEndian ? 0 : unit - 1) ? 0x0A : 0) { return false }
            return true
        }
        var start = raw
        while start - unit >= first && !isLineFeed(start - unit) { start -= unit }
        var t = initial
        let out = UnsafeMutablePointer<UInt8>.allocate(capacity: XMLTranscoder.maxOutput(forInput: raw - start + 8))
        defer { out.deallocate() }
        let r = t.decode(UnsafeRawBufferPointer(rebasing: input[start..<raw]), final: true, to: out)
        var chars = 0
        for k in 0..<r.written where out[k] & 0xC0 != 0x80 { chars += 1 }
        return chars + 1 + (start == first && mark ? 1 : 0)
    }

    /// The fewest input bytes whose decoding yields at least `output` bytes (`input.count`
    /// when none do). Decoded once, a block at a time, up to the block where the output
    /// reaches `output`; that block alone is then searched by halves. (A search by halves
    /// over the whole input decoded it some 15 times over, at every document's end: most
    /// of the time of a document in a multi-byte charset.)
    func inputBytes(producing output: Int, from input: UnsafeRawBufferPointer) -> Int {
        let block = 256
        let scratch = TranscodeBuffer(capacity: XMLTranscoder.maxOutput(forInput: block) + 16)
        var t = transcoder!   // the state before `input[pos...]`
        var pos = 0, produced = 0
        while pos < input.count {
            let end = min(input.count, pos + block)
            var next = t
            scratch.removeAll()
            let (consumed, _) = next.decode(UnsafeRawBufferPointer(rebasing: input[pos..<end]), final: false, into: scratch)
            if produced + scratch.count >= output {
                // Within this block: the fewest of its bytes that reach `output`.
                var lo = pos, hi = end
                while lo < hi {
                    let mid = (lo + hi) / 2
                    var probe = t
                    scratch.removeAll()
                    _ = probe.decode(UnsafeRawBufferPointer(rebasing: input[pos..<mid]), final: false, into: scratch)
                    if produced + scratch.count >= output { hi = mid } else { lo = mid + 1 }
                }
                return lo
            }
            // Nothing consumed: an invalid or unfinished character; no more output follows.
            guard consumed > 0 else { break }
            produced += scratch.count
            t = next
            pos += consumed
        }
        return input.count
    }

    /// Counts the lines of processed bytes. A CDATA section still open after them that
    /// began in them has its line taken on the way (where it fails if it grows over
    /// maxMarkupBytes); a section that ended in them needs none.
    func advance(_ base: UnsafePointer<UInt8>, _ n: Int) {
        let k = cdataStart - processed
        if phase == .cdata && k >= 0 && k <= n {
            countLines(base, 0, k)
            cdataLine = line
            cdataLineStart = lineStart
            countLines(base, k, n)
        } else {
            countLines(base, 0, n)
        }
        processed += n
    }

    func countLines(_ base: UnsafePointer<UInt8>, _ from: Int, _ to: Int) {
        let (count, last) = lineFeeds(base + from, to - from)
        if count > 0 {
            line += count
            lineStart = processed + from + last + 1
        }
    }

    func error(_ message: String, _ base: UnsafePointer<UInt8>?, _ at: Int) -> XMLTokError {
        var line = self.line, lineStart = self.lineStart
        if let base {
            for k in 0..<at where base[k] == 0x0A {
                line += 1
                lineStart = processed + k + 1
            }
        }
        let offset = processed + at
        // A byte order mark counts as one column (expat's count), not as its 3 (UTF-8) or
        // 2 (UTF-16) bytes.
        let column = offset - lineStart + 1 + (line == 1 ? markColumns : 0)
        return XMLTokError(message: message, line: line, column: column, offset: offset,
                           isLimit: limitError)
    }

}
