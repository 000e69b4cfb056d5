// The pure-Swift feed state machine's static tables: namespaces and their families,
// scopes, actions, attribute maps and the RULES table, in the same order and with the
// same priorities as the C core's machine.c (this backend shares no code with it: the
// tables are transcribed, and the differential tests check that they agree).
//
// Everything is built once into unsafe memory that lives for the whole process, so the
// machine's hot paths read plain pointers (no String, no Dictionary, no lazy globals).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#elseif canImport(Musl)
import Musl
#endif

/// Constants of the machine (literal, so that they fold).
enum SFM {
    static let fieldCount = 101
    static let listCount = 14
    static let maxFrames = 32
    static let defaultMaxItemBytes = 64 << 20
    // The limit that stopped a document (SwiftFeedMachineCore.limit).
    static let limitItems: UInt8 = 1
    static let limitField: UInt8 = 2
    static let absentOff = UInt32.max

    // Families: namespaces whose elements mean the same thing.
    static let fRSS: UInt8 = 0
    static let fAtom: UInt8 = 1
    static let fDC: UInt8 = 2
    static let fContent: UInt8 = 3
    static let fRDF: UInt8 = 4
    static let fXHTML: UInt8 = 5
    static let fXML: UInt8 = 6
    static let fITunes: UInt8 = 7
    static let fMedia: UInt8 = 8
    static let fPodcast: UInt8 = 9
    static let fSlash: UInt8 = 10
    static let fWFW: UInt8 = 11
    static let fGeoRSS: UInt8 = 12
    static let fGeo: UInt8 = 13
    static let fSY: UInt8 = 14
    static let fOther: UInt8 = 15

    // Namespaces.
    static let nsNone: UInt8 = 0
    static let nsRSS10: UInt8 = 1
    static let nsRSS090: UInt8 = 2
    static let nsAtom10: UInt8 = 3
    static let nsAtom03: UInt8 = 4
    static let nsRDF: UInt8 = 5
    static let nsXHTML: UInt8 = 6
    static let nsXML: UInt8 = 7
    static let nsOther: UInt8 = 8
    static let nsMisc: UInt8 = 9

    // Scopes, as bits so that a rule can apply in several.
    static let scFeed: UInt16 = 1 << 0
    static let scItem: UInt16 = 1 << 1
    static let scPerson: UInt16 = 1 << 2
    static let scImage: UInt16 = 1 << 3
    static let scTextInput: UInt16 = 1 << 4
    static let scSkipHours: UInt16 = 1 << 5
    static let scSkipDays: UInt16 = 1 << 6
    static let scOwner: UInt16 = 1 << 7
    static let scITCat: UInt16 = 1 << 8
    static let scMGroup: UInt16 = 1 << 9
    static let scMContent: UInt16 = 1 << 10
    static let scSource: UInt16 = 1 << 11
    static let scDoc: UInt16 = 1 << 12
    static let scRSS: UInt16 = 1 << 13
    static let scRDF: UInt16 = 1 << 14
    static let scFI: UInt16 = 3
    static let scMedia: UInt16 = 1 | 2 | (1 << 9) | (1 << 10)

    // Actions.
    static let rText: UInt8 = 0      // capture text into a field
    static let rTextC: UInt8 = 1     // a text construct: value, type, lang, base, mode
    static let rLText: UInt8 = 2     // push a row, capture text into a column, map attributes
    static let rLAttr: UInt8 = 3     // push a row from attributes; enter `scope` if set, else skip
    static let rFAttr: UInt8 = 4     // set fields from attributes; capture text into `target` if set
    static let rScope: UInt8 = 5     // enter a sub-scope
    static let rItem: UInt8 = 6      // an item (RSS item, Atom entry)
    static let rALink: UInt8 = 7     // an Atom link
    static let rGUID: UInt8 = 8      // RSS guid
    static let rContent: UInt8 = 9   // Atom content
    static let rPerson: UInt8 = 10   // Atom author/contributor: `target` is the list

    static let none: UInt8 = 0xFF

    // Frame actions.
    static let aNone: UInt8 = 0
    static let aCapField: UInt8 = 1
    static let aCapRow: UInt8 = 2
    static let aEndItem: UInt8 = 3

    // Priorities: lower wins; ties: the first wins.
    static let p1: UInt8 = 1
    static let p2: UInt8 = 2
    static let p3: UInt8 = 3

    // Fields and lists the machine names in code (checked against FeedField/FeedList).
    static let fieldID = 0
    static let fieldGuidPermalink = 1
    static let fieldContent = 12
    static let fieldContentSrc = 22
    static let fieldLanguage = 26
    static let fieldBase = 27
    static let fieldVersion = 28
    static let fieldSourceURL = 30
    static let listLinks = 0
    static let listEnclosures = 4
    static let listITunesCategories = 8

    static let hashSize = 512
}

/// One rule: (family, local name, scopes) -> action on a field or list.
struct SFMRule {
    var name: UnsafePointer<UInt8>
    var nameLen: Int
    var fam: UInt8
    var action: UInt8
    var target: UInt8      // field or list (SFM.none: none)
    var col: UInt8         // column for rLText; priority for fields
    var scopes: UInt16
    var enter: UInt16      // scope entered (rScope, rLAttr, rPerson)
    var map: UInt8         // attribute map (SFM.none: none)
    var deftype: UInt8     // rTextC: 0 none, 1 "text", 2 "html"
}

/// One entry of an attribute map: attribute (no namespace) -> column or field.
struct SFMAttrEntry {
    var name: UnsafePointer<UInt8>
    var len: Int
    var index: UInt8
}

struct SFMNamespace {
    var uri: UnsafePointer<UInt8>
    var len: Int
    var ns: UInt8
    var fam: UInt8
}

/// The tables, built once per process.
final class SwiftRules: @unchecked Sendable {
    static let shared = SwiftRules()

    let rules: UnsafeMutablePointer<SFMRule>
    let ruleCount: Int
    let head: UnsafeMutablePointer<UInt16>
    let next: UnsafeMutablePointer<UInt16>
    let mapEntries: UnsafeMutablePointer<SFMAttrEntry>
    let mapStart: UnsafeMutablePointer<Int>
    let mapCount: UnsafeMutablePointer<Int>
    let namespaces: UnsafeMutablePointer<SFMNamespace>
    let namespaceCount: Int
    let listColumns: UnsafeMutablePointer<Int>

    // Attribute maps.
    static let amRSSCategory: UInt8 = 0
    static let amAtomCategory: UInt8 = 1
    static let amEnclosure: UInt8 = 2
    static let amLink: UInt8 = 3
    static let amMedia: UInt8 = 4
    static let amThumb: UInt8 = 5
    static let amCredit: UInt8 = 6
    static let amCloud: UInt8 = 7
    static let amITunesImage: UInt8 = 8
    static let amITunesCategory: UInt8 = 9
    static let amPerson: UInt8 = 10
    static let amTranscript: UInt8 = 11
    static let amFunding: UInt8 = 12
    static let amChapters: UInt8 = 13
    static let amLocked: UInt8 = 14
    static let amGenerator: UInt8 = 15
    static let amRSSSource: UInt8 = 16

    private static func mapsSpec() -> [[(String, Int)]] {
        [
            [("domain", 1)],
            [("term", 0), ("scheme", 1), ("label", 2)],
            [("url", 0), ("type", 1), ("length", 2)],
            [("href", 0), ("rel", 1), ("type", 2), ("hreflang", 3), ("title", 4), ("length", 5)],
            [("url", 0), ("type", 1), ("medium", 2), ("isDefault", 3), ("expression", 4), ("bitrate", 5),
             ("framerate", 6), ("samplingrate", 7), ("channels", 8), ("duration", 9), ("height", 10),
             ("width", 11), ("lang", 12), ("fileSize", 13)],
            [("url", 0), ("width", 1), ("height", 2), ("time", 3)],
            [("role", 1), ("scheme", 2)],
            [("domain", FeedField.cloudDomain.rawValue), ("port", FeedField.cloudPort.rawValue),
             ("path", FeedField.cloudPath.rawValue), ("registerProcedure", FeedField.cloudProcedure.rawValue),
             ("protocol", FeedField.cloudProtocol.rawValue)],
            [("href", FeedField.itunesImage.rawValue)],
            [("text", 0)],
            [("role", 1), ("group", 2), ("img", 3), ("href", 4)],
            [("url", 0), ("type", 1), ("language", 2), ("rel", 3)],
            [("url", 0)],
            [("url", FeedField.podcastChaptersUrl.rawValue), ("type", FeedField.podcastChaptersType.rawValue)],
            [("owner", FeedField.podcastLockedOwner.rawValue)],
            [("uri", FeedField.generatorUri.rawValue), ("url", FeedField.generatorUri.rawValue),
             ("version", FeedField.generatorVersion.rawValue)],
            [("url", FeedField.sourceUrl.rawValue)],
        ]
    }

    private static func namespacesSpec() -> [(String, UInt8, UInt8)] {
        [
            ("http://www.w3.org/2005/Atom", SFM.nsAtom10, SFM.fAtom),
            ("http://purl.org/rss/1.0/", SFM.nsRSS10, SFM.fRSS),
            ("http://purl.org/dc/elements/1.1/", SFM.nsMisc, SFM.fDC),
            ("http://purl.org/rss/1.0/modules/content/", SFM.nsMisc, SFM.fContent),
            ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", SFM.nsRDF, SFM.fRDF),
            ("http://www.itunes.com/dtds/podcast-1.0.dtd", SFM.nsMisc, SFM.fITunes),
            ("http://search.yahoo.com/mrss/", SFM.nsMisc, SFM.fMedia),
            ("http://purl.org/dc/terms/", SFM.nsMisc, SFM.fDC),
            ("https://podcastindex.org/namespace/1.0", SFM.nsMisc, SFM.fPodcast),
            ("http://purl.org/rss/1.0/modules/slash/", SFM.nsMisc, SFM.fSlash),
            ("http://wellformedweb.org/CommentAPI/", SFM.nsMisc, SFM.fWFW),
            ("http://purl.org/rss/1.0/modules/syndication/", SFM.nsMisc, SFM.fSY),
            ("http://www.georss.org/georss", SFM.nsMisc, SFM.fGeoRSS),
            ("http://www.w3.org/2003/01/geo/wgs84_pos#", SFM.nsMisc, SFM.fGeo),
            ("http://www.w3.org/1999/xhtml", SFM.nsXHTML, SFM.fXHTML),
            ("http://www.w3.org/XML/1998/namespace", SFM.nsXML, SFM.fXML),
            ("http://purl.org/atom/ns#", SFM.nsAtom03, SFM.fAtom),
            ("http://my.netscape.com/rdf/simple/0.9/", SFM.nsRSS090, SFM.fRSS),
            // Wrong, but used.
            ("http://backend.userland.com/rss2", SFM.nsNone, SFM.fRSS),
            ("http://backend.userland.com/rss", SFM.nsNone, SFM.fRSS),
            ("http://www.itunes.com/DTDs/Podcast-1.0.dtd", SFM.nsMisc, SFM.fITunes),
            ("http://www.itunes.com/DTDs/PodCast-1.0.dtd", SFM.nsMisc, SFM.fITunes),
            ("https://www.itunes.com/dtds/podcast-1.0.dtd", SFM.nsMisc, SFM.fITunes),
            ("http://search.yahoo.com/mrss", SFM.nsMisc, SFM.fMedia),
            ("https://search.yahoo.com/mrss/", SFM.nsMisc, SFM.fMedia),
            ("http://video.search.yahoo.com/mrss", SFM.nsMisc, SFM.fMedia),
            ("http://podcastindex.org/namespace/1.0", SFM.nsMisc, SFM.fPodcast),
            ("https://github.com/Podcastindex-org/podcast-namespace/blob/main/docs/1.0.md", SFM.nsMisc, SFM.fPodcast),
            ("http://purl.org/dc/elements/1.0/", SFM.nsMisc, SFM.fDC),
            ("http://wellformedweb.org/CommentAPI", SFM.nsMisc, SFM.fWFW),
        ]
    }

    /// A rule as written in the table below.
    private struct Spec {
        var fam: UInt8, name: String, scopes: UInt16, action: UInt8, target: Int, col: UInt8
        var map: UInt8, enter: UInt16, deftype: UInt8
    }

    private static func rulesSpec() -> [Spec] {
        typealias F = FeedField
        typealias L = FeedList
        let none = Int(SFM.none), noMap = SFM.none
        let FI = SFM.scFeed | SFM.scItem, MEDIA = SFM.scMedia
        let sf = SFM.scFeed, si = SFM.scItem
        let text: UInt8 = 1, html: UInt8 = 2
        let (P1, P2, P3) = (SFM.p1, SFM.p2, SFM.p3)
        let (TEXT, TEXTC, LTEXT, LATTR, FATTR, SCOPE, ITEM, ALINK, GUID, CONTENT, PERSON) =
            (SFM.rText, SFM.rTextC, SFM.rLText, SFM.rLAttr, SFM.rFAttr, SFM.rScope, SFM.rItem, SFM.rALink,
             SFM.rGUID, SFM.rContent, SFM.rPerson)
        func r(_ fam: UInt8, _ name: String, _ scopes: UInt16, _ action: UInt8, _ target: Int, _ col: UInt8,
               _ map: UInt8 = SFM.none, _ enter: UInt16 = 0, _ deftype: UInt8 = 0) -> Spec {
            Spec(fam: fam, name: name, scopes: scopes, action: action, target: target, col: col, map: map,
                 enter: enter, deftype: deftype)
        }
        let RSS = SFM.fRSS, ATOM = SFM.fAtom, DC = SFM.fDC, IT = SFM.fITunes, MED = SFM.fMedia,
            POD = SFM.fPodcast
        typealias A = SwiftRules
        return [
            // RSS 0.9x, 1.0, 2.0
            r(RSS, "title", FI, TEXTC, F.title.rawValue, P1, noMap, 0, text),
            r(RSS, "link", FI, LTEXT, L.links.rawValue, 0),
            r(RSS, "description", FI, TEXTC, F.summary.rawValue, P1, noMap, 0, html),
            r(RSS, "category", FI, LTEXT, L.categories.rawValue, 0, A.amRSSCategory),
            r(RSS, "author", FI, LTEXT, L.authors.rawValue, 0),
            r(RSS, "language", sf, TEXT, F.language.rawValue, P1),
            r(RSS, "copyright", FI, TEXTC, F.rights.rawValue, P1, noMap, 0, text),
            r(RSS, "managingEditor", sf, TEXT, F.managingEditor.rawValue, P1),
            r(RSS, "webMaster", sf, TEXT, F.webmaster.rawValue, P1),
            r(RSS, "pubDate", FI, TEXT, F.published.rawValue, P1),
            r(RSS, "lastBuildDate", sf, TEXT, F.updated.rawValue, P1),
            r(RSS, "generator", sf, TEXT, F.generator.rawValue, P1),
            r(RSS, "docs", sf, TEXT, F.docs.rawValue, P1),
            r(RSS, "ttl", sf, TEXT, F.ttl.rawValue, P1),
            r(RSS, "cloud", sf, FATTR, none, P1, A.amCloud),
            r(RSS, "image", sf, SCOPE, none, 0, noMap, SFM.scImage),
            r(RSS, "textInput", sf, SCOPE, none, 0, noMap, SFM.scTextInput),
            r(RSS, "textinput", sf, SCOPE, none, 0, noMap, SFM.scTextInput),
            r(RSS, "skipHours", sf, SCOPE, none, 0, noMap, SFM.scSkipHours),
            r(RSS, "skipDays", sf, SCOPE, none, 0, noMap, SFM.scSkipDays),
            r(RSS, "item", sf, ITEM, none, 0),
            r(RSS, "guid", si, GUID, F.id.rawValue, P1),
            r(RSS, "comments", si, TEXT, F.comments.rawValue, P1),
            r(RSS, "enclosure", si, LATTR, L.enclosures.rawValue, 0, A.amEnclosure),
            r(RSS, "source", si, FATTR, F.sourceTitle.rawValue, P1, A.amRSSSource),
            r(RSS, "url", SFM.scImage, TEXT, F.imageUrl.rawValue, P1),
            r(RSS, "title", SFM.scImage, TEXT, F.imageTitle.rawValue, P1),
            r(RSS, "link", SFM.scImage, TEXT, F.imageLink.rawValue, P1),
            r(RSS, "width", SFM.scImage, TEXT, F.imageWidth.rawValue, P1),
            r(RSS, "height", SFM.scImage, TEXT, F.imageHeight.rawValue, P1),
            r(RSS, "description", SFM.scImage, TEXT, F.imageDescription.rawValue, P1),
            r(RSS, "title", SFM.scTextInput, TEXT, F.textinputTitle.rawValue, P1),
            r(RSS, "description", SFM.scTextInput, TEXT, F.textinputDescription.rawValue, P1),
            r(RSS, "name", SFM.scTextInput, TEXT, F.textinputName.rawValue, P1),
            r(RSS, "link", SFM.scTextInput, TEXT, F.textinputLink.rawValue, P1),
            r(RSS, "hour", SFM.scSkipHours, LTEXT, L.skipHours.rawValue, 0),
            r(RSS, "day", SFM.scSkipDays, LTEXT, L.skipDays.rawValue, 0),

            // Atom 1.0 and 0.3
            r(ATOM, "title", FI, TEXTC, F.title.rawValue, P1),
            r(ATOM, "subtitle", sf, TEXTC, F.summary.rawValue, P1),
            r(ATOM, "tagline", sf, TEXTC, F.summary.rawValue, P1),
            r(ATOM, "summary", si, TEXTC, F.summary.rawValue, P1),
            r(ATOM, "content", si, CONTENT, F.content.rawValue, P1),
            r(ATOM, "rights", FI, TEXTC, F.rights.rawValue, P1),
            r(ATOM, "copyright", FI, TEXTC, F.rights.rawValue, P1),
            r(ATOM, "id", FI, TEXT, F.id.rawValue, P1),
            r(ATOM, "updated", FI, TEXT, F.updated.rawValue, P1),
            r(ATOM, "modified", FI, TEXT, F.updated.rawValue, P1),
            r(ATOM, "published", si, TEXT, F.published.rawValue, P1),
            r(ATOM, "issued", si, TEXT, F.published.rawValue, P2),
            r(ATOM, "created", si, TEXT, F.created.rawValue, P1),
            r(ATOM, "link", FI | SFM.scSource, ALINK, L.links.rawValue, 0, A.amLink),
            r(ATOM, "author", FI, PERSON, L.authors.rawValue, 0, noMap, SFM.scPerson),
            r(ATOM, "contributor", FI, PERSON, L.contributors.rawValue, 0, noMap, SFM.scPerson),
            r(ATOM, "category", FI, LATTR, L.categories.rawValue, 0, A.amAtomCategory),
            r(ATOM, "generator", sf, FATTR, F.generator.rawValue, P1, A.amGenerator),
            r(ATOM, "icon", sf, TEXT, F.icon.rawValue, P1),
            r(ATOM, "logo", sf, TEXT, F.logo.rawValue, P1),
            r(ATOM, "entry", sf, ITEM, none, 0),
            r(ATOM, "source", si, SCOPE, none, 0, noMap, SFM.scSource),
            r(ATOM, "name", SFM.scPerson, LTEXT, none, 0),
            r(ATOM, "email", SFM.scPerson, LTEXT, none, 1),
            r(ATOM, "uri", SFM.scPerson, LTEXT, none, 2),
            r(ATOM, "url", SFM.scPerson, LTEXT, none, 2),
            r(ATOM, "id", SFM.scSource, TEXT, F.sourceId.rawValue, P1),
            r(ATOM, "title", SFM.scSource, TEXT, F.sourceTitle.rawValue, P1),
            r(ATOM, "updated", SFM.scSource, TEXT, F.sourceUpdated.rawValue, P1),

            // Dublin Core elements and terms
            r(DC, "title", FI, TEXTC, F.title.rawValue, P2, noMap, 0, text),
            r(DC, "description", FI, TEXTC, F.summary.rawValue, P2, noMap, 0, text),
            r(DC, "creator", FI, LTEXT, L.authors.rawValue, 0),
            r(DC, "contributor", FI, LTEXT, L.contributors.rawValue, 0),
            r(DC, "subject", FI, LTEXT, L.categories.rawValue, 0),
            r(DC, "date", si, TEXT, F.published.rawValue, P3),
            r(DC, "date", sf, TEXT, F.updated.rawValue, P2),
            r(DC, "modified", FI, TEXT, F.updated.rawValue, P2),
            r(DC, "issued", FI, TEXT, F.published.rawValue, P2),
            r(DC, "created", FI, TEXT, F.created.rawValue, P2),
            r(DC, "language", FI, TEXT, F.language.rawValue, P2),
            r(DC, "rights", FI, TEXTC, F.rights.rawValue, P2, noMap, 0, text),
            r(DC, "identifier", FI, TEXT, F.id.rawValue, P2),
            r(DC, "publisher", FI, TEXT, F.dcPublisher.rawValue, P1),
            r(DC, "source", FI, TEXT, F.dcSource.rawValue, P1),
            r(DC, "relation", FI, TEXT, F.dcRelation.rawValue, P1),
            r(DC, "coverage", FI, TEXT, F.dcCoverage.rawValue, P1),
            r(DC, "format", FI, TEXT, F.dcFormat.rawValue, P1),
            r(DC, "type", FI, TEXT, F.dcType.rawValue, P1),

            r(SFM.fContent, "encoded", si, TEXTC, F.content.rawValue, P1, noMap, 0, html),
            r(SFM.fSlash, "comments", si, TEXT, F.commentCount.rawValue, P1),
            r(SFM.fWFW, "commentRss", si, TEXT, F.commentRss.rawValue, P1),
            r(SFM.fWFW, "commentRSS", si, TEXT, F.commentRss.rawValue, P1),
            r(SFM.fSY, "updatePeriod", sf, TEXT, F.syPeriod.rawValue, P1),
            r(SFM.fSY, "updateFrequency", sf, TEXT, F.syFrequency.rawValue, P1),
            r(SFM.fSY, "updateBase", sf, TEXT, F.syBase.rawValue, P1),
            r(SFM.fGeoRSS, "point", FI, TEXT, F.geoPoint.rawValue, P1),
            r(SFM.fGeo, "lat", FI, TEXT, F.geoLat.rawValue, P1),
            r(SFM.fGeo, "long", FI, TEXT, F.geoLong.rawValue, P1),

            // iTunes podcasts
            r(IT, "author", FI, TEXT, F.itunesAuthor.rawValue, P1),
            r(IT, "duration", si, TEXT, F.itunesDuration.rawValue, P1),
            r(IT, "explicit", FI, TEXT, F.itunesExplicit.rawValue, P1),
            r(IT, "image", FI, FATTR, none, P1, A.amITunesImage),
            r(IT, "episode", si, TEXT, F.itunesEpisode.rawValue, P1),
            r(IT, "season", si, TEXT, F.itunesSeason.rawValue, P1),
            r(IT, "episodeType", si, TEXT, F.itunesEpisodeType.rawValue, P1),
            r(IT, "summary", FI, TEXT, F.itunesSummary.rawValue, P1),
            r(IT, "subtitle", FI, TEXT, F.itunesSubtitle.rawValue, P1),
            r(IT, "title", FI, TEXT, F.itunesTitle.rawValue, P1),
            r(IT, "type", sf, TEXT, F.itunesType.rawValue, P1),
            r(IT, "block", FI, TEXT, F.itunesBlock.rawValue, P1),
            r(IT, "complete", sf, TEXT, F.itunesComplete.rawValue, P1),
            r(IT, "new-feed-url", sf, TEXT, F.itunesNewFeedUrl.rawValue, P1),
            r(IT, "keywords", FI, TEXT, F.itunesKeywords.rawValue, P1),
            r(IT, "owner", sf, SCOPE, none, 0, noMap, SFM.scOwner),
            r(IT, "name", SFM.scOwner, TEXT, F.itunesOwnerName.rawValue, P1),
            r(IT, "email", SFM.scOwner, TEXT, F.itunesOwnerEmail.rawValue, P1),
            r(IT, "category", sf | SFM.scITCat, LATTR, L.itunesCategories.rawValue, 0, A.amITunesCategory,
              SFM.scITCat),

            // Media RSS
            r(MED, "content", MEDIA, LATTR, L.media.rawValue, 0, A.amMedia, SFM.scMContent),
            r(MED, "group", FI, SCOPE, none, 0, noMap, SFM.scMGroup),
            r(MED, "thumbnail", MEDIA, LATTR, L.thumbnails.rawValue, 0, A.amThumb),
            r(MED, "title", MEDIA, TEXT, F.mediaTitle.rawValue, P1),
            r(MED, "description", MEDIA, TEXT, F.mediaDescription.rawValue, P1),
            r(MED, "keywords", MEDIA, TEXT, F.mediaKeywords.rawValue, P1),
            r(MED, "rating", MEDIA, TEXT, F.mediaRating.rawValue, P1),
            r(MED, "credit", MEDIA, LTEXT, L.credits.rawValue, 0, A.amCredit),

            // Podcasting 2.0
            r(POD, "guid", sf, TEXT, F.podcastGuid.rawValue, P1),
            r(POD, "locked", sf, FATTR, F.podcastLocked.rawValue, P1, A.amLocked),
            r(POD, "medium", sf, TEXT, F.podcastMedium.rawValue, P1),
            r(POD, "transcript", si, LATTR, L.transcripts.rawValue, 0, A.amTranscript),
            r(POD, "chapters", si, FATTR, none, P1, A.amChapters),
            r(POD, "person", FI, LTEXT, L.persons.rawValue, 0, A.amPerson),
            r(POD, "funding", FI, LTEXT, L.funding.rawValue, 1, A.amFunding),
            r(POD, "season", si, TEXT, F.podcastSeason.rawValue, P1),
            r(POD, "episode", si, TEXT, F.podcastEpisode.rawValue, P1),
        ]
    }

    /// FNV-1a over the family and the name, as the C core hashes (any hash would do; the
    /// same one keeps the chains alike).
    @inline(__always)
    static func hash(_ fam: UInt8, _ s: UnsafePointer<UInt8>, _ len: Int) -> Int {
        var h: UInt32 = 2_166_136_261 ^ UInt32(fam)
        for i in 0..<len { h = (h ^ UInt32(s[i])) &* 16_777_619 }
        return Int(h & UInt32(SFM.hashSize - 1))
    }

    private init() {
        precondition(FeedField.allCases.count == SFM.fieldCount && FeedList.allCases.count == SFM.listCount)
        precondition(FeedField.id.rawValue == SFM.fieldID && FeedField.guidPermalink.rawValue == SFM.fieldGuidPermalink
            && FeedField.content.rawValue == SFM.fieldContent && FeedField.contentSrc.rawValue == SFM.fieldContentSrc
            && FeedField.language.rawValue == SFM.fieldLanguage && FeedField.base.rawValue == SFM.fieldBase
            && FeedField.version.rawValue == SFM.fieldVersion && FeedField.sourceUrl.rawValue == SFM.fieldSourceURL)
        precondition(FeedList.links.rawValue == SFM.listLinks && FeedList.enclosures.rawValue == SFM.listEnclosures
            && FeedList.itunesCategories.rawValue == SFM.listITunesCategories)

        // Every string lives in one buffer.
        func intern(_ s: String) -> (UnsafePointer<UInt8>, Int) {
            let bytes = Array(s.utf8)
            let p = UnsafeMutablePointer<UInt8>.allocate(capacity: max(bytes.count, 1))
            p.initialize(from: bytes, count: bytes.count)
            return (UnsafePointer(p), bytes.count)
        }

        let specs = SwiftRules.rulesSpec()
        ruleCount = specs.count
        rules = .allocate(capacity: specs.count)
        for (i, s) in specs.enumerated() {
            let (p, n) = intern(s.name)
            rules[i] = SFMRule(name: p, nameLen: n, fam: s.fam, action: s.action, target: UInt8(s.target),
                               col: s.col, scopes: s.scopes, enter: s.enter, map: s.map, deftype: s.deftype)
        }
        // Chains built backwards so that each chain runs in table order.
        head = .allocate(capacity: SFM.hashSize)
        head.initialize(repeating: 0xFFFF, count: SFM.hashSize)
        next = .allocate(capacity: specs.count)
        for i in stride(from: specs.count - 1, through: 0, by: -1) {
            let h = SwiftRules.hash(rules[i].fam, rules[i].name, rules[i].nameLen)
            next[i] = head[h]
            head[h] = UInt16(i)
        }

        let maps = SwiftRules.mapsSpec()
        let total = maps.reduce(0) { $0 + $1.count }
        mapEntries = .allocate(capacity: total)
        mapStart = .allocate(capacity: maps.count)
        mapCount = .allocate(capacity: maps.count)
        var k = 0
        for (m, entries) in maps.enumerated() {
            mapStart[m] = k
            mapCount[m] = entries.count
            for (name, index) in entries {
                let (p, n) = intern(name)
                mapEntries[k] = SFMAttrEntry(name: p, len: n, index: UInt8(index))
                k += 1
            }
        }

        let nss = SwiftRules.namespacesSpec()
        namespaceCount = nss.count
        namespaces = .allocate(capacity: nss.count)
        for (i, e) in nss.enumerated() {
            let (p, n) = intern(e.0)
            namespaces[i] = SFMNamespace(uri: p, len: n, ns: e.1, fam: e.2)
        }

        listColumns = .allocate(capacity: SFM.listCount)
        for l in 0..<SFM.listCount { listColumns[l] = FeedList.columnCounts[l] }
    }
}
