// SPDX-License-Identifier: Apache-2.0
import Foundation
import FeedStreamTestSupport
import XCTest

/// Runs the built `feedstream` as a user does: real files, real exit statuses.
class CLITestCase: XCTestCase {
    static let repo = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    /// The built `feedstream`, next to the test bundle.
    var binary: URL {
        var dir = Bundle(for: CLITestCase.self).bundleURL
        while !FileManager.default.fileExists(atPath: dir.appendingPathComponent("feedstream").path) && dir.path != "/" {
            dir = dir.deletingLastPathComponent()
        }
        return dir.appendingPathComponent("feedstream")
    }

    /// Runs the binary to its end; standard output and error are read concurrently.
    func run(_ args: [String], stdin: Data? = nil) throws -> (status: Int32, out: String, err: String) {
        let p = Process()
        p.executableURL = binary
        p.arguments = args
        p.currentDirectoryURL = Self.repo
        let out = Pipe(), err = Pipe(), inp = Pipe()
        p.standardOutput = out
        p.standardError = err
        p.standardInput = inp
        try p.run()
        // Feed standard input and drain standard error on threads of their own, so that
        // no pipe fills up while this one waits on another. Not Dispatch's global queue:
        // its pool is as wide as the machine has cores (2 here), and two blocked readers
        // there left the stdin writer waiting for a thread forever (seen under ASan).
        let errData = ErrorData()
        let group = DispatchGroup()
        let reader = err.fileHandleForReading
        group.enter()
        Thread { errData.set(reader.readDataToEndOfFile()); group.leave() }.start()
        let writer = inp.fileHandleForWriting
        group.enter()
        Thread {
            if let stdin { writer.write(stdin) }
            try? writer.close()
            group.leave()
        }.start()
        let o = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        p.waitUntilExit()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self), String(decoding: errData.get(), as: UTF8.self))
    }

    /// Runs a shell command in the repository; fails the test if it fails.
    func sh(_ command: String, file: StaticString = #filePath, line: UInt = #line) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", command]
        p.currentDirectoryURL = Self.repo
        try p.run()
        p.waitUntilExit()
        XCTAssertEqual(p.terminationStatus, 0, command, file: file, line: line)
    }

    /// Waits (up to 10 s) until `p` has created `output`'s temporary `.NAME.partial-PID`
    /// beside it: by then its signal handlers are installed and it is reading input.
    func waitForTemporary(of output: URL, by p: Process, file: StaticString = #filePath, line: UInt = #line) {
        let marker = output.deletingLastPathComponent()
            .appendingPathComponent(".\(output.lastPathComponent).partial-\(p.processIdentifier)")
        var waited = 0
        while !FileManager.default.fileExists(atPath: marker.path) && waited < 1000 {
            usleep(10_000)
            waited += 1
        }
        XCTAssertTrue(FileManager.default.fileExists(atPath: marker.path), "the run started", file: file, line: line)
    }

    /// Starts `feedstream convert ARGS -` reading a pipe we keep open, waits until it has
    /// created the temporary file `.NAME.partial-PID` in `dir` (its signal handlers are
    /// installed by then), and sends it `signal`.
    func interrupt(_ args: [String], temporary name: String, in dir: URL, feed: Data, signal: Int32 = SIGINT) throws
        -> (status: Int32, out: String)
    {
        let p = Process()
        p.executableURL = binary
        p.arguments = ["convert"] + args + ["-"]
        p.currentDirectoryURL = Self.repo
        let inp = Pipe(), out = Pipe()
        p.standardInput = inp
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        inp.fileHandleForWriting.write(feed)   // the rest never comes
        waitForTemporary(of: dir.appendingPathComponent(name), by: p)
        kill(p.processIdentifier, signal)
        let o = out.fileHandleForReading.readDataToEndOfFile()
        p.waitUntilExit()
        try? inp.fileHandleForWriting.close()
        return (p.terminationStatus, String(decoding: o, as: UTF8.self))
    }

    /// Runs README command lines as written in `dir` (each line's trailing comment, after
    /// two or more spaces, dropped), with the built binary first on PATH, each followed by `echo "== $?"`;
    /// returns standard output.
    func runAsWritten(_ lines: [String], in dir: URL) throws -> String {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/bin/sh")
        p.arguments = ["-c", lines.map { $0.replacingOccurrences(of: #"\s{2,}#.*$"#, with: "", options: .regularExpression)
                                         + "; echo \"== $?\"" }.joined(separator: "\n")]
        p.currentDirectoryURL = dir
        p.environment = ProcessInfo.processInfo.environment.merging(
            ["PATH": binary.deletingLastPathComponent().path + ":" + (ProcessInfo.processInfo.environment["PATH"] ?? "")]) { $1 }
        let out = Pipe()
        p.standardOutput = out
        p.standardError = FileHandle.nullDevice
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        return text
    }

    /// The Python that has the consumers (DuckDB, pandas, PySpark, warcio): the virtual
    /// environment Tests/consumers/setup.sh makes, `.venv`, when there is one; else
    /// `python3` on the PATH.
    static var consumerPython: [String] {
        let venv = repo.appendingPathComponent(".venv/bin/python3").path
        return FileManager.default.isExecutableFile(atPath: venv) ? [venv] : ["python3"]
    }

    /// Runs a Python check script of Tests/consumers (`python3 SCRIPT ARGS`, with
    /// ``consumerPython``), printing what it says; exit 77 is a skip (a module is
    /// missing), any other non-zero a failure.
    func pythonCheck(_ script: String, _ args: [String]) throws {
        let p = Process()
        p.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        p.arguments = Self.consumerPython + [script] + args
        p.currentDirectoryURL = Self.repo
        let out = Pipe()
        p.standardOutput = out
        p.standardError = out
        try p.run()
        let text = String(decoding: out.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        p.waitUntilExit()
        print(text, terminator: "")
        if p.terminationStatus == 77 {
            throw skip(text.split(whereSeparator: \.isNewline).joined(separator: " "))
        }
        XCTAssertEqual(p.terminationStatus, 0, text)
    }

    func tempDir() throws -> URL {
        let d = FileManager.default.temporaryDirectory.appendingPathComponent("feedstream-cli-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: d, withIntermediateDirectories: true)
        addTeardownBlock { try? FileManager.default.removeItem(at: d) }
        return d
    }

    func lines(_ s: String) throws -> [[String: Any]] {
        try s.split(separator: "\n").map { try XCTUnwrap(JSONSerialization.jsonObject(with: Data($0.utf8)) as? [String: Any]) }
    }
}

private final class ErrorData: @unchecked Sendable {   // set once, read after the group's wait
    private var data = Data()
    func set(_ d: Data) { data = d }
    func get() -> Data { data }
}
