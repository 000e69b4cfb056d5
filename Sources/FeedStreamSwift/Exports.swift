// SPDX-License-Identifier: Apache-2.0
// `import FeedStreamSwift` gives the pure-Swift backend and everything it stands on
// (FeedStreamCore: the FeedParser protocol, the model, the JSON Lines writer, ...), as
// one API, with no C library but zlib and libzstd.
@_exported import FeedStreamCore
