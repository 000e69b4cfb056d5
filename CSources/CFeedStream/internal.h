/* SPDX-License-Identifier: Apache-2.0 */
/*
 * internal.h -- shared internals of the C core. Not installed, not public.
 *
 * The pieces:
 *   arena.c    growable byte arena (capacity kept across resets) and ref vectors
 *   machine.c  the feed state machine: tokenizer events in, finished items out.
 *              It knows nothing about expat or libxml2: any SAX-style tokenizer that
 *              can report (namespace URI, local name, attributes), text and end tags
 *              drives it through the fsm_* functions below.
 *   expat.c    the expat tokenizer adapter
 *   libxml2.c  the libxml2 (SAX2 push) tokenizer adapter
 *   attribute_scan.c  the attribute pre-check both adapters run on their bytes
 *   transcode.c charsets, decoded the way expat decodes them, for both adapters
 *   parser.c   the public API: the input stage (CFeedStreamInput) reading with a
 *              tokenizer adapter and the machine
 */
#ifndef CFS_INTERNAL_H
#define CFS_INTERNAL_H

#include "include/feedstream.h"

#include <feedstream_charset.h>
#include <iconv.h>
#include <stdint.h>
#include <stddef.h>

/* ---- arena ------------------------------------------------------------------- */

/** An offset+length into an arena. off == CFS_REF_ABSENT means absent. Offsets (not
    pointers) so that the arena may move while an item is being built. */
typedef struct cfs_ref {
    uint32_t off;
    uint32_t len;
} cfs_ref;

#define CFS_REF_ABSENT UINT32_MAX

typedef struct cfs_arena {
    uint8_t *buf;
    size_t len, cap;
    size_t limit;      /* bytes past this are dropped */
    int truncated;     /* set when bytes were dropped since the last reset */
    int nomem;         /* set when growing failed */
} cfs_arena;

int  cfs_arena_init(cfs_arena *a, size_t initial, size_t limit);
void cfs_arena_free(cfs_arena *a);
void cfs_arena_reset(cfs_arena *a);
/** Appends bytes; drops what exceeds the limit (sets truncated). */
void cfs_arena_append(cfs_arena *a, const void *data, size_t len);
/** Makes room for `extra` more bytes past len; returns 0 on failure/limit. */
int  cfs_arena_reserve(cfs_arena *a, size_t extra);
/** Copies bytes into the arena and returns their ref. */
cfs_ref cfs_arena_copy(cfs_arena *a, const void *data, size_t len);

/** A vector of fixed-stride records of refs (a link is 6 refs, a person 3, ...). */
typedef struct cfs_refvec {
    cfs_ref *v;
    size_t count;     /* records */
    size_t cap;       /* records */
    size_t stride;    /* refs per record */
} cfs_refvec;

void cfs_refvec_init(cfs_refvec *v, size_t stride);
void cfs_refvec_free(cfs_refvec *v);
/** Appends a record with every ref absent; returns it, or NULL when out of memory. */
cfs_ref *cfs_refvec_push(cfs_refvec *v);

/* ---- the feed state machine --------------------------------------------------- */

/** One attribute as the tokenizer reports it. Strings are not NUL-terminated. */
typedef struct cfs_attr {
    const char *uri;   size_t uri_len;    /* namespace URI, len 0 if none */
    const char *local; size_t local_len;
    const char *value; size_t value_len;
} cfs_attr;

/** An item or feed under construction: an arena, refs into it per field, and lists
    of rows of refs. */
typedef struct cfs_rec {
    cfs_arena arena;
    cfs_ref field[CFS_FIELD_COUNT];
    uint8_t prio[CFS_FIELD_COUNT];    /* 0 = unset; lower wins; ties: first wins */
    uint64_t set[CFS_PRESENT_WORDS];                /* fields written since the last reset */
    cfs_refvec list[CFS_LIST_COUNT];
    uint64_t lists_used;                            /* bit l: list l has rows */
} cfs_rec;

/** The public form of a record; its row arrays keep their capacity. */
typedef struct cfs_pub {
    cfs_record record;
    cfs_span *rows[CFS_LIST_COUNT];
    size_t cap[CFS_LIST_COUNT];
    uint64_t shown[CFS_PRESENT_WORDS];              /* fields set at the last publish */
    uint64_t lists_shown;                           /* lists with rows at the last publish */
} cfs_pub;
_Static_assert(CFS_LIST_COUNT <= 64, "lists_used and lists_shown hold a bit per list");

typedef struct cfs_frame {
    uint32_t scope;     /* scope to restore when this element ends */
    uint32_t row;       /* row for list captures */
    uint16_t target;    /* field or list */
    uint8_t item;       /* 1: the record in scope before was the item */
    uint8_t action;     /* what to do when it ends */
    uint8_t col;        /* column, or priority for fields */
} cfs_frame;

/** xml:lang and xml:base in scope: pushed by elements that carry them. */
typedef struct cfs_scope_attrs {
    unsigned long depth;
    cfs_ref lang;       /* into the machine's scope arena */
    cfs_ref base;       /* the chain, outermost first, 0x01-separated */
} cfs_scope_attrs;

typedef struct cfs_machine {
    cfs_callbacks cb;
    void *ctx;

    cfs_rec item;
    cfs_rec feed;
    cfs_rec *cur;               /* the record rules write into */
    cfs_pub pub_item, pub_feed;
    cfs_item item_view;
    cfs_feed feed_view;
    int feed_dirty;

    /* Document state. */
    size_t document;
    size_t items;
    /* Where the end tag of the document's last item delivered begins (document offset;
       0: none yet), set by the tokenizer adapters: input.c's swallowed looks for a
       document the failed one had taken in after it. */
    uint64_t last_item_end;
    cfs_format format;
    int netscape;               /* a Netscape RSS 0.91 DOCTYPE was seen */
    int root_seen;
    int root_closed;
    int not_feed;               /* the root is not a feed (and holds none: see seeking) */
    int seeking;                /* the root is not a feed: its elements are looked at as
                                   roots in turn, until one is (machine.c start_root) */
    /* A `feed` root in no or a non-Atom namespace is read as Atom, an `rss` root in an
       unknown namespace as RSS: elements in its namespace (this URI; none when
       lenient_ns_len is 0) are read as those of the namespace kind and family
       lenient_ns_kind and lenient_family. */
    int lenient;
    uint8_t lenient_ns_kind, lenient_family;
    char *lenient_ns;
    size_t lenient_ns_len, lenient_ns_cap;
    int in_item;
    unsigned long depth;        /* element depth in the document */
    uint32_t scope;
    uint8_t person_list;        /* authors or contributors, in person scope */
    uint32_t itcat_row;         /* the enclosing itunes:category row, + 1 */
    uint32_t parent_row;        /* the row the last LATTR entering a scope pushed */

    cfs_frame frames[CFS_MAX_FRAMES];
    unsigned nframes;
    unsigned long skip_depth;   /* > 0: inside an ignored subtree */

    cfs_arena scope_arena;
    cfs_scope_attrs *scopes;
    size_t nscopes, scopes_cap;

    /* Text capture. */
    int capturing;
    cfs_rec *cap_rec;
    uint32_t cap_start;
    int markup;                 /* children are serialized as markup */
    int markup_pending_gt;      /* a start tag awaits its '>' */
    unsigned long markup_depth; /* depth of children inside the captured element */
    int xhtml_strip_div;        /* 1: the wrapping xhtml div may come; 2: inside it */

    int nomem;

    /* Limits (cfs_limits resolved: no limit is the type's largest value; depth and
       items as counts). */
    unsigned long max_depth;
    uint64_t max_field_bytes;
    uint64_t max_attributes;
    size_t max_items;
    uint64_t max_markup_bytes;  /* checked by the tokenizer adapters, at checkpoints: */
    /* Set by the input stage around a parse call whose bytes end on one of the open
       document's markup checkpoints (every CFS_RATIO_INTERVAL bytes of the document,
       counted from its first: input.c, to_checkpoint): the adapters check the
       construct they hold unfinished against max_markup_bytes there, and only there,
       so the outcome is a function of the document, never of how the input was cut. */
    int at_checkpoint;
    /* The charset the transport named (cfs_parser_set_charset; empty: none): used for
       every document of the stream that has no byte order mark and is not UTF-16 or
       UTF-32 by its first bytes, over its XML declaration (cfs_charset_detect). */
    char transport_charset[64];
    /* Set when a limit stopped the document: the adapter reports CFS_ERR_LIMIT with
       this message at the tokenizer's current position. */
    int limit;
    int markup_over;   /* the limit is max_markup_bytes (cfs_machine_markup_limit): the
                          error's offset is the construct's '<' */
    int field_over;    /* the field being captured passed max_field_bytes: its text was
                          dropped, the capture ended, and the next start or end tag
                          stops the document (check_field, field_limit) */
    char limit_message[96];

    /* The attributes of a start tag as the tokenizer adapters hand them to
       cfs_machine_start (cfs_machine_attrs): grown to the largest element seen, never
       shrunk, so that steady state allocates nothing per event. */
    cfs_attr *attrs;
    size_t attrs_cap;
} cfs_machine;

int  cfs_machine_init(cfs_machine *m, size_t max_item_bytes, const cfs_limits *limits);
void cfs_machine_free(cfs_machine *m);
/** Starts document number `document` (1-based). */
void cfs_machine_begin(cfs_machine *m, size_t document);
/* Events. Each returns 0 to go on, non-zero when a callback asked to stop (or out of
   memory: check m->nomem). */
int cfs_machine_start(cfs_machine *m, const char *uri, size_t uri_len, const char *local,
                      size_t local_len, const cfs_attr *attrs, size_t nattrs);
int cfs_machine_end(cfs_machine *m, const char *local, size_t local_len);
int cfs_machine_text(cfs_machine *m, const char *s, size_t len);
/** Ends the current document; `error` NULL when it was fine. */
int cfs_machine_finish(cfs_machine *m, const cfs_error *error);
/** The feed as known now. */
const cfs_feed *cfs_machine_feed(cfs_machine *m);
/** A DOCTYPE declaration (identifiers NUL-terminated or NULL). */
void cfs_machine_doctype(cfs_machine *m, const char *public_id, const char *system_id);
/** The document's charset (cfs_charset's name), known before its root element: the
    feed record's encoding when not UTF-8. Returns 0 (out of memory is the machine's
    nomem). */
int cfs_machine_encoding(cfs_machine *m, const char *name);

/** The UTF-8 text of an HTML 4 named entity (nbsp, mdash, ...), or NULL. Feeds use
    them without declaring them; both tokenizers decode them through this table. */
const char *cfs_html_entity(const char *name, size_t len);

/** True while text is wanted (tokenizers may skip character data otherwise). */
static inline int cfs_machine_wants_text(const cfs_machine *m) { return m->capturing; }
/** True while inside an ignored subtree: start/end may go to the _skip variants. */
static inline int cfs_machine_skipping(const cfs_machine *m) { return m->skip_depth > 0; }
/** Records the error of a count past its limit (see cfs_machine.limit): "limit
    exceeded: element depth 1025 > 1024"; returns 1 (stop). */
int cfs_machine_limit(cfs_machine *m, cfs_limit_id id, uint64_t value, uint64_t max);
/** Records the markup-construct limit error; returns 1. */
int cfs_machine_markup_limit(cfs_machine *m);
/** A start tag inside an ignored subtree; non-zero when the depth limit stops it. */
static inline int cfs_machine_skip_start(cfs_machine *m) {
    m->skip_depth++;
    if (++m->depth > m->max_depth) return cfs_machine_limit(m, CFS_LIMIT_max_depth, m->depth, m->max_depth);
    return 0;
}
/** Room for `n` attributes of a start tag (the machine's buffer, reused from event to
    event; grown only when an element has more attributes than any before), or NULL
    when out of memory (m->nomem set). */
cfs_attr *cfs_machine_attrs(cfs_machine *m, size_t n);
/** Checks the attribute count of a start tag (before start or skip_start);
    non-zero when the limit stops it. */
static inline int cfs_machine_check_attributes(cfs_machine *m, uint64_t count) {
    if (count > m->max_attributes) return cfs_machine_limit(m, CFS_LIMIT_max_attributes, count, m->max_attributes);
    return 0;
}
/** An end tag inside an ignored subtree; returns 1 when the subtree ended. */
int cfs_machine_skip_end(cfs_machine *m);

/* ---- the attribute pre-check (attribute_scan.c) ------------------------------- */

typedef enum cfs_units {
    CFS_UNITS_ASCII,        /* UTF-8 and the 8-bit charsets that keep ASCII */
    CFS_UNITS_UTF16LE,
    CFS_UNITS_UTF16BE,
    CFS_UNITS_MAP           /* a byte map that moves ASCII or has sequences */
} cfs_units;

/** A scan of a document's bytes for start tags over the attribute limit, across the
    chunks the tokenizer is given. */
typedef struct cfs_attr_scan {
    int state, off;
    unsigned char quote, run;
    unsigned char last;     /* in a tag: its last byte before, not white space */
    int cut_all;            /* cut a tag over the limit also where its '>' is a fault */
    uint64_t count, max;
    cfs_units units;
    const int *map;         /* CFS_UNITS_MAP: the charset's byte map (cfs_charset.map) */
    unsigned trail;         /* CFS_UNITS_MAP: bytes of a sequence still to come */
} cfs_attr_scan;

/** Starts a document's scan, under the limit `max` (max_attributes). */
void cfs_attr_scan_begin(cfs_attr_scan *s, uint64_t max);
/** The document's charset, once known (cs must outlive the document's scan). */
void cfs_attr_scan_charset(cfs_attr_scan *s, const cfs_charset *cs);
/** The index of the first byte of the '>' of a start tag over the limit in p[0..n),
    or n; s->count is then the tag's attributes. */
size_t cfs_attr_scan_cut(cfs_attr_scan *s, const uint8_t *p, size_t n);

/* ---- tokenizers ---------------------------------------------------------------- */

/** A tokenizer adapter: one document at a time, fed in chunks, driving the machine
    (parser.c makes it and the machine the input stage's cfs_document_ops). */
typedef struct cfs_tokenizer_ops {
    void *(*create)(cfs_machine *m);
    void (*destroy)(void *tok);
    /** Prepares for a new document. Returns 0 when out of memory. */
    int (*begin)(void *tok);
    /** Parses bytes in caller memory. On CFS_DOC_ROOT_END, *consumed is how many of them
        belonged to the document. On CFS_DOC_ERROR, err is filled (offsets relative to the
        document start). */
    cfs_doc_result (*parse)(void *tok, const uint8_t *data, size_t len, int final,
                            size_t *consumed, cfs_error *err);
    /** A buffer of `len` bytes owned by the tokenizer to fill and pass to
        parse_buffer (zero copy), or NULL if the tokenizer has none. */
    uint8_t *(*buffer)(void *tok, size_t len);
    cfs_doc_result (*parse_buffer)(void *tok, size_t len, int final, size_t *consumed,
                                   cfs_error *err);
    /** The stream stops here before its end (the input stage's settle): judges the bytes the
        tokenizer holds as one call with all of them would have, not as the end of the
        input; like parse with no bytes. NULL when the tokenizer holds none unjudged
        (expat reports an error as soon as its bytes are read). */
    cfs_doc_result (*settle)(void *tok, size_t *consumed, cfs_error *err);
} cfs_tokenizer_ops;

/* ---- charsets: feedstream_charset.h (CSources/CFeedStreamCharset) ---------------- */

extern const cfs_tokenizer_ops cfs_expat_ops;
extern const cfs_tokenizer_ops cfs_libxml2_ops;

#endif
