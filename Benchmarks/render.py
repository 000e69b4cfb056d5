#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Renders a `feedstream bench --json` report for people.

    python3 Benchmarks/render.py readme RESULTS.json FILE...   # rewrite the generated sections of each FILE
    python3 Benchmarks/render.py check RESULTS.json FILE...    # exit 1 unless each FILE's sections are RESULTS'
    python3 Benchmarks/render.py table RESULTS.json            # print the full results section
    python3 Benchmarks/render.py plot RESULTS.json docs/bench.png  # MB/s per contender (needs matplotlib)

Two sections, each between its markers, everything between them replaced:
<!-- bench-results:begin --> and <!-- bench-results:end --> hold the full results
(docs/PERFORMANCE.md), <!-- bench-summary:begin --> and <!-- bench-summary:end --> the
short table (README.md). Every FILE must hold at least one of them; Benchmarks/results.sh
and BenchTests pass both files, so every generated figure is checked wherever it lives.
Standard library only, except `plot`, which needs matplotlib (`pip install matplotlib`);
CI needs neither.
"""
import json
import os
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
BEGIN = "<!-- bench-results:begin -->"
END = "<!-- bench-results:end -->"
SUMMARY_BEGIN = "<!-- bench-summary:begin -->"
SUMMARY_END = "<!-- bench-summary:end -->"
PLOT = "docs/bench.png"

# Short names for the standard inputs (see Benchmarks/results.sh); others keep their path.
def workload_name(w):
    name = w["name"].rstrip("/")
    if name.endswith("feedstream-dump.xml"):
        return "dump, plain XML"
    if name.endswith("feedstream-dump.xml.gz"):
        return "dump, gzip"
    if name.endswith("feedstream-files"):
        return "%s single-feed files" % f"{w['files']:,}"
    if name.endswith("feedstream-files-plain"):
        return "the same, plain XML"
    if name.endswith("corpus/real"):
        return "real feeds (%s files)" % f"{w['files']:,}"
    return name


def mb(b):
    return f"{b / 1e6:,.1f}"


def cell(r):
    if r is None:
        return "–"
    s = f"{r['medianMBps']:.1f}"
    if r.get("ratioToTokenizeOnly") is not None and r["id"] != "tokenize-only":
        s += f" ({r['ratioToTokenizeOnly']:.2f}×)"
    if r.get("error"):
        s += " ⚠"
    return s


def contender_ids(report):
    ids = []
    for w in report["workloads"]:
        for r in w["results"]:
            if r["id"] not in ids:
                ids.append(r["id"])
    return ids


def label_for(report, cid):
    names = {
        "inflate-only": "inflate only (zlib, nothing parsed; plain input: read only)",
        "tokenize-only": "**tokenize only** (expat, empty callbacks)",
    }
    if cid in names:
        return names[cid]
    if "@" in cid:
        base, inflater = cid.rsplit("@", 1)
        if base == "inflate-only":
            return f"inflate only ({inflater}, `--inflate {inflater}`, nothing parsed)"
        return label_for(report, base) + f", `--inflate {inflater}`"
    if cid.endswith("+inflate-thread"):
        return f"`{cid[:-len('+inflate-thread')]}` → JSON Lines, inflate on a 2nd thread (`ReadAheadPipeline`)"
    if cid.endswith("+parts"):
        threads = next((r["threads"] for w in report["workloads"] for r in w["results"] if r["id"] == cid), "N")
        return f"`{cid[:-len('+parts')]}` → JSON Lines, the dump in parts on {threads} threads (`DumpStreamParts`)"
    return f"`{cid}` → JSON Lines"


def measured(report):
    m = report["machine"]
    return (f"Measured {m['date'][:10]} on {m['cpu']}, {m['cores']} cores, {m['system']} "
            f"(the project's shared build machine) with `Benchmarks/results.sh`: "
            f"`feedstream bench`, {report['runs']} timed runs per contender after a warm-up, "
            "contenders alternating run after run in one process.")


def summary(report, performance="docs/PERFORMANCE.md"):
    """The short table: the bare tokenizer and each backend, one core, every input."""
    ws = report["workloads"]
    backends = [cid for cid in contender_ids(report)
                if all(r["id"] != cid or r["kind"] == "backend" for w in ws for r in w["results"])
                and "+" not in cid and "@" not in cid and cid not in ("inflate-only", "tokenize-only")]
    out = [measured(report), ""]
    out.append("MB/s of uncompressed XML → JSON Lines, one core, median of the runs; in brackets the ratio to "
               "*tokenize only*.")
    out.append("")
    out.append("| contender | " + " | ".join(workload_name(w) for w in ws) + " |")
    out.append("|---|" + "---:|" * len(ws))
    for cid in ["tokenize-only"] + backends:
        cells = [cell(next((r for r in w["results"] if r["id"] == cid), None)) for w in ws]
        out.append(f"| {label_for(report, cid)} | " + " | ".join(cells) + " |")
    out.append("")
    if any(r.get("error") for w in ws for r in w["results"] if r["id"] in ["tokenize-only"] + backends):
        out.append("⚠: the contender reported an error on an input of that set and went on.")
        out.append("")
    out.append(f"Inflate on a second thread, dumps in parts on every core, ISA-L, items/s, peak memory and the "
               f"targets: [{os.path.basename(performance)}]({performance}).")
    return "\n".join(out)


def section(report, plot=PLOT):
    ws = report["workloads"]
    out = []
    out.append(measured(report))
    out.append("")
    out.append("**Throughput**: MB/s of uncompressed XML, median of the runs; in brackets the ratio to "
               "*tokenize only* (median of the per-run ratios).")
    out.append("")
    out.append("| contender | " + " | ".join(workload_name(w) for w in ws) + " |")
    out.append("|---|" + "---:|" * len(ws))
    for cid in contender_ids(report):
        cells = [cell(next((r for r in w["results"] if r["id"] == cid), None)) for w in ws]
        out.append(f"| {label_for(report, cid)} | " + " | ".join(cells) + " |")
    out.append("")
    failed = [(workload_name(w), r) for w in ws for r in w["results"] if r.get("error")]
    if failed:
        # A contender that reports an error on some input (the real corpus holds broken
        # feeds, which the empty-callback expat baseline stops at) is marked, not hidden.
        out.append("⚠: the contender reported an error on an input of that set and went on "
                   "(" + "; ".join(f"{r['id']} on {name}: {r['error']}" for name, r in failed[:3]) + ").")
        out.append("")
    out.append("| input | files | XML | on disk | documents | items |")
    out.append("|---|---:|---:|---:|---:|---:|")
    for w in ws:
        out.append(f"| {workload_name(w)} | {w['files']:,} | {mb(w['bytesXML'])} MB | {mb(w['bytesIn'])} MB | "
                   f"{(w.get('documents') or 0):,} | {(w.get('items') or 0):,} |")
    out.append("")
    out.append("**Items per second** and **peak resident memory** (each contender run once alone in a child "
               "process; " + (f"the same child doing nothing peaks at {mb(report['idleMemoryBytes'])} MB"
                              if report.get("idleMemoryBytes") else "not measured") + "):")
    out.append("")
    out.append("| contender | " + " | ".join(workload_name(w) for w in ws) + " |")
    out.append("|---|" + "---:|" * len(ws))
    for cid in contender_ids(report):
        cells = []
        for w in ws:
            r = next((r for r in w["results"] if r["id"] == cid), None)
            if r is None:
                cells.append("–")
                continue
            parts = []
            if r.get("itemsPerSecond"):
                parts.append(f"{r['itemsPerSecond']:,.0f} items/s")
            if r.get("peakMemoryBytes"):
                parts.append(f"{mb(r['peakMemoryBytes'])} MB")
            cells.append(", ".join(parts) or "–")
        out.append(f"| {label_for(report, cid)} | " + " | ".join(cells) + " |")
    out.append("")
    spreads = [(workload_name(w), r["id"], r["spreadPercent"]) for w in ws for r in w["results"]]
    worst = max(spreads, key=lambda s: s[2]) if spreads else None
    if worst:
        out.append(f"Spread (max − min over median) is up to {worst[2]:.0f}% ({worst[1]}, {worst[0]}): this "
                   "machine is shared and noisy, which is why ratios pair runs made moments apart. "
                   "Every run's figure is in `Benchmarks/results.json`.")
        out.append("")
    out.append("**Targets** (benchmarks, never timed tests):")
    out.append("")
    out.extend(targets(report))
    out.append("")
    out.append(f"![MB/s per contender against the limits]({plot})")
    return "\n".join(out)


def find(report, suffix, cid):
    for w in report["workloads"]:
        if w["name"].rstrip("/").endswith(suffix):
            return next((r for r in w["results"] if r["id"] == cid), None)
    return None


def median(values):
    v = sorted(values)
    n = len(v)
    return v[n // 2] if n % 2 else (v[n // 2 - 1] + v[n // 2]) / 2


def paired(a, b):
    """Run i of `a` over run i of `b`: the runs alternate contenders, so run i of each
    was made moments apart."""
    return [x / y for x, y in zip(a["runsMBps"], b["runsMBps"]) if y > 0]


def verdict(ratios, goal):
    """The paired runs' range and whether the target is met: by the median and every
    run, by the median only (say how many runs fell short: on a noisy machine that is a
    target met without margin), or not."""
    below = sum(1 for x in ratios if x < goal)
    spread = f"runs {min(ratios):.2f}×–{max(ratios):.2f}×" if ratios else "no runs"
    if not ratios or median(ratios) < goal:
        return f"{spread}), target ≥ {goal:.2f}× — **not met**"
    if below:
        return f"{spread}), target ≥ {goal:.2f}× — met by the median, **not by every run** ({below} of {len(ratios)} below)"
    return f"{spread}), target ≥ {goal:.2f}× — met"


def targets(report):
    lines = []
    def check(text, suffix, cid, goal):
        r, base = find(report, suffix, cid), find(report, suffix, "tokenize-only")
        if r is None or base is None or r.get("ratioToTokenizeOnly") is None:
            lines.append(f"- {text}: not measured")
            return
        ratios = paired(r, base)
        lines.append(f"- {text}: **{r['ratioToTokenizeOnly']:.2f}×** tokenize only ({r['medianMBps']:.1f} MB/s; "
                     + verdict(ratios, goal))
    check("swift (the default backend), plain XML dump → JSON Lines, one core", "feedstream-dump.xml", "swift", 1.6)
    check("swift, 3,000 single-feed files as plain XML → JSON Lines, one core", "feedstream-files-plain", "swift", 1.6)
    check("swift, the same files with their gzip quarter (inflated in turn, on one core) → JSON Lines",
          "feedstream-files", "swift", 1.6)
    check("expat, plain XML → JSON Lines, one core", "feedstream-dump.xml", "expat", 0.8)
    check("expat, `.gz` dump → JSON Lines, inflate on the second core", "feedstream-dump.xml.gz", "expat+inflate-thread", 0.8)
    check("expat, `.gz` dump → JSON Lines, one thread (`feedstream convert --no-pipeline`)",
          "feedstream-dump.xml.gz", "expat", 0.8)
    pipeline = find(report, "feedstream-dump.xml.gz", "swift+inflate-thread")

    for cid, text in [("swift+inflate-thread@isa-l", "`--inflate isa-l`, read and inflated on one core, parsed on "
                       "the other (what `convert -j 2` runs on a `.gz` here)"),
                      ("swift+parts@isa-l", "`--inflate isa-l`, in parts"),
                      ("swift+parts", "zlib, in parts")]:
        r = find(report, "feedstream-dump.xml.gz", cid)
        if r is None or pipeline is None:
            lines.append(f"- swift, `.gz` dump → JSON Lines on every core, {text}: not measured")
            continue
        ratios = paired(r, pipeline)
        ratio = median(ratios)
        lines.append(f"- swift, `.gz` dump → JSON Lines on every core, {text}"
                     + (f" on {r['threads']} threads" if "+parts" in cid else "")
                     + f": **{ratio:.2f}×** the zlib read-ahead pipeline (`convert -j 2` on a `.gz` by default) "
                     f"({r['medianMBps']:.1f} against {pipeline['medianMBps']:.1f} MB/s, median of paired runs; "
                     + verdict(ratios, 1.3))
    lines.append("- zero allocations per item on the fast path: measured by the benchmark suite "
                 "(`cd Benchmarks && swift package benchmark --filter 'allocations.*'`, metric `mallocs/1k items`), not by this table: see \"Allocations\" below.")
    return lines


def rewrite(text, begin, end, body):
    head, rest = text.split(begin, 1)
    _, tail = rest.split(end, 1)
    return head + begin + "\n" + body + "\n" + end + tail


def readme(report, path, check=False):
    """Rewrites the generated sections of the file at `path` from the report; with
    `check`, only says whether they are the ones the report gives (exit 1 when one was
    edited by hand or is stale). Links are made relative to the file's folder."""
    text = open(path, encoding="utf-8").read()
    here = os.path.dirname(os.path.abspath(path))
    rel = lambda p: os.path.relpath(os.path.join(ROOT, p), here)
    new, found = text, False
    if BEGIN in new and END in new:
        new, found = rewrite(new, BEGIN, END, section(report, rel(PLOT))), True
    if SUMMARY_BEGIN in new and SUMMARY_END in new:
        new, found = rewrite(new, SUMMARY_BEGIN, SUMMARY_END, summary(report, rel("docs/PERFORMANCE.md"))), True
    if not found:
        sys.exit(f"{path}: markers {BEGIN} / {END} or {SUMMARY_BEGIN} / {SUMMARY_END} not found")
    if check:
        if new != text:
            sys.exit(f"{path}: a results section is not the one {sys.argv[2]} gives "
                     "(edited by hand, or render.py changed: run RESULTS_ONLY=1 Benchmarks/results.sh)")
        return
    open(path, "w", encoding="utf-8").write(new)


def plot(report, path):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    ws = report["workloads"]
    colors = {"inflate-only": "#9e9e9e", "tokenize-only": "#424242"}
    palette = ["#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b"]
    backend_color = {}
    # Each workload's panel as tall as its bars need (0.2 in a bar).
    heights = [0.6 + 0.2 * len(w["results"]) for w in ws]
    fig, axes = plt.subplots(len(ws), 1, figsize=(11, 0.6 + sum(heights)), squeeze=False,
                             gridspec_kw={"height_ratios": heights})
    for ax, w in zip(axes[:, 0], ws):
        rs = list(reversed(w["results"]))
        names, vals, lo, hi, cols = [], [], [], [], []
        for r in rs:
            names.append(r["label"].replace(" → JSON Lines", " → JSONL"))
            vals.append(r["medianMBps"])
            lo.append(r["medianMBps"] - r["minMBps"])
            hi.append(r["maxMBps"] - r["medianMBps"])
            base_id = r["id"].split("@")[0]
            if base_id in colors:
                cols.append(colors[base_id])
            else:
                b = r["backend"]
                backend_color.setdefault(b, palette[len(backend_color) % len(palette)])
                cols.append(backend_color[b])
        y = range(len(rs))
        hatches = [("//" if r["id"].split("@")[0].endswith("+inflate-thread") else "xx"
                    if r["id"].split("@")[0].endswith("+parts") else "") + ("." if "@" in r["id"] else "")
                   for r in rs]
        bars = ax.barh(list(y), vals, xerr=[lo, hi], color=cols, error_kw={"elinewidth": 0.8, "capsize": 2})
        for b, h in zip(bars, hatches):
            b.set_hatch(h)
        tok = w["results"][[r["id"] for r in w["results"]].index("tokenize-only")]["medianMBps"]
        ax.axvline(tok, color="#424242", linestyle="--", linewidth=0.8)
        ax.axvline(0.8 * tok, color="#c62828", linestyle=":", linewidth=1.0)
        ax.axvline(1.6 * tok, color="#2e7d32", linestyle=":", linewidth=1.0)
        ax.set_yticks(list(y))
        ax.set_yticklabels(names, fontsize=7.5)
        # The axis fits the parsers and the tokenizer; a read-only or inflate-only
        # baseline far beyond them is drawn cut at the edge, its value written in.
        xmax = max(r["maxMBps"] for r in w["results"] if not r["id"].startswith("inflate-only")) * 1.15
        for yi, v in zip(y, vals):
            if v > xmax:
                ax.text(xmax * 0.98, yi, f"{v:.0f} (off scale) →", va="center", ha="right",
                        fontsize=7.5, color="white")
            else:
                ax.text(v + xmax * 0.01, yi, f"{v:.0f}", va="center", fontsize=7.5)
        ax.set_title(f"{workload_name(w)}: {mb(w['bytesXML'])} MB XML", fontsize=9, loc="left")
        ax.set_xlim(0, xmax)
        ax.tick_params(axis="x", labelsize=7.5)
        ax.grid(axis="x", linewidth=0.3)
    axes[-1, 0].set_xlabel("MB/s of uncompressed XML (median, bars: min–max over runs); "
                           "dashed: tokenize only; dotted: the targets, 0.8 × (red, expat) and 1.6 × (green, swift) tokenize only", fontsize=7.5)
    m = report["machine"]
    fig.suptitle(f"feedstream bench, {m['date'][:10]}, {m['cpu']}, {m['cores']} cores, {report['runs']} runs",
                 fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=90, bbox_inches="tight")


def main(argv):
    if len(argv) < 3 or argv[1] not in ("readme", "check", "table", "plot"):
        sys.exit(__doc__)
    report = json.load(open(argv[2], encoding="utf-8"))
    if argv[1] == "table":
        print(section(report))
    elif argv[1] in ("readme", "check"):
        if len(argv) < 4:
            sys.exit(__doc__)
        for path in argv[3:]:
            readme(report, path, check=argv[1] == "check")
    else:
        plot(report, argv[3])


if __name__ == "__main__":
    main(sys.argv)
