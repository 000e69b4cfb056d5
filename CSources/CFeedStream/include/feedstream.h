/* SPDX-License-Identifier: Apache-2.0 */
/*
 * feedstream.h -- the C API of FeedStream's streaming feed parser.
 *
 * FeedStream turns a byte stream -- plain XML or gzip, one feed document or many
 * concatenated ("a dump") -- into a sequence of feed items, delivered one finished
 * item at a time to a callback as borrowed pointer+length slices. Nothing is copied
 * that need not be, and memory stays flat however long the stream is.
 *
 *     cfs_callbacks cb = { .on_item = my_item, .on_document_end = my_doc_end };
 *     cfs_parser *p = cfs_parser_create(NULL, &cb, my_ctx);
 *     if (p == NULL) { out of memory }
 *     cfs_status st = cfs_parser_feed_fd(p, fd);        // or cfs_parser_feed() in a loop
 *     if (st == CFS_OK) st = cfs_parser_finish(p);
 *     if (st != CFS_OK) { const cfs_error *e = cfs_parser_error(p); ... }
 *     cfs_parser_destroy(p);
 *
 * Ownership and lifetimes
 *   - Every pointer handed to a callback (cfs_item, cfs_feed, cfs_error and every
 *     cfs_span inside them) is owned by the parser and valid only until that callback
 *     returns. Copy what you need to keep.
 *   - cfs_span is NOT NUL-terminated. Its bytes are UTF-8 as the XML tokenizer
 *     delivered them (the tokenizer transcodes declared encodings it supports), raw:
 *     no whitespace trimming, no date parsing, no URL resolution. That policy lives in
 *     the Swift library (FeedStream), written once and shared by every backend.
 *   - A span whose ptr is NULL means "absent"; a non-NULL ptr with len 0 means the
 *     element or attribute was present but empty.
 *   - Strings in cfs_error (message) are static or owned by the parser; valid until
 *     the next call on the parser.
 *
 *   - The parser owns its memory; cfs_parser_destroy() frees all of it. The library
 *     never frees, keeps or writes through a pointer the caller passed in (options
 *     and callbacks are copied at create; `ctx` and the bytes given to feed() are
 *     only borrowed for the duration of the call).
 *
 * Errors
 *   Every call that can fail returns a cfs_status; CFS_OK is zero. There are two kinds
 *   of failure:
 *   - per document (CFS_ERR_XML, CFS_ERR_NOT_FEED, CFS_ERR_LIMIT): reported through
 *     on_document_end with the document's number, line and column, after every item
 *     before it; the stream goes on with the next document, and feed() keeps
 *     returning CFS_OK. cfs_parser_finish() then returns the first of them.
 *   - fatal (CFS_ERR_GZIP, CFS_ERR_IO, CFS_ERR_ABORTED, CFS_ERR_NOMEM): the call
 *     returns it and every later feed() returns it again without parsing; still call
 *     cfs_parser_finish(), which closes the open document (reporting it through
 *     on_document_end unless the cause was ABORTED or NOMEM).
 *   The error stays available from cfs_parser_error() (a "sticky" error, as in
 *   expat) until cfs_parser_reset(): the fatal one if there was one, else the first
 *   per-document one. After cfs_parser_finish(), feed and
 *   finish return CFS_ERR_MISUSE until cfs_parser_reset().
 *
 * Threads
 *   A parser is not thread-safe: use it from one thread at a time (it may move between
 *   threads between calls). Different parsers are independent and may run at the same
 *   time on different threads. Callbacks run on the thread that called
 *   feed/feed_fd/finish, before that call returns.
 *   Process-wide state is limited to what is safe to share: libxml2 is initialized
 *   once (pthread_once; do not call xmlCleanupParser() while a parser may run), the
 *   field tables are built once (pthread_once), and decoding tables for encodings
 *   decoded through iconv are cached behind a mutex.
 *
 * Reentrancy
 *   A callback must not call any cfs_parser_* function on the parser that called it
 *   (not even destroy). To stop early, return non-zero: the current call then returns
 *   CFS_ERR_ABORTED. Callbacks may use other parsers freely.
 *
 * Safety
 *   No external entity, DTD or other resource is ever loaded because a document asks.
 *   Entity expansion is bounded by the tokenizer's billion-laughs protection; depth,
 *   attributes, field text, items, document size and gzip ratio by cfs_limits.
 */
#ifndef FEEDSTREAM_H
#define FEEDSTREAM_H

#include <stddef.h>
#include <stdint.h>
#include <feedstream_input.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Version of the JSON Lines schema and of the field model below. */
#define CFS_SCHEMA_VERSION 1

/** FeedStream's version (semantic versioning: CHANGELOG.md): the library's, the
    `feedstream` command's (`--version`) and `feedstream.pc`'s (the Makefile reads it
    here). CFS_VERSION_STRING is the three numbers joined by dots. */
#define CFS_VERSION_MAJOR 0
#define CFS_VERSION_MINOR 1
#define CFS_VERSION_PATCH 0
#define CFS_VERSION_STRING "0.1.0"


/** Tokenizer backends. */
typedef enum cfs_backend {
    /** expat (default): inflated bytes go straight into its buffer. */
    CFS_BACKEND_EXPAT = 0,
    /** libxml2's SAX2 push parser. */
    CFS_BACKEND_LIBXML2 = 1
} cfs_backend;

/** A borrowed slice of UTF-8 bytes. Not NUL-terminated; see "Ownership" above.
    ptr == NULL: the field is absent. ptr != NULL and len == 0: present but empty. */
typedef struct cfs_span {
    const uint8_t *ptr;
    size_t len;
} cfs_span;

/**
 * Fields. A record (an item, or a feed's channel-level data) is an array of spans
 * indexed by cfs_field, plus lists (cfs_list) of rows of spans. Which elements of
 * which formats fill each field, and in what order of precedence, is specified in
 * docs/SCHEMA.md; the values here are raw (as the tokenizer delivered them).
 *
 * Text constructs take five consecutive fields: the value, then its `type`
 * attribute, the in-scope xml:lang, the in-scope xml:base chain, and the Atom 0.3
 * `mode` attribute (for xhtml the value is the serialized child markup).
 *
 * An xml:base chain is every xml:base in scope, outermost first, separated by the
 * byte 0x01 (each may be relative to the one before).
 */
/* BEGIN GENERATED by scripts/generate-rules.py from CSources/CFeedStream/feed_rules.def: do not edit. */
/** Elements the state machines keep a frame for at once (each open element takes one, including those a search for a feed root passes through): an element deeper than that is skipped with what it holds, the same on every backend. */
#define CFS_MAX_FRAMES ((size_t)32)
/** The column of the person lists (authors, contributors: `name email uri base text`) that holds a person written as text (RSS `author`, `dc:creator`, `dc:contributor`). Such an element whose first child is an element `name`, `email`, `uri` or `url` (after white space only) is read as an Atom person instead: the children fill those columns, the other children are skipped (`<author><name>…</name><title>…</title></author>`, as Google's blogs write it). */
#define CFS_PERSON_TEXT_COLUMN ((size_t)4)

/** Feed formats, detected from the root element, its namespace and version;
    cfs_format_name() gives each one's name in the output. */
typedef enum cfs_format {
    CFS_FORMAT_UNKNOWN = 0, /* Not a feed (the root element is something else) or not known yet. */
    CFS_FORMAT_RSS090, /* RSS 0.90: an RDF root in the Netscape RSS 0.90 namespace. */
    CFS_FORMAT_RSS091U, /* RSS 0.91 as UserLand published it (no Netscape DOCTYPE). */
    CFS_FORMAT_RSS091N, /* RSS 0.91 as Netscape published it (with the Netscape DOCTYPE). */
    CFS_FORMAT_RSS092, /* `<rss version="0.92">`. */
    CFS_FORMAT_RSS093, /* `<rss version="0.93">`. */
    CFS_FORMAT_RSS094, /* `<rss version="0.94">`. */
    CFS_FORMAT_RSS20, /* `<rss version="2.0">` (or 2.0.x). */
    CFS_FORMAT_RSS, /* An `rss` root whose version is missing or unknown. */
    CFS_FORMAT_RSS10, /* RSS 1.0: an RDF root in the RSS 1.0 namespace. */
    CFS_FORMAT_ATOM03, /* Atom 0.3: `feed` in the Atom 0.3 namespace. */
    CFS_FORMAT_ATOM10, /* Atom 1.0 (RFC 4287): `feed` in the Atom namespace. */
    CFS_FORMAT_ATOM, /* A `feed` root in no namespace or in one that is not Atom's, read as Atom of an unknown version (as feedparser's `atom`). */
    CFS_FORMAT_CDF, /* Microsoft's Channel Definition Format (1997): a `CHANNEL` root in no namespace. */
    CFS_FORMAT_JSON10, /* JSON Feed 1.0 (`"version": "https://jsonfeed.org/version/1"`), read by the Swift JSON Feed reader. */
    CFS_FORMAT_JSON11, /* JSON Feed 1.1 (`"version": "https://jsonfeed.org/version/1.1"`). */
    CFS_FORMAT_JSON, /* A JSON Feed whose `version` is missing or not a known one, read as 1.1. */
    CFS_FORMAT_RSS11, /* RSS 1.1: a `Channel` root in the RSS 1.1 namespace (`http://purl.org/net/rss1.1#`). */
    CFS_FORMAT_REDIRECT /* A moved feed's redirect document: a `redirect` root in no namespace, its `newLocation` the feed's new URL. */
} cfs_format;

typedef enum cfs_field {
    CFS_FIELD_ID, /* The identifier: Atom `id`, RSS `guid`, the RDF `rdf:about` (raw). */
    CFS_FIELD_GUID_PERMALINK, /* RSS `guid`'s `isPermaLink` as written, or `true` for a `guid` without it. */
    CFS_FIELD_TITLE, /* The title: a text construct's value, raw. */
    CFS_FIELD_TITLE_TYPE, /* The title's type: its `type` attribute, or the type its format gives it. */
    CFS_FIELD_TITLE_LANG, /* The `xml:lang` in scope for the title. */
    CFS_FIELD_TITLE_BASE, /* The `xml:base` chain in scope for the title (bases separated by the byte 0x01). */
    CFS_FIELD_TITLE_MODE, /* The Atom 0.3 `mode` attribute of the title. */
    CFS_FIELD_SUMMARY, /* The summary (RSS `description`, Atom `summary`): a text construct's value, raw. */
    CFS_FIELD_SUMMARY_TYPE, /* The summary's type: its `type` attribute, or the type its format gives it. */
    CFS_FIELD_SUMMARY_LANG, /* The `xml:lang` in scope for the summary. */
    CFS_FIELD_SUMMARY_BASE, /* The `xml:base` chain in scope for the summary (bases separated by the byte 0x01). */
    CFS_FIELD_SUMMARY_MODE, /* The Atom 0.3 `mode` attribute of the summary. */
    CFS_FIELD_CONTENT, /* The content (`content:encoded`, Atom `content`): a text construct's value, raw. */
    CFS_FIELD_CONTENT_TYPE, /* The content's type: its `type` attribute, or the type its format gives it. */
    CFS_FIELD_CONTENT_LANG, /* The `xml:lang` in scope for the content. */
    CFS_FIELD_CONTENT_BASE, /* The `xml:base` chain in scope for the content (bases separated by the byte 0x01). */
    CFS_FIELD_CONTENT_MODE, /* The Atom 0.3 `mode` attribute of the content. */
    CFS_FIELD_RIGHTS, /* The rights (`copyright`, Atom `rights`, `dc:rights`): a text construct's value, raw. */
    CFS_FIELD_RIGHTS_TYPE, /* The rights's type: its `type` attribute, or the type its format gives it. */
    CFS_FIELD_RIGHTS_LANG, /* The `xml:lang` in scope for the rights. */
    CFS_FIELD_RIGHTS_BASE, /* The `xml:base` chain in scope for the rights (bases separated by the byte 0x01). */
    CFS_FIELD_RIGHTS_MODE, /* The Atom 0.3 `mode` attribute of the rights. */
    CFS_FIELD_CONTENT_SRC, /* Atom `content`'s `src` attribute: content kept elsewhere. */
    CFS_FIELD_PUBLISHED, /* The publication date as written: `pubDate`, Atom `published` or `issued`, `dcterms:issued`. */
    CFS_FIELD_UPDATED, /* The last-update date as written: Atom `updated` or `modified`, `dc:date`, `dcterms:modified`, `lastBuildDate` for a feed. */
    CFS_FIELD_CREATED, /* Atom 0.3 `created`, as written. */
    CFS_FIELD_LANGUAGE, /* The `language` element (`dc:language`), or the record element's `xml:lang`. */
    CFS_FIELD_BASE, /* The record element's `xml:base` chain (bases separated by the byte 0x01, outermost first). */
    CFS_FIELD_VERSION, /* The root element's `version` attribute (feeds only). */
    CFS_FIELD_COMMENTS, /* RSS `comments`: the URL of the item's comments page. */
    CFS_FIELD_SOURCE_URL, /* RSS `source`'s `url` attribute, or the Atom `source` feed's link. */
    CFS_FIELD_SOURCE_TITLE, /* The title of the item's source feed (RSS `source`, Atom `source`): a text construct's value, raw. */
    CFS_FIELD_SOURCE_TITLE_TYPE, /* The source feed title's type: its `type` attribute (Atom). */
    CFS_FIELD_SOURCE_TITLE_LANG, /* The `xml:lang` in scope for the source feed's title. */
    CFS_FIELD_SOURCE_TITLE_BASE, /* The `xml:base` chain in scope for the source feed's title (bases separated by the byte 0x01). */
    CFS_FIELD_SOURCE_TITLE_MODE, /* The Atom 0.3 `mode` attribute of the source feed's title. */
    CFS_FIELD_SOURCE_ID, /* The Atom `source` feed's `id`. */
    CFS_FIELD_SOURCE_UPDATED, /* The Atom `source` feed's `updated` date, as written. */
    CFS_FIELD_GENERATOR, /* The feed's `generator`. */
    CFS_FIELD_GENERATOR_URI, /* Atom `generator`'s `uri` (or 0.3 `url`) attribute; else `admin:generatorAgent`'s `rdf:resource`. */
    CFS_FIELD_GENERATOR_VERSION, /* Atom `generator`'s `version` attribute. */
    CFS_FIELD_DOCS, /* RSS `docs`: the URL of the format's documentation. */
    CFS_FIELD_TTL, /* RSS `ttl`: minutes a feed may be cached. */
    CFS_FIELD_MANAGING_EDITOR, /* RSS `managingEditor`. */
    CFS_FIELD_WEBMASTER, /* RSS `webMaster`. */
    CFS_FIELD_ICON, /* Atom `icon`. */
    CFS_FIELD_LOGO, /* Atom `logo`. */
    CFS_FIELD_IMAGE_URL, /* RSS `image`'s `url`. */
    CFS_FIELD_IMAGE_TITLE, /* RSS `image`'s `title`. */
    CFS_FIELD_IMAGE_LINK, /* RSS `image`'s `link`. */
    CFS_FIELD_IMAGE_WIDTH, /* RSS `image`'s `width`. */
    CFS_FIELD_IMAGE_HEIGHT, /* RSS `image`'s `height`. */
    CFS_FIELD_IMAGE_DESCRIPTION, /* RSS `image`'s `description`. */
    CFS_FIELD_TEXTINPUT_TITLE, /* RSS `textInput`'s `title`. */
    CFS_FIELD_TEXTINPUT_DESCRIPTION, /* RSS `textInput`'s `description`. */
    CFS_FIELD_TEXTINPUT_NAME, /* RSS `textInput`'s `name`. */
    CFS_FIELD_TEXTINPUT_LINK, /* RSS `textInput`'s `link`. */
    CFS_FIELD_CLOUD_DOMAIN, /* RSS `cloud`'s `domain` attribute. */
    CFS_FIELD_CLOUD_PORT, /* RSS `cloud`'s `port` attribute. */
    CFS_FIELD_CLOUD_PATH, /* RSS `cloud`'s `path` attribute. */
    CFS_FIELD_CLOUD_PROCEDURE, /* RSS `cloud`'s `registerProcedure` attribute. */
    CFS_FIELD_CLOUD_PROTOCOL, /* RSS `cloud`'s `protocol` attribute. */
    CFS_FIELD_COMMENT_RSS, /* `wfw:commentRss`: the URL of the item's comments feed. */
    CFS_FIELD_COMMENT_COUNT, /* `slash:comments`, else `thr:total` (RFC 4685): the number of comments. */
    CFS_FIELD_SY_PERIOD, /* `sy:updatePeriod`. */
    CFS_FIELD_SY_FREQUENCY, /* `sy:updateFrequency`. */
    CFS_FIELD_SY_BASE, /* `sy:updateBase`. */
    CFS_FIELD_GEO_POINT, /* `georss:point` ("lat long"). */
    CFS_FIELD_GEO_LAT, /* `geo:lat`. */
    CFS_FIELD_GEO_LONG, /* `geo:long`. */
    CFS_FIELD_DC_PUBLISHER, /* `dc:publisher`. */
    CFS_FIELD_DC_SOURCE, /* `dc:source`. */
    CFS_FIELD_DC_RELATION, /* `dc:relation`. */
    CFS_FIELD_DC_COVERAGE, /* `dc:coverage`. */
    CFS_FIELD_DC_FORMAT, /* `dc:format`. */
    CFS_FIELD_DC_TYPE, /* `dc:type`. */
    CFS_FIELD_ITUNES_AUTHOR, /* `itunes:author`. */
    CFS_FIELD_ITUNES_DURATION, /* `itunes:duration`. */
    CFS_FIELD_ITUNES_EXPLICIT, /* `itunes:explicit`. */
    CFS_FIELD_ITUNES_IMAGE, /* `itunes:image`'s `href` attribute; else `itunes:link`'s (the early iTunes image). */
    CFS_FIELD_ITUNES_EPISODE, /* `itunes:episode`. */
    CFS_FIELD_ITUNES_SEASON, /* `itunes:season`. */
    CFS_FIELD_ITUNES_EPISODE_TYPE, /* `itunes:episodeType`. */
    CFS_FIELD_ITUNES_SUMMARY, /* `itunes:summary`. */
    CFS_FIELD_ITUNES_SUBTITLE, /* `itunes:subtitle`. */
    CFS_FIELD_ITUNES_TITLE, /* `itunes:title`. */
    CFS_FIELD_ITUNES_OWNER_NAME, /* `itunes:owner`'s `itunes:name`. */
    CFS_FIELD_ITUNES_OWNER_EMAIL, /* `itunes:owner`'s `itunes:email`. */
    CFS_FIELD_ITUNES_TYPE, /* `itunes:type`. */
    CFS_FIELD_ITUNES_BLOCK, /* `itunes:block`. */
    CFS_FIELD_ITUNES_COMPLETE, /* `itunes:complete`. */
    CFS_FIELD_ITUNES_NEW_FEED_URL, /* `itunes:new-feed-url`. */
    CFS_FIELD_ITUNES_KEYWORDS, /* `itunes:keywords`. */
    CFS_FIELD_MEDIA_TITLE, /* `media:title`. */
    CFS_FIELD_MEDIA_DESCRIPTION, /* `media:description`. */
    CFS_FIELD_MEDIA_KEYWORDS, /* `media:keywords`. */
    CFS_FIELD_MEDIA_RATING, /* `media:rating`. */
    CFS_FIELD_PODCAST_GUID, /* `podcast:guid`. */
    CFS_FIELD_PODCAST_LOCKED, /* `podcast:locked`. */
    CFS_FIELD_PODCAST_LOCKED_OWNER, /* `podcast:locked`'s `owner` attribute. */
    CFS_FIELD_PODCAST_CHAPTERS_URL, /* `podcast:chapters`' `url` attribute. */
    CFS_FIELD_PODCAST_CHAPTERS_TYPE, /* `podcast:chapters`' `type` attribute. */
    CFS_FIELD_PODCAST_SEASON, /* `podcast:season`. */
    CFS_FIELD_PODCAST_EPISODE, /* `podcast:episode`. */
    CFS_FIELD_PODCAST_MEDIUM, /* `podcast:medium`. */
    CFS_FIELD_EXPIRED, /* RSS `expirationDate`, as written. */
    CFS_FIELD_DC_VALID, /* `dcterms:valid`, as written (a DCMI period or a date). */
    CFS_FIELD_LICENSE, /* The license's URL: `cc:license` (its `rdf:resource`), `creativeCommons:license`, `dcterms:license`. */
    CFS_FIELD_NEW_LOCATION, /* RSS `newLocation`: the feed's new URL. */
    CFS_FIELD_ENCODING, /* The document's charset when it is not UTF-8 (feeds only): its name in charset_aliases.def, else as declared, in lower case; UTF-16 and UTF-32 with their byte order. */
    CFS_FIELD_INFO, /* Atom 0.3 `info`: a text construct's value, raw. */
    CFS_FIELD_INFO_TYPE, /* The info's type: its `type` attribute. */
    CFS_FIELD_INFO_LANG, /* The `xml:lang` in scope for the info. */
    CFS_FIELD_INFO_BASE, /* The `xml:base` chain in scope for the info (bases separated by the byte 0x01). */
    CFS_FIELD_INFO_MODE, /* The Atom 0.3 `mode` attribute of the info. */
    CFS_FIELD_SOURCE_SUBTITLE, /* The Atom `source` feed's `subtitle`: a text construct's value, raw. */
    CFS_FIELD_SOURCE_SUBTITLE_TYPE, /* The source feed subtitle's type: its `type` attribute. */
    CFS_FIELD_SOURCE_SUBTITLE_LANG, /* The `xml:lang` in scope for the source feed's subtitle. */
    CFS_FIELD_SOURCE_SUBTITLE_BASE, /* The `xml:base` chain in scope for the source feed's subtitle (bases separated by the byte 0x01). */
    CFS_FIELD_SOURCE_SUBTITLE_MODE, /* The Atom 0.3 `mode` attribute of the source feed's subtitle. */
    CFS_FIELD_SOURCE_RIGHTS, /* The Atom `source` feed's `rights`: a text construct's value, raw. */
    CFS_FIELD_SOURCE_RIGHTS_TYPE, /* The source feed rights' type: its `type` attribute. */
    CFS_FIELD_SOURCE_RIGHTS_LANG, /* The `xml:lang` in scope for the source feed's rights. */
    CFS_FIELD_SOURCE_RIGHTS_BASE, /* The `xml:base` chain in scope for the source feed's rights (bases separated by the byte 0x01). */
    CFS_FIELD_SOURCE_RIGHTS_MODE, /* The Atom 0.3 `mode` attribute of the source feed's rights. */
    CFS_FIELD_SOURCE_GENERATOR, /* The Atom `source` feed's `generator`. */
    CFS_FIELD_SOURCE_GENERATOR_URI, /* The Atom `source` feed generator's `uri` (or 0.3 `url`) attribute. */
    CFS_FIELD_SOURCE_GENERATOR_VERSION, /* The Atom `source` feed generator's `version` attribute. */
    CFS_FIELD_SOURCE_ICON, /* The Atom `source` feed's `icon`. */
    CFS_FIELD_SOURCE_LOGO, /* The Atom `source` feed's `logo`. */
    CFS_FIELD_FEEDBURNER_ORIG_LINK, /* `feedburner:origLink`: the item's link before FeedBurner rewrote it. */
    CFS_FIELD_FEEDBURNER_ORIG_ENCLOSURE_LINK, /* `feedburner:origEnclosureLink`: the enclosure's URL before FeedBurner rewrote it. */
    CFS_FIELD_FEEDBURNER_INFO_URI, /* `feedburner:info`'s `uri` attribute: the feed's FeedBurner name. */
    CFS_FIELD_FEEDBURNER_BROWSER_FRIENDLY, /* `feedburner:browserFriendly`: the note FeedBurner shows to browsers. */
    CFS_FIELD_FEEDBURNER_EMAIL_SERVICE_ID, /* `feedburner:emailServiceId`. */
    CFS_FIELD_FEEDBURNER_HOSTNAME, /* `feedburner:feedburnerHostname`. */
    CFS_FIELD_BLOG_ROLL, /* `blogChannel:blogRoll`: the URL of the blog's OPML blogroll. */
    CFS_FIELD_MY_SUBSCRIPTIONS, /* `blogChannel:mySubscriptions`: the URL of the author's OPML subscriptions. */
    CFS_FIELD_BLINK, /* `blogChannel:blink`: the URL of a blog the author recommends. */
    CFS_FIELD_CHANGES, /* `blogChannel:changes`: the URL of a changes.xml the blog pings. */
    CFS_FIELD_DC_ABSTRACT, /* `dcterms:abstract`, as written. */
    CFS_FIELD_DC_ACCESS_RIGHTS, /* `dcterms:accessRights`, as written. */
    CFS_FIELD_DC_ACCRUAL_METHOD, /* `dcterms:accrualMethod`, as written. */
    CFS_FIELD_DC_ACCRUAL_PERIODICITY, /* `dcterms:accrualPeriodicity`, as written. */
    CFS_FIELD_DC_ACCRUAL_POLICY, /* `dcterms:accrualPolicy`, as written. */
    CFS_FIELD_DC_ALTERNATIVE, /* `dcterms:alternative`, as written. */
    CFS_FIELD_DC_AUDIENCE, /* `dcterms:audience`, as written. */
    CFS_FIELD_DC_AVAILABLE, /* `dcterms:available`, as written. */
    CFS_FIELD_DC_BIBLIOGRAPHIC_CITATION, /* `dcterms:bibliographicCitation`, as written. */
    CFS_FIELD_DC_CONFORMS_TO, /* `dcterms:conformsTo`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_DATE_ACCEPTED, /* `dcterms:dateAccepted`, as written. */
    CFS_FIELD_DC_DATE_COPYRIGHTED, /* `dcterms:dateCopyrighted`, as written. */
    CFS_FIELD_DC_DATE_SUBMITTED, /* `dcterms:dateSubmitted`, as written. */
    CFS_FIELD_DC_EDUCATION_LEVEL, /* `dcterms:educationLevel`, as written. */
    CFS_FIELD_DC_EXTENT, /* `dcterms:extent`, as written. */
    CFS_FIELD_DC_HAS_FORMAT, /* `dcterms:hasFormat`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_HAS_PART, /* `dcterms:hasPart`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_HAS_VERSION, /* `dcterms:hasVersion`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_INSTRUCTIONAL_METHOD, /* `dcterms:instructionalMethod`, as written. */
    CFS_FIELD_DC_IS_FORMAT_OF, /* `dcterms:isFormatOf`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_IS_PART_OF, /* `dcterms:isPartOf`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_IS_REFERENCED_BY, /* `dcterms:isReferencedBy`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_IS_REPLACED_BY, /* `dcterms:isReplacedBy`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_IS_REQUIRED_BY, /* `dcterms:isRequiredBy`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_IS_VERSION_OF, /* `dcterms:isVersionOf`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_MEDIATOR, /* `dcterms:mediator`, as written. */
    CFS_FIELD_DC_MEDIUM, /* `dcterms:medium`, as written. */
    CFS_FIELD_DC_PROVENANCE, /* `dcterms:provenance`, as written. */
    CFS_FIELD_DC_REFERENCES, /* `dcterms:references`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_REPLACES, /* `dcterms:replaces`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_REQUIRES, /* `dcterms:requires`, as written (its `rdf:resource`, or its text). */
    CFS_FIELD_DC_RIGHTS_HOLDER, /* `dcterms:rightsHolder`, as written. */
    CFS_FIELD_DC_SPATIAL, /* `dcterms:spatial`, as written. */
    CFS_FIELD_DC_TABLE_OF_CONTENTS, /* `dcterms:tableOfContents`, as written. */
    CFS_FIELD_DC_TEMPORAL, /* `dcterms:temporal`, as written. */
    CFS_FIELD_MEDIA_TITLE_TYPE, /* `media:title`'s `type` attribute (`plain` or `html`), as written. */
    CFS_FIELD_MEDIA_DESCRIPTION_TYPE, /* `media:description`'s `type` attribute (`plain` or `html`), as written. */
    CFS_FIELD_MEDIA_RATING_SCHEME, /* `media:rating`'s `scheme` attribute (of the rating in `mediaRating`). */
    CFS_FIELD_MEDIA_COPYRIGHT, /* `media:copyright`. */
    CFS_FIELD_MEDIA_COPYRIGHT_URL, /* `media:copyright`'s `url` attribute. */
    CFS_FIELD_MEDIA_STAR_AVERAGE, /* `media:starRating`'s `average` attribute. */
    CFS_FIELD_MEDIA_STAR_COUNT, /* `media:starRating`'s `count` attribute. */
    CFS_FIELD_MEDIA_STAR_MIN, /* `media:starRating`'s `min` attribute. */
    CFS_FIELD_MEDIA_STAR_MAX, /* `media:starRating`'s `max` attribute. */
    CFS_FIELD_MEDIA_VIEWS, /* `media:statistics`' `views` attribute. */
    CFS_FIELD_MEDIA_FAVORITES, /* `media:statistics`' `favorites` attribute. */
    CFS_FIELD_MEDIA_TAGS, /* `media:tags`, as written ("tag:weight, ..."). */
    CFS_FIELD_ITUNES_ORDER, /* `itunes:order`. */
    CFS_FIELD_ITUNES_CLOSED_CAPTIONED, /* `itunes:isClosedCaptioned`. */
    CFS_FIELD_MEDIA_STATUS_STATE, /* `media:status`' `state` attribute. */
    CFS_FIELD_MEDIA_STATUS_REASON, /* `media:status`' `reason` attribute. */
    CFS_FIELD_GEO_LINE, /* `georss:line` ("lat long lat long ..."). */
    CFS_FIELD_GEO_POLYGON, /* `georss:polygon` ("lat long ...", the first pair repeated last). */
    CFS_FIELD_GEO_BOX, /* `georss:box` ("south west north east"). */
    CFS_FIELD_GEO_FEATURETYPETAG, /* `georss:featuretypetag`. */
    CFS_FIELD_GEO_RELATIONSHIPTAG, /* `georss:relationshiptag`. */
    CFS_FIELD_GEO_FEATURENAME, /* `georss:featurename`. */
    CFS_FIELD_GEO_ELEV, /* `georss:elev` (meters). */
    CFS_FIELD_GEO_FLOOR, /* `georss:floor`. */
    CFS_FIELD_GEO_RADIUS, /* `georss:radius` (meters). */
    CFS_FIELD_GEO_WHERE_POINT, /* `georss:where`'s `gml:Point`'s `gml:pos`. */
    CFS_FIELD_GEO_WHERE_LINE, /* `georss:where`'s `gml:LineString`'s `gml:posList`. */
    CFS_FIELD_GEO_WHERE_POLYGON, /* `georss:where`'s `gml:Polygon`'s exterior `gml:LinearRing`'s `gml:posList`. */
    CFS_FIELD_GEO_WHERE_LOWER, /* `georss:where`'s `gml:Envelope`'s `gml:lowerCorner`. */
    CFS_FIELD_GEO_WHERE_UPPER, /* `georss:where`'s `gml:Envelope`'s `gml:upperCorner`. */
    CFS_FIELD_PODCAST_SEASON_NAME, /* `podcast:season`'s `name` attribute. */
    CFS_FIELD_PODCAST_EPISODE_DISPLAY, /* `podcast:episode`'s `display` attribute. */
    CFS_FIELD_PODCAST_LICENSE, /* `podcast:license`'s text (an SPDX identifier or a name). */
    CFS_FIELD_PODCAST_LICENSE_URL, /* `podcast:license`'s `url` attribute. */
    CFS_FIELD_PODCAST_IMAGES_SRCSET, /* `podcast:images`' `srcset` attribute, as written. */
    CFS_FIELD_PODCAST_UPDATE_FREQUENCY, /* `podcast:updateFrequency`'s text. */
    CFS_FIELD_PODCAST_UPDATE_FREQUENCY_COMPLETE, /* `podcast:updateFrequency`'s `complete` attribute. */
    CFS_FIELD_PODCAST_UPDATE_FREQUENCY_DTSTART, /* `podcast:updateFrequency`'s `dtstart` attribute. */
    CFS_FIELD_PODCAST_UPDATE_FREQUENCY_RRULE, /* `podcast:updateFrequency`'s `rrule` attribute. */
    CFS_FIELD_PODCAST_PODPING, /* `podcast:podping`'s `usesPodping` attribute. */
    CFS_FIELD_PODCAST_CHAT_SERVER, /* `podcast:chat`'s `server` attribute. */
    CFS_FIELD_PODCAST_CHAT_PROTOCOL, /* `podcast:chat`'s `protocol` attribute. */
    CFS_FIELD_PODCAST_CHAT_ACCOUNT_ID, /* `podcast:chat`'s `accountId` attribute. */
    CFS_FIELD_PODCAST_CHAT_SPACE, /* `podcast:chat`'s `space` attribute. */
    CFS_FIELD_PODCAST_LIVE_STATUS, /* `podcast:liveItem`'s `status` attribute (the item is the live item). */
    CFS_FIELD_PODCAST_LIVE_START, /* `podcast:liveItem`'s `start` attribute, as written. */
    CFS_FIELD_PODCAST_LIVE_END, /* `podcast:liveItem`'s `end` attribute, as written. */
    CFS_FIELD_PODCAST_PUBLISHER_FEED_GUID, /* `podcast:publisher`'s `podcast:remoteItem`'s `feedGuid`. */
    CFS_FIELD_PODCAST_PUBLISHER_FEED_URL, /* `podcast:publisher`'s `podcast:remoteItem`'s `feedUrl`. */
    CFS_FIELD_PODCAST_PUBLISHER_MEDIUM, /* `podcast:publisher`'s `podcast:remoteItem`'s `medium`. */
    CFS_FIELD_PSC_VERSION, /* Not set: a `psc:chapters` block's `version` is the `version` column of its `PSC_BLOCKS` row. */
    CFS_FIELD_JSON_CONTENT_TEXT, /* JSON Feed: an item's `content_text` when it also has `content_html` (which is then its `content`). */
    CFS_FIELD_JSON_IMAGE, /* JSON Feed: an item's `image`. */
    CFS_FIELD_JSON_BANNER_IMAGE, /* JSON Feed: an item's `banner_image`. */
    CFS_FIELD_JSON_USER_COMMENT, /* JSON Feed: the feed's `user_comment`. */
    CFS_FIELD_JSON_NEXT_URL, /* JSON Feed: the feed's `next_url`. */
    CFS_FIELD_JSON_EXPIRED, /* JSON Feed: the feed's `expired` (`true` or `false` as written). */
    CFS_FIELD_YOUTUBE_VIDEO_ID, /* `yt:videoId`: the YouTube video's ID. */
    CFS_FIELD_YOUTUBE_CHANNEL_ID, /* `yt:channelId`: the YouTube channel's ID (of the feed, or of an entry's video). */
    CFS_FIELD_YOUTUBE_PLAYLIST_ID, /* `yt:playlistId`: the ID of the YouTube playlist a feed lists. */
    CFS_FIELD_WORDPRESS_POST_ID, /* WordPress.com's `post-id`: the item's post number on its site. */
    CFS_FIELD_WORDPRESS_SITE, /* WordPress.com's `site`: the site's number. */
    CFS_FIELD_GOOGLEPLAY_AUTHOR, /* `googleplay:author`. */
    CFS_FIELD_GOOGLEPLAY_DESCRIPTION, /* `googleplay:description`. */
    CFS_FIELD_GOOGLEPLAY_EXPLICIT, /* `googleplay:explicit`, as written. */
    CFS_FIELD_GOOGLEPLAY_BLOCK, /* `googleplay:block`, as written. */
    CFS_FIELD_GOOGLEPLAY_IMAGE, /* `googleplay:image`'s `href`. */
    CFS_FIELD_GOOGLEPLAY_EMAIL, /* `googleplay:email`: the podcast owner's address. */
    CFS_FIELD_GOOGLEPLAY_OWNER, /* `googleplay:owner`: the podcast owner's address (the earlier name of `googleplay:email`). */
    CFS_FIELD_GOOGLEPLAY_CATEGORY, /* `googleplay:category`'s `text`. */
    CFS_FIELD_PRISM_DOI, /* `prism:doi`: the Digital Object Identifier. */
    CFS_FIELD_PRISM_PUBLICATION_NAME, /* `prism:publicationName`: the journal's or magazine's name. */
    CFS_FIELD_PRISM_PUBLICATION_DATE, /* `prism:publicationDate`: as written. */
    CFS_FIELD_PRISM_COVER_DATE, /* `prism:coverDate`: the issue's date, as written. */
    CFS_FIELD_PRISM_VOLUME, /* `prism:volume`. */
    CFS_FIELD_PRISM_NUMBER, /* `prism:number`: the issue's number. */
    CFS_FIELD_PRISM_STARTING_PAGE, /* `prism:startingPage`. */
    CFS_FIELD_PRISM_ENDING_PAGE, /* `prism:endingPage`. */
    CFS_FIELD_PRISM_SECTION, /* `prism:section`. */
    CFS_FIELD_PRISM_ISSN, /* `prism:issn`. */
    CFS_FIELD_PRISM_E_ISSN, /* `prism:eIssn`: the electronic edition's ISSN. */
    CFS_FIELD_PRISM_URL, /* `prism:url`: the article's or the issue's address, as written. */
    CFS_FIELD_PRISM_PAGE_RANGE, /* `prism:pageRange`: the pages, as written (`1-9, 12`). */
    CFS_FIELD_PRISM_ISSUE_NAME, /* `prism:issueName`: a special issue's name. */
    CFS_FIELD_PRISM_ISBN, /* `prism:isbn`. */
    CFS_FIELD_PRISM_EDITION, /* `prism:edition`. */
    CFS_FIELD_PRISM_COVER_DISPLAY_DATE, /* `prism:coverDisplayDate`: the issue's date as printed on it. */
    CFS_FIELD_PRISM_COPYRIGHT, /* `prism:copyright`: the copyright statement. */
    CFS_FIELD_PRISM_AGGREGATION_TYPE, /* `prism:aggregationType`: `journal`, `magazine`, `book`, ... */
    CFS_FIELD_SLASH_SECTION, /* `slash:section`: the site section the item was posted in (mod_slash). */
    CFS_FIELD_SLASH_DEPARTMENT, /* `slash:department`: the line Slashdot prints as `from the ... dept.` (mod_slash). */
    CFS_FIELD_SLASH_HIT_PARADE, /* `slash:hit_parade`: the comment counts at each score threshold, comma-separated, as written (mod_slash). */
    CFS_FIELD_GEO_WHERE_SRS_NAME, /* `georss:where`'s GML geometry's `srsName`: the reference system its coordinates are in. */
    CFS_FIELD_GEO_WHERE_SRS_DIMENSION, /* `georss:where`'s GML geometry's `srsDimension`: the number of coordinates per position. */
    CFS_FIELD_ERROR_REPORTS_TO, /* `admin:errorReportsTo`'s `rdf:resource` (or text): where to report errors in the feed. */
    CFS_FIELD_RSS_SUMMARY, /* An RSS item's `summary` (not RSS, written beside or instead of `description`): a text construct's value, raw; the summary when nothing else gives one, else the content when nothing gives one. */
    CFS_FIELD_RSS_SUMMARY_TYPE, /* The RSS summary's type: its `type` attribute, else `text`. */
    CFS_FIELD_RSS_SUMMARY_LANG, /* The `xml:lang` in scope for the RSS summary. */
    CFS_FIELD_RSS_SUMMARY_BASE, /* The `xml:base` chain in scope for the RSS summary (bases separated by the byte 0x01). */
    CFS_FIELD_RSS_SUMMARY_MODE, /* The Atom 0.3 `mode` attribute of the RSS summary. */
    CFS_FIELD_COUNT
} cfs_field;

/** Lists of rows. The columns of each list, in order, are given in the comments and
    by cfs_list_columns(). */
typedef enum cfs_list {
    CFS_LIST_LINKS, /* Links: href rel type hreflang title length base */
    CFS_LIST_AUTHORS, /* Authors: name email uri base text avatar */
    CFS_LIST_CONTRIBUTORS, /* Contributors: name email uri base text avatar */
    CFS_LIST_CATEGORIES, /* Categories: term scheme label */
    CFS_LIST_ENCLOSURES, /* Enclosures: url type length base */
    CFS_LIST_MEDIA, /* `media:content`: url type medium is_default expression bitrate framerate samplingrate channels duration height width lang file_size */
    CFS_LIST_THUMBNAILS, /* `media:thumbnail`: url width height time */
    CFS_LIST_CREDITS, /* `media:credit`: name role scheme */
    CFS_LIST_ITUNES_CATEGORIES, /* `itunes:category`: text parent */
    CFS_LIST_PERSONS, /* `podcast:person`: name role group img href */
    CFS_LIST_TRANSCRIPTS, /* `podcast:transcript`: url type language rel */
    CFS_LIST_FUNDING, /* `podcast:funding`: url text */
    CFS_LIST_SKIP_HOURS, /* RSS `skipHours` hours: value */
    CFS_LIST_SKIP_DAYS, /* RSS `skipDays` days: value */
    CFS_LIST_SOURCE_LINKS, /* The Atom `source` feed's links: href rel type hreflang title length base */
    CFS_LIST_SOURCE_AUTHORS, /* The Atom `source` feed's authors: name email uri base text avatar */
    CFS_LIST_SOURCE_CONTRIBUTORS, /* The Atom `source` feed's contributors: name email uri base text avatar */
    CFS_LIST_SOURCE_CATEGORIES, /* The Atom `source` feed's categories: term scheme label */
    CFS_LIST_MEDIA_CATEGORIES, /* `media:category`: term scheme label */
    CFS_LIST_MEDIA_RESTRICTIONS, /* `media:restriction`: value relationship type */
    CFS_LIST_MEDIA_LICENSES, /* `media:license`: text type href */
    CFS_LIST_MEDIA_PLAYERS, /* `media:player`: url height width */
    CFS_LIST_MEDIA_HASHES, /* `media:hash`: value algo */
    CFS_LIST_MEDIA_TEXTS, /* `media:text`: text type lang start end */
    CFS_LIST_MEDIA_SUBTITLES, /* `media:subTitle`: href type lang */
    CFS_LIST_MEDIA_PEER_LINKS, /* `media:peerLink`: href type */
    CFS_LIST_MEDIA_PRICES, /* `media:price`: price currency type info */
    CFS_LIST_SOUNDBITES, /* `podcast:soundbite`: start_time duration text */
    CFS_LIST_TRAILERS, /* `podcast:trailer`: url pubdate length type season text */
    CFS_LIST_ALT_ENCLOSURES, /* `podcast:alternateEnclosure`: type length bitrate height lang title rel codecs default */
    CFS_LIST_ALT_ENCLOSURE_SOURCES, /* `podcast:alternateEnclosure`'s `podcast:source`: uri content_type parent_row */
    CFS_LIST_ALT_ENCLOSURE_INTEGRITY, /* `podcast:alternateEnclosure`'s `podcast:integrity`: type value parent_row */
    CFS_LIST_VALUES, /* `podcast:value`: type method suggested */
    CFS_LIST_VALUE_RECIPIENTS, /* `podcast:value`'s `podcast:valueRecipient`: name custom_key custom_value type address split fee parent_row */
    CFS_LIST_PODCAST_IMAGES, /* `podcast:image`: href alt aspect_ratio width height type purpose */
    CFS_LIST_TXTS, /* `podcast:txt`: text purpose */
    CFS_LIST_BLOCKS, /* `podcast:block`: text id */
    CFS_LIST_REMOTE_ITEMS, /* `podcast:remoteItem` (not in a podroll or publisher): feed_guid item_guid feed_url medium */
    CFS_LIST_PODROLL, /* `podcast:podroll`'s `podcast:remoteItem`: feed_guid item_guid feed_url medium */
    CFS_LIST_CONTENT_LINKS, /* `podcast:contentLink`: href text */
    CFS_LIST_SOCIAL_INTERACTS, /* `podcast:socialInteract`: uri protocol account_id account_url priority */
    CFS_LIST_PSC_CHAPTERS, /* `psc:chapters`' `psc:chapter`; `parent_row` is its block's row of `PSC_BLOCKS`: start title href image parent_row */
    CFS_LIST_LOCATIONS, /* `podcast:location`: text geo osm rel country */
    CFS_LIST_VALUE_TIME_SPLITS, /* `podcast:value`'s `podcast:valueTimeSplit`: start_time duration remote_start_time remote_percentage parent_row */
    CFS_LIST_TIME_SPLIT_RECIPIENTS, /* `podcast:valueTimeSplit`'s `podcast:valueRecipient`: name custom_key custom_value type address split fee parent_row */
    CFS_LIST_TIME_SPLIT_REMOTE_ITEMS, /* `podcast:valueTimeSplit`'s `podcast:remoteItem`: feed_guid item_guid feed_url medium parent_row */
    CFS_LIST_JSON_AUTHORS, /* JSON Feed: author objects (`authors`, or 1.0's `author`) as written: name url avatar */
    CFS_LIST_JSON_ATTACHMENTS, /* JSON Feed: an item's `attachments` as written: url mime_type title size_in_bytes duration_in_seconds */
    CFS_LIST_JSON_HUBS, /* JSON Feed: the feed's `hubs`: type url */
    CFS_LIST_JSON_EXTENSIONS, /* JSON Feed: `_`-prefixed extension members, each value as its raw JSON text: key json */
    CFS_LIST_EXTENSIONS, /* Extension elements no rule reads: an element of the feed or of an item holding no element, its namespace, local name and text; an attribute of it, by name ({namespace}name when it has one): namespace name attribute value */
    CFS_LIST_PSC_BLOCKS, /* `psc:chapters`: one row per block, in document order: version */
    CFS_LIST_COUNT
} cfs_list;
/* END GENERATED */

/** Columns per row of a list (the names in the comments above, in order).
    @param list a list; CFS_LIST_COUNT or more returns 0.
    @return the number of spans in each row. Thread-safe. */
size_t cfs_list_columns(cfs_list list);

/** Words of presence bits in a record: one bit per field (cfs_record.present). */
#define CFS_PRESENT_WORDS ((CFS_FIELD_COUNT + 63) / 64)

/** A record: fields and lists. rows[l] holds counts[l] rows of cfs_list_columns(l)
    spans each, row after row. */
typedef struct cfs_record {
    cfs_span fields[CFS_FIELD_COUNT];
    /** Bit i of present[i / 64] is set when fields[i] may be present (clear: absent),
        so that readers can skip absent fields quickly. */
    uint64_t present[CFS_PRESENT_WORDS];
    const cfs_span *rows[CFS_LIST_COUNT];
    size_t counts[CFS_LIST_COUNT];
} cfs_record;

/** One finished item (RSS <item>, Atom <entry>). Valid during on_item only. */
typedef struct cfs_item {
    /** 0-based position of the item in its document. */
    size_t index;
    /** Non-zero when this item's text hit max_item_bytes and was truncated. */
    int truncated;
    cfs_record record;
} cfs_item;

/** The feed-level data of a document. In on_item, what appeared in the document
    before that item; in on_document_end, all of it. */
typedef struct cfs_feed {
    /** 1-based index of the document in the stream. */
    size_t document;
    cfs_format format;
    /** Items delivered so far in this document. */
    size_t items_count;
    cfs_record record;
} cfs_feed;


/** Callbacks. Any may be NULL. Return 0 to go on, non-zero to stop the parser: the
    current call then returns CFS_ERR_ABORTED. */
typedef struct cfs_callbacks {
    /** A new document begins (its first non-whitespace byte was seen). */
    int (*on_document_start)(void *ctx, size_t document);
    /** An item is finished. `feed` holds the feed fields seen before it. */
    int (*on_item)(void *ctx, const cfs_item *item, const cfs_feed *feed);
    /** A document ended. `error` is NULL when it was well-formed and a feed; otherwise
        it says why it stopped (every item before the error was already delivered). */
    int (*on_document_end)(void *ctx, const cfs_feed *feed, const cfs_error *error);
} cfs_callbacks;


/** Options. Fill them with cfs_options_init() (the defaults), then set what you need;
    or pass NULL to cfs_parser_create() for the defaults. */
typedef struct cfs_options {
    /** sizeof(cfs_options) as the caller was compiled: set by cfs_options_init(),
        first so that later versions can add members at the end without breaking
        callers built against this header. cfs_parser_create() reads only the members
        that fit in struct_size bytes; members a smaller (older) struct lacks take
        their defaults. A struct_size of 0 (a struct zeroed or declared by hand and
        never passed to cfs_options_init) or larger than this library's cfs_options
        (a newer header whose members this library cannot honour) is refused:
        cfs_parser_create() returns NULL. (Zero limits mean "no limit": a struct
        zeroed by hand would otherwise lift every limit without a word.) */
    size_t struct_size;
    cfs_backend backend;
    /** Upper bound on the text kept per item (and per feed header), in bytes; text
        past it is dropped and the item marked truncated (this truncates; it is not a
        limit that fails a document). At most 4 GiB - 2. 0 = the default,
        CFS_DEFAULT_MAX_ITEM_BYTES (the Swift backends' maxItemBytes: 0 says the same). */
    size_t max_item_bytes;
    /** Limits (0 = no limit); cfs_options_init() sets each to its default. */
    cfs_limits limits;
} cfs_options;

/** Fills `options` with the defaults: struct_size = sizeof(cfs_options), the expat
    backend, the default max_item_bytes and cfs_limits_default(). Thread-safe. */
void cfs_options_init(cfs_options *options);


typedef struct cfs_parser cfs_parser;

/**
 * Creates a parser.
 * @param options   NULL for defaults, else filled by cfs_options_init() (see
 *                  cfs_options.struct_size); copied (the caller's struct may go away).
 * @param callbacks NULL for none; copied.
 * @param ctx       passed back to every callback; not owned, never dereferenced.
 * @return a parser, or NULL when out of memory, the backend is unsupported or
 *         struct_size is 0 or larger than this library's cfs_options.
 *         Free it with cfs_parser_destroy(). Thread-safe: parsers may be created
 *         concurrently.
 */
cfs_parser *cfs_parser_create(const cfs_options *options, const cfs_callbacks *callbacks,
                              void *ctx);


/**
 * Asks for the bytes of documents that fail as XML, so that the caller can re-read them
 * leniently (the Swift library does: docs/SCHEMA.md, "Recovered documents"; the C core
 * has no lenient reader of its own). With a hook set, the parser keeps the bytes of the
 * open document (up to `max_bytes`; a longer document is not kept). A document that
 * fails with CFS_ERR_XML, or is cut short by corrupt or truncated gzip (CFS_ERR_GZIP),
 * and was kept whole is then reported to the hook instead of
 * on_document_end, once its end is known: the start of the next document (an "<?xml"
 * declaration or a root start tag) or the end of the stream. The hook reports the
 * document as it sees fit; the items before the failure were delivered as usual, and
 * the error counts as the stream's first error as it would have. Every other failure
 * (limits, gzip, a document over max_bytes) goes to on_document_end as before.
 * Without a hook (the default), the bytes are kept only up to 16 MiB, for the search for
 * the next document after an error (it starts right after the error's offset, whatever
 * chunk held that byte): a failed document reports the error and the items before it,
 * as always. Set it before feeding a stream; NULL removes it. Kept by reset.
 */
void cfs_parser_set_recover(cfs_parser *parser, cfs_recover_fn hook, size_t max_bytes);

/**
 * Asks to be told of the gaps of gzip input (cfs_gap_fn): a member that could not be
 * read, or bytes between members that are no member, after which reading resumed at
 * the next member. The hook gets the callbacks' context. Without one, a gap is still
 * skipped and counted as the stream's error (cfs_parser_finish returns CFS_ERR_GZIP,
 * cfs_parser_error the first gap when nothing else failed). Kept by reset; NULL
 * removes it.
 */
void cfs_parser_set_gap(cfs_parser *parser, cfs_gap_fn hook);

/**
 * The charset the transport named for the stream's bytes (HTTP's Content-Type
 * `charset` parameter; NULL or "" for none). RFC 7303's order: a byte order mark (or
 * UTF-16/UTF-32 found by a document's first bytes) first, then this charset, then the
 * XML declaration's `encoding`, then UTF-8. It applies to every document of the
 * stream, when it names a charset the parser reads that is not UTF-16 or UTF-32 (an
 * unknown name is ignored: the document's own charset is used); the declaration is
 * still checked for well-formedness, not for its name. Set it before feeding a
 * stream; cleared by cfs_parser_reset.
 * @return 1, or 0 when the name is longer than 63 bytes (then none is set).
 */
int cfs_parser_set_charset(cfs_parser *parser, const char *name);

/**
 * Feeds the next chunk of the stream (any size, split anywhere). The first bytes
 * decide between gzip (magic 1f 8b) and plain XML. Chunks of plain XML are parsed in
 * place where the tokenizer allows; gzip is inflated straight into its buffer.
 * Callbacks for everything the chunk completes run before this returns.
 * @param parser the parser.
 * @param data   `len` bytes, borrowed for the call only (not NUL-terminated; may be
 *               NULL when len is 0).
 * @param len    any size, including 0.
 * @return CFS_OK, or a fatal status (CFS_ERR_GZIP, CFS_ERR_ABORTED, CFS_ERR_NOMEM,
 *         CFS_ERR_LIMIT for max_ratio), also returned by every later feed;
 *         CFS_ERR_MISUSE after finish.
 *         Per-document XML errors are not fatal: see on_document_end.
 */
cfs_status cfs_parser_feed(cfs_parser *parser, const void *data, size_t len);

/**
 * Reads `fd` to end of file and feeds everything. Plain XML is read straight into
 * the tokenizer's buffer and gzip inflated straight into it: no intermediate copy.
 * Does not close `fd`. Call cfs_parser_finish() afterwards.
 * @param parser the parser.
 * @param fd     an open descriptor (file, pipe, socket); read with read(2), EINTR
 *               retried; blocks as read(2) does.
 * @return as cfs_parser_feed(), plus CFS_ERR_IO when read(2) fails (errno in
 *         cfs_parser_error()->sys_errno).
 */
cfs_status cfs_parser_feed_fd(cfs_parser *parser, int fd);

/**
 * Feeds bytes of a gzip stream that the caller inflated itself (on another thread, to
 * keep two cores busy), so that max_ratio is still checked, where and as the parser
 * checks it when it inflates: at every multiple of CFS_RATIO_INTERVAL bytes of the
 * uncompressed stream, over the window from the last document begun. The bytes are
 * parsed as uncompressed XML (never inflated again, whatever their first bytes).
 * Use it for the whole stream instead of cfs_parser_feed(); then cfs_parser_finish().
 * @param parser      the parser.
 * @param data        uncompressed bytes, borrowed for the call; they must not run past
 *                    the next multiple of CFS_RATIO_INTERVAL of the uncompressed stream
 *                    (cut the output there).
 * @param len         any size up to that multiple, including 0.
 * @param compressed  the compressed bytes inflate had consumed when it produced the
 *                    last of these bytes (zlib's total_in, summed over gzip members);
 *                    used when the bytes end on a multiple of CFS_RATIO_INTERVAL.
 * @return as cfs_parser_feed(); CFS_ERR_LIMIT (fatal) when the ratio is passed;
 *         CFS_ERR_MISUSE when the bytes run past the next multiple, or after
 *         cfs_parser_feed() or cfs_parser_feed_fd() fed this stream.
 */
cfs_status cfs_parser_feed_inflated(cfs_parser *parser, const void *data, size_t len,
                                    uint64_t compressed);

/**
 * Declares that the stream cfs_parser_feed_inflated() will feed is a part of a bigger
 * inflated stream, split at a document's start (to parse the parts of one gzip dump on
 * several cores, each on a parser of its own): max_ratio is then checked at the
 * multiples of CFS_RATIO_INTERVAL of the whole stream, with the same counts, so a part
 * fails where one parser of the whole stream fails. Offsets the parser reports stay
 * counted from the part's first byte. Call it before the first feed of the stream.
 * @param parser      the parser.
 * @param offset      the part's first byte's offset in the whole uncompressed stream.
 * @param checkpoint  the compressed bytes inflate had consumed at the last multiple of
 *                    CFS_RATIO_INTERVAL at or before `offset` (0 before the first).
 * @return CFS_OK; CFS_ERR_MISUSE after anything was fed, or after cfs_parser_finish().
 */
cfs_status cfs_parser_inflated_origin(cfs_parser *parser, uint64_t offset, uint64_t checkpoint);

/**
 * For a caller that inflates the stream itself (cfs_parser_feed_inflated): the gzip
 * or zstd stream (`format`: CFS_PACK_GZIP or CFS_PACK_ZSTD) has a gap here
 * (feedstream_inflate.h, cfs_unpack_gap), so the bytes fed before and after it do not
 * join. The open document ends, cut short (`why`, as CFS_ERR_GZIP or CFS_ERR_ZSTD); the next document is searched for in the bytes that follow, and the
 * gap is told (cfs_parser_set_gap) with the compressed range [from, to), as the parser
 * does when it inflates.
 * @return CFS_OK, a fatal status, or CFS_ERR_MISUSE when the stream is not fed by
 *         cfs_parser_feed_inflated() or `to` is below `from`.
 */
cfs_status cfs_parser_feed_gap(cfs_parser *parser, int format, const char *why, uint64_t from, uint64_t to);

/**
 * Whether a document is open: begun, and neither ended nor failed (a failed
 * document's report may still be pending, for the recovery path). A caller that
 * inflates the stream itself (cfs_parser_feed_inflated) and meets corrupt or truncated
 * data asks it to tell, as the parser does when it inflates, whether the failure cuts a
 * document short (it is then that document's error) or comes between documents (an
 * error of its own).
 * @param parser the parser.
 * @return 1 or 0.
 */
int cfs_parser_in_document(const cfs_parser *parser);

/**
 * Where the last document begun starts: the offset of its first byte in the
 * uncompressed stream (its byte order mark, its '<', or the first byte of what failed
 * as one), already right in on_document_start. A caller that parses a stream in parts
 * tells by it which documents a part's parser began in the part's own bytes, however
 * long the parser held them (the libxml2 backend holds a document's first bytes until
 * their charset is known).
 * @param parser the parser.
 * @return the offset; 0 before the first document.
 */
uint64_t cfs_parser_document_offset(const cfs_parser *parser);

/**
 * The stream offset before which no document a failed one had taken in is looked for
 * any more: the error of the last failed document that was cut short at one (the
 * input's end when that error was its end); 0 when none was. Each byte is read again
 * at most once after such a look back. A caller that parses a stream in parts may
 * take a part's cut as a document start only when this is not past it: a parser that
 * begins at the cut knows nothing of the look backs before it.
 * @param parser the parser.
 * @return the offset.
 */
uint64_t cfs_parser_reread_end(const cfs_parser *parser);

/**
 * The caller's input stops here before its end: its own inflating met corrupt or
 * truncated data, or a read failed. Call it then, before cfs_parser_in_document() and
 * cfs_parser_finish(): the parser judges the bytes it still holds as one call with all
 * of them would have (the libxml2 backend holds a document's first bytes until their
 * charset is known), so an error in them is reported now as the document's own, and
 * the errors do not depend on how the input was cut. The parser does this itself when
 * it inflates. Callbacks may run.
 * @param parser the parser.
 * @return CFS_OK, or the status that stopped the parser (a callback, memory);
 *         CFS_ERR_MISUSE after cfs_parser_finish().
 */
cfs_status cfs_parser_settle(cfs_parser *parser);

/**
 * Ends the stream: closes the last document (an unfinished one is reported as
 * truncated through on_document_end). Call it once per stream, also after a fatal
 * status from feed.
 * @return CFS_OK when every document was a well-formed feed; otherwise the first
 *         error seen (details in cfs_parser_error()): CFS_ERR_EMPTY for a stream with
 *         no document; CFS_ERR_MISUSE when called twice without a reset.
 */
cfs_status cfs_parser_finish(cfs_parser *parser);

/** The stream's fatal error, else its first per-document error, or NULL if none.
    @return a pointer owned by the parser, valid until the next call on the parser
            (its message is static or owned by the parser: copy it to keep it). */
const cfs_error *cfs_parser_error(const cfs_parser *parser);

/** Counters since create or the last reset, by value. */
cfs_stats cfs_parser_stats(const cfs_parser *parser);

/** Makes the parser ready for a new stream, keeping its buffers (cheaper than
    destroy + create when parsing many files): clears the error, the counters and the
    finished state; the options, callbacks and ctx stay. Not from a callback. */
void cfs_parser_reset(cfs_parser *parser);

/** The parser's input stage (feedstream_input.h), owned by the parser: for a caller that
    drives the stage itself (the Swift library does). */
cfs_input *cfs_parser_input(cfs_parser *parser);

/** Frees the parser and everything it owns; pointers it handed out become invalid.
    NULL is allowed. Not from a callback. */
void cfs_parser_destroy(cfs_parser *parser);

/** A static name for a format as used in the JSON output, e.g. "rss20", "atom10";
    never NULL. Thread-safe. */
const char *cfs_format_name(cfs_format format);

#ifdef __cplusplus
}
#endif

#endif /* FEEDSTREAM_H */
