// SPDX-License-Identifier: Apache-2.0
import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// The scanner: character data and the dispatch to markup, sixteen bytes a step.
extension SwiftXMLTokenizer {
    func scan(_ s: UnsafePointer<UInt8>, _ n: Int, final: Bool) throws -> Stop {
        let stop = try scanBytes(s, n, final: final)
        // A construct the input ends in, its last bytes the start of a character: expat's
        // tokenizers say XML_TOK_PARTIAL_CHAR there, "partial character".
        if final, case .error(let at, "unclosed token") = stop, endsInsideCharacter(s, n) {
            return .error(at, "partial character")
        }
        return stop
    }

    /// The last bytes of `s[0..<n]` begin a UTF-8 sequence that needs more bytes.
    func endsInsideCharacter(_ s: UnsafePointer<UInt8>, _ n: Int) -> Bool {
        var k = n - 1
        while k >= 0 && k >= n - 3 && s[k] & 0xC0 == 0x80 { k -= 1 }
        guard k >= 0, s[k] >= 0xC0 else { return false }
        return utf8Length(s, k, n) == 0
    }

    func scanBytes(_ s: UnsafePointer<UInt8>, _ n: Int, final: Bool) throws -> Stop {
        var i = 0
        if phase == .start || phase == .declInUTF16 {
            switch startOfDocument(s, n, final: final) {
            case .next(let j): i = j
            case .stop(let stop): return stop
            }
        }
        while i < n {
            // (A limit is passed at a tag, never in text: the field-text limit waits for
            // the next start or end tag, SwiftFeedMachineCore.checkField.)
            if phase == .cdata {
                switch cdata(s, i, n, final: final) {
                case .next(let j): i = j; continue
                case .stop(let stop): return stop
                }
            }
            if depth == 0 {
                // Prolog (the epilog is never scanned: the root's end stops the document).
                switch try prolog(s, i, n, final: final) {
                case .next(let j): i = j
                case .stop(let stop): return stop
                }
                continue
            }
            // Markup right after markup, or after a line break and indentation (most of
            // the text between a feed's tags): no text scan.
            var tag = i
            if s[tag] == 0x0A {
                tag &+= 1
                while tag < n && (s[tag] == 0x20 || s[tag] == 0x09) { tag &+= 1 }
            }
            if tag < n && s[tag] == 0x3C {
                if tag > i { deliver(s + i, tag &- i) }
                switch try markup(s, tag, n, final: final) {
                case .next(let j): i = j
                case .stop(let stop): return stop
                }
                continue
            }
            // Character data, up to the next markup (references are read in the scan).
            var runStart = i
            var stopByte: UInt8 = 0
            scanning: while true {
                let found = skipTextBytes16(s, &i, n, 0x3C, 0x26, 0x5D, utf8StepTable)
                while !found && i &+ 8 <= n {
                    let x = UnsafeRawPointer(s + i).loadUnaligned(as: UInt64.self)
                    let m = attentionMask(x)
                    if m != 0 { i &+= m.trailingZeroBitCount &>> 3; break }
                    i &+= 8
                }
                while i < n && textTable[Int(s[i])] == 0 { i &+= 1 }
                if i >= n { break scanning }
                let c = s[i]
                switch c {
                case 0x09, 0x0A:
                    i &+= 1
                case 0x26:
                    // A reference: the run before it, then what it stands for, and the
                    // scan goes on here (escaped markup is most of some feeds' text). The
                    // predefined ones from one load.
                    deliver(s + runStart, i &- runStart)
                    let reference = i
                    if let (c, length) = predefinedReference8(s, i, n) {
                        deliver(byteText + Int(c), 1)
                        i &+= length
                    } else {
                        switch try self.reference(s, i, n, final: final, inAttribute: false) {
                        case .next(let j): i = j
                        case .stop(let stop): return stop
                        }
                    }
                    if machine.limitHit { return limitStop(reference) }
                    runStart = i
                case 0x3C:
                    stopByte = c
                    break scanning
                case 0x0D:
                    stopByte = c
                    break scanning
                case 0x5D:   // "]]>" may not appear in text
                    if i + 2 >= n && !final {
                        deliver(s + runStart, i - runStart)
                        return .more(i)
                    }
                    if i + 2 < n && s[i + 1] == 0x5D && s[i + 2] == 0x3E { return .error(i, "not well-formed (invalid token)") }
                    i &+= 1
                default:
                    if c >= 0x80 {
                        let len = utf8Length(s, i, n)
                        if len > 0 { i &+= len; continue }
                        if len == 0 && !final {
                            deliver(s + runStart, i - runStart)
                            return .more(i)
                        }
                        // The input ends inside a character (expat's XML_TOK_PARTIAL_CHAR).
                        if len == 0 { return .error(i, "partial character") }
                    }
                    return .error(i, "not well-formed (invalid token)")
                }
            }
            deliver(s + runStart, i - runStart)
            if i >= n { return .more(n) }
            switch stopByte {
            case 0x0D:
                if i + 1 >= n {
                    if !final { return .more(i) }
                    deliver(lineFeed, 1)
                    i += 1
                } else {
                    if s[i + 1] != 0x0A { deliver(lineFeed, 1) }   // CR LF: the LF follows as text
                    i += 1
                }
            default:
                switch try markup(s, i, n, final: final) {
                case .next(let j): i = j
                case .stop(let stop): return stop
                }
            }
        }
        return .more(n)
    }

    enum Step { case next(Int), stop(Stop) }

    /// The machine's limit (field text, items) stopped the document at `i`.
    func limitStop(_ i: Int) -> Stop {
        limitError = true
        return .error(i, machine.limitMessage)
    }

    @inline(__always)
    func deliver(_ p: UnsafePointer<UInt8>, _ n: Int) {
        if n > 0 && machine.wantsText { machine.text(UnsafeRawBufferPointer(start: p, count: n)) }
    }

}
