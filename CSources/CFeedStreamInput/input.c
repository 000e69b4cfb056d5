/* SPDX-License-Identifier: Apache-2.0 */
/*
 * input.c -- the input stage every backend runs (feedstream_input.h).
 *
 * Bytes in (pushed with cfs_input_feed, or read from a file descriptor); gzip is
 * detected by its magic bytes and inflated, member after member, straight into the
 * reader's own buffer when it has one. The uncompressed stream may hold several
 * documents: when a root element closes, the bytes after it start the next document.
 * After a well-formedness error the rest of that document is skipped up to the next
 * document's start (doc_start_step: an "<?xml" declaration or a root start tag), so one
 * broken feed in a dump costs only itself. The bytes of each document are kept while it
 * is parsed (up to a window): the search for the next document starts right after the
 * error's offset in them (resync), whichever chunk holds that byte, so what follows a
 * failed document does not depend on how the input was cut. With a recovery hook
 * (cfs_input_set_recover) a document that fails as XML goes to the hook whole once its
 * end is known.
 *
 * What reads a document (a tokenizer and a feed machine: the C core's expat or libxml2
 * reader, or the Swift tokenizer) is behind cfs_document_ops; nothing here knows which.
 */
#include <feedstream_input.h>
#include <feedstream_inflate.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CHUNK ((size_t)CFS_RATIO_INTERVAL)  /* the largest parse call, the distance between a document's markup checkpoints and between the ratio checkpoints */
/* ZCHUNK (bytes per read of compressed input) and MAX_PARSE (the largest piece given
   to one step): limits.def. */
#define SIZE(name, swift, value, doc) static const size_t name = (size_t)value;
#include "limits.def"
/* The open document's bytes kept for the resync when no recovery hook sets the window:
   CFS_RESYNC_WINDOW (limits.def). */

/* IN_INFLATED: the caller inflates (cfs_input_feed_inflated). */
enum input_mode { IN_DETECT, IN_PLAIN, IN_PACKED, IN_INFLATED };
enum doc_state { D_AWAIT, D_IN, D_SKIP };
/* Between documents, after the first: what follows a root element may be the XML
   spec's Misc (white space, comments, processing instructions), which belongs to the
   document that ended, not the start of another. */
enum await_state { AW_SPACE, AW_LT, AW_BANG, AW_BANG_DASH, AW_COMMENT, AW_PI_TARGET, AW_PI };

/* Where a document starts after a failed one: "<?xml" followed by white space or '?',
   a root start tag followed by white space, '>' or '/', or a byte order mark followed
   by '<' -- the list in document_starts.def. */
static const struct { const char *bytes; size_t len; const char *delimiters; } DOC_STARTS[] = {
#define DOCUMENT_START(start, delimiters) { start, sizeof start - 1, delimiters },
#include "document_starts.def"
#undef DOCUMENT_START
};
#define DOC_START_MAX 8
#define LOOKAHEAD_MAX DOCUMENT_LOOKAHEAD_MAX   /* document_starts.def */
#define RESUME_MAX LOOKAHEAD_MAX
#define CANDIDATE_MAX DOCUMENT_CANDIDATE_MAX   /* the longest start (scripts/generate-document-starts.py checks) */
enum { START_PREFIX, START_MATCH, START_NONE };

/* held[0..n) (from a '<', a prefix of some start) followed by c. */
static int doc_start_step(const uint8_t *held, size_t n, uint8_t c) {
    int prefix = 0;
    for (size_t k = 0; k < sizeof DOC_STARTS / sizeof DOC_STARTS[0]; k++) {
        const char *s = DOC_STARTS[k].bytes;
        size_t len = DOC_STARTS[k].len;
        if (memcmp(s, held, n < len ? n : len) != 0) continue;
        if (len > n && (uint8_t)s[n] == c) prefix = 1;
        if (len == n && c != 0 && strchr(DOC_STARTS[k].delimiters, c) != NULL) return START_MATCH;
    }
    return prefix ? START_PREFIX : START_NONE;
}
#define XML_DECL_LEN 5

struct cfs_input {
    cfs_limits lim;              /* the limits resolved (no limit: UINT64_MAX) */
    char limit_message[96];      /* the message of a document-size or ratio error */
    const cfs_document_ops *ops; /* what reads a document */
    void *reader;                /* its context */

    enum input_mode mode;
    uint8_t head[4];             /* first bytes, until gzip, zstd or plain is decided */
    size_t head_len;
    cfs_unpack *gz;              /* the gzip members, made at the first stream */
    cfs_inflate_engine engine;   /* what inflates them (cfs_input_set_inflater) */
    const uint8_t *z_in;         /* compressed bytes not yet inflated, during a feed */
    size_t z_avail;
    uint8_t *zin;                /* compressed input buffer (feed_fd) */
    uint8_t *scratch;            /* inflate target when no document is open */
    uint8_t *carry;              /* bytes after a root end, moved out of the tokenizer */

    enum doc_state doc;
    uint8_t skip_held[DOC_START_MAX];  /* bytes of a document start matched while skipping */
    uint8_t start_first[256];    /* 1 for a byte some document start begins with */
    size_t skip_match;           /* how many */
    int skip_own_root;           /* the failed document's root had not started: the next
                                    root start tag is its own, not a new document's */
    size_t skip_ahead;           /* bytes at the start of the next input the search passes
                                    over: the resume point lay past the bytes the error
                                    came with (see handle) */
    /* The open document's bytes, up to keep_max with a recovery hook
       (cfs_input_set_recover), CFS_RESYNC_WINDOW without: where the search for the next
       document resumes after an error (resync); with a hook a failed document waits in
       `pending` until its end is known. */
    cfs_recover_fn recover;
    void *recover_ctx;
    /* Gaps of the compressed stream (stream_gap): told once the search after one ends. */
    cfs_gap_fn gap_hook;
    void *gap_ctx;
    int gap_pending;
    cfs_error gap_err;
    char gap_message[96];
    cfs_error first_gap;
    int has_gap;
    uint8_t *keep;
    size_t keep_len, keep_cap, keep_max;
    int keep_over;
    size_t replay_from, replay_len;   /* kept bytes to search again after an error (resync) */
    /* The search resumes at the error's own byte, where the next document's declaration
       may begin (a document cut short in a tag or text): its bytes are held until they
       tell (declaration_and_root), up to RESUME_MAX; else the search goes on from the
       byte after it. */
    uint8_t *resume;
    size_t resume_len;
    int resuming;
    int resume_prolog;           /* the failed document's root had not begun: no root start
                                    tag begins a document at the error's byte (resume_at) */
    int resumed_inside;          /* the last error's search resumes at a document the
                                    failed one had taken in (swallowed): replayed even at
                                    the input's end */
    uint64_t reread_end;         /* stream offset before which no document a failed one
                                    had taken in is looked for: the error of the last
                                    one that was (the input's end at its end), so that
                                    no byte is read again twice (swallowed) */
    int closing;                 /* the input has ended: the open documents are closed
                                    (cfs_input_finish) */
    int pending;
    /* A failed document whose rest is being skipped with no hook (strict, or over the
       window): its end goes out once the skip ends, with the bytes skipped counted. Its
       error is in pending_err, as a pending document's. */
    int deferred;
    cfs_error pending_err;
    char pending_message[256];
    size_t pending_items;
    enum await_state aw;         /* Misc skipping between documents */
    uint64_t aw_start;           /* stream offset of the '<' of the Misc being skipped */
    uint8_t pend[16];            /* bytes held while deciding Misc or a new document */
    int aw_wide;                 /* the Misc being skipped is UTF-16 (a NUL right after its '<',
                                    either byte order): its NULs are the other halves of its
                                    characters */
    size_t pend_len;
    int aw_run;                  /* comment: dashes seen; PI: 1 after '?' */
    uint64_t xml_offset;         /* uncompressed bytes seen so far */
    uint64_t doc_offset;         /* where the current document started */
    uint8_t doc_first;           /* its first byte, found between documents (skip_misc) */
    /* Gzip ratio: compressed bytes inflate consumed, in all and up to the last
       checkpoint (every CHUNK of output, counted from the start of the stream, so that
       checkpoints do not depend on how the input was cut), and where the window (from
       the start of the last document begun) started: output offset, checkpoint input. */
    uint64_t z_checkpoint;
    uint64_t ratio_in;
    uint64_t ratio_out;
    /* A part of a stream inflated by the caller (cfs_input_inflated_origin): the
       part's first byte's offset in the whole stream, modulo CHUNK, so that the
       checkpoints fall where they fall in the whole stream. */
    uint64_t z_phase;

    cfs_error first_error;
    char first_message[256];     /* first_error's message: the tokenizers reuse theirs */
    int has_error;
    cfs_error fatal;             /* the error that stopped the stream */
    int has_fatal;
    int finished;
    cfs_stats stats;
};

const char *cfs_status_string(cfs_status s) {
    switch (s) {
    case CFS_OK: return "ok";
    case CFS_ERR_NOMEM: return "out of memory";
    case CFS_ERR_XML: return "not well-formed XML";
    case CFS_ERR_GZIP: return "corrupt gzip data";
    case CFS_ERR_ZSTD: return "corrupt zstd data";
    case CFS_ERR_ABORTED: return "stopped by callback";
    case CFS_ERR_NOT_FEED: return "not a feed";
    case CFS_ERR_EMPTY: return "empty input: no XML document";
    case CFS_ERR_IO: return "read error";
    case CFS_ERR_MISUSE: return "API misuse";
    case CFS_ERR_LIMIT: return "limit exceeded";
    }
    return "unknown status";
}

/* ---- limits ------------------------------------------------------------------- */

cfs_limits cfs_limits_default(void) {
    return (cfs_limits){ CFS_DEFAULT_MAX_DEPTH, CFS_DEFAULT_MAX_FIELD_BYTES, CFS_DEFAULT_MAX_ATTRIBUTES,
                         CFS_DEFAULT_MAX_ITEMS, CFS_DEFAULT_MAX_DOCUMENT_BYTES, CFS_DEFAULT_MAX_RATIO,
                         CFS_DEFAULT_MAX_MARKUP_BYTES };
}

static uint64_t no_limit_is_max(uint64_t v) { return v == 0 ? UINT64_MAX : v; }

cfs_limits cfs_limits_resolve(const cfs_limits *l) {
    cfs_limits r = *l;
#define LIMIT(field, swift, dflt, name, kind) r.field = no_limit_is_max(r.field);
#include "limits.def"
    return r;
}

/* The messages of limit errors (limits.def, which the Swift side's FeedLimits.Message
   is generated from): a count past its limit, "limit exceeded: element depth 1025 >
   1024", or a size past its limit, given without the size reached (it depends on how
   the input was cut), "limit exceeded: field text > 8388608 bytes". */
enum { COUNT, BYTES, RATIO };
static const struct { const char *name; int kind; } LIMITS[CFS_LIMIT_COUNT_] = {
#define LIMIT(field, swift, dflt, name, kind) { name, kind },
#include "limits.def"
};

void cfs_limit_over(char *buf, size_t size, cfs_limit_id id, uint64_t max) {
    snprintf(buf, size, LIMIT_OVER_MESSAGE, LIMITS[id].name, (unsigned long long)max,
             LIMITS[id].kind == BYTES ? LIMIT_BYTES_UNIT : "");
}

void cfs_limit_count(char *buf, size_t size, cfs_limit_id id, uint64_t value, uint64_t max) {
    snprintf(buf, size, LIMIT_COUNT_MESSAGE, LIMITS[id].name, (unsigned long long)value, (unsigned long long)max);
}

int cfs_ratio_over(uint64_t out, uint64_t in, uint64_t max_ratio) {
    return out > CFS_RATIO_ACTIVATION && out / (max_ratio ? max_ratio : 1) > in;
}

/* ---- lifecycle ---------------------------------------------------------------- */

cfs_input *cfs_input_create(const cfs_document_ops *ops, void *reader, const cfs_limits *limits) {
    cfs_input *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    for (size_t k = 0; k < sizeof DOC_STARTS / sizeof DOC_STARTS[0]; k++)
        p->start_first[(uint8_t)DOC_STARTS[k].bytes[0]] = 1;
    p->ops = ops;
    p->reader = reader;
    p->engine = cfs_inflate_default_engine();
    cfs_limits d = cfs_limits_default();
    p->lim = cfs_limits_resolve(limits ? limits : &d);
    p->scratch = malloc(CHUNK);
    p->carry = malloc(CHUNK);
    if (p->scratch == NULL || p->carry == NULL) {
        cfs_input_destroy(p);
        return NULL;
    }
    cfs_input_reset(p);
    return p;
}

void cfs_input_destroy(cfs_input *p) {
    if (p == NULL) return;
    cfs_unpack_free(p->gz);
    free(p->zin);
    free(p->scratch);
    free(p->carry);
    free(p->keep);
    free(p->resume);
    free(p);
}

void cfs_input_set_inflater(cfs_input *p, int engine) {
    p->engine = cfs_inflate_usable_engine((cfs_inflate_engine)engine);
}

void cfs_input_set_recover(cfs_input *p, cfs_recover_fn fn, void *ctx, size_t max_bytes) {
    p->recover = fn;
    p->recover_ctx = ctx;
    p->keep_max = max_bytes;
}

void cfs_input_set_gap_hook(cfs_input *p, cfs_gap_fn fn, void *ctx) {
    p->gap_hook = fn;
    p->gap_ctx = ctx;
}

void cfs_document_declaration(const char **bytes, const char **delimiters) {
    *bytes = DOC_STARTS[0].bytes;
    *delimiters = DOC_STARTS[0].delimiters;
}

/* Keeps n more bytes of the open (or failed, pending) document. */
static void keep(cfs_input *p, const uint8_t *data, size_t n) {
    if (p->keep_over || n == 0) return;
    size_t max = p->recover ? p->keep_max : CFS_RESYNC_WINDOW;
    if (n > max - p->keep_len || p->keep_len + n > max) { p->keep_over = 1; return; }
    if (p->keep_len + n > p->keep_cap) {
        size_t cap = p->keep_cap ? p->keep_cap : 64 << 10;
        while (cap < p->keep_len + n) cap *= 2;
        uint8_t *k = realloc(p->keep, cap);
        if (k == NULL) { p->keep_over = 1; return; }
        p->keep = k;
        p->keep_cap = cap;
    }
    memcpy(p->keep + p->keep_len, data, n);
    p->keep_len += n;
}

static void keep_reset(cfs_input *p) {
    p->keep_len = 0;
    p->keep_over = 0;
    if (p->keep_cap > ((size_t)8 << 20)) {   /* do not hold a big document's memory */
        free(p->keep);
        p->keep = NULL;
        p->keep_cap = 0;
    }
}

void cfs_input_reset(cfs_input *p) {
    p->mode = IN_DETECT;
    p->head_len = 0;
    p->doc = D_AWAIT;
    p->skip_match = 0;
    p->skip_ahead = 0;
    p->aw = AW_SPACE;
    p->pend_len = 0;
    p->pending = 0;
    p->deferred = 0;
    p->gap_pending = 0;
    p->has_gap = 0;
    keep_reset(p);
    p->replay_len = 0;
    p->resuming = 0;
    p->resume_len = 0;
    p->reread_end = 0;
    p->closing = 0;
    p->xml_offset = 0;
    p->doc_offset = 0;
    p->z_checkpoint = p->ratio_in = p->ratio_out = p->z_phase = 0;
    p->has_error = p->has_fatal = 0;
    p->finished = 0;
    memset(&p->stats, 0, sizeof p->stats);
    memset(&p->first_error, 0, sizeof p->first_error);
    memset(&p->fatal, 0, sizeof p->fatal);
}

const cfs_error *cfs_input_error(const cfs_input *p) {
    if (p->has_fatal) return &p->fatal;
    if (p->has_error) return &p->first_error;
    return p->has_gap ? &p->first_gap : NULL;
}

cfs_stats cfs_input_stats(const cfs_input *p) { return p->stats; }

static cfs_status set_fatal(cfs_input *p, cfs_status code, const char *message, int sys_errno) {
    if (!p->has_fatal) {
        p->fatal = (cfs_error){ code, message ? message : cfs_status_string(code),
                                p->doc == D_IN ? (size_t)p->stats.documents : 0, 0, 0, p->xml_offset, sys_errno };
        p->has_fatal = 1;
    }
    /* The error that stopped the stream, the first: a callback's stop during the parse
       of what corrupt gzip data inflated to wins over the gzip error after it, as it
       does when the same bytes come in smaller chunks (found by fuzz_expat). */
    return p->fatal.code;
}

/* ---- documents ---------------------------------------------------------------- */

/* A new ratio window starts (at a document's start). */
static void ratio_window(cfs_input *p) {
    p->ratio_in = p->z_checkpoint;
    p->ratio_out = p->xml_offset;
}

/* Begins the document whose first byte is at stream offset `at` (its start may have
   been held back: the bytes before xml_offset). */
static cfs_status begin_document(cfs_input *p, uint64_t at) {
    p->stats.documents++;
    p->doc = D_IN;
    p->doc_offset = at;
    keep_reset(p);
    ratio_window(p);
    cfs_status st = p->ops->begin(p->reader, (size_t)p->stats.documents);
    return st == CFS_OK ? CFS_OK : set_fatal(p, st, NULL, 0);
}

/* What the reader says of the document it reads. */
static cfs_doc_facts facts(const cfs_input *p) {
    cfs_doc_facts f = {0};
    p->ops->facts(p->reader, &f);
    return f;
}

/* The input's first error, if none was kept yet; its message is copied, since the
   tokenizer adapters and pending_message are reused by later documents. */
static void keep_first_error(cfs_input *p, const cfs_error *err) {
    if (p->has_error) return;
    p->first_error = *err;
    if (err->message) {
        snprintf(p->first_message, sizeof p->first_message, "%s", err->message);
        p->first_error.message = p->first_message;
    }
    p->has_error = 1;
}

/* Whether the next root start tag after a failed document is that document's own: its
   root had not started, and it began as markup does ('<', a byte order mark, UTF-16's
   NUL), so what failed was its prolog. Text that is not XML between documents is a
   document that fails at its first byte, and the root after it is the next one's. */
static int own_root_to_come(const cfs_input *p, const cfs_doc_facts *f) {
    uint8_t c = p->doc_first;
    return !f->root_seen && (c == '<' || c == 0xEF || c == 0xFE || c == 0xFF || c == 0);
}

/* Ends the open document; err NULL if its root closed. */
static cfs_status end_document(cfs_input *p, cfs_error *err) {
    cfs_error not_feed;
    cfs_doc_facts f = facts(p);
    /* XML errors, and a document cut short by corrupt or truncated gzip (only the stream's
       end reports one here), are recovered. */
    if (err && (err->code == CFS_ERR_XML || err->code == CFS_ERR_GZIP || err->code == CFS_ERR_ZSTD) && p->recover
        && !p->keep_over) {
        /* Goes to the hook once the document's end is known (recover_pending). */
        p->pending = 1;
        p->pending_err = *err;
        p->pending_err.document = (size_t)p->stats.documents;
        snprintf(p->pending_message, sizeof p->pending_message, "%s", err->message ? err->message : "error");
        p->pending_err.message = p->pending_message;
        p->pending_items = f.items;
        p->doc = D_SKIP;
        p->skip_own_root = own_root_to_come(p, &f);
        p->skip_match = 0;
        p->skip_ahead = 0;
        p->aw = AW_SPACE;
        p->pend_len = 0;
        return CFS_OK;
    }
    if (err == NULL && f.not_feed) {
        not_feed = (cfs_error){ CFS_ERR_NOT_FEED, "root element is not rss, rdf:RDF or feed",
                                (size_t)p->stats.documents, 1, 1, p->doc_offset, 0 };
        err = &not_feed;
    }
    p->doc = err && (err->code == CFS_ERR_XML || err->code == CFS_ERR_LIMIT) ? D_SKIP : D_AWAIT;
    if (err) {
        err->document = (size_t)p->stats.documents;
        p->stats.failed_documents++;
        if (p->doc != D_SKIP) keep_first_error(p, err);   /* else once its skip is counted (end_skip) */
    }
    p->stats.items += f.items;
    p->skip_own_root = own_root_to_come(p, &f);
    p->skip_match = 0;
    p->skip_ahead = 0;
    p->aw = AW_SPACE;
    p->pend_len = 0;
    if (p->doc == D_SKIP) {
        /* Its end goes out when the skip ends (end_skip), with the bytes skipped. */
        p->deferred = 1;
        p->pending_err = *err;
        snprintf(p->pending_message, sizeof p->pending_message, "%s", err->message ? err->message : "error");
        p->pending_err.message = p->pending_message;
        return CFS_OK;
    }
    if (p->ops->end(p->reader, err)) return set_fatal(p, CFS_ERR_ABORTED, NULL, 0);
    return CFS_OK;
}

/* The failed document whose bytes are kept ended: hand it to the recovery hook. */
static cfs_status recover_pending(cfs_input *p) {
    if (!p->pending) return CFS_OK;
    p->pending = 0;
    p->stats.items += p->pending_items;
    keep_first_error(p, &p->pending_err);
    int stop = p->recover(p->recover_ctx, p->keep, p->keep_len, p->pending_items, &p->pending_err);
    keep_reset(p);
    return stop ? set_fatal(p, CFS_ERR_ABORTED, NULL, 0) : CFS_OK;
}

/* The search past a failed document's error ended at the stream's current offset (the
   next document's start, or the stream's end): its error counts the bytes from the
   error's own to there (`skipped`: what strict parsing did not read), and the document
   ends — through the recovery hook when it waits there. */
static cfs_status end_skip(cfs_input *p) {
    if (p->gap_pending) {
        /* A gap: told with the bytes after it that the search passed over. */
        p->gap_pending = 0;
        p->gap_err.skipped = p->xml_offset - p->gap_err.offset;
        if (!p->has_gap) {
            p->first_gap = p->gap_err;
            p->has_gap = 1;
        }
        if (p->gap_hook && p->gap_hook(p->gap_ctx, &p->gap_err)) return set_fatal(p, CFS_ERR_ABORTED, NULL, 0);
        return CFS_OK;
    }
    if (!p->pending && !p->deferred) return CFS_OK;
    p->pending_err.skipped = p->xml_offset > p->pending_err.offset ? p->xml_offset - p->pending_err.offset : 0;
    if (p->pending) return recover_pending(p);
    p->deferred = 0;
    keep_first_error(p, &p->pending_err);
    if (p->ops->end(p->reader, &p->pending_err)) return set_fatal(p, CFS_ERR_ABORTED, NULL, 0);
    return CFS_OK;
}

/* Where the search for the next document resumes after an error at document offset
   `at`: the byte after it. */
static uint64_t resync_from(uint64_t at) { return at + 1; }

/* The message of a document that failed because a document it had taken into it
   starts (swallowed): document_starts.def's; line and column 0, as for the other errors
   that are the stream's, not the tokenizer's. */
static const char SWALLOWED_MESSAGE[] = DOCUMENT_CUT_SHORT_MESSAGE;

/* What the bytes from a '<' say: a declaration followed by a feed's root start tag,
   none, or not yet known (the bytes end first). */
enum lookahead { LA_NONE, LA_START, LA_MORE };

/* s at b[j..n): whole (1), cut short by n (0), or not (-1). */
static int at_bytes(const uint8_t *b, size_t n, size_t j, const char *s) {
    for (size_t t = 0; s[t]; t++) {
        if (j + t >= n) return 0;
        if (b[j + t] != (uint8_t)s[t]) return -1;
    }
    return 1;
}

/* The first byte after the first `end` from j, into *out; 0 when the bytes end first. */
static int past(const uint8_t *b, size_t n, size_t j, const char *end, size_t *out) {
    size_t k = strlen(end);
    for (; j + k <= n; j++)
        if (at_bytes(b, n, j, end) == 1) {
            *out = j + k;
            return 1;
        }
    return 0;
}

static enum lookahead past_misc(const uint8_t *b, size_t n, size_t j, size_t *out);

/* An XML declaration at i followed, after white space, comments, processing
   instructions and a DOCTYPE, by a feed's root start tag (document_starts.def's) and
   one of its delimiters, all before n. */
static enum lookahead declaration_and_root(const uint8_t *b, size_t n, size_t i) {
    size_t dl = DOC_STARTS[0].len, j;
    int d = at_bytes(b, n, i, DOC_STARTS[0].bytes);
    if (d < 0) return LA_NONE;
    if (d == 0 || i + dl >= n) return LA_MORE;
    if (b[i + dl] == 0 || strchr(DOC_STARTS[0].delimiters, b[i + dl]) == NULL) return LA_NONE;
    if (!past(b, n, i + dl, "?>", &j)) return LA_MORE;
    if (past_misc(b, n, j, &j) == LA_MORE) return LA_MORE;
    int more = 0;
    for (size_t t = 1; t < sizeof DOC_STARTS / sizeof DOC_STARTS[0]; t++) {
        size_t k = DOC_STARTS[t].len;
        if (k < 2 || DOC_STARTS[t].bytes[0] != '<') continue;
        int r = at_bytes(b, n, j, DOC_STARTS[t].bytes);
        if (r == 1) {
            if (j + k >= n) more = 1;
            else if (b[j + k] != 0 && strchr(DOC_STARTS[t].delimiters, b[j + k])) return LA_START;
        } else if (r == 0) {
            more = 1;
        }
    }
    return more ? LA_MORE : LA_NONE;
}

/* From j, past white space, comments, processing instructions and a DOCTYPE (with its
   internal subset): the first other byte into *out, LA_START; LA_MORE when the bytes
   end first. */
static enum lookahead past_misc(const uint8_t *b, size_t n, size_t j, size_t *out) {
    for (;;) {
        if (j >= n) return LA_MORE;
        uint8_t c = b[j];
        if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
            j++;
            continue;
        }
        int comment = at_bytes(b, n, j, "<!--"), pi = at_bytes(b, n, j, "<?"), doctype = at_bytes(b, n, j, "<!DOCTYPE");
        if (comment == 1) {
            if (!past(b, n, j + 4, "-->", &j)) return LA_MORE;
        } else if (pi == 1) {
            if (!past(b, n, j + 2, "?>", &j)) return LA_MORE;
        } else if (doctype == 1) {
            /* To its '>', past an internal subset in brackets and quoted literals. */
            size_t k = j + 9;
            int depth = 0;
            uint8_t quote = 0;
            for (; k < n; k++) {
                uint8_t e = b[k];
                if (quote) { if (e == quote) quote = 0; }
                else if (e == '"' || e == '\'') quote = e;
                else if (e == '[') depth++;
                else if (e == ']') depth--;
                else if (e == '>' && depth <= 0) break;
            }
            if (k >= n) return LA_MORE;
            j = k + 1;
        } else if (comment == 0 || doctype == 0) {
            return LA_MORE;   /* "<!" or "<!-", "<!DOC" and the end */
        } else {
            *out = j;
            return LA_START;
        }
    }
}

/* A feed's root start tag (document_starts.def's) and one of its delimiters at b[i]:
   LA_START, LA_MORE when the bytes end before that is told, else LA_NONE. */
static enum lookahead root_tag(const uint8_t *b, size_t n, size_t i) {
    int more = 0;
    for (size_t t = 1; t < sizeof DOC_STARTS / sizeof DOC_STARTS[0]; t++) {
        size_t k = DOC_STARTS[t].len;
        if (DOC_STARTS[t].bytes[0] != '<') continue;
        int r = at_bytes(b, n, i, DOC_STARTS[t].bytes);
        if (r == 1 && i + k >= n) more = 1;
        else if (r == 1 && b[i + k] != 0 && strchr(DOC_STARTS[t].delimiters, b[i + k])) return LA_START;
        else if (r == 0) more = 1;
    }
    return more ? LA_MORE : LA_NONE;
}

static int root_tag_at(const uint8_t *b, size_t n, size_t i) { return root_tag(b, n, i) == LA_START; }

/* What the bytes from i say where the search resumes at an error's own byte: a document
   begins there when a declaration followed by a feed's root does, a feed's root start
   tag, or a byte order mark followed by '<' (document_starts.def's marks): a document in UTF-16, whose markup is
   not ASCII, or one in UTF-8 whose declaration is looked at past its mark. */
static enum lookahead resume_at(const uint8_t *b, size_t n, size_t i, int prolog) {
    for (size_t t = 0; t < sizeof DOC_STARTS / sizeof DOC_STARTS[0]; t++) {
        const uint8_t *mark = (const uint8_t *)DOC_STARTS[t].bytes;
        size_t k = DOC_STARTS[t].len, have = n - i < k ? n - i : k;
        if (mark[0] == '<' || memcmp(b + i, mark, have) != 0) continue;
        if (i + k >= n) return LA_MORE;
        if (strchr(DOC_STARTS[t].delimiters, b[i + k]) == NULL || b[i + k] == 0) continue;
        return mark[0] == 0xEF ? declaration_and_root(b, n, i + k) : LA_START;
    }
    /* Or a feed's root start tag, once the failed document's root had begun (in its
       prolog, the next root start tag is its own: `prolog`), a document's without a
       declaration. */
    enum lookahead root = prolog ? LA_NONE : root_tag(b, n, i);
    if (root != LA_NONE) return root;
    return declaration_and_root(b, n, i);
}

/* The start of a document that the failed document b[0..n) (its bytes up to its error)
   had taken into it, after offset `after` (the end tag of the last item it delivered:
   none is delivered twice): a document cut short inside a CDATA section, a comment or a
   processing instruction takes what follows it, the next documents of a dump included,
   until something ends that construct, and its error comes later, if at all. A start is
   an XML declaration (or a UTF-8 byte order mark and one) past the document's first
   byte, followed by a feed's root start tag, all before the error; or a feed's root
   start tag past the document's own root start tag (a document cut short in text or a
   tag takes the next one in as an element when that one has no declaration). */
static int swallowed_start(const uint8_t *b, size_t n, size_t after, size_t *at) {
    size_t i = after > 1 ? after : 1;
    int tried = 0;
    /* Past the '<' of the document's own root start tag, after its prolog (0: none). */
    size_t root = 0, j = 0;
    if (at_bytes(b, n, 0, DOC_STARTS[0].bytes) == 1 && !past(b, n, DOC_STARTS[0].len, "?>", &j)) j = n;
    if (j < n && past_misc(b, n, j, &j) == LA_START && b[j] == '<') root = j + 1;
    while (i < n) {
        const uint8_t *q = memchr(b + i, '<', n - i);
        if (q == NULL) break;
        i = (size_t)(q - b);
        if (root > 0 && i >= root && i >= after && root_tag_at(b, n, i)) {
            *at = i;
            return 1;
        }
        /* Within LOOKAHEAD_MAX of its '<', and no more than CANDIDATE_MAX tried: a failed
           document full of unfinished declarations costs no more than that. */
        size_t window = n - i > LOOKAHEAD_MAX ? i + LOOKAHEAD_MAX : n;
        if (i + 1 < n && b[i + 1] == '?' && ++tried > CANDIDATE_MAX) return 0;
        if (declaration_and_root(b, window, i) == LA_START) {
            /* Its byte order mark is its first byte; the document's own (at 0) is no other. */
            int marked = i >= 3 && b[i - 3] == 0xEF && b[i - 2] == 0xBB && b[i - 1] == 0xBF;
            size_t x = marked ? i - 3 : i;
            if (x > 0 && x >= after) {
                *at = x;
                return 1;
            }
        }
        i++;
    }
    return 0;
}

/* Whether a document whose first bytes are a, b (-1: none) has its markup in ASCII
   bytes, so that a declaration of another document can be told in its bytes: not
   UTF-16 (a byte order mark, or '<' and a NUL either way round), where the bytes of one
   are no markup, and each tokenizer places its errors in them its own way. */
static int reads_ascii(int a, int b) {
    if (a < 0 || b < 0) return 1;
    return !((a == 0xFF && b == 0xFE) || (a == 0xFE && b == 0xFF) || (a == 0x00 && b == 0x3C) || (a == 0x3C && b == 0x00));
}

/* The document's byte k (-1: not there), of its kept bytes (before `at`) and data. */
static int doc_byte(const cfs_input *p, const uint8_t *data, size_t len, uint64_t at, size_t k) {
    if (k < p->keep_len && k < at) return p->keep[k];
    if (data != NULL && k >= at && k - at < len) return data[k - at];
    return -1;
}

/* Whether the document's root start tag had begun before its offset `e` (a '<' followed
   by a name's first byte: not a declaration, comment, DOCTYPE or end tag), in its bytes
   kept before `at` and data[0..len) from `at`: a failure before it is the prolog's, and
   the next root start tag is the document's own. */
static int root_begun(const cfs_input *p, const uint8_t *data, size_t len, uint64_t at, uint64_t e) {
    for (uint64_t k = 0; k + 1 < e; k++) {
        int c = doc_byte(p, data, len, at, (size_t)k);
        if (c < 0) return 0;
        if (c != '<') continue;
        int d = doc_byte(p, data, len, at, (size_t)k + 1);
        if (d >= 0 && d != '?' && d != '!' && d != '/' && d > ' ') return 1;
    }
    return 0;
}

/* An XML error at document offset `e`, with the document's bytes before `at` kept and
   data[0..len) the ones from `at`: whether a document it had taken in starts before e
   (swallowed_start), into *inside. */
static int swallowed(cfs_input *p, const uint8_t *data, size_t len, uint64_t at, uint64_t e, size_t after,
                     size_t *inside) {
    if (p->keep_over || p->keep_len < at || e <= 1) return 0;
    if (!reads_ascii(doc_byte(p, data, len, at, 0), doc_byte(p, data, len, at, 1))) return 0;
    /* Not in bytes an earlier look back already gave a document to read again: each
       byte is read again at most once, so a dump of documents that all fail (each
       taking in the next ones) costs twice its bytes, not their square. */
    if (p->reread_end > p->doc_offset && p->reread_end - p->doc_offset > after) {
        if (p->reread_end - p->doc_offset >= e) return 0;
        after = (size_t)(p->reread_end - p->doc_offset);
    }
    if (e <= at) return swallowed_start(p->keep, (size_t)e, after, inside);
    if (data == NULL || e > at + len) return 0;
    uint8_t *joined = malloc((size_t)e);
    if (joined == NULL) return 0;
    if (at > 0) memcpy(joined, p->keep, (size_t)at);
    memcpy(joined + at, data, (size_t)(e - at));
    int found = swallowed_start(joined, (size_t)e, after, inside);
    free(joined);
    return found;
}

/* A reader that places its errors in bytes of its own (ops->locate) places the error of
   its last call, on `len` bytes at document offset `at`, in the document's bytes (kept,
   then these), and the end of the last item it delivered, into *after. */
static void locate(cfs_input *p, const uint8_t *data, size_t len, uint64_t at, cfs_error *err, uint64_t *after) {
    if (p->keep_over || p->keep_len < at) {
        p->ops->locate(p->reader, NULL, 0, at, err, after);
        return;
    }
    if (data == NULL || len == 0) {
        p->ops->locate(p->reader, p->keep, (size_t)at, at, err, after);
        return;
    }
    uint8_t *joined = malloc((size_t)at + len);
    if (joined == NULL) {
        p->ops->locate(p->reader, NULL, 0, at, err, after);
        return;
    }
    if (at > 0) memcpy(joined, p->keep, (size_t)at);
    memcpy(joined + at, data, len);
    p->ops->locate(p->reader, joined, (size_t)at + len, at, err, after);
    free(joined);
}

/* Handles a tokenizer result for `len` bytes that start at document offset `at`.
   Sets *used to the bytes that belonged to the document (the rest starts anew). After
   an error in bytes of an earlier call (the tokenizer held them: an unfinished
   declaration, say), *used is 0 and replay_len says which kept bytes replay() must
   search again before the rest. */
static cfs_status handle(cfs_input *p, cfs_doc_result r, const uint8_t *data, size_t len, uint64_t at,
                         size_t consumed, cfs_error *err, size_t *used) {
    *used = len;
    switch (r) {
    case CFS_DOC_OK:
        return CFS_OK;
    case CFS_DOC_ROOT_END:
        *used = consumed;
        return end_document(p, NULL);
    case CFS_DOC_ERROR: {
        cfs_doc_facts f = facts(p);
        uint64_t after = f.last_item_end;
        if (p->ops->locate) locate(p, data, len, at, err, &after);
        uint64_t from = resync_from(err->offset);
        /* A construct over max_markup_bytes fails at its '<', but its first
           max_markup_bytes + 1 bytes were read as its own: the search goes on past them
           (never read again, so a dump of documents that each open a CDATA section
           running to its end costs its bytes once), after a look back into them for a
           document it had taken in. */
        int markup = err->code == CFS_ERR_LIMIT && f.markup_over;
        uint64_t e = err->offset;
        if (markup) {
            uint64_t given = at + len;
            e = p->lim.max_markup_bytes >= given - (err->offset < given ? err->offset : given)
                ? given : err->offset + p->lim.max_markup_bytes + 1;
            from = e;
        }
        size_t inside;
        int found = (err->code == CFS_ERR_XML || markup) && swallowed(p, data, len, at, e, (size_t)after, &inside);
        if (!found && err->code == CFS_ERR_XML && err->offset > 0 && err->offset <= at + len
            && !p->keep_over && p->keep_len >= at
            && reads_ascii(doc_byte(p, data, len, at, 0), doc_byte(p, data, len, at, 1))) {
            /* The next document may begin at the error's byte (a document cut short in its
               root start tag, a tag or text; an XML declaration in a prolog): told once
               its bytes come. */
            if (p->resume == NULL) p->resume = malloc(RESUME_MAX);
            if (p->resume != NULL) {
                from = err->offset;
                p->resuming = 1;
                p->resume_len = 0;
                p->resume_prolog = !f.root_seen && !root_begun(p, data, len, at, err->offset);
            }
        }
        if (found) {
            /* A document it had taken in starts there: this one ends there, cut short. */
            p->reread_end = p->closing ? p->xml_offset : p->doc_offset + e;
            from = inside;
            *err = (cfs_error){ CFS_ERR_XML, SWALLOWED_MESSAGE, err->document, 0, 0, inside, 0 };
            p->resumed_inside = 1;
        }
        err->offset += p->doc_offset;
        if (from >= at) {
            *used = from - at < len ? (size_t)(from - at) : len;
            cfs_status st = end_document(p, err);
            /* The resume point lies past these bytes (libxml2 places some errors at the
               end of what it was given): the search passes over the bytes before it in
               the next input, as when the same bytes come in one piece (found by
               fuzz_parts: a dump cut right after such an error began a document there). */
            if (st == CFS_OK && p->doc == D_SKIP && from > at + len) p->skip_ahead = (size_t)(from - at - len);
            return st;
        }
        /* The resume point is in bytes of an earlier call: in the kept bytes, unless
           the document outgrew the window (then at the start of these). */
        *used = 0;
        int kept = !p->keep_over && p->keep_len >= at;
        cfs_status st = end_document(p, err);
        if (st == CFS_OK && kept && p->doc == D_SKIP && !p->has_fatal) {
            p->replay_from = (size_t)from;
            p->replay_len = (size_t)(at - from);
        }
        return st;
    }
    case CFS_DOC_ABORT:
        return set_fatal(p, CFS_ERR_ABORTED, NULL, 0);
    case CFS_DOC_NOMEM:
        return set_fatal(p, CFS_ERR_NOMEM, NULL, 0);
    }
    return CFS_OK;
}

static cfs_status xml_input(cfs_input *p, const uint8_t *data, size_t len);

/* After handle() asked for it: searches the failed document's kept bytes from the
   resume point again, as if they came now (a document found there starts and takes
   them); the stream offset is the bytes' own. Called where the caller's next byte is
   the one after them. */
static cfs_status replay(cfs_input *p) {
    size_t n = p->replay_len;
    if (n == 0) return CFS_OK;
    p->replay_len = 0;
    /* A copy: the kept bytes are the next document's once one starts. */
    uint8_t *copy = malloc(n);
    if (copy == NULL) return set_fatal(p, CFS_ERR_NOMEM, NULL, 0);
    memcpy(copy, p->keep + p->replay_from, n);
    p->keep_len = p->replay_from;   /* a pending document keeps them again as they are skipped */
    p->xml_offset -= n;
    cfs_status st = xml_input(p, copy, n);
    free(copy);
    return st;
}


/* Between documents: XML whitespace, and NUL (the other half of a UTF-16 newline;
   never valid XML, so skipping it loses nothing). */
static int is_space(uint8_t c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t' || c == 0; }

/* Skips what may come between documents: white space and, once a document has ended,
   comments and processing instructions other than an XML declaration (the Misc that
   may follow a root element). Returns 1 when a document starts at data[*used]; bytes
   of its beginning already consumed are held in pend. */
static int skip_misc(cfs_input *p, const uint8_t *data, size_t len, size_t *used) {
    size_t i = 0;
    int after_doc = p->stats.documents > 0;
    while (i < len) {
        uint8_t c = data[i];
        switch (p->aw) {
        case AW_SPACE:
            /* NUL only after a document (the other half of a UTF-16LE line end): before
               the first, "00 3C" is how a UTF-16BE document without a mark begins. */
            if (is_space(c) && (c != 0 || after_doc)) break;
            if (c != '<' || !after_doc) goto start;
            p->pend[0] = c;
            p->pend_len = 1;
            p->aw = AW_LT;
            p->aw_wide = 0;
            p->aw_start = p->xml_offset + i;
            break;
        case AW_LT:
            /* '<' then NUL: markup in UTF-16 (a comment between UTF-16 documents), read with
               its NULs passed over; a document that begins so is held whole. */
            if (c == 0 && p->pend_len == 1) p->aw_wide = 1;
            else if (c == '!') p->aw = AW_BANG;
            else if (c == '?') p->aw = p->aw_wide ? AW_PI : AW_PI_TARGET;
            else goto start;
            p->pend[p->pend_len++] = c;
            if (p->aw == AW_PI) { p->pend_len = 0; p->aw_run = 0; }
            break;
        case AW_BANG:
            if (c == 0 && p->aw_wide && p->pend_len < sizeof p->pend - 1) { p->pend[p->pend_len++] = c; break; }
            if (c != '-') goto start;
            p->pend[p->pend_len++] = c;
            p->aw = AW_BANG_DASH;
            break;
        case AW_BANG_DASH:
            if (c == 0 && p->aw_wide && p->pend_len < sizeof p->pend - 1) { p->pend[p->pend_len++] = c; break; }
            if (c != '-') goto start;
            p->pend_len = 0;
            p->aw = AW_COMMENT;
            p->aw_run = 0;
            break;
        case AW_COMMENT:
            if (c == 0 && p->aw_wide) break;
            if (c == '>' && p->aw_run >= 2) p->aw = AW_SPACE;
            else p->aw_run = c == '-' ? p->aw_run + 1 : 0;
            break;
        case AW_PI_TARGET: {
            size_t k = p->pend_len - 2;   /* bytes of "xml" matched */
            if (k < 3 && c == (uint8_t)"xml"[k]) {
                p->pend[p->pend_len++] = c;
                break;
            }
            /* an XML declaration: the same rule as a document start after a failed one */
            if (k == 3 && doc_start_step(p->pend, p->pend_len, c) == START_MATCH) goto start;
            p->pend_len = 0;
            p->aw = AW_PI;
            p->aw_run = c == '?';
            break;
        }
        case AW_PI:
            if (c == 0 && p->aw_wide) break;
            if (c == '>' && p->aw_run) p->aw = AW_SPACE;
            else p->aw_run = c == '?';
            break;
        }
        i++;
    }
    *used = i;
    return 0;
start:
    *used = i;
    p->doc_first = p->pend_len > 0 ? p->pend[0] : data[i];
    return 1;
}

/* Bytes from the open document's offset `in_doc` to its next markup checkpoint: a
   parse call never goes past one, and one that ends on it is flagged (at_checkpoint)
   for the reader to check max_markup_bytes. Every CHUNK of the document's bytes,
   counted from its first, so where the limit is checked is a function of the document:
   the same from a file, its .gz, a pipe, any caller's chunks and any part (-j). */
static size_t to_checkpoint(uint64_t in_doc) { return CHUNK - (size_t)(in_doc % CHUNK); }

/* Bytes of the open document that may still be parsed under max_document_bytes. */
static uint64_t document_room(const cfs_input *p) {
    uint64_t in_doc = p->xml_offset - p->doc_offset;
    return in_doc >= p->lim.max_document_bytes ? 0 : p->lim.max_document_bytes - in_doc;
}

/* The open document reached max_document_bytes and goes on: it fails there (the
   position is its byte offset; line and column are not counted outside the
   tokenizer) and the rest of it is skipped like the rest of an ill-formed one. */
static cfs_status document_too_big(cfs_input *p) {
    cfs_limit_over(p->limit_message, sizeof p->limit_message, CFS_LIMIT_max_document_bytes, p->lim.max_document_bytes);
    cfs_error err = { CFS_ERR_LIMIT, p->limit_message, (size_t)p->stats.documents, 0, 0, p->xml_offset, 0 };
    return end_document(p, &err);
}

/* The input ended inside a comment or processing instruction after the last document:
   its bytes (and any document in them) were read as nothing. Reported as a document
   that fails at the comment's '<' (line and column are not counted outside the
   tokenizer), as other bytes between documents that are none are, so that every byte
   is accounted for. */
static void unclosed_misc(cfs_input *p) {
    const char *what = p->aw == AW_COMMENT ? "unclosed comment after the last document"
                                           : "unclosed processing instruction after the last document";
    p->aw = AW_SPACE;
    p->doc_first = '<';
    if (begin_document(p, p->aw_start) != CFS_OK) return;
    cfs_error err = { CFS_ERR_XML, what, (size_t)p->stats.documents, 0, 0, p->aw_start, 0 };
    end_document(p, &err);
}

/* Starts the document whose first bytes skip_misc held back, and feeds them. */
static cfs_status start_held_document(cfs_input *p) {
    size_t held = p->pend_len;
    p->aw = AW_SPACE;
    p->pend_len = 0;
    cfs_status st = begin_document(p, p->xml_offset - held);
    if (st != CFS_OK || held == 0) return st;
    keep(p, p->pend, held);
    size_t consumed = 0, u;
    cfs_error err = {0};
    cfs_doc_result r = p->ops->parse(p->reader, p->pend, held, 0, 0, &consumed, &err);
    return handle(p, r, p->pend, held, 0, consumed, &err, &u);
}

/* The search from the error's own byte (resuming) is told: the next document begins
   there (a declaration followed by a feed's root), or the search goes on from the byte
   after it. The bytes held (earlier inputs') are read first. *first is 1 when the byte
   to pass over is the first of the caller's input (none was held). */
static cfs_status resume_told(cfs_input *p, enum lookahead verdict, int *first) {
    p->resuming = 0;
    size_t n = p->resume_len;
    p->resume_len = 0;
    *first = 0;
    if (n == 0 && verdict != LA_START) {
        *first = 1;
        return CFS_OK;
    }
    cfs_status st = CFS_OK;
    if (verdict == LA_START) {
        st = end_skip(p);
        p->doc = D_AWAIT;
        if (st != CFS_OK || n == 0) return st;
    }
    /* A copy: what is parsed from it may hold bytes here again. */
    uint8_t *held = malloc(n);
    if (held == NULL) return set_fatal(p, CFS_ERR_NOMEM, NULL, 0);
    memcpy(held, p->resume, n);
    if (verdict == LA_START) {
        st = xml_input(p, held, n);
    } else {
        /* The '<' is passed over, the rest searched as ever. */
        if (p->pending) keep(p, held, 1);
        p->xml_offset += 1;
        st = xml_input(p, held + 1, n - 1);
    }
    free(held);
    return st;
}

/* Uncompressed bytes in caller memory: split into documents and parse. */
static cfs_status xml_input(cfs_input *p, const uint8_t *data, size_t len) {
    cfs_status st = CFS_OK;
    while (len > 0 && st == CFS_OK) {
        size_t used = 0;
        if (p->doc == D_AWAIT) {
            int start = skip_misc(p, data, len, &used);
            p->xml_offset += used;
            data += used;
            len -= used;
            if (!start) return CFS_OK;
            st = start_held_document(p);
            continue;
        }
        if (p->doc == D_SKIP && p->resuming) {
            /* Told from the bytes held (earlier inputs') and these; these are held only
               while they do not tell, so that the bytes are parsed in the pieces they
               came in (libxml2 reports some errors by its pieces: the parts fuzzer). */
            size_t n = len < RESUME_MAX - p->resume_len ? len : RESUME_MAX - p->resume_len;
            enum lookahead verdict;
            if (p->resume_len == 0) {
                verdict = resume_at(data, n, 0, p->resume_prolog);
            } else {
                memcpy(p->resume + p->resume_len, data, n);   /* looked at, not yet held */
                verdict = resume_at(p->resume, p->resume_len + n, 0, p->resume_prolog);
            }
            if (verdict == LA_MORE && p->resume_len + n < RESUME_MAX) {
                p->resume_len += len;   /* n == len: all of them, copied above or now */
                if (p->resume_len == len) memcpy(p->resume, data, len);
                return CFS_OK;
            }
            int first = 0;
            st = resume_told(p, verdict, &first);
            if (st == CFS_OK && first) {   /* the '<' is this input's first byte: passed over */
                if (p->pending) keep(p, data, 1);
                p->xml_offset += 1;
                data += 1;
                len -= 1;
            }
            continue;
        }
        if (p->doc == D_SKIP) {
            /* Look for the next document's start; a match may straddle chunks (its
               first bytes are then in skip_held). */
            size_t i = p->skip_ahead < len ? p->skip_ahead : len;
            p->skip_ahead -= i;
            int matched = 0;
            while (i < len) {
                if (p->skip_match == 0) {   /* the next byte a start begins with (the rest of a rejected document may be huge) */
                    while (i < len && !p->start_first[data[i]]) i++;
                    if (i == len) break;
                    p->skip_held[p->skip_match++] = data[i];
                    i++;
                    continue;
                }
                int step = doc_start_step(p->skip_held, p->skip_match, data[i]);
                /* A root start tag: '<' and not the declaration's '?'. */
                if (step == START_MATCH && p->skip_own_root && p->skip_held[0] == '<' && p->skip_held[1] != '?') {
                    p->skip_own_root = 0;   /* the failed document's own root */
                    step = START_NONE;
                }
                if (step == START_MATCH) { matched = 1; break; }
                if (step == START_PREFIX) {
                    p->skip_held[p->skip_match++] = data[i];
                } else {
                    p->skip_match = 0;
                    if (p->start_first[data[i]]) p->skip_held[p->skip_match++] = data[i];
                }
                i++;
            }
            if (!matched) {
                if (p->pending) keep(p, data, len);
                p->xml_offset += len;
                return CFS_OK;
            }
            /* The start's bytes end at i; `before` of them came in an earlier chunk. */
            uint8_t start_bytes[DOC_START_MAX];
            size_t start_len = p->skip_match;
            memcpy(start_bytes, p->skip_held, start_len);
            p->skip_match = 0;
            size_t in_this = i >= start_len ? start_len : i;
            size_t before = start_len - in_this;
            if (p->pending) {
                keep(p, data, i - in_this);
                if (!p->keep_over) p->keep_len -= before < p->keep_len ? before : p->keep_len;
            }
            p->xml_offset += (i - in_this);
            p->xml_offset -= before;
            data += i - in_this;
            len -= i - in_this;
            st = end_skip(p);
            if (st != CFS_OK) return st;
            p->doc = D_AWAIT;
            p->doc_first = start_bytes[0];
            st = begin_document(p, p->xml_offset);
            if (st == CFS_OK && before) {
                size_t consumed = 0, u;
                cfs_error err = {0};
                keep(p, start_bytes, before);
                cfs_doc_result r = p->ops->parse(p->reader, start_bytes, before, 0, 0, &consumed, &err);
                p->xml_offset += before;
                st = handle(p, r, start_bytes, before, 0, consumed, &err, &u);
            }
            continue;
        }
        /* Up to the document's next markup checkpoint, whatever the caller gave. */
        size_t mark = to_checkpoint(p->xml_offset - p->doc_offset);
        size_t n = len < mark ? len : mark;
        uint64_t room = document_room(p);
        int over = n > room;
        if (over) n = (size_t)room;
        size_t consumed = 0;
        cfs_error err = {0};
        if (n > 0) {
            cfs_doc_result r = p->ops->parse(p->reader, data, n, 0, n == mark, &consumed, &err);
            st = handle(p, r, data, n, p->xml_offset - p->doc_offset, consumed, &err, &used);
            if (p->doc == D_IN || p->pending) keep(p, data, used);
        }
        p->xml_offset += used;
        data += used;
        len -= used;
        if (st == CFS_OK && over && p->doc == D_IN) st = document_too_big(p);
        if (st == CFS_OK) st = replay(p);
    }
    return st;
}

/* A buffer the tokenizer owns was filled with n bytes, never past the open document's
   next markup checkpoint (in_place_room): parse it in place. Bytes past a root end are
   moved out (to carry) before the tokenizer is reset. */
static cfs_status parse_in_place(cfs_input *p, uint8_t *buf, size_t n) {
    size_t consumed = 0, used;
    cfs_error err = {0};
    uint64_t room = document_room(p);
    size_t take = n > room ? (size_t)room : n;
    int at_checkpoint = take == to_checkpoint(p->xml_offset - p->doc_offset);
    cfs_doc_result r = p->ops->parse_buffer(p->reader, take, at_checkpoint, &consumed, &err);
    cfs_status st = handle(p, r, buf, take, p->xml_offset - p->doc_offset, consumed, &err, &used);
    if (p->doc == D_IN || p->pending) keep(p, buf, used);
    p->xml_offset += used;
    if (st == CFS_OK && take < n && p->doc == D_IN) st = document_too_big(p);
    if (st != CFS_OK || (used == n && p->replay_len == 0)) return st;
    /* The rest leaves buf (the tokenizer's) before anything else is parsed. */
    size_t rest = n - used;
    memcpy(p->carry, buf + used, rest);
    if ((st = replay(p)) != CFS_OK || rest == 0) return st;
    return xml_input(p, p->carry, rest);
}

/* How many bytes to read or inflate into the tokenizer's buffer: to the open
   document's next markup checkpoint (parse_in_place cannot cut a buffer). */
static size_t in_place_room(const cfs_input *p) { return to_checkpoint(p->xml_offset - p->doc_offset); }

/* ---- a stream that stops before its end ------------------------------------------- */

/* The stream stops here before its end: corrupt, truncated or trailing gzip data, a
   read error, the decompression ratio, or the caller's own inflating failed
   (cfs_input_settle). The open document's tokenizer first judges the bytes it holds as
   one call with all of them would have (libxml2's adapter looks at a document's first
   bytes only as they double): an error in them is the document's own, reported now,
   however the input was cut; what only the end tells, the end reports (found by
   fuzz_libxml2: the error code of a document cut by corrupt gzip depended on the cuts).
   A document found again after such an error is settled the same way. */
static cfs_status settle(cfs_input *p) {
    while (p->doc == D_IN && p->ops->settle != NULL && !p->has_fatal) {
        size_t consumed = 0, used;
        cfs_error err = {0};
        cfs_doc_result r = p->ops->settle(p->reader, &consumed, &err);
        cfs_status st = handle(p, r, NULL, 0, p->xml_offset - p->doc_offset, consumed, &err, &used);
        if (st != CFS_OK || p->replay_len == 0) return st;
        if ((st = replay(p)) != CFS_OK) return st;
    }
    return p->has_fatal ? p->fatal.code : CFS_OK;
}

/* The stream stops for `code` (see settle): the held bytes are judged, then the error
   is the stream's, unless a callback stopped the parser in them first. */
static cfs_status stream_stops(cfs_input *p, cfs_status code, const char *message, int sys_errno) {
    cfs_status st = settle(p);
    if (st != CFS_OK) return st;
    return set_fatal(p, code, message, sys_errno);
}

/* The compressed stream has a gap here: the compressed bytes [from, to) were not read
   (cfs_unpack_step), so the bytes before and after do not join. The open document ends
   here, cut short as at the stream's end ("corrupt gzip data", recovered as such); then
   the next document is searched for in what follows, and the gap is told once it is
   found (or the stream ends) with the bytes passed over (`skipped`), as a record of its
   own (document 0, its compressed range), so that every byte is accounted for. */
static cfs_status stream_gap(cfs_input *p, cfs_status code, const char *why, uint64_t from, uint64_t to) {
    cfs_status st = settle(p);
    if (st != CFS_OK) return st;
    snprintf(p->gap_message, sizeof p->gap_message, "%s", why);
    if (p->doc == D_SKIP) {
        /* The rest of a failed document ends at the gap. */
        p->resuming = 0;
        p->resume_len = 0;
        p->skip_match = 0;
        if ((st = end_skip(p)) != CFS_OK) return st;
        p->doc = D_AWAIT;
    }
    if (p->doc == D_AWAIT && p->pend_len > 0 && (st = start_held_document(p)) != CFS_OK) return st;
    p->aw = AW_SPACE;   /* a comment or processing instruction the gap cut is Misc gone */
    p->pend_len = 0;
    if (p->doc == D_IN) {
        size_t consumed = 0, used;
        cfs_error err = {0};
        cfs_doc_result r = p->ops->parse(p->reader, NULL, 0, 1, 0, &consumed, &err);
        if (r == CFS_DOC_ERROR) {
            err.code = code;
            err.message = p->gap_message;
        } else if (r == CFS_DOC_OK) {
            r = CFS_DOC_ERROR;
            err = (cfs_error){ code, p->gap_message, 0, 0, 0, p->xml_offset - p->doc_offset, 0 };
        }
        st = handle(p, r, NULL, 0, p->xml_offset - p->doc_offset, consumed, &err, &used);
        p->replay_len = 0;
        p->resuming = 0;
        p->resume_len = 0;
        if (st == CFS_OK) st = end_skip(p);   /* a document waiting for recovery ends at the gap */
        if (st != CFS_OK) return st;
    }
    p->gap_err = (cfs_error){ code, p->gap_message, 0, 0, 0, p->xml_offset, 0, 0, from, to - from };
    p->gap_pending = 1;
    p->doc = D_SKIP;
    p->skip_own_root = 0;
    p->skip_match = 0;
    p->skip_ahead = 0;
    return CFS_OK;
}

/* The error code of the compressed format. */
static cfs_status pack_code(cfs_pack_format f) { return f == CFS_PACK_ZSTD ? CFS_ERR_ZSTD : CFS_ERR_GZIP; }

cfs_status cfs_input_feed_gap(cfs_input *p, int format, const char *why, uint64_t from, uint64_t to) {
    if (p->mode == IN_DETECT && p->head_len == 0) p->mode = IN_INFLATED;   /* the stream begins with it */
    if (p->finished || p->mode != IN_INFLATED || to < from) return CFS_ERR_MISUSE;
    if (p->has_fatal) return p->fatal.code;
    cfs_status code = pack_code((cfs_pack_format)format);
    return stream_gap(p, code, why ? why : cfs_status_string(code), from, to);
}

/* After the gzip stream gave a gap (CFS_UNPACK_GAP). */
static cfs_status gunzip_gap(cfs_input *p) {
    uint64_t from, to;
    const char *why;
    cfs_unpack_gap(p->gz, &from, &to, &why);
    return stream_gap(p, pack_code(cfs_unpack_format(p->gz)), why, from, to);
}

cfs_status cfs_input_settle(cfs_input *p) {
    if (p->finished) return CFS_ERR_MISUSE;
    return settle(p);
}

/* ---- gzip ------------------------------------------------------------------------ */

/* A ratio checkpoint: the uncompressed stream reached a multiple of CHUNK, everything
   before it parsed (so the window is the document begun last before it, whatever the
   input's cut), and inflate had consumed `consumed` compressed bytes to get there. The
   one place max_ratio is checked (gzip_input and cfs_input_feed_inflated call it). */
static cfs_status ratio_checkpoint(cfs_input *p, uint64_t consumed) {
    p->z_checkpoint = consumed;
    if (cfs_ratio_over(p->stats.bytes_xml - p->ratio_out, p->z_checkpoint - p->ratio_in, p->lim.max_ratio)) {
        cfs_limit_over(p->limit_message, sizeof p->limit_message, CFS_LIMIT_max_ratio, p->lim.max_ratio);
        return stream_stops(p, CFS_ERR_LIMIT, p->limit_message, 0);
    }
    return CFS_OK;
}

/* The stream's code and "truncated" message, by its format. */
static cfs_status stream_code(const cfs_input *p) {
    return p->gz != NULL && p->mode == IN_PACKED ? pack_code(cfs_unpack_format(p->gz)) : CFS_ERR_GZIP;
}
static const char *truncated_message(const cfs_input *p) {
    return stream_code(p) == CFS_ERR_ZSTD ? "truncated zstd data" : "truncated gzip data";
}

static cfs_status gzip_begin(cfs_input *p, cfs_pack_format format) {
    if (p->gz == NULL && (p->gz = cfs_unpack_new()) == NULL) return set_fatal(p, CFS_ERR_NOMEM, NULL, 0);
    cfs_unpack_set_engine(p->gz, p->engine);
    cfs_unpack_result r = cfs_unpack_begin(p->gz, format);
    if (r == CFS_UNPACK_NOMEM) return set_fatal(p, CFS_ERR_NOMEM, NULL, 0);
    if (r != CFS_UNPACK_OK) return set_fatal(p, pack_code(format), NULL, 0);
    p->mode = IN_PACKED;
    return CFS_OK;
}

/* Inflates everything in z_in/z_avail, member after member (cfs_unpack), straight into
   the reader's buffer while a document is open. */
static cfs_status gzip_input(cfs_input *p) {
    cfs_status st = CFS_OK;
    while (st == CFS_OK) {
        /* Output stops at every multiple of CHUNK of the stream: the ratio checkpoints
           (and, inflating into the reader's buffer, at the document's own). The reader
           is asked for the bytes inflated, as cfs_input_feed_fd asks. */
        size_t room = CHUNK - (size_t)(p->stats.bytes_xml % CHUNK);
        int in_place = p->doc == D_IN && p->ops->buffer != NULL;
        size_t want = room;
        if (in_place && in_place_room(p) < want) want = in_place_room(p);
        uint8_t *out = in_place ? p->ops->buffer(p->reader, want) : NULL;
        if (out == NULL) { out = p->scratch; in_place = 0; want = room; }
        size_t used, n;
        cfs_unpack_result gr = cfs_unpack_step(p->gz, p->z_in, p->z_avail, &used, out, want, &n);
        p->z_in += used;
        p->z_avail -= used;
        if (gr == CFS_UNPACK_NOMEM) return set_fatal(p, CFS_ERR_NOMEM, NULL, 0);
        p->stats.bytes_xml += n;
        if (n) st = in_place ? parse_in_place(p, out, n) : xml_input(p, out, n);
        if (gr == CFS_UNPACK_CORRUPT) {
            /* What was inflated was kept; a callback that stopped the parser (or memory)
               in those bytes came first: fed in smaller pieces, the stream would have
               stopped there. */
            if (st != CFS_OK) return st;
            return stream_stops(p, stream_code(p), NULL, 0);
        }
        if (gr == CFS_UNPACK_GAP) {
            if (st == CFS_OK) st = gunzip_gap(p);
            continue;
        }
        /* Past the ratio, nothing after the checkpoint is inflated. */
        if (n == room && st == CFS_OK) st = ratio_checkpoint(p, cfs_unpack_consumed(p->gz));
        if (gr == CFS_UNPACK_NEED) return st;
    }
    return st;
}

/* ---- feeding -------------------------------------------------------------------- */

static cfs_status dispatch(cfs_input *p, const uint8_t *data, size_t len) {
    if (p->mode == IN_PLAIN) {
        p->stats.bytes_xml += len;
        return xml_input(p, data, len);
    }
    p->z_in = data;
    p->z_avail = len;
    cfs_status st = gzip_input(p);
    p->z_in = NULL;   /* never keep the caller's pointer */
    p->z_avail = 0;
    return st;
}

/* Decides gzip, zstd or plain from the first bytes (cfs_pack_detect; buffered across
   calls). */
static cfs_status detect(cfs_input *p, const uint8_t **data, size_t *len) {
    cfs_pack_format f;
    while (!cfs_pack_detect(p->head, p->head_len, 0, &f)) {
        if (*len == 0) return CFS_OK;
        p->head[p->head_len++] = **data;
        (*data)++;
        (*len)--;
    }
    size_t n = p->head_len;
    if (f != CFS_PACK_NONE) {
        cfs_status st = gzip_begin(p, f);
        if (st == CFS_OK) st = dispatch(p, p->head, n);
        return st;
    }
    p->mode = IN_PLAIN;
    p->stats.bytes_xml += n;
    return xml_input(p, p->head, n);
}

cfs_status cfs_input_feed(cfs_input *p, const void *data, size_t len) {
    if (p->finished) return CFS_ERR_MISUSE;
    if (p->has_fatal) return p->fatal.code;
    if (p->mode == IN_INFLATED) return CFS_ERR_MISUSE;
    const uint8_t *d = data;
    p->stats.bytes_in += len;
    cfs_status st = CFS_OK;
    if (p->mode == IN_DETECT) {
        st = detect(p, &d, &len);
        if (st != CFS_OK || len == 0) return st;
    }
    while (len > 0 && st == CFS_OK) {
        size_t n = len < MAX_PARSE ? len : MAX_PARSE;
        st = dispatch(p, d, n);
        d += n;
        len -= n;
    }
    return st;
}

/* The caller inflated: gzip_input's parse and checkpoint, without the inflate. */
cfs_status cfs_input_feed_inflated(cfs_input *p, const void *data, size_t len, uint64_t compressed) {
    if (p->finished) return CFS_ERR_MISUSE;
    if (p->has_fatal) return p->fatal.code;
    if (p->mode == IN_DETECT && p->head_len == 0) p->mode = IN_INFLATED;
    if (p->mode != IN_INFLATED) return CFS_ERR_MISUSE;
    size_t room = CHUNK - (size_t)((p->stats.bytes_xml + p->z_phase) % CHUNK);
    if (len > room) return CFS_ERR_MISUSE;
    if (len == 0) return CFS_OK;
    p->stats.bytes_in += len;
    p->stats.bytes_xml += len;
    cfs_status st = xml_input(p, data, len);
    if (len == room && st == CFS_OK) st = ratio_checkpoint(p, compressed);
    return st;
}

int cfs_input_in_document(const cfs_input *p) { return p->doc == D_IN; }

uint64_t cfs_input_document_offset(const cfs_input *p) { return p->doc_offset; }
uint64_t cfs_input_reread_end(const cfs_input *p) { return p->reread_end; }

cfs_status cfs_input_inflated_origin(cfs_input *p, uint64_t offset, uint64_t checkpoint) {
    if (p->finished || p->mode != IN_DETECT || p->head_len != 0 || p->stats.bytes_xml != 0) return CFS_ERR_MISUSE;
    p->mode = IN_INFLATED;
    p->z_phase = offset % CHUNK;
    p->z_checkpoint = p->ratio_in = checkpoint;
    return CFS_OK;
}

static ssize_t read_full(int fd, uint8_t *buf, size_t len) {
    for (;;) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0 || errno != EINTR) return n;
    }
}

cfs_status cfs_input_feed_fd(cfs_input *p, int fd) {
    if (p->finished) return CFS_ERR_MISUSE;
    if (p->has_fatal) return p->fatal.code;
    if (p->mode == IN_INFLATED) return CFS_ERR_MISUSE;
    if (p->zin == NULL && (p->zin = malloc(ZCHUNK)) == NULL) return set_fatal(p, CFS_ERR_NOMEM, NULL, 0);
    cfs_status st = CFS_OK;
    for (;;) {
        ssize_t n;
        if (p->mode == IN_PLAIN && p->doc == D_IN && p->ops->buffer) {
            /* Plain XML: read straight into the tokenizer's buffer. */
            size_t want = in_place_room(p);
            uint8_t *buf = p->ops->buffer(p->reader, want);
            if (buf == NULL) return set_fatal(p, CFS_ERR_NOMEM, NULL, 0);
            n = read_full(fd, buf, want);
            if (n < 0) return stream_stops(p, CFS_ERR_IO, NULL, errno);
            if (n == 0) return st;
            p->stats.bytes_in += (uint64_t)n;
            p->stats.bytes_xml += (uint64_t)n;
            st = parse_in_place(p, buf, (size_t)n);
        } else {
            n = read_full(fd, p->zin, ZCHUNK);
            if (n < 0) return stream_stops(p, CFS_ERR_IO, NULL, errno);
            if (n == 0) return st;
            st = cfs_input_feed(p, p->zin, (size_t)n);
        }
        if (st != CFS_OK) return st;
    }
}

cfs_status cfs_input_finish(cfs_input *p) {
    if (p->finished) return CFS_ERR_MISUSE;
    p->finished = 1;
    if (!p->has_fatal && p->mode == IN_DETECT && p->head_len > 0) {
        p->mode = IN_PLAIN;
        p->stats.bytes_xml += p->head_len;
        xml_input(p, p->head, p->head_len);
    }
    /* The bytes the member loop holds (a zstd frame's last piece) are read; a gap the input
       ended in ends: the member found in its bytes is read, or it runs to the end. */
    while (!p->has_fatal && p->mode == IN_PACKED) {
        cfs_unpack_result gr = cfs_unpack_finish(p->gz);
        if (gr == CFS_UNPACK_NOMEM) set_fatal(p, CFS_ERR_NOMEM, NULL, 0);
        if (gr != CFS_UNPACK_OK && (gr != CFS_UNPACK_GAP || gunzip_gap(p) != CFS_OK)) break;
        p->z_in = NULL;
        p->z_avail = 0;
        if (gzip_input(p) != CFS_OK) break;
    }
    int truncated_gzip = !p->has_fatal && p->mode == IN_PACKED && cfs_unpack_in_member(p->gz);
    if (truncated_gzip) settle(p);
    int stopped = p->has_fatal && (p->fatal.code == CFS_ERR_ABORTED || p->fatal.code == CFS_ERR_NOMEM);
    int reported = 0;
    p->closing = 1;
    for (;;) {
        if (!p->has_fatal && p->doc == D_SKIP && p->resuming) {
            /* The input ended: what is held tells now (a declaration without its root: none). */
            enum lookahead verdict = resume_at(p->resume, p->resume_len, 0, p->resume_prolog);
            int first;
            resume_told(p, verdict == LA_MORE ? LA_NONE : verdict, &first);
        }
        if (!p->has_fatal && p->doc == D_AWAIT && p->pend_len > 0) start_held_document(p);
        if (!p->has_fatal && p->doc == D_AWAIT && (p->aw == AW_COMMENT || p->aw == AW_PI)) unclosed_misc(p);
        stopped = p->has_fatal && (p->fatal.code == CFS_ERR_ABORTED || p->fatal.code == CFS_ERR_NOMEM);
        if (p->doc != D_IN || stopped) break;
        reported = 1;
        /* Close the open document; an unfinished one reports where it broke off. */
        size_t consumed = 0, used;
        cfs_error err = {0};
        cfs_doc_result r = p->ops->parse(p->reader, NULL, 0, 1, 0, &consumed, &err);
        int stream_error = r == CFS_DOC_ERROR && (truncated_gzip || p->has_fatal);
        if (stream_error) {
            err.code = truncated_gzip ? stream_code(p) : p->fatal.code;
            err.message = truncated_gzip ? truncated_message(p) : p->fatal.message;
        }
        if (r == CFS_DOC_OK) {
            r = CFS_DOC_ERROR;
            err = (cfs_error){ CFS_ERR_XML, "no element found", 0, 0, 0, p->xml_offset - p->doc_offset, 0 };
        }
        p->resumed_inside = 0;
        handle(p, r, NULL, 0, p->xml_offset - p->doc_offset, consumed, &err, &used);
        /* A document the failed one had taken in (swallowed): read from its start, to
           the end again. */
        if (p->resumed_inside && p->replay_len > 0 && !p->has_fatal) {
            if (replay(p) != CFS_OK) break;
            continue;
        }
        /* The input ended: nothing else after the error is searched again (every cut
           has given the tokenizer all the bytes before its final call, so an error it
           reports only now is the same error however the input was cut; and a
           document must not begin in bytes DumpParts' probe ends inside of: one that
           begins here, in a document the failed one had taken in, begins once the
           probe was all given, which DumpParts does not take for the cut's). */
        p->replay_len = 0;
        p->resuming = 0;
        p->resume_len = 0;
        break;
    }
    if (!stopped) end_skip(p);
    if (truncated_gzip && !reported) set_fatal(p, stream_code(p), truncated_message(p), 0);
    if (p->has_fatal) return p->fatal.code;
    if (truncated_gzip) return stream_code(p);
    if (p->stats.documents == 0 && !p->has_gap) {   /* a gap is what the input held */
        p->first_error = (cfs_error){ CFS_ERR_EMPTY, cfs_status_string(CFS_ERR_EMPTY), 0, 0, 0, 0, 0 };
        p->has_error = 1;
        return CFS_ERR_EMPTY;
    }
    if (p->has_error) return p->first_error.code;
    return p->has_gap ? p->first_gap.code : CFS_OK;
}
