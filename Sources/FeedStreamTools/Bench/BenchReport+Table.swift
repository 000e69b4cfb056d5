// SPDX-License-Identifier: Apache-2.0
import FeedStream
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

extension BenchReport {
    /// The report as a table for people: one block per workload, one row per
    /// contender, median MB/s with the runs' range, the ratios to the baselines,
    /// items per second and peak memory.
    public var table: String {
        var out = "feedstream bench: \(machine.date), \(machine.cpu), \(machine.cores) cores, \(machine.system)" + (inflater.map { ", gzip inflated by \($0)" } ?? "") + "\n"
        out += "\(runs) timed run\(runs == 1 ? "" : "s") per contender after a warm-up, contenders alternating; "
        out += "MB/s of uncompressed XML, median (min–max); ratios are medians of per-run ratios; "
        out += "peak memory: \(peakMemoryMethod)"
        if let idle = idleMemoryBytes { out += "; the same child doing nothing peaks at \(formatMB(idle)) MB" }
        out += "\n"
        for w in workloads {
            out += "\n\(w.name): \(counted(w.files, "file"))"
            if w.gzipFiles > 0 { out += " (\(w.gzipFiles) gzip)" }
            out += ", \(formatMB(w.bytesXML)) MB XML"
            if w.bytesIn != w.bytesXML { out += " (\(formatMB(w.bytesIn)) MB on disk)" }
            if let d = w.documents, let i = w.items { out += ", \(counted(d, "document")), \(counted(i, "item"))" }
            out += "\n"
            // The output side's columns, when the workload has compressed-output contenders.
            let output = w.results.contains { $0.ratioToPlainOutput != nil || $0.ratioToCompressOnly != nil }
            var rows: [[String]] = [["contender", "MB/s", "min–max", "× tokenize", "× inflate"]
                                    + (output ? ["× plain out", "× compressor"] : []) + ["items/s", "peak memory"]]
            for r in w.results {
                var row: [String] = [
                    r.label + (r.error != nil ? " [!]" : ""),
                    fixed(r.medianMBps, 1),
                    "\(fixed(r.minMBps, 1))–\(fixed(r.maxMBps, 1))",
                    r.ratioToTokenizeOnly.map { fixed($0, 2) } ?? "",
                    r.ratioToInflateOnly.map { fixed($0, 2) } ?? "",
                ]
                if output {
                    row.append(r.ratioToPlainOutput.map { fixed($0, 2) } ?? "")
                    row.append(r.ratioToCompressOnly.map { fixed($0, 2) } ?? "")
                }
                row.append(r.itemsPerSecond.map { grouped(Int($0.rounded())) } ?? "")
                row.append(r.peakMemoryBytes.map { formatMB($0) + " MB" } ?? "")
                rows.append(row)
            }
            out += render(rows, rightAligned: Set(1..<rows[0].count))
            for r in w.results { if let e = r.error { out += "[!] \(r.id): \(e)\n" } }
        }
        return out
    }
}

/// Left-aligned first column, the others as asked; two spaces between columns.
private func render(_ rows: [[String]], rightAligned: Set<Int>) -> String {
    var widths = Array(repeating: 0, count: rows[0].count)
    for row in rows { for (i, c) in row.enumerated() { widths[i] = max(widths[i], c.count) } }
    var out = ""
    for row in rows {
        var line = ""
        for (i, c) in row.enumerated() {
            let pad = String(repeating: " ", count: widths[i] - c.count)
            if i > 0 { line += "  " }
            line += rightAligned.contains(i) ? pad + c : c + pad
        }
        while line.hasSuffix(" ") { line.removeLast() }
        out += line + "\n"
    }
    return out
}

/// `v` with exactly `digits` decimals.
func fixed(_ v: Double, _ digits: Int) -> String {
    guard v.isFinite else { return "-" }
    var scale = 1.0
    for _ in 0..<digits { scale *= 10 }
    let n = Int((abs(v) * scale).rounded())
    let whole = n / Int(scale)
    var frac = String(n % Int(scale))
    while frac.count < digits { frac = "0" + frac }
    return (v < 0 && n != 0 ? "-" : "") + String(whole) + (digits > 0 ? "." + frac : "")
}

/// "1 file", "3,000 files".
func counted(_ n: Int, _ noun: String) -> String { grouped(n) + " " + noun + (n == 1 ? "" : "s") }

/// Decimal megabytes with one decimal.
func formatMB(_ bytes: UInt64) -> String { fixed(Double(bytes) / 1e6, 1) }

/// 1234567 → "1,234,567".
func grouped(_ v: Int) -> String {
    let s = String(abs(v))
    var out = ""
    for (i, c) in s.enumerated() {
        if i > 0 && (s.count - i) % 3 == 0 { out.append(",") }
        out.append(c)
    }
    return (v < 0 ? "-" : "") + out
}

extension BenchMachine {
    /// This machine, now.
    public static func current() -> BenchMachine {
        BenchMachine(cpu: cpuModel(), cores: Int(sysconf(Int32(_SC_NPROCESSORS_ONLN))), system: systemName(), date: isoNow())
    }
}

private func cpuModel() -> String {
    guard let f = fopen("/proc/cpuinfo", "r") else { return "unknown CPU" }
    defer { fclose(f) }
    var line: UnsafeMutablePointer<CChar>?
    var cap = 0
    defer { free(line) }
    while getline(&line, &cap, f) > 0, let l = line {
        let s = String(cString: l)
        if s.hasPrefix("model name"), let colon = s.firstIndex(of: ":") {
            return String(s[s.index(after: colon)...].drop(while: { $0 == " " || $0 == "\t" }).prefix(while: { $0 != "\n" }))
        }
    }
    return "unknown CPU"
}

private func systemName() -> String {
    var u = utsname()
    guard uname(&u) == 0 else { return "unknown system" }
    func field<T>(_ t: inout T) -> String {
        withUnsafeBytes(of: &t) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
    }
    return "\(field(&u.sysname)) \(field(&u.release)) \(field(&u.machine))"
}

private func isoNow() -> String {
    var t = time(nil)
    var tm = tm()
    gmtime_r(&t, &tm)
    var buf = [CChar](repeating: 0, count: 32)
    let n = strftime(&buf, buf.count, "%Y-%m-%dT%H:%M:%SZ", &tm)
    return String(decoding: buf.prefix(n).map { UInt8(bitPattern: $0) }, as: UTF8.self)
}
