// SPDX-License-Identifier: Apache-2.0 AND MIT
import FeedStreamCore
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

// The prolog as expat reads it: its tokens (xmltok's prologTok, scanComment, scanPi,
// scanDecl, scanLit, scanPercent, scanPoundName) and the grammar over them (xmlrole's
// states), so that the Swift tokenizer fails a broken prolog or DOCTYPE with the error
// expat gives, at the byte expat names. The place matters beyond the message: the
// search for the next document of a dump starts from it. A literal before the root,
// a markup declaration of the internal subset and a DOCTYPE that never ends are
// therefore reported at the bad byte expat scans on to, not at the token's start
// (the differential fuzzer compares the two).
//
// Input is UTF-8 (the tokenizer's own, after any transcoding); positions are offsets
// into the bytes given.

/// A token of the prolog (expat's `XML_TOK_*` of prologTok).
enum PrologToken: Equatable {
    /// Not a token: the error is at the byte ``PrologScan/next`` names.
    case invalid
    /// The bytes end inside the token (at the end of the input: "unclosed token").
    case partial
    /// The bytes end inside a character.
    case partialChar
    /// No bytes.
    case none
    case space, processingInstruction, xmlDeclaration, comment, declarationOpen, rootStart, literal
    case name, prefixedName, nameToken, nameQuestion, nameAsterisk, namePlus, poundName
    case percent, parameterEntityReference, openBracket, closeBracket, conditionalOpen, conditionalClose
    case openParen, closeParen, closeParenQuestion, closeParenAsterisk, closeParenPlus
    case or, comma, declarationClose
}

/// One token: what it is, where it ends (for ``PrologToken/invalid``, the bad byte), and
/// whether it could go on past the bytes given (expat's negative tokens: a name, a
/// literal or a bracket at the end of the bytes is only known to end once more come).
struct PrologScan {
    var token: PrologToken
    var next: Int
    var open = false
}

// ---- characters ------------------------------------------------------------------

/// The length of the UTF-8 character at `p` (a byte ≥ 0x80): 0 when the bytes end
/// inside it (by its first byte's count, as expat counts), -1 when it is not valid or
/// not an XML character.
@inline(__always)
private func wideLength(_ s: UnsafePointer<UInt8>, _ p: Int, _ n: Int) -> Int {
    let c = s[p]
    let want = c < 0xC0 ? -1 : c < 0xE0 ? 2 : c < 0xF0 ? 3 : c < 0xF8 ? 4 : -1
    if want < 0 { return -1 }
    if n - p < want { return 0 }
    return utf8Length(s, p, n) == want ? want : -1
}

@inline(__always) private func isLetter(_ c: UInt8) -> Bool { (c | 0x20) >= 0x61 && (c | 0x20) <= 0x7A }
/// expat's BT_NMSTRT and BT_HEX in ASCII (the colon is a class of its own: namespaces).
@inline(__always) private func isNameStart(_ c: UInt8) -> Bool { isLetter(c) || c == 0x5F }
/// BT_NMSTRT, BT_HEX, BT_DIGIT, BT_NAME, BT_MINUS in ASCII.
@inline(__always) private func isNameByte(_ c: UInt8) -> Bool {
    isNameStart(c) || (c >= 0x30 && c <= 0x39) || c == 0x2E || c == 0x2D
}
@inline(__always) private func isWhite(_ c: UInt8) -> Bool { c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D }
/// Control characters XML does not allow (BT_NONXML in ASCII).
@inline(__always) private func isNonXML(_ c: UInt8) -> Bool { c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D }

/// What a name character check gave at `p`: the character's length, or the token to end with.
private enum NameStep { case advance(Int), stop, end(PrologScan) }

/// expat's CHECK_NAME_CASES (or CHECK_NMSTRT_CASES with `first`): a name character
/// advances; an ASCII byte that is none stops (the caller decides); a non-ASCII
/// character that is none, or a bad one, is the invalid token.
@inline(__always)
private func nameStep(_ s: UnsafePointer<UInt8>, _ p: Int, _ n: Int, first: Bool, _ names: NameCharacters) -> NameStep {
    let c = s[p]
    if c < 0x80 { return (first ? isNameStart(c) : isNameByte(c)) ? .advance(1) : .stop }
    let len = wideLength(s, p, n)
    if len == 0 { return .end(PrologScan(token: .partialChar, next: p)) }
    if len < 0 || !names.accepts(utf8Scalar(s, p, len), first: first) {
        return .end(PrologScan(token: .invalid, next: p))
    }
    return .advance(len)
}

/// Checks the character at `p` inside a comment, PI or literal (expat's INVALID_CASES):
/// its length, or the token to end with.
@inline(__always)
private func textStep(_ s: UnsafePointer<UInt8>, _ p: Int, _ n: Int) -> NameStep {
    let c = s[p]
    if c < 0x80 { return isNonXML(c) ? .end(PrologScan(token: .invalid, next: p)) : .advance(1) }
    let len = wideLength(s, p, n)
    if len == 0 { return .end(PrologScan(token: .partialChar, next: p)) }
    if len < 0 { return .end(PrologScan(token: .invalid, next: p)) }
    return .advance(len)
}

// ---- the constructs shared with content: comments and processing instructions ------

/// Characters from `from` up to the next `stop` byte, each checked as expat's
/// INVALID_CASES check it: where `stop` is (`n` when the bytes end first), or the token
/// to end with.
private func textRun(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, until stop: UInt8) -> NameRun {
    var p = from
    while p < n && s[p] != stop {
        switch textStep(s, p, n) {
        case .advance(let k): p += k
        case .end(let e): return .token(e)
        case .stop: p += 1
        }
    }
    return .stops(p)
}

/// A comment from `p`, just after `<!-`.
func scanComment(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int) -> PrologScan {
    var p = from
    guard p < n else { return PrologScan(token: .partial, next: p) }
    if s[p] != 0x2D { return PrologScan(token: .invalid, next: p) }
    p += 1
    while true {
        switch textRun(s, p, n, until: 0x2D) {
        case .token(let t): return t
        case .stops(let d): p = d
        case .noName: break
        }
        // A '-': "-->" ends the comment, "--" otherwise is the error (at the byte after it).
        p += 1
        guard p < n else { break }
        if s[p] != 0x2D { continue }
        p += 1
        guard p < n else { break }
        if s[p] != 0x3E { return PrologScan(token: .invalid, next: p) }
        return PrologScan(token: .comment, next: p + 1)
    }
    return PrologScan(token: .partial, next: p)
}

/// A processing instruction from `p`, just after `<?`: ``PrologToken/xmlDeclaration``
/// for the target `xml`, invalid for another case of it (`XML`, `Xml`: reserved).
func scanProcessingInstruction(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, _ names: NameCharacters) -> PrologScan {
    var p = from
    guard p < n else { return PrologScan(token: .partial, next: p) }
    switch nameStep(s, p, n, first: true, names) {
    case .advance(let k): p += k
    case .end(let e): return e
    case .stop: return PrologScan(token: .invalid, next: p)
    }
    /// The target's kind, or nil for a reserved name in another case.
    func target(_ end: Int) -> PrologToken? {
        guard end - from == 3, s[from] | 0x20 == 0x78, s[from + 1] | 0x20 == 0x6D, s[from + 2] | 0x20 == 0x6C else {
            return .processingInstruction
        }
        return s[from] == 0x78 && s[from + 1] == 0x6D && s[from + 2] == 0x6C ? .xmlDeclaration : nil
    }
    while p < n {
        switch nameStep(s, p, n, first: false, names) {
        case .advance(let k): p += k; continue
        case .end(let e): return e
        case .stop: break
        }
        let c = s[p]
        if isWhite(c) {
            guard let kind = target(p) else { return PrologScan(token: .invalid, next: p) }
            p += 1
            while true {
                switch textRun(s, p, n, until: 0x3F) {
                case .token(let t): return t
                case .stops(let q): p = q
                case .noName: break
                }
                p += 1   // past the '?': "?>" ends it
                guard p < n else { break }
                if s[p] == 0x3E { return PrologScan(token: kind, next: p + 1) }
            }
            return PrologScan(token: .partial, next: p)
        }
        if c == 0x3F {
            guard let kind = target(p) else { return PrologScan(token: .invalid, next: p) }
            p += 1
            guard p < n else { break }
            if s[p] == 0x3E { return PrologScan(token: kind, next: p + 1) }
        }
        return PrologScan(token: .invalid, next: p)
    }
    return PrologScan(token: .partial, next: p)
}

// ---- the prolog's tokens -------------------------------------------------------------

/// The prolog token at `i`.
func prologToken(_ s: UnsafePointer<UInt8>, _ i: Int, _ n: Int, _ names: NameCharacters) -> PrologScan {
    guard i < n else { return PrologScan(token: .none, next: i) }
    let c = s[i]
    switch c {
    case 0x22, 0x27: return literal(s, i + 1, n, quote: c)
    case 0x3C:
        let p = i + 1
        guard p < n else { return PrologScan(token: .partial, next: p) }
        let d = s[p]
        if d == 0x21 { return declaration(s, p + 1, n) }
        if d == 0x3F { return scanProcessingInstruction(s, p + 1, n, names) }
        if isNameStart(d) || d >= 0x80 { return PrologScan(token: .rootStart, next: i) }
        return PrologScan(token: .invalid, next: p)
    case 0x20, 0x09, 0x0A, 0x0D:
        var p = i + 1
        while p < n && isWhite(s[p]) { p += 1 }
        return PrologScan(token: .space, next: p)
    case 0x25: return percent(s, i + 1, n, names)
    case 0x2C: return PrologScan(token: .comma, next: i + 1)
    case 0x5B: return PrologScan(token: .openBracket, next: i + 1)
    case 0x5D:
        let p = i + 1
        guard p < n else { return PrologScan(token: .closeBracket, next: p, open: true) }
        if s[p] == 0x5D {
            guard p + 1 < n else { return PrologScan(token: .partial, next: p + 1) }
            if s[p + 1] == 0x3E { return PrologScan(token: .conditionalClose, next: p + 2) }
        }
        return PrologScan(token: .closeBracket, next: p)
    case 0x28: return PrologScan(token: .openParen, next: i + 1)
    case 0x29:
        let p = i + 1
        guard p < n else { return PrologScan(token: .closeParen, next: p, open: true) }
        switch s[p] {
        case 0x2A: return PrologScan(token: .closeParenAsterisk, next: p + 1)
        case 0x3F: return PrologScan(token: .closeParenQuestion, next: p + 1)
        case 0x2B: return PrologScan(token: .closeParenPlus, next: p + 1)
        case 0x20, 0x09, 0x0A, 0x0D, 0x3E, 0x2C, 0x7C, 0x29: return PrologScan(token: .closeParen, next: p)
        default: return PrologScan(token: .invalid, next: p)
        }
    case 0x7C: return PrologScan(token: .or, next: i + 1)
    case 0x3E: return PrologScan(token: .declarationClose, next: i + 1)
    case 0x23: return poundName(s, i + 1, n, names)
    default: break
    }
    // A name or a name token.
    var token = PrologToken.name
    var p = i
    if c >= 0x80 {
        let len = wideLength(s, p, n)
        if len == 0 { return PrologScan(token: .partialChar, next: p) }
        if len < 0 { return PrologScan(token: .invalid, next: p) }
        let v = utf8Scalar(s, p, len)
        if names.accepts(v, first: true) {
            token = .name
        } else if names.accepts(v, first: false) {
            token = .nameToken
        } else {
            return PrologScan(token: .invalid, next: p)
        }
        p += len
    } else if isNameStart(c) {
        p += 1
    } else if (c >= 0x30 && c <= 0x39) || c == 0x2E || c == 0x2D || c == 0x3A {
        token = .nameToken
        p += 1
    } else {
        return PrologScan(token: .invalid, next: p)
    }
    while p < n {
        switch nameStep(s, p, n, first: false, names) {
        case .advance(let k): p += k; continue
        case .end(let e): return e
        case .stop: break
        }
        switch s[p] {
        case 0x3E, 0x29, 0x2C, 0x7C, 0x5B, 0x25, 0x20, 0x09, 0x0A, 0x0D:
            return PrologScan(token: token, next: p)
        case 0x3A:
            p += 1
            if token == .name {
                guard p < n else { return PrologScan(token: .partial, next: p) }
                token = .prefixedName
                switch nameStep(s, p, n, first: false, names) {
                case .advance(let k): p += k
                case .end(let e): return e
                case .stop: token = .nameToken
                }
            } else if token == .prefixedName {
                token = .nameToken
            }
        case 0x2B, 0x2A, 0x3F:
            if token == .nameToken { return PrologScan(token: .invalid, next: p) }
            let kind: PrologToken = s[p] == 0x2B ? .namePlus : s[p] == 0x2A ? .nameAsterisk : .nameQuestion
            return PrologScan(token: kind, next: p + 1)
        default:
            return PrologScan(token: .invalid, next: p)
        }
    }
    return PrologScan(token: token, next: n, open: true)
}

/// A quoted literal, from just after its quote.
private func literal(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, quote: UInt8) -> PrologScan {
    var p = from
    switch textRun(s, p, n, until: quote) {
    case .token(let t): return t
    case .stops(let q): p = q
    case .noName: break
    }
    guard p < n else { return PrologScan(token: .partial, next: p) }
    p += 1   // past the closing quote
    guard p < n else { return PrologScan(token: .literal, next: p, open: true) }
    switch s[p] {
    case 0x20, 0x09, 0x0A, 0x0D, 0x3E, 0x25, 0x5B: return PrologScan(token: .literal, next: p)
    default: return PrologScan(token: .invalid, next: p)
    }
}

/// `<!` and what follows: a comment, `<![`, or a markup declaration's keyword.
private func declaration(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int) -> PrologScan {
    var p = from
    guard p < n else { return PrologScan(token: .partial, next: p) }
    let c = s[p]
    if c == 0x2D { return scanComment(s, p + 1, n) }
    if c == 0x5B { return PrologScan(token: .conditionalOpen, next: p + 1) }
    guard isNameStart(c) else { return PrologScan(token: .invalid, next: p) }
    p += 1
    while p < n {
        let d = s[p]
        if d == 0x25 {
            guard p + 1 < n else { return PrologScan(token: .partial, next: p + 1) }
            // Not "<!ENTITY% name".
            if isWhite(s[p + 1]) || s[p + 1] == 0x25 { return PrologScan(token: .invalid, next: p) }
            return PrologScan(token: .declarationOpen, next: p)
        }
        if isWhite(d) { return PrologScan(token: .declarationOpen, next: p) }
        guard isNameStart(d) else { return PrologScan(token: .invalid, next: p) }
        p += 1
    }
    return PrologScan(token: .partial, next: p)
}

/// A name from `p`, as expat scans one (a name's first character, then name
/// characters): where it stops (the first byte that is no name character, or `n`).
private enum NameRun { case stops(Int), token(PrologScan), noName }

private func nameRun(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, _ names: NameCharacters) -> NameRun {
    var p = from
    switch nameStep(s, p, n, first: true, names) {
    case .advance(let k): p += k
    case .end(let e): return .token(e)
    case .stop: return .noName
    }
    while p < n {
        switch nameStep(s, p, n, first: false, names) {
        case .advance(let k): p += k
        case .end(let e): return .token(e)
        case .stop: return .stops(p)
        }
    }
    return .stops(n)
}

/// `%` and what follows: a parameter entity reference, or the `%` of `<!ENTITY %`.
private func percent(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, _ names: NameCharacters) -> PrologScan {
    guard from < n else { return PrologScan(token: .partial, next: from) }
    switch nameRun(s, from, n, names) {
    case .token(let t): return t
    case .noName:
        let c = s[from]
        return PrologScan(token: isWhite(c) || c == 0x25 ? .percent : .invalid, next: from)
    case .stops(let p):
        guard p < n else { return PrologScan(token: .partial, next: p) }
        return s[p] == 0x3B ? PrologScan(token: .parameterEntityReference, next: p + 1) : PrologScan(token: .invalid, next: p)
    }
}

/// `#` and a name (`#PCDATA`, `#IMPLIED`, ...).
private func poundName(_ s: UnsafePointer<UInt8>, _ from: Int, _ n: Int, _ names: NameCharacters) -> PrologScan {
    guard from < n else { return PrologScan(token: .partial, next: from) }
    switch nameRun(s, from, n, names) {
    case .token(let t): return t
    case .noName: return PrologScan(token: .invalid, next: from)
    case .stops(let p):
        guard p < n else { return PrologScan(token: .poundName, next: n, open: true) }
        switch s[p] {
        case 0x20, 0x09, 0x0A, 0x0D, 0x29, 0x3E, 0x25, 0x7C: return PrologScan(token: .poundName, next: p)
        default: return PrologScan(token: .invalid, next: p)
        }
    }
}

/// The first byte of a public identifier literal (`from`..<`to`, quotes excluded) that
/// PubidChar does not allow, or nil (expat's isPublicId: a tab is not allowed).
func badPublicIDByte(_ s: UnsafePointer<UInt8>, _ from: Int, _ to: Int) -> Int? {
    for p in from..<to {
        let c = s[p]
        if isLetter(c) || (c >= 0x30 && c <= 0x39) { continue }
        switch c {
        case 0x20, 0x0D, 0x0A, 0x2D, 0x27, 0x28, 0x29, 0x2B, 0x2C, 0x2E, 0x2F, 0x3A, 0x3D, 0x3F, 0x3B, 0x21,
             0x2A, 0x23, 0x40, 0x24, 0x5F, 0x25:
            continue
        default:
            return p
        }
    }
    return nil
}

// ---- the prolog's grammar -------------------------------------------------------------

/// What a token is in the prolog's grammar (expat's `XML_ROLE_*`, only those the
/// tokenizer acts on).
enum PrologRole: Equatable {
    case none, error, rootStart, doctypeOpen, doctypePublicID, doctypeSystemID, subsetOpen, subsetClose, doctypeClose
    /// A markup declaration of the internal subset begins (its keyword).
    case declarationOpen
    /// The markup declaration ends (its `>`).
    case declarationEnd
    /// A public identifier of an entity or notation (checked as the DOCTYPE's is).
    case publicID
    /// An internal entity's value.
    case entityValue
    /// An attribute's default value in an attribute-list declaration (`#FIXED` too).
    case attributeDefault
}

/// The prolog's grammar as expat's xmlrole states it: the state after each token, and
/// whether the token is allowed there (the document entity: no external subset, no
/// conditional sections).
struct PrologGrammar {
    enum State {
        case prolog0, prolog1, prolog2, doctype0, doctype1, doctype2, doctype3, doctype4, doctype5, internalSubset
        case entity0, entity1, entity2, entity3, entity4, entity5, entity6, entity7, entity8, entity9, entity10
        case notation0, notation1, notation2, notation3, notation4
        case attlist0, attlist1, attlist2, attlist3, attlist4, attlist5, attlist6, attlist7, attlist8, attlist9
        case element0, element1, element2, element3, element4, element5, element6, element7
        case declClose, failed
    }

    var state = State.prolog0
    /// Nesting of parentheses in an element's content model.
    var level = 0

    /// The role of `token` (its bytes `s[start..<end]`), moving to the next state.
    mutating func role(_ token: PrologToken, _ s: UnsafePointer<UInt8>, _ start: Int, _ end: Int) -> PrologRole {
        func keyword(_ k: StaticString, at from: Int = start) -> Bool {
            end - from == k.utf8CodeUnitCount && memcmp(s + from, k.utf8Start, k.utf8CodeUnitCount) == 0
        }
        func go(_ next: State, _ role: PrologRole = .none) -> PrologRole { state = next; return role }
        let isName = token == .name || token == .prefixedName
        if token == .space {
            if state == .prolog0 { state = .prolog1 }
            return .none
        }
        switch state {
        case .prolog0, .prolog1, .prolog2:
            switch token {
            case .processingInstruction, .comment: return go(state == .prolog0 ? .prolog1 : state)
            case .declarationOpen where state != .prolog2 && keyword("DOCTYPE", at: start + 2):
                return go(.doctype0, .doctypeOpen)
            case .rootStart: return .rootStart   // the state stays: the start tag may need more bytes
            default: break
            }
        case .doctype0:
            if isName { return go(.doctype1) }
        case .doctype1:
            switch token {
            case .openBracket: return go(.internalSubset, .subsetOpen)
            case .declarationClose: return go(.prolog2, .doctypeClose)
            case .name where keyword("SYSTEM"): return go(.doctype3)
            case .name where keyword("PUBLIC"): return go(.doctype2)
            default: break
            }
        case .doctype2:
            if token == .literal { return go(.doctype3, .doctypePublicID) }
        case .doctype3:
            if token == .literal { return go(.doctype4, .doctypeSystemID) }
        case .doctype4:
            if token == .openBracket { return go(.internalSubset, .subsetOpen) }
            if token == .declarationClose { return go(.prolog2, .doctypeClose) }
        case .doctype5:
            if token == .declarationClose { return go(.prolog2, .doctypeClose) }
        case .internalSubset:
            switch token {
            case .declarationOpen:
                if keyword("ENTITY", at: start + 2) { return go(.entity0, .declarationOpen) }
                if keyword("ATTLIST", at: start + 2) { return go(.attlist0, .declarationOpen) }
                if keyword("ELEMENT", at: start + 2) { return go(.element0, .declarationOpen) }
                if keyword("NOTATION", at: start + 2) { return go(.notation0, .declarationOpen) }
            case .processingInstruction, .comment, .parameterEntityReference, .none: return .none
            case .closeBracket: return go(.doctype5, .subsetClose)
            default: break
            }
        case .entity0:
            if token == .percent { return go(.entity1) }
            if token == .name { return go(.entity2) }
        case .entity1:
            if token == .name { return go(.entity7) }
        case .entity2, .entity7:
            let afterName = state == .entity2
            if token == .name && keyword("SYSTEM") { return go(afterName ? .entity4 : .entity9) }
            if token == .name && keyword("PUBLIC") { return go(afterName ? .entity3 : .entity8) }
            if token == .literal { return go(.declClose, .entityValue) }
        case .entity3, .entity8:
            if token == .literal { return go(state == .entity3 ? .entity4 : .entity9, .publicID) }
        case .entity4, .entity9:
            if token == .literal { return go(state == .entity4 ? .entity5 : .entity10) }
        case .entity5:
            if token == .declarationClose { return go(.internalSubset, .declarationEnd) }
            if token == .name && keyword("NDATA") { return go(.entity6) }
        case .entity6:
            if token == .name { return go(.declClose) }
        case .entity10:
            if token == .declarationClose { return go(.internalSubset, .declarationEnd) }
        case .notation0:
            if token == .name { return go(.notation1) }
        case .notation1:
            if token == .name && keyword("SYSTEM") { return go(.notation3) }
            if token == .name && keyword("PUBLIC") { return go(.notation2) }
        case .notation2:
            if token == .literal { return go(.notation4, .publicID) }
        case .notation3:
            if token == .literal { return go(.declClose) }
        case .notation4:
            if token == .literal { return go(.declClose) }
            if token == .declarationClose { return go(.internalSubset, .declarationEnd) }
        case .attlist0:
            if isName { return go(.attlist1) }
        case .attlist1:
            if token == .declarationClose { return go(.internalSubset, .declarationEnd) }
            if isName { return go(.attlist2) }
        case .attlist2:
            if token == .name {
                for k: StaticString in ["CDATA", "ID", "IDREF", "IDREFS", "ENTITY", "ENTITIES", "NMTOKEN", "NMTOKENS"]
                    where keyword(k) { return go(.attlist8) }
                if keyword("NOTATION") { return go(.attlist5) }
            }
            if token == .openParen { return go(.attlist3) }
        case .attlist3:
            if token == .nameToken || isName { return go(.attlist4) }
        case .attlist4:
            if token == .closeParen { return go(.attlist8) }
            if token == .or { return go(.attlist3) }
        case .attlist5:
            if token == .openParen { return go(.attlist6) }
        case .attlist6:
            if token == .name { return go(.attlist7) }
        case .attlist7:
            if token == .closeParen { return go(.attlist8) }
            if token == .or { return go(.attlist6) }
        case .attlist8:
            if token == .poundName {
                if keyword("IMPLIED", at: start + 1) || keyword("REQUIRED", at: start + 1) { return go(.attlist1) }
                if keyword("FIXED", at: start + 1) { return go(.attlist9) }
            }
            if token == .literal { return go(.attlist1, .attributeDefault) }
        case .attlist9:
            if token == .literal { return go(.attlist1, .attributeDefault) }
        case .element0:
            if isName { return go(.element1) }
        case .element1:
            if token == .name && (keyword("EMPTY") || keyword("ANY")) { return go(.declClose) }
            if token == .openParen { level = 1; return go(.element2) }
        case .element2:
            if token == .poundName && keyword("PCDATA", at: start + 1) { return go(.element3) }
            if token == .openParen { level = 2; return go(.element6) }
            if isName || token == .nameQuestion || token == .nameAsterisk || token == .namePlus { return go(.element7) }
        case .element3:
            if token == .closeParen || token == .closeParenAsterisk { return go(.declClose) }
            if token == .or { return go(.element4) }
        case .element4:
            if isName { return go(.element5) }
        case .element5:
            if token == .closeParenAsterisk { return go(.declClose) }
            if token == .or { return go(.element4) }
        case .element6:
            if token == .openParen { level += 1; return .none }
            if isName || token == .nameQuestion || token == .nameAsterisk || token == .namePlus { return go(.element7) }
        case .element7:
            switch token {
            case .closeParen, .closeParenAsterisk, .closeParenQuestion, .closeParenPlus:
                level -= 1
                if level == 0 { state = .declClose }
                return .none
            case .comma, .or: return go(.element6)
            default: break
            }
        case .declClose:
            if token == .declarationClose { return go(.internalSubset, .declarationEnd) }
        case .failed:
            return .none
        }
        state = .failed
        return .error
    }

    /// expat's error for a token the grammar does not allow where it came (doProlog).
    static func errorMessage(for token: PrologToken) -> String {
        switch token {
        case .parameterEntityReference: "illegal parameter entity reference"
        case .xmlDeclaration: "XML or text declaration not at start of entity"
        default: "syntax error"
        }
    }

    /// Inside the DOCTYPE (from its keyword to its `>`).
    var inDoctype: Bool {
        switch state {
        case .prolog0, .prolog1, .prolog2, .failed: false
        default: true
        }
    }
}

/// The first error in an internal entity's value (`from`..<`to`, quotes excluded) as
/// expat's storeEntityValue finds it: a parameter entity reference (not allowed in the
/// internal subset's declarations), a `%` or `&` that begins no reference, a character
/// reference to no XML character.
func entityValueError(_ s: UnsafePointer<UInt8>, _ from: Int, _ to: Int, _ names: NameCharacters) -> (at: Int, message: String)? {
    let invalid = "not well-formed (invalid token)"
    var p = from
    while p < to {
        let c = s[p]
        if c == 0x25 {
            let t = percent(s, p + 1, to, names)
            switch t.token {
            case .parameterEntityReference: return (p, "illegal parameter entity reference")
            case .partial: return (p, invalid)
            default: return (t.next, invalid)
            }
        }
        if c == 0x26 {
            var q = p + 1
            guard q < to else { return (p, invalid) }
            if s[q] == 0x23 {
                q += 1
                guard q < to else { return (p, invalid) }
                let hex = s[q] == 0x78
                if hex { q += 1; guard q < to else { return (p, invalid) } }
                var value: UInt32 = 0
                var digits = 0
                while q < to && s[q] != 0x3B {
                    let d = s[q]
                    let v: UInt32? = d >= 0x30 && d <= 0x39 ? UInt32(d - 0x30)
                        : hex && (d | 0x20) >= 0x61 && (d | 0x20) <= 0x66 ? UInt32((d | 0x20) - 0x61 + 10) : nil
                    guard let v else { return (q, invalid) }
                    value = value > 0x10FFFF ? value : value * (hex ? 16 : 10) + v
                    digits += 1
                    q += 1
                }
                if digits == 0 { return (q, invalid) }
                guard q < to else { return (p, invalid) }
                let ok = value == 0x09 || value == 0x0A || value == 0x0D || (value >= 0x20 && value <= 0xD7FF)
                    || (value >= 0xE000 && value <= 0xFFFD) || (value >= 0x10000 && value <= 0x10FFFF)
                if !ok { return (p, "reference to invalid character number") }
                p = q + 1
                continue
            }
            switch nameRun(s, q, to, names) {
            case .token(let e): return (e.next, invalid)
            case .noName: return (q, invalid)
            case .stops(let e): q = e
            }
            guard q < to else { return (p, invalid) }
            if s[q] != 0x3B { return (q, invalid) }
            p = q + 1
            continue
        }
        p += 1
    }
    return nil
}
