// SPDX-License-Identifier: Apache-2.0
import Foundation
import FeedStreamTestSupport
import XCTest

// What the README and the guides in docs/ show, run as a user meets it: the progress bar,
// the messages, the diff counts, the queries and commands of their sections.

/// The progress bar never writes into the data.
final class ProgressBarCLITests: CLITestCase {
    /// Runs `COMMAND` in a pseudo-terminal (standard output and error both on it) with
    /// `script` from util-linux; nil when there is no `script`.
    private func onTerminal(_ command: String) throws -> String? {
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/script") else { return nil }
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/script")
        p.arguments = ["-qec", command, "/dev/null"]
        p.currentDirectoryURL = Self.repo
        let out = Pipe()
        p.standardOutput = out
        p.standardInput = FileHandle.nullDevice
        try p.run()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, String(decoding: o, as: UTF8.self))
        return String(decoding: o, as: UTF8.self)
    }

    func testNoBarWhenTheOutputGoesToTheTerminal() throws {
        let dir = try tempDir()
        // The run lasts over a second (the input pipe stays open), so a bar would be drawn.
        let slow = "(cat corpus/feeds/rss2-basic.xml; sleep 1.2) | '\(binary.path)' convert"
        guard let toTerminal = try onTerminal("\(slow) -") else {
            throw skip("needs script(1) from util-linux for a pseudo-terminal")
        }
        XCTAssertFalse(toTerminal.contains("items/s"), toTerminal)
        XCTAssertFalse(toTerminal.contains("\u{1B}[K"), toTerminal)
        XCTAssertTrue(toTerminal.contains("\"kind\":\"item\""), "the data is there: \(toTerminal)")
        // With -o the terminal has no data, and the bar is drawn.
        let toFile = try XCTUnwrap(try onTerminal("\(slow) - -o '\(dir.path)/out.jsonl'"))
        XCTAssertTrue(toFile.contains("items/s"), toFile)
    }
}

/// messages that say what is wrong, and help that shows how.
final class MessagesCLITests: CLITestCase {
    func testAFeedRootWithoutTheAtomNamespaceIsReadAsAtomOnEveryBackend() throws {
        for backend in ["expat", "libxml2", "swift"] {
            for doc in ["<feed><title>t</title></feed>", "<feed xmlns='http://example.com/'><title>t</title></feed>"] {
                let r = try run(["convert", "-q", "--backend", backend, "-"], stdin: Data(doc.utf8))
                XCTAssertEqual(r.status, 0, backend)
                XCTAssertEqual(r.err, "", backend)
                XCTAssertTrue(r.out.contains("\"format\":\"atom\",\"title\":\"t\""), r.out)
            }
            // Any other root is not a feed.
            let html = try run(["convert", "-q", "--backend", backend, "-"], stdin: Data("<html><body/></html>".utf8))
            XCTAssertEqual(html.err, "feedstream: -: document 1, line 1, column 1: root element is not rss, rdf:RDF or feed\n")
        }
    }

    func testTheSummaryCountsFeedsAndPagesApartWithPlurals() throws {
        let dir = try tempDir()
        let page = dir.appendingPathComponent("page.html")
        try Data("<html><body>hi</body></html>".utf8).write(to: page)
        let stats = dir.appendingPathComponent("stats.json")
        let r = try run(["convert", "--stats", stats.path, "corpus/feeds/rss2-basic.xml", page.path])
        XCTAssertEqual(r.status, 0, "a page that is not a feed is counted, not lost")
        XCTAssertTrue(r.err.contains("\nfeedstream: 2 files (2 clean, 0 recovered, 0 failed); 1 feed (1 clean, 0 recovered, 0 failed), 1 not a feed, 3 items; "), r.err)
        let s = try XCTUnwrap(JSONSerialization.jsonObject(with: Data(contentsOf: stats)) as? [String: Any])
        XCTAssertEqual(s["feeds"] as? Int, 1)
        XCTAssertEqual(s["feeds_failed"] as? Int, 0)
        XCTAssertEqual(s["not_feeds"] as? Int, 1)
        let one = try run(["convert", "corpus/feeds/rss2-no-items.xml"])
        XCTAssertTrue(one.err.hasPrefix("feedstream: 1 file (1 clean, 0 recovered, 0 failed); 1 feed (1 clean, 0 recovered, 0 failed), 0 items; "), one.err)
    }

    func testNoInputPrintsAUsageHint() throws {
        for args in [[], ["convert"]] {
            let r = try run(args)
            XCTAssertEqual(r.status, 2, "\(args)")
            XCTAssertTrue(r.err.contains("Usage: feedstream convert [<options>] [<inputs> ...]"), "\(args): \(r.err)")
            XCTAssertTrue(r.err.contains("feedstream convert --help"), "\(args): \(r.err)")
        }
    }

    func testEachSubcommandsHelpHasExamplesThatRun() throws {
        for command in ["convert", "diff", "bench"] {
            let help = try run([command, "--help"]).out
            let examples = help.components(separatedBy: "EXAMPLES:\n").dropFirst().first?
                .components(separatedBy: "\n\n").first ?? ""
            let lines = examples.split(separator: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
            XCTAssertGreaterThanOrEqual(lines.count, 2, "\(command): \(help)")
            for line in lines { XCTAssertTrue(line.contains("feedstream \(command) "), "\(command): \(line)") }
        }
        // The diff example runs as written, on the bundled corpus.
        let diff = try run(["diff", "corpus/feeds", "corpus/encodings"])
        XCTAssertEqual(diff.status, 0, diff.out + diff.err)
    }

    func testSchemaListsEveryErrorCodeTheErrorsFileCanHold() throws {
        let schema = try String(contentsOf: Self.repo.appendingPathComponent("docs/SCHEMA.md"), encoding: .utf8)
        let row = try XCTUnwrap(schema.split(separator: "\n").first { $0.hasPrefix("| `code` |") })
        for code in ["xml", "gzip", "not_feed", "limit", "io", "empty"] {
            XCTAssertTrue(row.contains("`\(code)`"), code)
        }
        let dir = try tempDir()
        let errors = dir.appendingPathComponent("errors.jsonl")
        let r = try run(["convert", "-q", "--errors", errors.path, "corpus/bad/empty.xml"])
        XCTAssertEqual(r.status, 1)
        XCTAssertEqual(try lines(String(contentsOf: errors, encoding: .utf8)).first?["code"] as? String, "empty")
    }
}

/// `feedstream diff` counts each document and record once.
final class DiffCountsCLITests: CLITestCase {
    func testCountsDoNotGrowWithTheNumberOfBackends() throws {
        func counts(_ backends: String) throws -> String {
            let r = try run(["diff", "--backends", backends, "corpus/feeds", "corpus/bad"])
            XCTAssertEqual(r.status, 0, r.out + r.err)
            let last = try XCTUnwrap(r.out.split(separator: "\n").last)
            return String(try XCTUnwrap(last.split(separator: ":", maxSplits: 1).last))
        }
        let two = try counts("expat,libxml2"), three = try counts("expat,libxml2,swift")
        XCTAssertEqual(two, three)
        // corpus/bad/not-xml.txt is found in a folder and skipped, as convert skips it.
        XCTAssertTrue(three.hasSuffix("(2 documents rejected), 0 differences "
                                      + "(skipped 1 non-XML file)"), three)
        let one = try run(["diff", "--backends", "expat,swift", "corpus/feeds/rss2-basic.xml"])
        XCTAssertEqual(one.out, "expat vs swift: 1 input, 1 document, 4 records compared "
                       + "(0 documents rejected), 0 differences\n")
    }
}

/// The command blocks of the README's quick start and of docs/CLI.md run as written:
/// "Loading it elsewhere" (its commands, in a folder holding the `archive/` and
/// `all-paths.txt` of "Beyond one machine": here the fixtures and a bad feed, then its
/// DuckDB and pandas code), "Broken feeds are recovered" and "Web archives".
final class ReadmeQueriesCLITests: CLITestCase {
    /// The fenced blocks of `language` in the section of `file` starting at `marker`, up
    /// to the next `## ` heading.
    private func blocks(after marker: String, _ language: String, in file: String = "docs/CLI.md") throws -> [String] {
        let readme = try String(contentsOf: Self.repo.appendingPathComponent(file), encoding: .utf8)
        let rest = try XCTUnwrap(readme.components(separatedBy: marker).dropFirst().first, "\(file): \(marker)")
        let section = rest.components(separatedBy: "\n## ")[0]
        return section.components(separatedBy: "```\(language)\n").dropFirst().map { $0.components(separatedBy: "\n```")[0] }
    }

    private func python(_ module: String) throws {
        let probe = Process()
        probe.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        probe.arguments = Self.consumerPython + ["-c", "import \(module)"]
        probe.standardError = FileHandle.nullDevice
        try probe.run()
        probe.waitUntilExit()
        guard probe.terminationStatus == 0 else {
            throw skip("consumer check skipped: the docs' code needs python3 with \(module): run Tests/consumers/setup.sh")
        }
    }

    /// The README's quick start for the command line: its commands as written but the
    /// first (the build, which gives the tests their binary), with the exit status and the
    /// output their comments promise.
    func testTheQuickStartRunsAsWritten() throws {
        let commands = try XCTUnwrap(blocks(after: "\n### Command line\n", "sh", in: "README.md").first)
        let commandLines = commands.split(separator: "\n").map(String.init)
        XCTAssertEqual(commandLines.count, 4)
        XCTAssertTrue(commandLines[0].hasPrefix("swift build -c release && export PATH="), commandLines[0])
        let dir = try tempDir()
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("corpus"),
                                                   withDestinationURL: Self.repo.appendingPathComponent("corpus"))
        let text = try runAsWritten(Array(commandLines.dropFirst()), in: dir)
        let statuses = text.split(separator: "\n").filter { $0.hasPrefix("== ") }.map(String.init)
        XCTAssertEqual(statuses, ["== 0", "== 0", "== 0"], text)   // convert, convert a broken feed (recovered), diff
        let converted = try String(contentsOf: dir.appendingPathComponent("feeds.jsonl"), encoding: .utf8)
        XCTAssertTrue(converted.contains("\"kind\":\"item\""), converted)
        let errors = try String(contentsOf: dir.appendingPathComponent("errors.jsonl"), encoding: .utf8)
        XCTAssertEqual(try lines(errors).first?["reason"] as? String, "mismatched tag", errors)
        XCTAssertTrue(text.contains("\"recovered\":true"), text)
        XCTAssertTrue(text.contains(" 0 differences"), text)
    }

    /// docs/CLI.md "Converting" and "At archive scale": their commands as written (but the
    /// build, which gives the tests their binary), in a folder holding what they name: a
    /// gzipped dump, an archive folder (plain and gzipped feeds, a `tmp/` folder) and
    /// `feeds/*.gz`.
    func testTheConvertingCommandsRunAsWritten() throws {
        func commands(_ block: String) -> [String] {
            block.replacingOccurrences(of: "\\\n", with: " ").split(separator: "\n").map(String.init)
        }
        let converting = try commands(XCTUnwrap(blocks(after: "\n## Converting\n", "sh").first))
        let scale = try commands(XCTUnwrap(blocks(after: "\n## At archive scale\n", "sh").first))
        XCTAssertEqual(converting.first, "swift build -c release")
        XCTAssertEqual(converting.count + scale.count, 7)
        let dir = try tempDir()
        let feeds = Self.repo.appendingPathComponent("corpus/feeds").path
        let setUp = """
            set -e
            mkdir -p .build/release archive/tmp feeds
            ln -s '\(binary.path)' .build/release/feedstream
            gzip -c '\(feeds)/dump-three.xml' > dump.xml.gz
            cp '\(feeds)/rss2-basic.xml' archive/
            gzip -c '\(feeds)/atom-basic.xml' > archive/atom.xml.gz
            gzip -c '\(feeds)/rss1-rdf.xml' > archive/tmp/rdf.xml.gz
            gzip -c '\(feeds)/rss2-basic.xml' > feeds/a.gz
            gzip -c '\(feeds)/atom-basic.xml' > feeds/b.gz
            """
        XCTAssertEqual(try runAsWritten([setUp], in: dir), "== 0\n")
        let text = try runAsWritten(Array(converting.dropFirst()) + scale, in: dir)
        XCTAssertEqual(text.split(separator: "\n").filter { $0.hasPrefix("== ") }, Array(repeating: "== 0", count: 6), text)
        let stats = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(contentsOf: dir.appendingPathComponent("stats.json"))) as? [String: Any])
        XCTAssertEqual(stats["files"] as? Int, 3)   // the archive folder, recursively
        XCTAssertEqual(try String(contentsOf: dir.appendingPathComponent("errors.jsonl"), encoding: .utf8), "")
        XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("archive.jsonl.gz").path))
        // The last command: the three gzipped files of the archive, tmp/ included.
        let last = try String(contentsOf: dir.appendingPathComponent("items.jsonl"), encoding: .utf8)
        let sources = Set(try lines(last).compactMap { $0["source"] as? String })
        XCTAssertEqual(sources, ["archive/atom.xml.gz", "archive/tmp/rdf.xml.gz"])
    }

    /// docs/CLI.md "Broken feeds are recovered": its commands as written, with what the
    /// comments say they print.
    func testBrokenFeedsAreRecoveredRunsAsWritten() throws {
        let commands = try XCTUnwrap(blocks(after: "\n## Broken feeds are recovered\n", "sh").first)
        let lines = commands.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3)
        let dir = try tempDir()
        let text = try runAsWritten(lines, in: dir)
        let runs = text.components(separatedBy: "== ")
        XCTAssertEqual(runs.count, 4, text)   // printf, then the two conversions
        // Recovering: the item, then the feed line with the error, both "recovered".
        XCTAssertTrue(runs[1].contains("\"kind\":\"item\"") && runs[1].contains("\"title\":\"a & b\""), text)
        XCTAssertTrue(runs[1].contains("\"title_type\":\"text\",\"recovered\":true}"), text)
        XCTAssertTrue(runs[1].contains("},\"recovered\":true}"), text)
        // Strict: the feed line and its error only.
        XCTAssertFalse(runs[2].contains("\"kind\":\"item\""), text)
        XCTAssertTrue(runs[2].contains("\"error\":{") && !runs[2].contains("recovered"), text)
    }

    /// docs/CLI.md "Web archives": its commands as written (the generator, convert on two
    /// workers, two shards), with what they promise: every feed of the crawl converted,
    /// with its record, and the shards together the whole.
    func testWebArchivesRunsAsWritten() throws {
        let commands = try XCTUnwrap(blocks(after: "\n## Web archives\n", "sh").first)
        let lines = commands.split(separator: "\n").map(String.init)
        XCTAssertEqual(lines.count, 3)
        let dir = try tempDir()
        try FileManager.default.createSymbolicLink(at: dir.appendingPathComponent("corpus"),
                                                   withDestinationURL: Self.repo.appendingPathComponent("corpus"))
        let text = try runAsWritten(lines, in: dir)
        XCTAssertEqual(text.components(separatedBy: "== 0").count, 4, text)   // generate, convert, the shards loop
        let stats = try XCTUnwrap(JSONSerialization.jsonObject(
            with: Data(contentsOf: dir.appendingPathComponent("warc-stats.json"))) as? [String: Any])
        XCTAssertGreaterThan(stats["warc_feed_records"] as? Int ?? 0, 50)
        XCTAssertEqual(stats["feeds"] as? Int, stats["warc_feed_records"] as? Int)
        let shards = try ["feeds-1.jsonl", "feeds-2.jsonl"].map {
            try String(contentsOf: dir.appendingPathComponent($0), encoding: .utf8)
        }
        let shardLines = shards.joined().split(separator: "\n").count
        XCTAssertEqual(shardLines, (stats["items"] as? Int ?? 0) + (stats["feeds"] as? Int ?? 0))
        XCTAssertTrue(shards.joined().contains("\"warc\":{\"record_id\":\"<urn:uuid:"))
    }

    func testLoadingItElsewhereRunsAsWritten() throws {
        try python("duckdb")
        try python("pandas")
        let dir = try tempDir()
        let archive = dir.appendingPathComponent("archive")
        try FileManager.default.createDirectory(at: archive, withIntermediateDirectories: true)
        var paths: [String] = []
        for name in ["rss2-basic.xml", "atom-basic.xml", "dump-three.xml", "rss1-rdf.xml"] {
            let to = archive.appendingPathComponent(name)
            try FileManager.default.copyItem(at: Self.repo.appendingPathComponent("corpus/feeds/\(name)"), to: to)
            paths.append(to.path)
        }
        try FileManager.default.copyItem(at: Self.repo.appendingPathComponent("corpus/bad/mismatched.xml"),
                                         to: archive.appendingPathComponent("mismatched.xml"))
        paths.append(archive.appendingPathComponent("mismatched.xml").path)
        try (paths.joined(separator: "\n") + "\n").write(to: dir.appendingPathComponent("all-paths.txt"), atomically: true, encoding: .utf8)

        func run(_ executable: String, _ args: [String]) throws -> (Int32, String) {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: executable)
            p.arguments = args
            p.currentDirectoryURL = dir
            p.environment = ProcessInfo.processInfo.environment.merging(
                ["PATH": binary.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")]) { $1 }
            let out = Pipe()
            p.standardOutput = out
            try p.run()
            let data = out.fileHandleForReading.readDataToEndOfFile()
            p.waitUntilExit()
            return (p.terminationStatus, String(decoding: data, as: UTF8.self))
        }
        // The commands as written, `feedstream` being the built binary.
        let commands = try XCTUnwrap(blocks(after: "\n## Loading it elsewhere\n", "sh").first)
        XCTAssertEqual(commands.split(separator: "\n").count, 6)
        let (status, _) = try run("/bin/sh", ["-c", "set -e\n" + commands])
        XCTAssertEqual(status, 0, commands)
        let code = try blocks(after: "\n## Loading it elsewhere\n", "python")
        let duckdb = try XCTUnwrap(code.first { $0.hasPrefix("import duckdb") })
        let (s1, out1) = try run("/usr/bin/env", Self.consumerPython + ["-c", duckdb])
        XCTAssertEqual(s1, 0, duckdb)
        // items per feed from items.jsonl (3 rows), then the 2 newest items from feeds.jsonl
        XCTAssertTrue(out1.contains("│ Dev Diary                │     3 │ 2025-03-06 09:00:00+00   │"), out1)
        // corpus/bad/mismatched.xml's 3 items: 2 before its error, 1 by the recovery path.
        XCTAssertTrue(out1.contains("│ Mismatched Tags Feed     │     3 │ NULL                     │"), out1)
        XCTAssertEqual(out1.components(separatedBy: "timestamp with time zone").count, 3, out1)
        let pandas = try XCTUnwrap(code.first { $0.hasPrefix("import json\nimport pandas") })
        let (s2, out2) = try run("/usr/bin/env", Self.consumerPython + ["-W", "ignore", "-c", pandas])
        XCTAssertEqual(s2, 0, pandas)
        let types = out2.split(separator: "\n").map { $0.split(separator: " ", omittingEmptySubsequences: true).map(String.init) }
        XCTAssertEqual(types, [["document", "Int64"], ["title", "string"], ["published", "datetime64[us,", "UTC]"],
                               ["published_raw", "string"]], out2)
    }

    /// docs/CLI.md's Slurm script runs as written for one array task (sbatch's
    /// `#SBATCH` lines are comments to the shell): its output folder made, its shard's
    /// lines and errors written there.
    func testTheSlurmScriptRunsAsWritten() throws {
        let block = try XCTUnwrap(blocks(after: "### Slurm", "sh").first)
        XCTAssertTrue(block.contains("mkdir -p out"), block)
        let dir = try tempDir()
        let feeds = Self.repo.appendingPathComponent("corpus/feeds")
        let paths = try FileManager.default.contentsOfDirectory(atPath: feeds.path).sorted()
            .filter { $0.hasSuffix(".xml") }.map { feeds.appendingPathComponent($0).path }
        try Data((paths.joined(separator: "\n") + "\n").utf8).write(to: dir.appendingPathComponent("all-paths.txt"))
        var shardLines = 0
        for task in 1...64 {
            let p = Process()
            p.executableURL = URL(fileURLWithPath: "/bin/sh")
            p.arguments = ["-e", "-c", block]
            p.currentDirectoryURL = dir
            p.environment = ProcessInfo.processInfo.environment.merging(
                ["PATH": binary.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? ""),
                 "SLURM_ARRAY_TASK_ID": "\(task)"]) { $1 }
            p.standardError = FileHandle.nullDevice
            try p.run()
            p.waitUntilExit()
            XCTAssertEqual(p.terminationStatus, 0, "task \(task)")
            let part = dir.appendingPathComponent("out/part-\(task).jsonl.gz")
            XCTAssertTrue(FileManager.default.fileExists(atPath: part.path), part.path)
            XCTAssertTrue(FileManager.default.fileExists(atPath: dir.appendingPathComponent("out/errors-\(task).jsonl").path))
            let gunzip = Process()
            gunzip.executableURL = URL(fileURLWithPath: "/bin/sh")
            gunzip.arguments = ["-c", "gzip -dc '\(part.path)' | wc -l"]
            let count = Pipe()
            gunzip.standardOutput = count
            try gunzip.run()
            let text = String(decoding: count.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            gunzip.waitUntilExit()
            shardLines += Int(text.trimmingCharacters(in: .whitespacesAndNewlines)) ?? -1
        }
        // Together the 64 shards hold the lines of one run over the whole list.
        let whole = try run(["convert", "-q", "--files-from", dir.appendingPathComponent("all-paths.txt").path])
        XCTAssertEqual(shardLines, whole.out.split(separator: "\n").count)
    }
}

/// docs/CLI.md's diff commands run as written; the README's dependency lines name no
/// version that was never tagged.
final class ReadmeCommandsCLITests: CLITestCase {
    private var readme: String {
        get throws { try String(contentsOf: Self.repo.appendingPathComponent("README.md"), encoding: .utf8) }
    }

    func testTheDiffCommandsRunAsWritten() throws {
        let text = try String(contentsOf: Self.repo.appendingPathComponent("docs/CLI.md"), encoding: .utf8)
        let block = try XCTUnwrap(text.components(separatedBy: "is a difference:\n\n```sh\n").dropFirst().first)
        let commands = block.components(separatedBy: "\n```")[0].split(separator: "\n").map(String.init)
        XCTAssertEqual(commands.count, 2)
        let summary = try NSRegularExpression(pattern: #"^expat vs libxml2 vs swift: \d+ inputs, \d+ documents, \d+ records compared \(\d+ documents? rejected\), 0 differences( \(skipped \d+ non-XML files?\))?$"#)
        for command in commands {
            let words = command.components(separatedBy: "#")[0].split(separator: " ").map(String.init)
            XCTAssertEqual(words.prefix(2), [".build/release/feedstream", "diff"])
            if words.contains("../shared/corpus/real/"),
               !FileManager.default.fileExists(atPath: Self.repo.appendingPathComponent("../shared/corpus/real").path) {
                print("ReadmeCommandsCLITests: ../shared/corpus/real is not present: its diff command not run")
                continue
            }
            let r = try run(Array(words.dropFirst()))
            XCTAssertEqual(r.status, 0, "\(command): \(r.out)\(r.err)")
            let last = String(r.out.split(separator: "\n").last ?? "")
            XCTAssertEqual(summary.numberOfMatches(in: last, range: NSRange(last.startIndex..., in: last)), 1, last)
        }
    }

    func testTheDependencyLineNamesNoUntaggedVersion() throws {
        let git = Process()
        git.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        git.arguments = ["git", "-C", Self.repo.path, "tag", "--list"]
        let out = Pipe()
        git.standardOutput = out
        git.standardError = FileHandle.nullDevice
        try git.run()
        let tags = Set(String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
            .split(separator: "\n").map { String($0).trimmingCharacters(in: .whitespaces) })
        git.waitUntilExit()
        guard git.terminationStatus == 0 else { throw skip("not a git checkout: no tags to compare with") }
        let text = try readme
        XCTAssertTrue(text.contains(#"dependencies: [.package(path: "../FeedStream")],"#))
        XCTAssertTrue(text.contains(#".product(name: "FeedStream", package: "FeedStream")"#))
        XCTAssertFalse(text.contains("<owner>"))
        // A version the README depends on, and every version the CHANGELOG gives as
        // released, is a tag (the baseline api/check.sh compares with). A clone made
        // without tags (a single branch fetched alone) cannot tell.
        if tags.subtracting([""]).isEmpty { throw skip("this clone holds no tags: the released versions cannot be checked") }
        let changelog = try String(contentsOf: Self.repo.appendingPathComponent("CHANGELOG.md"), encoding: .utf8)
        for line in changelog.split(separator: "\n") where line.hasPrefix("## ") && !line.hasPrefix("## Unreleased") {
            let version = String(line.dropFirst(3).split(separator: " ")[0])
            XCTAssertTrue(tags.contains(version) || tags.contains("v" + version) || line.hasSuffix("(not tagged)"),
                          "CHANGELOG: \(line)")
        }
        let from = try NSRegularExpression(pattern: #"from: "([^"]+)""#)
        for m in from.matches(in: text, range: NSRange(text.startIndex..., in: text)) {
            let version = String(text[Range(m.range(at: 1), in: text)!])
            XCTAssertTrue(tags.contains(version) || tags.contains("v" + version), "README depends on \(version), not a tag")
        }
    }
}
