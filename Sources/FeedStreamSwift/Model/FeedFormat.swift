/// The format of a feed document, detected from its root element, namespace and
/// `version` attribute (for JSON Feed, from its `version` member). Raw values are the names used in the JSON output.
public enum FeedFormat: String, Sendable, Codable, CaseIterable {
    /// RSS 0.90: an RDF root in the Netscape RSS 0.90 namespace.
    case rss090
    /// RSS 0.91 as UserLand published it (no Netscape DOCTYPE).
    case rss091u
    /// RSS 0.91 as Netscape published it (with the Netscape DOCTYPE).
    case rss091n
    /// `<rss version="0.92">`.
    case rss092
    /// `<rss version="0.93">`.
    case rss093
    /// `<rss version="0.94">`.
    case rss094
    /// `<rss version="2.0">` (or 2.0.x).
    case rss20
    /// RSS 1.0: an RDF root in the RSS 1.0 namespace.
    case rss10
    /// RSS 1.1: a `Channel` root in the RSS 1.1 namespace (`http://purl.org/net/rss1.1#`).
    case rss11
    /// An `rss` root whose version is missing or unknown.
    case rss
    /// Atom 0.3: `feed` in the Atom 0.3 namespace.
    case atom03
    /// Atom 1.0 (RFC 4287): `feed` in the Atom namespace.
    case atom10
    /// A `feed` root in no namespace or in one that is not Atom's, read as Atom of an
    /// unknown version (as feedparser's `atom`).
    case atom
    /// Microsoft's Channel Definition Format (1997): a `CHANNEL` root in no namespace.
    case cdf
    /// JSON Feed 1.0 (`"version": "https://jsonfeed.org/version/1"`).
    case json10
    /// JSON Feed 1.1 (`"version": "https://jsonfeed.org/version/1.1"`).
    case json11
    /// A JSON Feed whose `version` is missing or not a known one, read as 1.1.
    case json
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
        case .rss11: "rss11"
        case .rss: "rss"
        case .atom03: "atom03"
        case .atom10: "atom10"
        case .atom: "atom"
        case .cdf: "cdf"
        case .json10: "json10"
        case .json11: "json11"
        case .json: "json"
        case .unknown: "unknown"
        }
    }
}
