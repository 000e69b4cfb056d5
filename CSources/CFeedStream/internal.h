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
 *   input.c    the public API: gzip detection, inflate, fd reading
 */
#ifndef CFS_INTERNAL_H
#define CFS_INTERNAL_H

#include "include/feedstream.h"

#include <stdint.h>
#include <stddef.h>

#define CFS_DEFAULT_MAX_ITEM_BYTES ((size_t)64 << 20)

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

/* Scalar slots of a record (item or feed). */
enum {
    SLOT_ID, SLOT_PERMALINK, SLOT_TITLE, SLOT_TITLE_TYPE, SLOT_SUMMARY, SLOT_SUMMARY_TYPE,
    SLOT_CONTENT, SLOT_CONTENT_TYPE, SLOT_CONTENT_SRC, SLOT_PUBLISHED, SLOT_UPDATED,
    SLOT_LANGUAGE, SLOT_VERSION,
    SLOT_COUNT
};

/* Vectors of a record, and their strides. */
enum { VEC_LINKS, VEC_AUTHORS, VEC_CATEGORIES, VEC_ENCLOSURES, VEC_COUNT };
enum { LINK_HREF, LINK_REL, LINK_TYPE, LINK_HREFLANG, LINK_TITLE, LINK_LENGTH, LINK_STRIDE };
enum { PERSON_NAME, PERSON_EMAIL, PERSON_URI, PERSON_STRIDE };
enum { CAT_TERM, CAT_SCHEME, CAT_LABEL, CAT_STRIDE };
enum { ENC_URL, ENC_TYPE, ENC_LENGTH, ENC_STRIDE };

/** An item or feed under construction: an arena and refs into it. */
typedef struct cfs_record {
    cfs_arena arena;
    cfs_ref slot[SLOT_COUNT];
    uint8_t prio[SLOT_COUNT];         /* 0 = unset; lower wins; ties: first wins */
    cfs_refvec vec[VEC_COUNT];
} cfs_record;

#define CFS_MAX_FRAMES 32

typedef struct cfs_frame {
    uint8_t scope;      /* scope to restore when this element ends */
    uint8_t action;     /* what to do when it ends */
    uint8_t slot;       /* capture target slot (ACTION_CAPTURE_SLOT) */
    uint8_t prio;
} cfs_frame;

typedef struct cfs_machine {
    cfs_callbacks cb;
    void *ctx;

    cfs_record item;
    cfs_record feed;

    /* The public views handed to callbacks; their arrays keep their capacity. */
    cfs_item pub_item;
    cfs_feed pub_feed;
    cfs_link *pub_links;        size_t pub_links_cap;
    cfs_person *pub_persons;    size_t pub_persons_cap;
    cfs_category *pub_cats;     size_t pub_cats_cap;
    cfs_enclosure *pub_encls;   size_t pub_encls_cap;
    cfs_link *pub_feed_links;   size_t pub_feed_links_cap;

    /* Document state. */
    size_t document;
    size_t items;
    cfs_format format;
    int root_seen;
    int root_closed;
    int not_feed;
    unsigned long depth;        /* element depth in the document */
    uint8_t scope;

    cfs_frame frames[CFS_MAX_FRAMES];
    unsigned nframes;
    unsigned long skip_depth;   /* > 0: inside an ignored subtree */

    /* Text capture. */
    int capturing;              /* text goes to the arena of `cap_rec` */
    cfs_record *cap_rec;
    uint32_t cap_start;
    cfs_ref *cap_ref;           /* where the finished text goes (vector fields) */
    int markup;                 /* children are serialized as markup */
    int markup_pending_gt;      /* a start tag awaits its '>' */
    unsigned long markup_depth; /* depth of children inside the captured element */
    int xhtml_strip_div;        /* 1: the wrapping xhtml div is not serialized */
    unsigned long xhtml_div_depth;

    int nomem;
    int item_truncated;
    int feed_truncated_reported;
} cfs_machine;

int  cfs_machine_init(cfs_machine *m, size_t max_item_bytes);
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

/** True while text is wanted (tokenizers may skip character data otherwise). */
static inline int cfs_machine_wants_text(const cfs_machine *m) { return m->capturing; }
/** True while inside an ignored subtree: start/end may go to the _skip variants. */
static inline int cfs_machine_skipping(const cfs_machine *m) { return m->skip_depth > 0; }
static inline void cfs_machine_skip_start(cfs_machine *m) { m->skip_depth++; m->depth++; }
/** Returns 1 when the skipped subtree ended with this tag. */
static inline int cfs_machine_skip_end(cfs_machine *m) {
    if (--m->depth == 0 && m->root_seen) m->root_closed = 1;
    return --m->skip_depth == 0;
}

/* ---- tokenizers ---------------------------------------------------------------- */

/** Result of feeding bytes to a tokenizer. */
typedef enum cfs_tok_result {
    TOK_OK,         /* everything consumed, the document goes on */
    TOK_ROOT_END,   /* the root element closed; `consumed` bytes belonged to it */
    TOK_ERROR,      /* not well-formed: error filled in */
    TOK_ABORT,      /* a callback asked to stop */
    TOK_NOMEM
} cfs_tok_result;

/** What input.c needs from a tokenizer: one document at a time, fed in chunks,
    driving the machine. */
typedef struct cfs_tokenizer_ops {
    void *(*create)(cfs_machine *m);
    void (*destroy)(void *tok);
    /** Prepares for a new document. Returns 0 when out of memory. */
    int (*begin)(void *tok);
    /** Parses bytes in caller memory. On TOK_ROOT_END, *consumed is how many of them
        belonged to the document. On TOK_ERROR, err is filled (offsets relative to the
        document start). */
    cfs_tok_result (*parse)(void *tok, const uint8_t *data, size_t len, int final,
                            size_t *consumed, cfs_error *err);
    /** A buffer of `len` bytes owned by the tokenizer to fill and pass to
        parse_buffer (zero copy), or NULL if the tokenizer has none. */
    uint8_t *(*buffer)(void *tok, size_t len);
    cfs_tok_result (*parse_buffer)(void *tok, size_t len, int final, size_t *consumed,
                                   cfs_error *err);
} cfs_tokenizer_ops;

extern const cfs_tokenizer_ops cfs_expat_ops;
extern const cfs_tokenizer_ops cfs_libxml2_ops;

#endif
