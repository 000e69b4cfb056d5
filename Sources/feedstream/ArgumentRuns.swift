// SPDX-License-Identifier: Apache-2.0
import ArgumentParser

/// Long runs of path arguments kept out of ArgumentParser's way.
///
/// ArgumentParser takes an array argument's values one at a time, copying the array
/// and the set of their positions each time: parsing grows with the square of the
/// number of paths (16,000 paths: 8 s before a file is read), and a shell glob or
/// `xargs` can give tens of thousands. So before parsing, each run of more than
/// ``threshold`` arguments that do not start with `-` keeps its first argument (which
/// may be an option's value) and stands for the rest with one placeholder; after
/// parsing, the command's inputs get them back in place, in order. A placeholder
/// holds a NUL byte, which no argument can.
enum ArgumentRuns {
    /// Runs up to this long are given to ArgumentParser as they are.
    static let threshold = 16

    /// `arguments` with the long runs' tails replaced by placeholders, and the tails.
    static func compact(_ arguments: [String]) -> (arguments: [String], tails: [[String]]) {
        var out: [String] = []
        var tails: [[String]] = []
        var i = 0
        while i < arguments.count {
            guard !arguments[i].hasPrefix("-") else {
                out.append(arguments[i])
                i += 1
                continue
            }
            var end = i + 1
            while end < arguments.count && !arguments[end].hasPrefix("-") { end += 1 }
            out.append(arguments[i])
            if end - i > threshold {
                out.append(placeholder(tails.count))
                tails.append(Array(arguments[(i + 1)..<end]))
            } else {
                out.append(contentsOf: arguments[(i + 1)..<end])
            }
            i = end
        }
        return (out, tails)
    }

    /// `inputs` with each placeholder replaced by the arguments it stands for.
    static func expand(_ inputs: [String], _ tails: [[String]]) -> [String] {
        guard !tails.isEmpty else { return inputs }
        var out: [String] = []
        out.reserveCapacity(inputs.count + tails.reduce(0) { $0 + $1.count })
        for input in inputs {
            if let k = index(input), k < tails.count { out.append(contentsOf: tails[k]) } else { out.append(input) }
        }
        return out
    }

    private static let mark = "\u{0}feedstream-arguments-"

    private static func placeholder(_ k: Int) -> String { mark + String(k) }

    private static func index(_ s: String) -> Int? {
        guard s.hasPrefix(mark) else { return nil }
        return Int(s.dropFirst(mark.count))
    }
}

/// A command whose positional arguments are paths (``ArgumentRuns``).
protocol TakesPaths: ParsableCommand {
    var inputs: [String] { get set }
}
