/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gunzip.c -- a gzip stream as the gzip format (RFC 1952) and concatenated archives
 * have it: members one after another, zero bytes between them allowed as padding. The
 * one member loop every reader of gzip runs (feedstream_inflate.h).
 *
 * A member that fails (a bad header, deflate data that cannot be decoded, a trailer
 * that does not match) and bytes between members that are neither padding nor a member
 * do not end the stream: reading resumes at the next member, the first place after the
 * failed member's start that
 *   - begins as a member does (1F 8B, method 8, no reserved flag), and
 *   - inflates (zlib, apart) to its end or to TRIAL_OUT bytes without an error;
 * the bytes from the failed member's start to there are a gap (cfs_gunzip_gap), told
 * once reading resumes (CFS_GUNZIP_GAP) or the input ends. Where a member is cut short
 * and another follows, the decoder runs on into the next member before it fails: so
 * while a member is inflated, its bytes from the first place that begins as a member
 * are kept (at most HOLD_CAP of them before where it failed), and the search starts
 * there. What is kept after a possible start is inflated again (replayed) once it is
 * chosen. Every choice depends on the bytes only, never on how they came in.
 */
#include "include/feedstream_inflate.h"

#include <stdlib.h>
#include <string.h>

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

struct cfs_gunzip {
    cfs_inflate *z;      /* made at the first begin, reused */
    cfs_inflate *trial;  /* zlib, trying a possible member start during a resync */
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

cfs_gunzip *cfs_gunzip_new(void) {
    cfs_gunzip *g = calloc(1, sizeof(cfs_gunzip));
    if (g != NULL) g->engine = cfs_inflate_default_engine();
    return g;
}

void cfs_gunzip_set_engine(cfs_gunzip *g, cfs_inflate_engine engine) { g->engine = cfs_inflate_usable_engine(engine); }

void cfs_gunzip_free(cfs_gunzip *g) {
    if (g == NULL) return;
    cfs_inflate_free(g->z);
    cfs_inflate_free(g->trial);
    free(g->hold);
    free(g->replay);
    free(g->trial_buf);
    free(g);
}

/* The stream offset of the next byte a step reads: the caller's next, or a replayed one. */
static uint64_t here(const cfs_gunzip *g) { return g->taken - g->replay_len; }

/* Appends n bytes to the kept ones; 0 when out of memory. */
static int hold_add(cfs_gunzip *g, const uint8_t *b, size_t n) {
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

static void hold_drop(cfs_gunzip *g, size_t n) {
    if (n >= g->hold_len) {
        g->hold_at += g->hold_len;
        g->hold_len = 0;
        return;
    }
    memmove(g->hold, g->hold + n, g->hold_len - n);
    g->hold_len -= n;
    g->hold_at += n;
}

/* Whether b[0..n) may begin a member: as far as they go, 1F 8B 08 and a flag byte
   without reserved bits. */
static int may_start(const uint8_t *b, size_t n) {
    static const uint8_t magic[3] = { 0x1f, 0x8b, 0x08 };
    for (size_t k = 0; k < n && k < 3; k++)
        if (b[k] != magic[k]) return 0;
    return n < 4 || (b[3] & 0xe0) == 0;
}

/* The first k in b[from..n) where a member may start (its bytes may run past n), or n. */
static size_t next_start(const uint8_t *b, size_t n, size_t from) {
    for (size_t k = from; k < n; k++) {
        const uint8_t *p = memchr(b + k, 0x1f, n - k);
        if (p == NULL) return n;
        k = (size_t)(p - b);
        if (may_start(b + k, n - k)) return k;
    }
    return n;
}

/* Keeps no possible start more than HOLD_CAP before `at`: drops the kept bytes up to the
   next possible start, as often as needed. */
static void hold_trim(cfs_gunzip *g, uint64_t at) {
    while (g->hold_len > 0 && at > g->hold_at && at - g->hold_at > HOLD_CAP) {
        size_t k = next_start(g->hold, g->hold_len, 1);
        hold_drop(g, k);
    }
}

/* In a member: its bytes b[0..n), at stream offset `at`, were inflated; keeps them from
   the first possible member start after the member's own. */
static int hold_member_bytes(cfs_gunzip *g, const uint8_t *b, size_t n, uint64_t at) {
    uint64_t end = at + n;
    if (g->hold_len == 0) {
        size_t k = next_start(b, n, 0);
        if (k < n && at + k == g->member_start) k = next_start(b, n, k + 1);
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
#define GAP_BEGINS ((cfs_gunzip_result)100)

/* The next member starts at the stream offset `at`. */
static cfs_gunzip_result member(cfs_gunzip *g, uint64_t at) {
    if (g->z == NULL && (g->z = cfs_inflate_new()) == NULL) {
        g->state = G_FAILED;
        return CFS_GUNZIP_NOMEM;
    }
    g->state = G_MEMBER;
    g->members++;
    g->member_start = at;
    g->hold_len = 0;
    cfs_inflate_result r = cfs_inflate_begin(g->z, g->engine);
    if (r == CFS_INFLATE_NOMEM) {
        g->state = G_FAILED;
        return CFS_GUNZIP_NOMEM;
    }
    return r == CFS_INFLATE_OK ? CFS_GUNZIP_OK : CFS_GUNZIP_CORRUPT;
}

cfs_gunzip_result cfs_gunzip_begin(cfs_gunzip *g) {
    g->taken = g->consumed = g->padding = g->members = g->member_start = 0;
    g->hold_len = g->replay_len = g->replay_off = 0;
    g->gap_from = g->gap_to = 0;
    g->gap_why = NULL;
    g->trial_on = 0;
    g->trial_spent = 0;
    cfs_gunzip_result r = member(g, 0);
    if (r == CFS_GUNZIP_CORRUPT) g->state = G_FAILED;
    return r;
}

/* Reading failed; the next byte to read is at stream offset `at`. The search for the
   next member starts at the first possible start kept, then goes on in the bytes still
   to replay and the caller's still to come. */
static void resync(cfs_gunzip *g, uint64_t at) {
    g->state = G_RESYNC;
    g->trial_on = 0;
    g->trial_spent = 0;
    hold_trim(g, at);
    if (g->replay_len > 0) {
        if (g->hold_len == 0) g->hold_at = at;
        if (!hold_add(g, g->replay + g->replay_off, g->replay_len)) g->state = G_FAILED;
        g->replay_len = g->replay_off = 0;
    }
}

/* The search of a resync over the kept bytes: CFS_GUNZIP_GAP once a member is chosen
   (replayed from the next step), CFS_GUNZIP_NEED when more bytes must come. At the
   input's end (`end`), a member being tried that has not failed is chosen. */
static cfs_gunzip_result search(cfs_gunzip *g, int end) {
    for (;;) {
        if (!g->trial_on) {
            hold_drop(g, next_start(g->hold, g->hold_len, 0));
            if (g->hold_len < 4) {   /* not known yet, or at the end none */
                if (end) hold_drop(g, g->hold_len);
                return CFS_GUNZIP_NEED;
            }
            uint64_t allowed = TRIAL_OUT * (1 + (g->hold_at - g->gap_from) / TRIAL_PACE);
            if (g->trial_spent + TRIAL_OUT > allowed) {   /* past the gap's budget: not tried */
                hold_drop(g, 1);
                continue;
            }
            if (g->trial == NULL && (g->trial = cfs_inflate_new()) == NULL) return CFS_GUNZIP_NOMEM;
            if (g->trial_buf == NULL && (g->trial_buf = malloc(TRIAL_OUT)) == NULL) return CFS_GUNZIP_NOMEM;
            if (cfs_inflate_begin(g->trial, CFS_INFLATE_ZLIB) == CFS_INFLATE_NOMEM) return CFS_GUNZIP_NOMEM;
            g->trial_on = 1;
            g->trial_in = g->trial_out = 0;
        }
        size_t u = 0, n = 0;
        cfs_inflate_result r = CFS_INFLATE_OK;
        if (g->trial_in < g->hold_len)
            r = cfs_inflate_step(g->trial, g->hold + g->trial_in, g->hold_len - g->trial_in, &u, g->trial_buf,
                                 TRIAL_OUT - g->trial_out, &n);
        g->trial_in += u;
        g->trial_out += n;
        g->trial_spent += n;
        if (r == CFS_INFLATE_NOMEM) return CFS_GUNZIP_NOMEM;
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
            if (member(g, g->gap_to) == CFS_GUNZIP_NOMEM) return CFS_GUNZIP_NOMEM;
            return CFS_GUNZIP_GAP;
        }
        if (r == CFS_INFLATE_ERROR || (u == 0 && n == 0 && g->trial_in < g->hold_len)) {
            g->trial_on = 0;
            hold_drop(g, 1);
            continue;
        }
        if (g->trial_in == g->hold_len) return CFS_GUNZIP_NEED;
    }
}

/* One step over in[0..in_len), the caller's bytes or replayed ones, the first at stream
   offset `at`: *used of them taken. */
static cfs_gunzip_result step(cfs_gunzip *g, const uint8_t *in, size_t in_len, uint64_t at, size_t *used,
                              uint8_t *out, size_t out_len, size_t *written) {
    *used = 0;
    *written = 0;
    if (g->state == G_FAILED) return CFS_GUNZIP_CORRUPT;
    if (g->state == G_RESYNC) {
        if (g->hold_len == 0) g->hold_at = at;
        if (!hold_add(g, in, in_len)) {
            g->state = G_FAILED;
            return CFS_GUNZIP_NOMEM;
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
        if (i == in_len) return CFS_GUNZIP_NEED;
        if (in[i] != 0x1f) {
            g->gap_from = at + i;
            g->gap_why = "trailing garbage after gzip data";
            g->hold_len = 0;
            return GAP_BEGINS;
        }
        cfs_gunzip_result r = member(g, at + i);
        if (r == CFS_GUNZIP_NOMEM) return r;
    }
    size_t u = 0, n = 0;
    cfs_inflate_result zr = cfs_inflate_step(g->z, in + *used, in_len - *used, &u, out, out_len, &n);
    if (zr != CFS_INFLATE_NOMEM && !hold_member_bytes(g, in + *used, u, at + *used)) zr = CFS_INFLATE_NOMEM;
    *used += u;
    *written = n;
    g->consumed += u;
    switch (zr) {
    case CFS_INFLATE_NOMEM:
        g->state = G_FAILED;
        return CFS_GUNZIP_NOMEM;
    case CFS_INFLATE_ERROR:
        g->gap_from = g->member_start;
        g->gap_why = "corrupt gzip data";
        return GAP_BEGINS;
    case CFS_INFLATE_END:
        g->state = G_BETWEEN;
        g->hold_len = 0;
        return CFS_GUNZIP_OK;
    case CFS_INFLATE_STALL:
        return n == 0 ? CFS_GUNZIP_NEED : CFS_GUNZIP_OK;
    default:
        return n == 0 && *used == in_len ? CFS_GUNZIP_NEED : CFS_GUNZIP_OK;
    }
}

cfs_gunzip_result cfs_gunzip_step(cfs_gunzip *g, const uint8_t *in, size_t in_len, size_t *used,
                                  uint8_t *out, size_t out_len, size_t *written) {
    *used = 0;
    *written = 0;
    for (;;) {
        int replaying = g->replay_len > 0;
        const uint8_t *src = replaying ? g->replay + g->replay_off : in + *used;
        size_t src_len = replaying ? g->replay_len : in_len - *used;
        size_t u = 0, n = 0;
        cfs_gunzip_result r = step(g, src, src_len, here(g), &u, out, out_len, &n);
        if (replaying) {
            g->replay_off += u;
            g->replay_len -= u;
        } else {
            g->taken += u;
            *used += u;
        }
        *written = n;
        if (r == GAP_BEGINS) {
            resync(g, here(g));
            if (g->state == G_FAILED) return CFS_GUNZIP_NOMEM;
            if (n > 0) return CFS_GUNZIP_OK;   /* what came before the failure goes out first */
            continue;
        }
        /* Replayed bytes used up: the caller's come next. */
        if (replaying && g->replay_len == 0 && r == CFS_GUNZIP_NEED && n == 0) continue;
        if (replaying && r == CFS_GUNZIP_NEED) return CFS_GUNZIP_OK;
        return r;
    }
}

cfs_gunzip_result cfs_gunzip_finish(cfs_gunzip *g) {
    if (g->state != G_RESYNC) return CFS_GUNZIP_NEED;
    cfs_gunzip_result r = search(g, 1);
    if (r == CFS_GUNZIP_GAP || r == CFS_GUNZIP_NOMEM) return r;
    /* No member after the gap: it runs to the end. */
    g->gap_to = g->taken;
    g->state = G_BETWEEN;
    g->hold_len = 0;
    return CFS_GUNZIP_GAP;
}

void cfs_gunzip_gap(const cfs_gunzip *g, uint64_t *from, uint64_t *to, const char **why) {
    *from = g->gap_from;
    *to = g->gap_to;
    *why = g->gap_why ? g->gap_why : "corrupt gzip data";
}

cfs_inflate_engine cfs_gunzip_engine(const cfs_gunzip *g) {
    return g->members > 0 ? cfs_inflate_current_engine(g->z) : g->engine;
}
int cfs_gunzip_in_member(const cfs_gunzip *g) { return g->state == G_MEMBER; }
int cfs_gunzip_in_gap(const cfs_gunzip *g) { return g->state == G_RESYNC; }
uint64_t cfs_gunzip_consumed(const cfs_gunzip *g) { return g->consumed; }
uint64_t cfs_gunzip_padding(const cfs_gunzip *g) { return g->padding; }
uint64_t cfs_gunzip_taken(const cfs_gunzip *g) { return g->taken; }
uint64_t cfs_gunzip_members(const cfs_gunzip *g) { return g->members; }
uint64_t cfs_gunzip_member_start(const cfs_gunzip *g) { return g->member_start; }
