/* SPDX-License-Identifier: Apache-2.0 */
/*
 * baseline.c -- benchmarking helpers (include/feedstream_baseline.h): "tokenize only"
 * and "inflate only", the limits `feedstream bench` measures the parsers against.
 * Nothing here is used by the parser itself.
 *
 * The tokenizer loop is Benchmarks/baseline/tokenize.c's, with the parser's input path:
 * bytes are read straight into expat's buffer; when a root element closes, the bytes
 * after it are moved out and fed to the reset parser.
 */
#define _POSIX_C_SOURCE 200809L   /* sigset_t, pthread_sigmask, sigtimedwait under -std=c11 */

#include "feedstream_baseline.h"

#include <errno.h>
#include <expat.h>
#include <pthread.h>
#include <signal.h>
#include <time.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <feedstream_inflate.h>

/* The C core's read sizes (CSources/CFeedStreamInput/limits.def), so the baseline reads as
   convert does: CHUNK (CFS_RATIO_INTERVAL) per parse call, ZCHUNK per compressed read. */
#define CONSTANT(macro, swift, value, ctype, access, doc) __attribute__((unused)) static const size_t BASELINE_##macro = (size_t)value;
#define SIZE(name, swift, value, doc) __attribute__((unused)) static const size_t name = (size_t)value;
#include "../CFeedStreamInput/limits.def"
#define CHUNK BASELINE_CFS_RATIO_INTERVAL

typedef struct {
    XML_Parser xp;
    long depth;
    int done;
    XML_Index end;     /* byte index just past the root's end tag */
    XML_Index base;    /* byte index of the next chunk within the document */
} tok_state;

static void XMLCALL on_start(void *ud, const XML_Char *n, const XML_Char **a) {
    (void)n;
    (void)a;
    ((tok_state *)ud)->depth++;
}

static void XMLCALL on_end(void *ud, const XML_Char *n) {
    (void)n;
    tok_state *s = ud;
    if (--s->depth == 0) {
        s->done = 1;
        s->end = XML_GetCurrentByteIndex(s->xp) + XML_GetCurrentByteCount(s->xp);
        XML_StopParser(s->xp, XML_FALSE);
    }
}

static void XMLCALL on_text(void *ud, const XML_Char *t, int len) {
    (void)ud;
    (void)t;
    (void)len;
}

static int begin(tok_state *s) {
    if (!XML_ParserReset(s->xp, NULL)) return 0;
    XML_SetUserData(s->xp, s);
    XML_SetElementHandler(s->xp, on_start, on_end);
    XML_SetCharacterDataHandler(s->xp, on_text);
    XML_SetParamEntityParsing(s->xp, XML_PARAM_ENTITY_PARSING_NEVER);
    s->depth = 0;
    s->done = 0;
    s->end = 0;
    s->base = 0;
    return 1;
}

static ssize_t read_full(int fd, void *buf, size_t len) {
    for (;;) {
        ssize_t n = read(fd, buf, len);
        if (n >= 0 || errno != EINTR) return n;
    }
}

static int fail(cfs_baseline_stats *st, const char *why) {
    st->error = why;
    return -1;
}

static int is_space(char c) { return c == ' ' || c == '\n' || c == '\r' || c == '\t'; }

/* Bytes in caller memory (what follows a root end): split into documents and parse. */
static int tokenize_rest(tok_state *s, const char *p, size_t len, cfs_baseline_stats *st) {
    while (len > 0) {
        if (s->depth == 0 && !s->done && s->base == 0) {
            while (len > 0 && is_space(*p)) { p++; len--; }
            if (len == 0) return 0;
        }
        if (XML_Parse(s->xp, p, (int)len, 0) == XML_STATUS_ERROR) {
            if (!s->done) return fail(st, XML_ErrorString(XML_GetErrorCode(s->xp)));
            size_t used = (size_t)(s->end - s->base);
            st->documents++;
            p += used;
            len -= used;
            if (!begin(s)) return fail(st, "out of memory");
            continue;
        }
        s->base += (XML_Index)len;
        len = 0;
    }
    return 0;
}

/* Where the baselines' bytes come from: a descriptor read as it is (PLAIN), gzip
   inflated on this thread, member after member (GZIP), or either, told by the first
   bytes (DETECT: what inflate only passes through or inflates). One member loop for
   both baselines. */
enum { SRC_PLAIN, SRC_GZIP, SRC_DETECT };
typedef struct {
    int fd;
    int mode;
    size_t read_max;      /* the most a read of plain input asks for */
    cfs_unpack *z;        /* the member loop every reader of gzip runs */
    uint8_t *in;          /* ZCHUNK bytes read, inflated from `next` */
    const uint8_t *next;
    size_t avail;
    int started, eof;     /* started: the stream's first member was begun */
} byte_source;

/* Up to `len` bytes of the stream into `buf`: > 0 how many, 0 at its end, -1 on an
   error (st->error says which). Counts the bytes read in st->bytes_in. */
static ssize_t source_fill(byte_source *src, uint8_t *buf, size_t len, cfs_baseline_stats *st) {
    if (src->mode != SRC_GZIP) {
        /* Plain bytes are read straight into `buf`; the first read of DETECT tells. */
        if (src->eof) return 0;
        ssize_t n = read_full(src->fd, buf, len < src->read_max ? len : src->read_max);
        if (n < 0) return fail(st, "read error");
        st->bytes_in += (uint64_t)n;
        src->eof = n == 0;
        if (src->mode == SRC_PLAIN || n < 2 || buf[0] != 0x1f || buf[1] != 0x8b) {
            src->mode = SRC_PLAIN;
            return n;
        }
        /* Gzip: what was read is inflated from the input buffer. */
        memcpy(src->in, buf, (size_t)n);
        src->next = src->in;
        src->avail = (size_t)n;
        src->mode = SRC_GZIP;
    }
    for (;;) {
        if (src->avail == 0 && !src->eof) {
            ssize_t n = read_full(src->fd, src->in, ZCHUNK);
            if (n < 0) return fail(st, "read error");
            st->bytes_in += (uint64_t)n;
            src->eof = n == 0;
            src->next = src->in;
            src->avail = (size_t)n;
        }
        if (!src->started) {
            if (src->z == NULL && (src->z = cfs_unpack_new()) == NULL) return fail(st, "out of memory");
            cfs_unpack_set_engine(src->z, st->inflater ? (cfs_inflate_engine)st->inflater : cfs_inflate_default_engine());
            if (cfs_unpack_begin(src->z, CFS_PACK_GZIP) != CFS_UNPACK_OK) return fail(st, "inflate init failed");
            src->started = 1;
        }
        size_t used, got;
        cfs_unpack_result zr = cfs_unpack_step(src->z, src->next, src->avail, &used, buf, len, &got);
        src->next += used;
        src->avail -= used;
        if (zr < 0) return fail(st, "corrupt gzip data");
        if (got > 0) return (ssize_t)got;
        /* The baseline reads intact gzip only: a gap (cfs_unpack_step) ends it. */
        if (zr == CFS_UNPACK_GAP || cfs_unpack_in_gap(src->z)) return fail(st, "corrupt gzip data");
        if (src->avail == 0 && src->eof) {
            if (cfs_unpack_in_member(src->z)) return fail(st, "truncated gzip data");
            return 0;
        }
        /* Input left and no step taken: never spin on it. */
        if (zr == CFS_UNPACK_NEED && src->avail > 0) return fail(st, "corrupt gzip data");
    }
}

/* A source with its input buffer and no input yet; 0 when out of memory (free it with
   source_close all the same). */
static int source_open(byte_source *src) {
    memset(src, 0, sizeof *src);
    return (src->in = malloc(ZCHUNK)) != NULL;
}

/* Points `src` at a new input, `fd`, whose plain reads ask for at most `read_max` bytes
   (its buffer and inflater kept). */
static void source_reset(byte_source *src, int fd, int mode, size_t read_max) {
    src->fd = fd;
    src->mode = mode;
    src->read_max = read_max;
    src->next = NULL;
    src->avail = 0;
    src->started = 0;
    src->eof = 0;
}

static void source_close(byte_source *src) {
    cfs_unpack_free(src->z);
    free(src->in);
}

/* The tokenizer over `src` (see the header). */
struct cfs_baseline_tokenizer {
    XML_Parser xp;
    char *carry;        /* CHUNK bytes: what follows a root end, parsed from memory */
    byte_source src;    /* its input buffer and inflater kept between runs */
};

cfs_baseline_tokenizer *cfs_baseline_tokenizer_new(void) {
    cfs_baseline_tokenizer *t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    t->xp = XML_ParserCreateNS(NULL, '\x01');
    t->carry = malloc(CHUNK);
    if (!source_open(&t->src) || t->xp == NULL || t->carry == NULL) {
        cfs_baseline_tokenizer_free(t);
        return NULL;
    }
    return t;
}

void cfs_baseline_tokenizer_free(cfs_baseline_tokenizer *t) {
    if (t == NULL) return;
    if (t->xp) XML_ParserFree(t->xp);
    free(t->carry);
    source_close(&t->src);
    free(t);
}

static int tokenize(cfs_baseline_tokenizer *t, cfs_baseline_stats *st) {
    *st = (cfs_baseline_stats){ .inflater = st->inflater };
    byte_source *src = &t->src;
    tok_state s = { t->xp, 0, 0, 0, 0 };
    char *carry = t->carry;
    int rc = 0;
    if (!begin(&s)) {
        rc = fail(st, "out of memory");
        goto out;
    }
    int first = 1;
    for (;;) {
        char *buf = XML_GetBuffer(s.xp, (int)CHUNK);
        if (buf == NULL) { rc = fail(st, "out of memory"); goto out; }
        ssize_t n = source_fill(src, (uint8_t *)buf, CHUNK, st);
        if (n < 0) { rc = -1; goto out; }
        if (n == 0) break;
        if (first && src->mode == SRC_PLAIN && n >= 2 && (uint8_t)buf[0] == 0x1f && (uint8_t)buf[1] == 0x8b) {
            rc = fail(st, "gzip input: tokenize-only reads plain XML");
            goto out;
        }
        first = 0;
        st->bytes_xml += (uint64_t)n;
        if (s.depth == 0 && !s.done && s.base == 0) {
            /* Between documents: skip whitespace, then parse the rest from memory. */
            size_t skip = 0;
            while (skip < (size_t)n && is_space(buf[skip])) skip++;
            if (skip > 0) {
                memcpy(carry, buf + skip, (size_t)n - skip);
                if (tokenize_rest(&s, carry, (size_t)n - skip, st)) { rc = -1; goto out; }
                continue;
            }
        }
        if (XML_ParseBuffer(s.xp, (int)n, 0) == XML_STATUS_ERROR) {
            if (!s.done) { rc = fail(st, XML_ErrorString(XML_GetErrorCode(s.xp))); goto out; }
            /* A root closed inside this chunk: the rest starts the next document. */
            size_t used = (size_t)(s.end - s.base);
            size_t rest = (size_t)n - used;
            memcpy(carry, buf + used, rest);
            st->documents++;
            if (!begin(&s)) { rc = fail(st, "out of memory"); goto out; }
            if (tokenize_rest(&s, carry, rest, st)) { rc = -1; goto out; }
            continue;
        }
        s.base += (XML_Index)n;
    }
    if (s.depth != 0 || s.base != 0) rc = fail(st, "truncated document at end of input");
out:
    return rc;
}

int cfs_baseline_tokenizer_run(cfs_baseline_tokenizer *t, int fd, int gzip, cfs_baseline_stats *st) {
    source_reset(&t->src, fd, gzip ? SRC_GZIP : SRC_PLAIN, CHUNK);
    return tokenize(t, st);
}

/* One run with a tokenizer of its own. */
static int run_once(int fd, int gzip, cfs_baseline_stats *st) {
    cfs_baseline_tokenizer *t = cfs_baseline_tokenizer_new();
    if (t == NULL) {
        *st = (cfs_baseline_stats){ .inflater = st->inflater };
        return fail(st, "out of memory");
    }
    int rc = cfs_baseline_tokenizer_run(t, fd, gzip, st);
    cfs_baseline_tokenizer_free(t);
    return rc;
}

int cfs_baseline_tokenize_fd(int fd, cfs_baseline_stats *st) { return run_once(fd, 0, st); }

int cfs_baseline_tokenize_gzip_fd(int fd, cfs_baseline_stats *st) { return run_once(fd, 1, st); }

static int write_all(int fd, const uint8_t *p, size_t len) {
    while (len > 0) {
        ssize_t n = write(fd, p, len);
        if (n < 0) {
            if (errno == EINTR) continue;
            return -1;
        }
        p += n;
        len -= (size_t)n;
    }
    return 0;
}

int cfs_baseline_inflate_fd(int in_fd, int out_fd, cfs_baseline_stats *st) {
    *st = (cfs_baseline_stats){ .inflater = st->inflater };
    /* A reader that goes away must end the run with EPIPE, not kill the process: block
       SIGPIPE in this thread, and consume a pending one before restoring the mask. */
    sigset_t pipe_set, old_set;
    sigemptyset(&pipe_set);
    sigaddset(&pipe_set, SIGPIPE);
    if (out_fd >= 0) pthread_sigmask(SIG_BLOCK, &pipe_set, &old_set);
    byte_source src;
    uint8_t *out = malloc(CHUNK);
    int rc = 0;
    int opened = source_open(&src);
    source_reset(&src, in_fd, SRC_DETECT, ZCHUNK);
    if (!opened || out == NULL) {
        rc = fail(st, "out of memory");
        goto out;
    }
    for (;;) {
        ssize_t n = source_fill(&src, out, CHUNK, st);
        if (n < 0) { rc = -1; break; }
        if (n == 0) break;
        st->bytes_xml += (uint64_t)n;
        if (out_fd >= 0 && write_all(out_fd, out, (size_t)n)) {
            if (errno != EPIPE) rc = fail(st, "write error");
            break;
        }
    }
out:
    if (out_fd >= 0) {
        struct timespec zero = { 0, 0 };
        while (sigtimedwait(&pipe_set, NULL, &zero) == SIGPIPE) {}
        pthread_sigmask(SIG_SETMASK, &old_set, NULL);
    }
    source_close(&src);
    free(out);
    return rc;
}
