// SPDX-License-Identifier: Apache-2.0
/// A `Content-Type` value (RFC 9110 8.3): the media type and its `charset` parameter,
/// the two facts a feed parser takes from it. Read once here for every user: the
/// parsers' `contentType` (``FeedParser/parse(_:contentType:handler:)``), HTTP
/// responses and WARC `resource` records.
package struct ContentType: Equatable {
    /// The media type, lower-cased, without parameters (`application/rss+xml`).
    package var mediaType: String
    /// The `charset` parameter as written, quotes removed; nil when absent or empty.
    package var charset: String?

    package init(_ value: String) {
        let parts = value.split(separator: ";", omittingEmptySubsequences: false)
        mediaType = String(parts.first ?? "").trimmingASCIISpaces().lowercased()
        charset = nil
        for p in parts.dropFirst() {
            let kv = p.split(separator: "=", maxSplits: 1)
            guard kv.count == 2, kv[0].trimmingASCIISpaces().lowercased() == "charset" else { continue }
            var v = kv[1].trimmingASCIISpaces()
            if v.count >= 2 && v.hasPrefix("\"") && v.hasSuffix("\"") { v = String(v.dropFirst().dropLast()) }
            charset = v.isEmpty ? nil : v
            break
        }
    }

    /// The charset of `contentType`, when there is one.
    package static func charset(_ contentType: String?) -> String? {
        contentType.flatMap { ContentType($0).charset }
    }
}
