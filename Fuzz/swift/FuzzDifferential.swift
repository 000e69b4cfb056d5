// SPDX-License-Identifier: Apache-2.0
// Differential libFuzzer harness: the same bytes through several backends (expat and
// swift by default; FUZZ_BACKENDS=expat,swift,libxml2 adds libxml2), compared with the
// project's own rule (BackendDiff, docs/SCHEMA.md "Backends"): every line is
// byte-identical, a rejected document's too, but for the error's message and place
// (below). Any difference is printed and aborts, so libFuzzer keeps the input.
import FeedStream

#if canImport(Glibc)
import Glibc
#endif

private let backends: [FeedBackend] = {
    let spec = getenv("FUZZ_BACKENDS").map { String(cString: $0) } ?? "expat,swift"
    let list = spec.split(separator: ",").map { name -> FeedBackend in
        guard let b = FeedBackend(rawValue: String(name)) else { fatalError("FUZZ_BACKENDS: unknown backend \(name)") }
        return b
    }
    precondition(list.count >= 2, "FUZZ_BACKENDS: name at least two backends")
    return list
}()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzzDifferential(_ data: UnsafePointer<UInt8>?, _ size: Int) -> CInt {
    let raw = UnsafeRawBufferPointer(start: data, count: size)
    let bytes = Array(raw)
    // One input in eight with a small field-text limit: every backend fails the document
    // at the same tag, after the same items.
    let diff = BackendDiff(backends: backends, limits: fuzzLimits(inputHash(raw)))
    var result = BackendDiff.Report()
    do {
        try diff.compare(.bytes(bytes), source: "fuzz", into: &result)
    } catch {
        fatalError("fuzz: parse threw \(error)")
    }
    // `feedstream diff` compares error records whole. Here an error that differs in its
    // message or place only (both backends rejected the document, with the same code)
    // is not a finding yet: the Swift tokenizer still words or places a few constructs
    // otherwise than expat (Fuzz/README.md, "Known differences").
    let findings = result.differences.filter { d in
        !(d.record == "feed" && d.member == "error" && code(d.first) != nil && code(d.first) == code(d.second))
    }
    if !findings.isEmpty {
        report("fuzz_differential: \(backends.map(\.rawValue).joined(separator: " vs ")) disagree:")
        for d in findings.prefix(8) { report(d.description) }
        abort()
    }
    return 0
}

/// The `code` member of an error as a difference shows it ("expat: {\"code\":\"xml\",...}").
private func code(_ shown: String) -> [UInt8]? {
    let b = Array(shown.utf8), key = Array("\"code\":\"".utf8)
    guard b.count >= key.count, let i = (0...(b.count - key.count)).first(where: { b[$0..<($0 + key.count)].elementsEqual(key) })
    else { return nil }
    return Array(b[(i + key.count)...].prefix { $0 != UInt8(ascii: "\"") })
}
