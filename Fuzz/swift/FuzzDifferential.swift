// Differential libFuzzer harness: the same bytes through several backends (expat and
// swift by default; FUZZ_BACKENDS=expat,swift,libxml2 adds libxml2), compared with the
// project's own rule (BackendDiff, docs/SCHEMA.md "Backends"): on a well-formed
// document every line is byte-identical; a document one backend rejects, every backend
// rejects, and they agree on every item completed before the error. Any difference
// is printed and aborts, so libFuzzer keeps the input.
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
    if !result.differences.isEmpty {
        report("fuzz_differential: \(backends.map(\.rawValue).joined(separator: " vs ")) disagree:")
        for d in result.differences.prefix(8) { report(d.description) }
        abort()
    }
    return 0
}
