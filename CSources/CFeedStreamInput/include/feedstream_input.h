/* SPDX-License-Identifier: Apache-2.0 */
/*
 * feedstream_input.h -- the input stage of FeedStream's parsers, and the types every
 * part of the C API shares (statuses, errors, limits, counters).
 *
 * The input stage turns bytes (pushed in chunks, read from a descriptor, or inflated by
 * the caller) into documents: gzip is detected and inflated member after member, the
 * decompression ratio is checked at fixed checkpoints of the uncompressed stream, the
 * stream is split into documents, and after a document fails the search for the next
 * document's start resumes right after the error's byte (resynchronization). It drives
 * whatever reads one document -- a tokenizer and a feed state machine -- through
 * cfs_document_ops, so every backend (expat, libxml2, the Swift tokenizer) runs this one
 * stage. feedstream.h's cfs_parser is this stage with the C core's reader; most C
 * programs need only feedstream.h, which includes this header.
 */
#ifndef FEEDSTREAM_INPUT_H
#define FEEDSTREAM_INPUT_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** Status codes. CFS_OK is zero; everything else is an error. */
typedef enum cfs_status {
    CFS_OK = 0,
    /** Out of memory. The parser is unusable afterwards; destroy it. */
    CFS_ERR_NOMEM = 1,
    /** A document is not well-formed XML. Reported per document through
        on_document_end (or the recovery hook: cfs_parser_set_recover); the parser skips
        to the next document of the stream (the next "<?xml" declaration, root start
        tag -- <rss, <feed, <rdf:RDF, <RDF -- or byte order mark followed by '<') and goes on; the document's end is reported once
        that skip ended, its error's `skipped` counting the bytes passed over.
        cfs_parser_finish() returns it if any document of the stream failed. */
    CFS_ERR_XML = 2,
    /** The gzip data is corrupt or truncated: the document it cuts short fails with it;
        after corrupt data reading resumes at the next gzip member, and the compressed
        bytes skipped are a gap (cfs_gap_fn). */
    CFS_ERR_GZIP = 3,
    /** A callback returned non-zero. The parser stops; destroy or reset it. */
    CFS_ERR_ABORTED = 4,
    /** A well-formed document whose root element is not a feed (rss, rdf:RDF, feed). */
    CFS_ERR_NOT_FEED = 5,
    /** The stream held no XML document at all (empty or only whitespace). */
    CFS_ERR_EMPTY = 6,
    /** Reading the file descriptor failed (errno in cfs_error.sys_errno). */
    CFS_ERR_IO = 7,
    /** API misuse: feed after finish, unsupported backend, ... */
    CFS_ERR_MISUSE = 8,
    /** A document passed one of the limits in cfs_limits (element depth, attributes,
        field text, items, document size, decompression ratio). Reported per document
        through on_document_end like CFS_ERR_XML, with the items before it delivered;
        the message says which limit, e.g. "limit exceeded: element depth 1025 > 1024".
        The rest of the document is skipped up to the next document's start; a decompression
        ratio error also abandons the rest of the stream (inflating a bomb to look for
        the next document is what the limit is there to prevent). */
    CFS_ERR_LIMIT = 9,
    /** The zstd data is corrupt or truncated: as CFS_ERR_GZIP, for zstd input. */
    CFS_ERR_ZSTD = 10
} cfs_status;

/** Where and why parsing failed. */
typedef struct cfs_error {
    cfs_status code;
    /** A short English reason, e.g. "mismatched tag". Never NULL. */
    const char *message;
    /** 1-based document index in the stream (0 when not tied to a document). */
    size_t document;
    /** 1-based line and column of the error in that document (0 when unknown). */
    unsigned long line;
    unsigned long column;
    /** Byte offset of the error in the uncompressed stream. */
    uint64_t offset;
    /** errno for CFS_ERR_IO, else 0. */
    int sys_errno;
    /** A document that failed in a stream of several: the bytes from `offset` to the
        next document's start (or the stream's end) that the search for it passed over,
        unread by strict parsing (a recovered document's were read by the recovery
        path). 0 for every other error. With `offset` it is the byte range skipped.
        For a gap (cfs_gap_fn): the uncompressed bytes after it that the search for the
        next document passed over. */
    uint64_t skipped;
    /** A gap only (cfs_gap_fn): the compressed bytes not read, from the first byte of
        the member that failed (or of the bytes that were no member) to the next member
        read, or to the end of the input. 0 for every other error. */
    uint64_t compressed_offset;
    uint64_t compressed_length;
} cfs_error;

/** Limits against hostile or broken input. A document that passes one fails with
    CFS_ERR_LIMIT (see there); every backend checks them at the same place, so they
    agree on what is rejected and on the items delivered before. For each member, 0
    means no limit (as in the Swift library's FeedLimits and the command line's
    --max-* flags; CFS_UNLIMITED, the largest value, means the same); the defaults are
    the CFS_DEFAULT_* values below, which cfs_options_init() fills in. The checks cost
    a compare per start tag, per item and per text append. */
typedef struct cfs_limits {
    /** Element nesting depth (the root is depth 1), checked at each start tag. */
    uint64_t max_depth;
    /** Bytes of one kept field's text (the text, or the serialized markup, of one
        title, description, ...), checked as text is gathered. Text that is skipped
        is streamed and never held, whatever its size. Unlike max_item_bytes (which
        truncates), passing it fails the document, at the next start or end tag (the
        field's text is not kept from there): the same place however the input was
        cut. */
    uint64_t max_field_bytes;
    /** Attributes of one element, namespace declarations and attributes defaulted by
        the internal DTD subset included (checked before the tokenizer's own duplicate
        checks meet a hostile count). Every attribute of an element within the limit
        reaches the state machine, whatever their number. */
    uint64_t max_attributes;
    /** Items (RSS item, Atom entry) per document, checked at the start tag of the
        item past the limit. */
    uint64_t max_items;
    /** Uncompressed bytes of one document: the document fails where its byte
        max_document_bytes + 1 would be parsed. */
    uint64_t max_document_bytes;
    /** Uncompressed ÷ compressed bytes of gzip input, measured from the start of the
        last document begun, once that has inflated more than CFS_RATIO_ACTIVATION
        bytes (checked at every multiple of CFS_RATIO_INTERVAL bytes of the
        uncompressed stream, wherever the input was cut): a gzip bomb fails there
        (fatal: the rest of the stream is not inflated) instead of being inflated. */
    uint64_t max_ratio;
    /** Bytes of one markup construct the tokenizer must hold whole or rescan: a start
        or end tag with its attributes, a comment, a processing instruction, a CDATA
        section, the DOCTYPE declaration with its internal subset. Checked every
        CFS_RATIO_INTERVAL (256 KiB) of a document's bytes, counted from its first, on
        the construct held unfinished there (so a construct passes it by less than that
        before failing, and the outcome never depends on how the input is cut);
        character data is streamed and not limited. Without it a huge comment
        or attribute costs its size in memory and quadratic time (expat rescans an
        unfinished token from its start at every chunk). libxml2 cannot go past
        10,000,000 bytes whatever the setting ("Huge input lookup", reported as this
        limit). */
    uint64_t max_markup_bytes;
} cfs_limits;

/** No limit, as 0 is. */
#define CFS_UNLIMITED UINT64_MAX
/* BEGIN GENERATED by scripts/generate-limits.py from limits.def: do not edit. */
/* The defaults (the Swift library's FeedLimits.default* are the same numbers, generated
   from the same source: CSources/CFeedStreamInput/limits.def). */
#define CFS_DEFAULT_MAX_DEPTH 1024
#define CFS_DEFAULT_MAX_FIELD_BYTES ((uint64_t)8 << 20)
#define CFS_DEFAULT_MAX_ATTRIBUTES 256
#define CFS_DEFAULT_MAX_ITEMS 1000000
#define CFS_DEFAULT_MAX_DOCUMENT_BYTES ((uint64_t)1 << 30)
#define CFS_DEFAULT_MAX_RATIO 200
#define CFS_DEFAULT_MAX_MARKUP_BYTES ((uint64_t)8 << 20)
/** The limits, by their cfs_limits member (cfs_limit_over, cfs_limit_count). */
typedef enum cfs_limit_id {
    CFS_LIMIT_max_depth,
    CFS_LIMIT_max_field_bytes,
    CFS_LIMIT_max_attributes,
    CFS_LIMIT_max_items,
    CFS_LIMIT_max_document_bytes,
    CFS_LIMIT_max_ratio,
    CFS_LIMIT_max_markup_bytes,
    CFS_LIMIT_COUNT_
} cfs_limit_id;
/** Uncompressed bytes a ratio window inflates before max_ratio is checked: 16 MiB. */
#define CFS_RATIO_ACTIVATION ((uint64_t)16 << 20)
/** The distance between checkpoints (256 KiB): max_ratio is checked at every multiple of it
    of the uncompressed stream, once everything before it was parsed, and max_markup_bytes
    at every multiple of it of a document's bytes; the largest piece parsed at once. */
#define CFS_RATIO_INTERVAL ((uint64_t)256 << 10)
/** The default max_item_bytes (maxItemBytes in Swift): 64 MiB. */
#define CFS_DEFAULT_MAX_ITEM_BYTES ((size_t)64 << 20)
/** Bytes of the open document kept (16 MiB): after an error the search for the next
    document resumes right after the error's byte in them, and the recovery path re-reads a
    failed document from them; a longer document is not re-read. */
#define CFS_RESYNC_WINDOW ((size_t)16 << 20)
/* END GENERATED by scripts/generate-limits.py */

/** The limits at their defaults (the CFS_DEFAULT_* values). Thread-safe. */
cfs_limits cfs_limits_default(void);

/** Counters over the parser's life (since create or the last reset). */
typedef struct cfs_stats {
    uint64_t bytes_in;    /* bytes given to feed/feed_fd/feed_inflated (compressed, if gzip) */
    uint64_t bytes_xml;   /* uncompressed bytes given to the tokenizer          */
    uint64_t documents;
    uint64_t items;
    uint64_t failed_documents;
} cfs_stats;

/** The recovery hook (see cfs_parser_set_recover).
    @param ctx       the parser's callback context.
    @param bytes     every byte of the failed document, from its first to the start of
                     the next document (or the end of the stream); borrowed for the call.
    @param len       their count.
    @param delivered the items of the document on_item already delivered.
    @param error     why it failed (CFS_ERR_XML, or CFS_ERR_GZIP for a document the
                     stream's corrupt or truncated gzip cut short; where; the message).
    @return 0 to go on, non-zero to stop the parser (CFS_ERR_ABORTED). */
typedef int (*cfs_recover_fn)(void *ctx, const uint8_t *bytes, size_t len, size_t delivered,
                              const cfs_error *error);

/** A gap in gzip or zstd input (CFS_ERR_GZIP or CFS_ERR_ZSTD, document 0): a member that could not be read, or
    bytes between members that are no member, were skipped to the next member
    (`compressed_offset`, `compressed_length`); `offset` is where the uncompressed
    stream resumes, `skipped` the bytes from there the search for the next document
    passed over. The document the gap cut short failed before it ("corrupt gzip data").
    Told once that search ended (a document starts, or the input ends).
    @return 0 to go on, non-zero to stop the parser (CFS_ERR_ABORTED). */
typedef int (*cfs_gap_fn)(void *ctx, const cfs_error *gap);

/** A static English name for a status, e.g. "not well-formed XML"; never NULL.
    Thread-safe. */
const char *cfs_status_string(cfs_status status);

/** cfs_limits as the checks compare with them: every 0 (no limit) replaced by
    UINT64_MAX, the one place where C maps "no limit" (the Swift side's is
    FeedLimits.effective). */
cfs_limits cfs_limits_resolve(const cfs_limits *limits);

/** Writes the message of a size past its limit: "limit exceeded: document size > 100
    bytes" (the unit by the limit's kind). */
void cfs_limit_over(char *buf, size_t size, cfs_limit_id id, uint64_t max);

/** Writes the message of a count past its limit: "limit exceeded: element depth 1025 >
    1024". */
void cfs_limit_count(char *buf, size_t size, cfs_limit_id id, uint64_t value, uint64_t max);

/** Whether `out` uncompressed bytes inflated from `in` compressed ones pass `max_ratio`
    (resolved: no limit is UINT64_MAX), once `out` is past CFS_RATIO_ACTIVATION: the one
    rule of the decompression ratio, checked at the checkpoints of every reader of gzip. */
int cfs_ratio_over(uint64_t out, uint64_t in, uint64_t max_ratio);

/* ---- what reads one document ------------------------------------------------------ */

/** What a document's reader says about the bytes it was given. */
typedef enum cfs_doc_result {
    /** Everything consumed; the document goes on. */
    CFS_DOC_OK,
    /** The root element closed; `consumed` bytes belonged to the document. */
    CFS_DOC_ROOT_END,
    /** Not well-formed, or a limit: the error is filled in (offset, line and column in
        the document, from its first byte). */
    CFS_DOC_ERROR,
    /** A callback asked to stop. */
    CFS_DOC_ABORT,
    CFS_DOC_NOMEM
} cfs_doc_result;

/** What the input stage asks of the document being read when it ends or fails. */
typedef struct cfs_doc_facts {
    /** Items delivered. */
    size_t items;
    /** Where the end tag of the last item delivered begins (document offset; 0: none). */
    uint64_t last_item_end;
    /** The root element has started. */
    int root_seen;
    /** The root element is not a feed's. */
    int not_feed;
    /** The error is max_markup_bytes's (its offset is the construct's '<'). */
    int markup_over;
} cfs_doc_facts;

/**
 * What reads one document at a time for the input stage: a tokenizer driving a feed
 * state machine. `doc` is the reader's own context. Optional members may be NULL.
 */
typedef struct cfs_document_ops {
    /** Document `number` (1-based) starts: prepare, and tell the caller.
        @return CFS_OK, CFS_ERR_NOMEM, or CFS_ERR_ABORTED (a callback stopped). */
    cfs_status (*begin)(void *doc, size_t number);
    /** Parses the document's next bytes, borrowed for the call (none, final 1: the input
        ended). `at_checkpoint`: the bytes end on one of the document's markup
        checkpoints (every CFS_RATIO_INTERVAL of its bytes), where max_markup_bytes is
        checked. On CFS_DOC_ROOT_END, *consumed is how many belonged to the document. */
    cfs_doc_result (*parse)(void *doc, const uint8_t *data, size_t len, int final, int at_checkpoint,
                            size_t *consumed, cfs_error *err);
    /** Optional: a buffer of `len` bytes the reader owns, to fill and pass to
        parse_buffer (no copy). */
    uint8_t *(*buffer)(void *doc, size_t len);
    cfs_doc_result (*parse_buffer)(void *doc, size_t len, int at_checkpoint, size_t *consumed, cfs_error *err);
    /** Optional: the stream stops before its end; judge the bytes held as one call with
        all of them would have (cfs_parser_settle). NULL when the reader holds none. */
    cfs_doc_result (*settle)(void *doc, size_t *consumed, cfs_error *err);
    /** Optional: places an error of the last parse call in the document's bytes, for a
        reader that reports positions in bytes of its own (decoded text): `bytes` are
        the document's from its first to the end of that call's (NULL when they were
        not all kept), `at` the document offset of that call's first byte. Sets the
        error's offset and column, and *last_item_end, in the document's bytes. */
    void (*locate)(void *doc, const uint8_t *bytes, size_t len, uint64_t at, cfs_error *err,
                   uint64_t *last_item_end);
    /** The facts of the document being read. */
    void (*facts)(void *doc, cfs_doc_facts *out);
    /** The document ends: `error` NULL when it was a well-formed feed.
        @return 0 to go on, non-zero to stop (CFS_ERR_ABORTED). */
    int (*end)(void *doc, const cfs_error *error);
} cfs_document_ops;

/* ---- the input stage ------------------------------------------------------------------ */

typedef struct cfs_input cfs_input;

/** An input stage reading documents with `ops` (`doc` is passed to each), under
    `limits` (max_document_bytes, max_ratio and max_markup_bytes are the stage's; NULL:
    the defaults). NULL when out of memory. */
cfs_input *cfs_input_create(const cfs_document_ops *ops, void *doc, const cfs_limits *limits);
void cfs_input_destroy(cfs_input *input);
/** Ready for a new stream; the reader, limits and recovery hook stay. */
void cfs_input_reset(cfs_input *input);
/** What inflates gzip input from the next stream on: CFS_INFLATE_ZLIB or
    CFS_INFLATE_ISAL (feedstream_inflate.h; zlib where ISA-L is not available). The
    default is cfs_inflate_default_engine(). Kept by reset. */
void cfs_input_set_inflater(cfs_input *input, int engine);
/** cfs_parser_set_gap, with the hook's own context. */
void cfs_input_set_gap_hook(cfs_input *input, cfs_gap_fn hook, void *ctx);
/** cfs_parser_set_recover, with the hook's own context. */
void cfs_input_set_recover(cfs_input *input, cfs_recover_fn hook, void *ctx, size_t max_bytes);
/* The calls of the same names of cfs_parser (feedstream.h says what each does). */
cfs_status cfs_input_feed(cfs_input *input, const void *data, size_t len);
cfs_status cfs_input_feed_fd(cfs_input *input, int fd);
cfs_status cfs_input_feed_inflated(cfs_input *input, const void *data, size_t len, uint64_t compressed);
cfs_status cfs_input_inflated_origin(cfs_input *input, uint64_t offset, uint64_t checkpoint);
cfs_status cfs_input_feed_gap(cfs_input *input, int format, const char *why, uint64_t from, uint64_t to);
cfs_status cfs_input_settle(cfs_input *input);
cfs_status cfs_input_finish(cfs_input *input);
const cfs_error *cfs_input_error(const cfs_input *input);
cfs_stats cfs_input_stats(const cfs_input *input);
int cfs_input_in_document(const cfs_input *input);
uint64_t cfs_input_document_offset(const cfs_input *input);
uint64_t cfs_input_reread_end(const cfs_input *input);

/** The XML declaration as a document start (document_starts.def's first entry): its
    bytes ("<?xml") and the bytes one of which must follow them. Static strings. */
void cfs_document_declaration(const char **bytes, const char **delimiters);

#ifdef __cplusplus
}
#endif

#endif /* FEEDSTREAM_INPUT_H */
