// FeedStream is FeedStreamSwift (everything of the library but the C backends: the
// FeedParser protocol, the model and views, handlers, the JSON Lines writer, the input
// stage, the async sequences and the pure-Swift backend) plus what needs the C core:
// ExpatFeedParser, LibXML2FeedParser, FeedBackend and the entry points that take a
// backend as a value. `import FeedStream` sees both, as one API.
@_exported import FeedStreamSwift
