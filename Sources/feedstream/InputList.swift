import FeedStream
import Foundation

/// Expands command-line inputs into the list of files to convert.
enum InputList {
    struct Error: Swift.Error, CustomStringConvertible {
        var description: String
    }

    /// Files as given; folders expanded recursively (regular files, sorted by path,
    /// hidden files and folders skipped); "-" kept for standard input.
    static func expand(_ inputs: [String]) throws -> [String] {
        var out: [String] = []
        let fm = FileManager.default
        for input in inputs {
            if input == "-" {
                out.append(input)
                continue
            }
            var isDir: ObjCBool = false
            guard fm.fileExists(atPath: input, isDirectory: &isDir) else {
                throw Error(description: "feedstream: \(input): no such file or folder")
            }
            if !isDir.boolValue {
                out.append(input)
                continue
            }
            var found: [String] = []
            let base = URL(fileURLWithPath: input)
            guard let e = fm.enumerator(at: base, includingPropertiesForKeys: [.isRegularFileKey],
                                        options: [.skipsHiddenFiles]) else { continue }
            for case let url as URL in e {
                if (try? url.resourceValues(forKeys: [.isRegularFileKey]))?.isRegularFile == true {
                    let rel = url.path.hasPrefix(base.path) ? String(url.path.dropFirst(base.path.count)) : url.lastPathComponent
                    found.append(input.hasSuffix("/") ? input + rel.drop(while: { $0 == "/" }) : input + (rel.hasPrefix("/") ? rel : "/" + rel))
                }
            }
            out.append(contentsOf: found.sorted())
        }
        return out
    }
}

/// The output file: standard output, or a temporary file beside the target that is
/// renamed into place only when the run finished, so an interrupted run never leaves
/// a partial file under the final name.
final class OutputFile {
    let output: FileDescriptorOutput
    private let path: String?
    private let temporary: String?

    init(path: String?) throws {
        guard let path, path != "-" else {
            self.path = nil
            temporary = nil
            output = .standardOutput
            return
        }
        let tmp = path + ".partial-\(getpid())"
        let fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        if fd < 0 { throw OutputError(errno: errno) }
        self.path = path
        temporary = tmp
        output = FileDescriptorOutput(fd: fd)
    }

    func commit() throws {
        guard let path, let temporary else { return }
        if close(output.fd) != 0 { throw OutputError(errno: errno) }
        if rename(temporary, path) != 0 { throw OutputError(errno: errno) }
    }

    func abandon() {
        guard let temporary else { return }
        close(output.fd)
        unlink(temporary)
    }
}
