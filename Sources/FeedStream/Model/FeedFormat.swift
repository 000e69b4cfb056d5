internal import CFeedStream

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

    init(_ f: cfs_format) {
        switch f {
        case CFS_FORMAT_RSS090: self = .rss090
        case CFS_FORMAT_RSS091U: self = .rss091u
        case CFS_FORMAT_RSS091N: self = .rss091n
        case CFS_FORMAT_RSS092: self = .rss092
        case CFS_FORMAT_RSS093: self = .rss093
        case CFS_FORMAT_RSS094: self = .rss094
        case CFS_FORMAT_RSS20: self = .rss20
        case CFS_FORMAT_RSS: self = .rss
        case CFS_FORMAT_RSS10: self = .rss10
        case CFS_FORMAT_ATOM03: self = .atom03
        case CFS_FORMAT_ATOM10: self = .atom10
        default: self = .unknown
        }
    }

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
