// SPDX-License-Identifier: Apache-2.0
// `import FeedStream` gives the whole library as one API: FeedStreamCore (the FeedParser
// protocol, FeedInput, the model and views, handlers, the JSON Lines writer, the input
// stage, the async sequences), FeedStreamSwift (the pure-Swift backend), FeedStreamNative
// (the expat and libxml2 backends over the C core), and FeedBackend with the entry points
// that take a backend as a value.
@_exported import FeedStreamCore
@_exported import FeedStreamSwift
@_exported import FeedStreamNative
