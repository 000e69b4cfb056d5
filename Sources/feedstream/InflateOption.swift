// SPDX-License-Identifier: Apache-2.0
import ArgumentParser
import FeedStream

extension GzipInflater: ExpressibleByArgument {}

/// `--inflate zlib|isa-l`, shared by the commands that read gzip (`convert`, `diff`,
/// `bench`): the run's ``GzipInflater``. Without it, ``GzipInflater/default`` (zlib, or
/// ISA-L with `FEEDSTREAM_INFLATE=isa-l` in the environment).
struct InflateOption: ParsableArguments {
    @Option(help: ArgumentHelp("The gzip inflater: zlib (the default) or isa-l (Intel's ISA-L, ~2.6x as fast, where libisal.so.2 is installed; the same output on intact gzip, docs/SCHEMA.md, \"Gzip\").",
                               valueName: "zlib|isa-l"))
    var inflate: GzipInflater?

    /// The run's inflater, or a usage error (exit status 2) when ISA-L was asked for and
    /// is not there.
    func chosen(for command: String) throws -> GzipInflater {
        guard let inflate else { return .default }
        if inflate == .isal && !GzipInflater.isalAvailable {
            printError("feedstream \(command): --inflate isa-l: ISA-L is not available (build with Debian's libisal-dev installed; libisal.so.2 must load)")
            throw ExitStatus.usageOrOutput
        }
        return inflate
    }
}
