// Generated from CSources/CFeedStream/include/feedstream.h (cfs_field, cfs_list): the
// cases mirror the C enums in order; FieldEnumTests checks that they stay in step.

/// A field of a record (an item, or a feed's own data). See docs/SCHEMA.md for the
/// elements that fill each one.
public enum FeedField: Int, CaseIterable, Sendable {
    /// The identifier: Atom `id`, RSS `guid`, the RDF `rdf:about` (raw).
    case id
    /// RSS `guid`'s `isPermaLink` as written, or `true` for a `guid` without it.
    case guidPermalink
    /// The title: a text construct's value, raw.
    case title
    /// The title's type: its `type` attribute, or the type its format gives it.
    case titleType
    /// The `xml:lang` in scope for the title.
    case titleLang
    /// The `xml:base` chain in scope for the title (bases separated by the byte 0x01).
    case titleBase
    /// The Atom 0.3 `mode` attribute of the title.
    case titleMode
    /// The summary (RSS `description`, Atom `summary`): a text construct's value, raw.
    case summary
    /// The summary's type: its `type` attribute, or the type its format gives it.
    case summaryType
    /// The `xml:lang` in scope for the summary.
    case summaryLang
    /// The `xml:base` chain in scope for the summary (bases separated by the byte 0x01).
    case summaryBase
    /// The Atom 0.3 `mode` attribute of the summary.
    case summaryMode
    /// The content (`content:encoded`, Atom `content`): a text construct's value, raw.
    case content
    /// The content's type: its `type` attribute, or the type its format gives it.
    case contentType
    /// The `xml:lang` in scope for the content.
    case contentLang
    /// The `xml:base` chain in scope for the content (bases separated by the byte 0x01).
    case contentBase
    /// The Atom 0.3 `mode` attribute of the content.
    case contentMode
    /// The rights (`copyright`, Atom `rights`, `dc:rights`): a text construct's value, raw.
    case rights
    /// The rights's type: its `type` attribute, or the type its format gives it.
    case rightsType
    /// The `xml:lang` in scope for the rights.
    case rightsLang
    /// The `xml:base` chain in scope for the rights (bases separated by the byte 0x01).
    case rightsBase
    /// The Atom 0.3 `mode` attribute of the rights.
    case rightsMode
    /// Atom `content`'s `src` attribute: content kept elsewhere.
    case contentSrc
    /// The publication date as written: `pubDate`, Atom `published` or `issued`, `dc:date`.
    case published
    /// The last-update date as written: Atom `updated` or `modified`, `dc:modified`, `lastBuildDate` for a feed.
    case updated
    /// Atom 0.3 `created`, as written.
    case created
    /// The `language` element (`dc:language`), or the record element's `xml:lang`.
    case language
    /// The record element's `xml:base` chain (bases separated by the byte 0x01, outermost first).
    case base
    /// The root element's `version` attribute (feeds only).
    case version
    /// RSS `comments`: the URL of the item's comments page.
    case comments
    /// RSS `source`'s `url` attribute, or the Atom `source` feed's link.
    case sourceUrl
    /// The title of the item's source feed (RSS `source`, Atom `source`).
    case sourceTitle
    /// The Atom `source` feed's `id`.
    case sourceId
    /// The Atom `source` feed's `updated` date, as written.
    case sourceUpdated
    /// The feed's `generator`.
    case generator
    /// Atom `generator`'s `uri` (or 0.3 `url`) attribute.
    case generatorUri
    /// Atom `generator`'s `version` attribute.
    case generatorVersion
    /// RSS `docs`: the URL of the format's documentation.
    case docs
    /// RSS `ttl`: minutes a feed may be cached.
    case ttl
    /// RSS `managingEditor`.
    case managingEditor
    /// RSS `webMaster`.
    case webmaster
    /// Atom `icon`.
    case icon
    /// Atom `logo`.
    case logo
    /// RSS `image`'s `url`.
    case imageUrl
    /// RSS `image`'s `title`.
    case imageTitle
    /// RSS `image`'s `link`.
    case imageLink
    /// RSS `image`'s `width`.
    case imageWidth
    /// RSS `image`'s `height`.
    case imageHeight
    /// RSS `image`'s `description`.
    case imageDescription
    /// RSS `textInput`'s `title`.
    case textinputTitle
    /// RSS `textInput`'s `description`.
    case textinputDescription
    /// RSS `textInput`'s `name`.
    case textinputName
    /// RSS `textInput`'s `link`.
    case textinputLink
    /// RSS `cloud`'s `domain` attribute.
    case cloudDomain
    /// RSS `cloud`'s `port` attribute.
    case cloudPort
    /// RSS `cloud`'s `path` attribute.
    case cloudPath
    /// RSS `cloud`'s `registerProcedure` attribute.
    case cloudProcedure
    /// RSS `cloud`'s `protocol` attribute.
    case cloudProtocol
    /// `wfw:commentRss`: the URL of the item's comments feed.
    case commentRss
    /// `slash:comments`: the number of comments.
    case commentCount
    /// `sy:updatePeriod`.
    case syPeriod
    /// `sy:updateFrequency`.
    case syFrequency
    /// `sy:updateBase`.
    case syBase
    /// `georss:point` ("lat long").
    case geoPoint
    /// `geo:lat`.
    case geoLat
    /// `geo:long`.
    case geoLong
    /// `dc:publisher`.
    case dcPublisher
    /// `dc:source`.
    case dcSource
    /// `dc:relation`.
    case dcRelation
    /// `dc:coverage`.
    case dcCoverage
    /// `dc:format`.
    case dcFormat
    /// `dc:type`.
    case dcType
    /// `itunes:author`.
    case itunesAuthor
    /// `itunes:duration`.
    case itunesDuration
    /// `itunes:explicit`.
    case itunesExplicit
    /// `itunes:image`'s `href` attribute.
    case itunesImage
    /// `itunes:episode`.
    case itunesEpisode
    /// `itunes:season`.
    case itunesSeason
    /// `itunes:episodeType`.
    case itunesEpisodeType
    /// `itunes:summary`.
    case itunesSummary
    /// `itunes:subtitle`.
    case itunesSubtitle
    /// `itunes:title`.
    case itunesTitle
    /// `itunes:owner`'s `itunes:name`.
    case itunesOwnerName
    /// `itunes:owner`'s `itunes:email`.
    case itunesOwnerEmail
    /// `itunes:type`.
    case itunesType
    /// `itunes:block`.
    case itunesBlock
    /// `itunes:complete`.
    case itunesComplete
    /// `itunes:new-feed-url`.
    case itunesNewFeedUrl
    /// `itunes:keywords`.
    case itunesKeywords
    /// `media:title`.
    case mediaTitle
    /// `media:description`.
    case mediaDescription
    /// `media:keywords`.
    case mediaKeywords
    /// `media:rating`.
    case mediaRating
    /// `podcast:guid`.
    case podcastGuid
    /// `podcast:locked`.
    case podcastLocked
    /// `podcast:locked`'s `owner` attribute.
    case podcastLockedOwner
    /// `podcast:chapters`' `url` attribute.
    case podcastChaptersUrl
    /// `podcast:chapters`' `type` attribute.
    case podcastChaptersType
    /// `podcast:season`.
    case podcastSeason
    /// `podcast:episode`.
    case podcastEpisode
    /// `podcast:medium`.
    case podcastMedium
}

/// A list of rows in a record; ``columns`` gives the width of a row.
public enum FeedList: Int, CaseIterable, Sendable {
    /// Links: href, rel, type, hreflang, title, length, base.
    case links
    /// Authors: name, email, uri, base.
    case authors
    /// Contributors: name, email, uri, base.
    case contributors
    /// Categories: term, scheme, label.
    case categories
    /// Enclosures: url, type, length, base.
    case enclosures
    /// `media:content`: url, type, medium, isDefault, expression, bitrate, framerate, samplingrate, channels, duration, height, width, lang, fileSize.
    case media
    /// `media:thumbnail`: url, width, height, time.
    case thumbnails
    /// `media:credit`: name, role, scheme.
    case credits
    /// `itunes:category`: text, parent.
    case itunesCategories
    /// `podcast:person`: name, role, group, img, href.
    case persons
    /// `podcast:transcript`: url, type, language, rel.
    case transcripts
    /// `podcast:funding`: url, text.
    case funding
    /// RSS `skipHours` hours: value.
    case skipHours
    /// RSS `skipDays` days: value.
    case skipDays
}
