/// A person (author, contributor). RSS `author`, `dc:creator` fill `name` with the raw text.
public struct FeedPersonView {
    /// The name (or RSS's raw author text).
    public let name: FeedBytes
    /// The email address.
    public let email: FeedBytes
    /// The URI, as written (unresolved).
    public let uri: FeedBytes
    /// The xml:base chain in scope (outermost first, separated by 0x01).
    public let baseChain: FeedBytes
}
