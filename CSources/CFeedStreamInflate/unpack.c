/* SPDX-License-Identifier: Apache-2.0 */
/*
 * unpack.c -- a compressed stream as archives hold it: gzip members (RFC 1952) or zstd
 * frames (RFC 8878) one after another, zero bytes between them allowed as padding (and
 * zstd's skippable frames, which its decoder passes over). The one member loop every
 * reader of compressed input runs (feedstream_inflate.h); a member is a gzip member or
 * a zstd frame.
 *
 * A member that fails (a bad header, data that cannot be decoded, a checksum or length
 * that does not match) and bytes between members that are neither padding nor a member
 * do not end the stream: reading resumes at the next member, the first place after the
 * failed member's start that
 *   - begins as a member does (gzip: 1F 8B, method 8, no reserved flag; zstd: the
 *     magic number 28 B5 2F FD and a frame header without its reserved bit), and
 *   - decodes (gzip with zlib, apart) to its end or to TRIAL_OUT bytes without an error;
 * the bytes from the failed member's start to there are a gap (cfs_unpack_gap), told
 * once reading resumes (CFS_UNPACK_GAP) or the input ends. Where a member is cut short
 * and another follows, the decoder runs on into the next member before it fails: so
 * while a member is inflated, its bytes from the first place that begins as a member
 * are kept (at most HOLD_CAP of them before where it failed), and the search starts
 * there. What is kept after a possible start is inflated again (replayed) once it is
 * chosen. Every choice depends on the bytes only, never on how they came in.
 */
#include "include/feedstream_inflate.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>
#include <zstd_errors.h>

/* Compressed bytes kept before where a member failed, for a member that begins inside
   it (the failed one was cut short). */
#define HOLD_CAP ((size_t)1 << 20)
/* A possible member start is the next member once it inflates this many bytes (or to
   its end) without an error. */
#define TRIAL_OUT ((size_t)16 << 10)
/* Trials per gap: one of TRIAL_OUT bytes per TRIAL_PACE compressed bytes of the gap
   (and one more), so that a gap made of possible starts costs a bounded multiple of its
   bytes. */
#define TRIAL_PACE 256

/* The largest zstd window decoded (2^27 bytes, zstd's own default limit): a frame that
   asks for more is corrupt data, not an allocation. */
#define ZSTD_WINDOW_LOG_MAX 27

/* A zstd frame's bytes are given to libzstd in pieces of ZSTD_PIECE bytes counted from
   its first (the last piece cut short only at the input's end), and it decodes into a
   buffer of ZSTD_ROOM bytes that is handed out whole before it is called again: so what
   it is given, call by call, depends on the frame's bytes only. libzstd's output before
   an error depends on how its input was cut (it decodes a whole frame in one pass when
   the frame is all in its input, writing nothing of one that fails; it copies raw
   blocks out as their bytes come); with these calls a failing frame gives the same
   bytes however the stream came in. */
#define ZSTD_PIECE ((size_t)64 << 10)
#define ZSTD_ROOM ((size_t)128 << 10)

/* A decoder of one member: gzip (zlib or ISA-L) or zstd (with its piece and output). */
typedef struct {
    cfs_inflate *z;
    ZSTD_DCtx *d;
    uint8_t *zin, *zout;
    size_t zin_len, zin_off;     /* the piece: bytes staged, and given to libzstd */
    size_t zout_len, zout_off;   /* decoded, and handed out */
    cfs_inflate_result zdone;    /* the frame's end or failure, once zout is handed out; OK before */
    int at_end;                  /* the input ended: the piece is given as it is */
    size_t leftover;             /* at the frame's end: staged bytes after it (the next member's) */
} decoder;

struct cfs_unpack {
    cfs_pack_format format;
    decoder dec;         /* made at the first begin, reused */
    decoder trial;       /* zlib or zstd, trying a possible member start during a resync */
    cfs_inflate_engine engine;
    enum { G_MEMBER, G_BETWEEN, G_RESYNC, G_FAILED } state;
    uint64_t taken;      /* bytes of the caller's input taken (every step's *used) */
    uint64_t consumed;   /* compressed bytes inflate took, over all members */
    uint64_t padding;    /* zeros skipped between members */
    uint64_t members;
    uint64_t member_start;
    /* Bytes kept (hold_at: the stream offset of the first): in a member, from the first
       possible member start after its own; in a resync, from the one being tried. */
    uint8_t *hold;
    size_t hold_len, hold_cap;
    uint64_t hold_at;
    /* The chosen member's bytes, inflated before the caller's next ones. */
    uint8_t *replay;
    size_t replay_off, replay_len, replay_cap;
    /* The last gap: [gap_from, gap_to) of the stream, and why. */
    uint64_t gap_from, gap_to;
    const char *gap_why;
    /* The trial of hold[0]: hold bytes given, output so far, output over the gap. */
    int trial_on;
    size_t trial_in, trial_out;
    uint64_t trial_spent;
    uint8_t *trial_buf;
};

cfs_unpack *cfs_unpack_new(void) {
    cfs_unpack *g = calloc(1, sizeof(cfs_unpack));
    if (g != NULL) g->engine = cfs_inflate_default_engine();
    return g;
}

void cfs_unpack_set_engine(cfs_unpack *g, cfs_inflate_engine engine) { g->engine = cfs_inflate_usable_engine(engine); }

static void decoder_free(decoder *d) {
    cfs_inflate_free(d->z);
    ZSTD_freeDCtx(d->d);
    free(d->zin);
    free(d->zout);
}

void cfs_unpack_free(cfs_unpack *g) {
    if (g == NULL) return;
    decoder_free(&g->dec);
    decoder_free(&g->trial);
    free(g->hold);
    free(g->replay);
    free(g->trial_buf);
    free(g);
}

/* The stream offset of the next byte a step reads: the caller's next, or a replayed one. */
static uint64_t here(const cfs_unpack *g) { return g->taken - g->replay_len; }

/* Appends n bytes to the kept ones; 0 when out of memory. */
static int hold_add(cfs_unpack *g, const uint8_t *b, size_t n) {
    if (n == 0) return 1;
    if (g->hold_len + n > g->hold_cap) {
        size_t cap = g->hold_cap ? g->hold_cap : 64 << 10;
        while (cap < g->hold_len + n) cap *= 2;
        uint8_t *h = realloc(g->hold, cap);
        if (h == NULL) return 0;
        g->hold = h;
        g->hold_cap = cap;
    }
    memcpy(g->hold + g->hold_len, b, n);
    g->hold_len += n;
    return 1;
}

static void hold_drop(cfs_unpack *g, size_t n) {
    if (n >= g->hold_len) {
        g->hold_at += g->hold_len;
        g->hold_len = 0;
        return;
    }
    memmove(g->hold, g->hold + n, g->hold_len - n);
    g->hold_len -= n;
    g->hold_at += n;
}

/* Whether b[0..n) may begin a member: as far as they go, gzip's 1F 8B 08 and a flag
   byte without reserved bits, or zstd's 28 B5 2F FD and a frame header descriptor
   without its reserved bit. */
static int may_start(cfs_pack_format f, const uint8_t *b, size_t n) {
    static const uint8_t gz[3] = { 0x1f, 0x8b, 0x08 }, zs[4] = { 0x28, 0xb5, 0x2f, 0xfd };
    const uint8_t *magic = f == CFS_PACK_ZSTD ? zs : gz;
    size_t len = f == CFS_PACK_ZSTD ? 4 : 3;
    uint8_t reserved = f == CFS_PACK_ZSTD ? 0x08 : 0xe0;
    for (size_t k = 0; k < n && k < len; k++)
        if (b[k] != magic[k]) return 0;
    return n <= len || (b[len] & reserved) == 0;
}

/* The first k in b[from..n) where a member may start (its bytes may run past n), or n. */
static size_t next_start(cfs_pack_format f, const uint8_t *b, size_t n, size_t from) {
    uint8_t first = f == CFS_PACK_ZSTD ? 0x28 : 0x1f;
    for (size_t k = from; k < n; k++) {
        const uint8_t *p = memchr(b + k, first, n - k);
        if (p == NULL) return n;
        k = (size_t)(p - b);
        if (may_start(f, b + k, n - k)) return k;
    }
    return n;
}

int cfs_pack_detect(const uint8_t *b, size_t n, int at_end, cfs_pack_format *format) {
    *format = CFS_PACK_NONE;
    if (n == 0) return at_end;
    if (b[0] == 0x1f) {
        if (n < 2) return at_end;
        if (b[1] == 0x8b) *format = CFS_PACK_GZIP;
        return 1;
    }
    if (b[0] == 0x28) {
        static const uint8_t zs[4] = { 0x28, 0xb5, 0x2f, 0xfd };
        size_t k = 1;
        while (k < n && k < 4 && b[k] == zs[k]) k++;
        if (k == 4) *format = CFS_PACK_ZSTD;
        return k == 4 || k < n || at_end;
    }
    return 1;
}

const char *cfs_pack_name(cfs_pack_format f) { return f == CFS_PACK_ZSTD ? "zstd" : "gzip"; }

/* Begins a member in d: gzip with `engine`, or a zstd frame. */
static cfs_inflate_result decoder_begin(decoder *d, cfs_pack_format f, cfs_inflate_engine engine) {
    if (f == CFS_PACK_ZSTD) {
        if (d->d == NULL) {
            if ((d->d = ZSTD_createDCtx()) == NULL) return CFS_INFLATE_NOMEM;
            if (ZSTD_isError(ZSTD_DCtx_setParameter(d->d, ZSTD_d_windowLogMax, ZSTD_WINDOW_LOG_MAX)))
                return CFS_INFLATE_ERROR;
        }
        if (d->zin == NULL && (d->zin = malloc(ZSTD_PIECE)) == NULL) return CFS_INFLATE_NOMEM;
        if (d->zout == NULL && (d->zout = malloc(ZSTD_ROOM)) == NULL) return CFS_INFLATE_NOMEM;
        d->zin_len = d->zin_off = d->zout_len = d->zout_off = d->leftover = 0;
        d->zdone = CFS_INFLATE_OK;
        d->at_end = 0;
        return ZSTD_isError(ZSTD_DCtx_reset(d->d, ZSTD_reset_session_only)) ? CFS_INFLATE_ERROR : CFS_INFLATE_OK;
    }
    if (d->z == NULL && (d->z = cfs_inflate_new()) == NULL) return CFS_INFLATE_NOMEM;
    return cfs_inflate_begin(d->z, engine);
}

/* One step of the member in d (cfs_inflate_step's contract). A zstd frame ends where
   libzstd says it is whole; the bytes staged past it are `leftover`. */
static cfs_inflate_result decoder_step(decoder *d, cfs_pack_format f, const uint8_t *in, size_t in_len, size_t *used,
                                       uint8_t *out, size_t out_len, size_t *written) {
    if (f != CFS_PACK_ZSTD) return cfs_inflate_step(d->z, in, in_len, used, out, out_len, written);
    *used = 0;
    *written = 0;
    for (;;) {
        if (d->zout_off < d->zout_len) {   /* hand out what was decoded */
            size_t n = d->zout_len - d->zout_off < out_len - *written ? d->zout_len - d->zout_off : out_len - *written;
            memcpy(out + *written, d->zout + d->zout_off, n);
            *written += n;
            d->zout_off += n;
            if (d->zout_off < d->zout_len) return CFS_INFLATE_OK;   /* no room left */
        }
        if (d->zdone != CFS_INFLATE_OK) return d->zdone;
        if (d->zin_off == d->zin_len && d->zin_len == ZSTD_PIECE) d->zin_len = d->zin_off = 0;   /* the next piece */
        if (d->zin_off < d->zin_len && (d->zin_len == ZSTD_PIECE || d->at_end)) {
            ZSTD_inBuffer ib = { d->zin + d->zin_off, d->zin_len - d->zin_off, 0 };
            ZSTD_outBuffer ob = { d->zout, ZSTD_ROOM, 0 };
            size_t r = ZSTD_decompressStream(d->d, &ob, &ib);
            d->zin_off += ib.pos;
            d->zout_len = ob.pos;
            d->zout_off = 0;
            if (ZSTD_isError(r)) {
                if (ZSTD_getErrorCode(r) == ZSTD_error_memory_allocation) return CFS_INFLATE_NOMEM;
                d->zdone = CFS_INFLATE_ERROR;
            } else if (r == 0) {
                d->zdone = CFS_INFLATE_END;
                d->leftover = d->zin_len - d->zin_off;
            } else if (ib.pos == 0 && ob.pos == 0) {
                /* No progress: at the input's end the frame is cut short (its bytes left
                   are dropped, so that finishing ends); else more must come. */
                if (d->at_end) d->zin_off = d->zin_len;
                return *written > 0 ? CFS_INFLATE_OK : CFS_INFLATE_STALL;
            }
            continue;
        }
        if (*used == in_len || d->at_end) return *written > 0 ? CFS_INFLATE_OK : CFS_INFLATE_STALL;
        /* Stage the caller's bytes, up to the piece's end. */
        size_t n = in_len - *used < ZSTD_PIECE - d->zin_len ? in_len - *used : ZSTD_PIECE - d->zin_len;
        memcpy(d->zin + d->zin_len, in + *used, n);
        d->zin_len += n;
        *used += n;
    }
}

/* The input ended: a zstd frame's last piece is given as it is. Whether d holds bytes it
   has not decoded or handed out. */
static int decoder_at_end(decoder *d) {
    d->at_end = 1;
    return d->zin != NULL && d->zdone == CFS_INFLATE_OK && (d->zin_off < d->zin_len || d->zout_off < d->zout_len);
}

/* Keeps no possible start more than HOLD_CAP before `at`: drops the kept bytes up to the
   next possible start, as often as needed. */
static void hold_trim(cfs_unpack *g, uint64_t at) {
    while (g->hold_len > 0 && at > g->hold_at && at - g->hold_at > HOLD_CAP) {
        size_t k = next_start(g->format, g->hold, g->hold_len, 1);
        hold_drop(g, k);
    }
}

/* In a member: its bytes b[0..n), at stream offset `at`, were inflated; keeps them from
   the first possible member start after the member's own. */
static int hold_member_bytes(cfs_unpack *g, const uint8_t *b, size_t n, uint64_t at) {
    uint64_t end = at + n;
    if (g->hold_len == 0) {
        size_t k = next_start(g->format, b, n, 0);
        if (k < n && at + k == g->member_start) k = next_start(g->format, b, n, k + 1);
        if (k == n) return 1;
        g->hold_at = at + k;
        b += k;
        n -= k;
    }
    if (!hold_add(g, b, n)) return 0;
    hold_trim(g, end);
    return 1;
}

/* What step() returns when reading fails: a member that cannot be read, or bytes that
   are no member between members; g->gap_from says where the gap starts. */
#define GAP_BEGINS ((cfs_unpack_result)100)

/* The next member starts at the stream offset `at`. */
static cfs_unpack_result member(cfs_unpack *g, uint64_t at) {
    g->state = G_MEMBER;
    g->members++;
    g->member_start = at;
    g->hold_len = 0;
    cfs_inflate_result r = decoder_begin(&g->dec, g->format, g->engine);
    if (r == CFS_INFLATE_NOMEM) {
        g->state = G_FAILED;
        return CFS_UNPACK_NOMEM;
    }
    return r == CFS_INFLATE_OK ? CFS_UNPACK_OK : CFS_UNPACK_CORRUPT;
}

cfs_unpack_result cfs_unpack_begin(cfs_unpack *g, cfs_pack_format format) {
    g->format = format == CFS_PACK_ZSTD ? CFS_PACK_ZSTD : CFS_PACK_GZIP;
    g->taken = g->consumed = g->padding = g->members = g->member_start = 0;
    g->hold_len = g->replay_len = g->replay_off = 0;
    g->gap_from = g->gap_to = 0;
    g->gap_why = NULL;
    g->trial_on = 0;
    g->trial_spent = 0;
    cfs_unpack_result r = member(g, 0);
    if (r == CFS_UNPACK_CORRUPT) g->state = G_FAILED;
    return r;
}

/* Reading failed; the next byte to read is at stream offset `at`. The search for the
   next member starts at the first possible start kept, then goes on in the bytes still
   to replay and the caller's still to come. */
static void resync(cfs_unpack *g, uint64_t at) {
    g->state = G_RESYNC;
    g->trial_on = 0;
    g->trial_spent = 0;
    hold_trim(g, at);
    if (g->replay_len > 0) {
        /* The kept bytes may already reach into them (a zstd piece staged past the failure). */
        size_t skip = 0;
        if (g->hold_len == 0) g->hold_at = at;
        else if (g->hold_at + g->hold_len > at) skip = (size_t)(g->hold_at + g->hold_len - at);
        if (skip < g->replay_len && !hold_add(g, g->replay + g->replay_off + skip, g->replay_len - skip))
            g->state = G_FAILED;
        g->replay_len = g->replay_off = 0;
    }
}

/* Puts b[0..n), bytes taken but not read, back before the bytes still to replay. */
static int unread(cfs_unpack *g, const uint8_t *b, size_t n) {
    uint8_t *r = malloc(n + g->replay_len);
    if (r == NULL) return 0;
    memcpy(r, b, n);
    if (g->replay_len > 0) memcpy(r + n, g->replay + g->replay_off, g->replay_len);
    free(g->replay);
    g->replay = r;
    g->replay_cap = n + g->replay_len;
    g->replay_off = 0;
    g->replay_len += n;
    return 1;
}

/* The search of a resync over the kept bytes: CFS_UNPACK_GAP once a member is chosen
   (replayed from the next step), CFS_UNPACK_NEED when more bytes must come. At the
   input's end (`end`), a member being tried that has not failed is chosen. */
static cfs_unpack_result search(cfs_unpack *g, int end) {
    for (;;) {
        if (!g->trial_on) {
            hold_drop(g, next_start(g->format, g->hold, g->hold_len, 0));
            if (g->hold_len < 4) {   /* not known yet, or at the end none */
                if (end) hold_drop(g, g->hold_len);
                return CFS_UNPACK_NEED;
            }
            uint64_t allowed = TRIAL_OUT * (1 + (g->hold_at - g->gap_from) / TRIAL_PACE);
            if (g->trial_spent + TRIAL_OUT > allowed) {   /* past the gap's budget: not tried */
                hold_drop(g, 1);
                continue;
            }
            if (g->trial_buf == NULL && (g->trial_buf = malloc(TRIAL_OUT)) == NULL) return CFS_UNPACK_NOMEM;
            cfs_inflate_result br = decoder_begin(&g->trial, g->format, CFS_INFLATE_ZLIB);
            if (br == CFS_INFLATE_NOMEM) return CFS_UNPACK_NOMEM;
            if (br != CFS_INFLATE_OK) {
                hold_drop(g, 1);
                continue;
            }
            g->trial_on = 1;
            g->trial_in = g->trial_out = 0;
        }
        size_t u = 0, n = 0;
        cfs_inflate_result r = CFS_INFLATE_OK;
        if (end) decoder_at_end(&g->trial);
        if (g->trial_in < g->hold_len || end)
            r = decoder_step(&g->trial, g->format, g->hold + g->trial_in, g->hold_len - g->trial_in, &u, g->trial_buf,
                             TRIAL_OUT - g->trial_out, &n);
        g->trial_in += u;
        g->trial_out += n;
        g->trial_spent += n;
        if (r == CFS_INFLATE_NOMEM) return CFS_UNPACK_NOMEM;
        int chosen = r == CFS_INFLATE_END || g->trial_out == TRIAL_OUT
                     || (end && r != CFS_INFLATE_ERROR && g->trial_in == g->hold_len);
        if (chosen) {
            /* The kept bytes from the chosen start are inflated again, from the next step. */
            g->trial_on = 0;
            g->gap_to = g->hold_at;
            uint8_t *t = g->replay;
            size_t cap = g->replay_cap;
            g->replay = g->hold;
            g->replay_cap = g->hold_cap;
            g->replay_off = 0;
            g->replay_len = g->hold_len;
            g->hold = t;
            g->hold_cap = cap;
            g->hold_len = 0;
            if (member(g, g->gap_to) == CFS_UNPACK_NOMEM) return CFS_UNPACK_NOMEM;
            return CFS_UNPACK_GAP;
        }
        if (r == CFS_INFLATE_ERROR || (u == 0 && n == 0 && g->trial_in < g->hold_len)) {
            g->trial_on = 0;
            hold_drop(g, 1);
            continue;
        }
        if (g->trial_in == g->hold_len) return CFS_UNPACK_NEED;
    }
}

/* One step over in[0..in_len), the caller's bytes or replayed ones, the first at stream
   offset `at`: *used of them taken. */
static cfs_unpack_result step(cfs_unpack *g, const uint8_t *in, size_t in_len, uint64_t at, size_t *used,
                              uint8_t *out, size_t out_len, size_t *written) {
    *used = 0;
    *written = 0;
    if (g->state == G_FAILED) return CFS_UNPACK_CORRUPT;
    if (g->state == G_RESYNC) {
        if (g->hold_len == 0) g->hold_at = at;
        if (!hold_add(g, in, in_len)) {
            g->state = G_FAILED;
            return CFS_UNPACK_NOMEM;
        }
        *used = in_len;
        return search(g, 0);
    }
    if (g->state == G_BETWEEN) {
        /* Between members: another member, or padding zeros, or bytes that are neither. */
        size_t i = 0;
        while (i < in_len && in[i] == 0) i++;
        g->padding += i;
        *used = i;
        if (i == in_len) return CFS_UNPACK_NEED;
        /* zstd: a frame, or a skippable frame (magic 0x184D2A50 to 5F), which its decoder
           passes over. */
        int skippable = g->format == CFS_PACK_ZSTD && (in[i] & 0xf0) == 0x50;
        if (!may_start(g->format, in + i, 1) && !skippable) {
            g->gap_from = at + i;
            g->gap_why = g->format == CFS_PACK_ZSTD ? "trailing garbage after zstd data" : "trailing garbage after gzip data";
            g->hold_len = 0;
            return GAP_BEGINS;
        }
        cfs_unpack_result r = member(g, at + i);
        if (r == CFS_UNPACK_NOMEM) return r;
    }
    size_t u = 0, n = 0;
    cfs_inflate_result zr = decoder_step(&g->dec, g->format, in + *used, in_len - *used, &u, out, out_len, &n);
    if (zr != CFS_INFLATE_NOMEM && !hold_member_bytes(g, in + *used, u, at + *used)) zr = CFS_INFLATE_NOMEM;
    *used += u;
    *written = n;
    g->consumed += u;
    switch (zr) {
    case CFS_INFLATE_NOMEM:
        g->state = G_FAILED;
        return CFS_UNPACK_NOMEM;
    case CFS_INFLATE_ERROR:
        g->gap_from = g->member_start;
        g->gap_why = g->format == CFS_PACK_ZSTD ? "corrupt zstd data" : "corrupt gzip data";
        return GAP_BEGINS;
    case CFS_INFLATE_END:
        g->state = G_BETWEEN;
        g->hold_len = 0;
        return CFS_UNPACK_OK;
    case CFS_INFLATE_STALL:
        return n == 0 ? CFS_UNPACK_NEED : CFS_UNPACK_OK;
    default:
        return n == 0 && *used == in_len ? CFS_UNPACK_NEED : CFS_UNPACK_OK;
    }
}

cfs_unpack_result cfs_unpack_step(cfs_unpack *g, const uint8_t *in, size_t in_len, size_t *used,
                                  uint8_t *out, size_t out_len, size_t *written) {
    *used = 0;
    *written = 0;
    for (;;) {
        int replaying = g->replay_len > 0;
        const uint8_t *src = replaying ? g->replay + g->replay_off : in + *used;
        size_t src_len = replaying ? g->replay_len : in_len - *used;
        size_t u = 0, n = 0;
        cfs_unpack_result r = step(g, src, src_len, here(g), &u, out, out_len, &n);
        if (replaying) {
            g->replay_off += u;
            g->replay_len -= u;
        } else {
            g->taken += u;
            *used += u;
        }
        *written = n;
        if (g->dec.zdone != CFS_INFLATE_OK && g->dec.zin_off < g->dec.zin_len) {
            /* A zstd frame ended or failed with bytes staged past it: they are read again,
               as the next member's or in the search for it. */
            size_t left = g->dec.zin_len - g->dec.zin_off;
            if (!unread(g, g->dec.zin + g->dec.zin_off, left)) {
                g->state = G_FAILED;
                return CFS_UNPACK_NOMEM;
            }
            g->consumed -= left;
            g->dec.zin_off = g->dec.zin_len;
        }
        if (r == GAP_BEGINS) {
            resync(g, here(g));
            if (g->state == G_FAILED) return CFS_UNPACK_NOMEM;
            if (n > 0) return CFS_UNPACK_OK;   /* what came before the failure goes out first */
            continue;
        }
        /* Replayed bytes used up: the caller's come next. */
        if (replaying && g->replay_len == 0 && r == CFS_UNPACK_NEED && n == 0) continue;
        if (replaying && r == CFS_UNPACK_NEED) return CFS_UNPACK_OK;
        return r;
    }
}

cfs_unpack_result cfs_unpack_finish(cfs_unpack *g) {
    if (g->state == G_MEMBER && g->format == CFS_PACK_ZSTD && decoder_at_end(&g->dec)) return CFS_UNPACK_OK;
    if (g->state != G_RESYNC) return CFS_UNPACK_NEED;
    cfs_unpack_result r = search(g, 1);
    if (r == CFS_UNPACK_GAP || r == CFS_UNPACK_NOMEM) return r;
    /* No member after the gap: it runs to the end. */
    g->gap_to = g->taken;
    g->state = G_BETWEEN;
    g->hold_len = 0;
    return CFS_UNPACK_GAP;
}

void cfs_unpack_gap(const cfs_unpack *g, uint64_t *from, uint64_t *to, const char **why) {
    *from = g->gap_from;
    *to = g->gap_to;
    *why = g->gap_why ? g->gap_why : g->format == CFS_PACK_ZSTD ? "corrupt zstd data" : "corrupt gzip data";
}

cfs_pack_format cfs_unpack_format(const cfs_unpack *g) { return g->format; }

cfs_inflate_engine cfs_unpack_engine(const cfs_unpack *g) {
    return g->members > 0 && g->dec.z != NULL ? cfs_inflate_current_engine(g->dec.z) : g->engine;
}
int cfs_unpack_in_member(const cfs_unpack *g) { return g->state == G_MEMBER; }
int cfs_unpack_in_gap(const cfs_unpack *g) { return g->state == G_RESYNC; }
uint64_t cfs_unpack_consumed(const cfs_unpack *g) { return g->consumed; }
uint64_t cfs_unpack_padding(const cfs_unpack *g) { return g->padding; }
uint64_t cfs_unpack_taken(const cfs_unpack *g) { return g->taken; }
uint64_t cfs_unpack_members(const cfs_unpack *g) { return g->members; }
uint64_t cfs_unpack_member_start(const cfs_unpack *g) { return g->member_start; }
