/// The format of a feed document, detected from its root element, namespace and
/// `version` attribute. Raw values are the names used in the JSON output.
public enum FeedFormat: String, Sendable, Codable, CaseIterable {
    case rss090
    /// RSS 0.91 as UserLand published it, and Netscape's (with the Netscape DOCTYPE).
    case rss091u, rss091n
    case rss092, rss093, rss094, rss20, rss10
    /// An `rss` root whose version is missing or unknown.
    case rss
    case atom03, atom10
    /// Not a feed (the root element is something else) or not known yet.
    case unknown

    /// The name as static bytes, for writers that never build a `String`.
    public var name: StaticString {
        switch self {
        case .rss090: "rss090"
        case .rss091u: "rss091u"
        case .rss091n: "rss091n"
        case .rss092: "rss092"
        case .rss093: "rss093"
        case .rss094: "rss094"
        case .rss20: "rss20"
        case .rss10: "rss10"
        case .rss: "rss"
        case .atom03: "atom03"
        case .atom10: "atom10"
        case .unknown: "unknown"
        }
    }
}
