/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gunzip.c -- a gzip stream as the gzip format (RFC 1952) and concatenated archives
 * have it: members one after another, zero bytes between them allowed as padding, any
 * other byte after a member an error ("trailing garbage"). The one member loop every
 * reader of gzip runs (feedstream_inflate.h).
 */
#include "include/feedstream_inflate.h"

#include <stdlib.h>

struct cfs_gunzip {
    cfs_inflate *z;      /* made at the first begin, reused */
    cfs_inflate_engine engine;
    enum { G_MEMBER, G_BETWEEN, G_FAILED } state;
    uint64_t consumed;   /* compressed bytes inflate took, over all members */
    uint64_t padding;    /* zeros skipped between members */
    uint64_t members;
    uint64_t member_start;
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
    free(g);
}

/* The next member starts with the next byte. */
static cfs_gunzip_result member(cfs_gunzip *g) {
    if (g->z == NULL && (g->z = cfs_inflate_new()) == NULL) {
        g->state = G_FAILED;
        return CFS_GUNZIP_NOMEM;
    }
    cfs_inflate_result r = cfs_inflate_begin(g->z, g->engine);
    if (r != CFS_INFLATE_OK) {
        g->state = G_FAILED;
        return r == CFS_INFLATE_NOMEM ? CFS_GUNZIP_NOMEM : CFS_GUNZIP_CORRUPT;
    }
    g->state = G_MEMBER;
    g->members++;
    g->member_start = g->consumed + g->padding;
    return CFS_GUNZIP_OK;
}

cfs_gunzip_result cfs_gunzip_begin(cfs_gunzip *g) {
    g->consumed = g->padding = g->members = g->member_start = 0;
    return member(g);
}

cfs_gunzip_result cfs_gunzip_step(cfs_gunzip *g, const uint8_t *in, size_t in_len, size_t *used,
                                  uint8_t *out, size_t out_len, size_t *written) {
    *used = 0;
    *written = 0;
    if (g->state == G_FAILED) return CFS_GUNZIP_CORRUPT;
    if (g->state == G_BETWEEN) {
        /* Between members: another member, or padding zeros, or garbage. */
        size_t i = 0;
        while (i < in_len && in[i] == 0) i++;
        g->padding += i;
        *used = i;
        if (i == in_len) return CFS_GUNZIP_NEED;
        if (in[i] != 0x1f) {
            g->state = G_FAILED;
            return CFS_GUNZIP_GARBAGE;
        }
        cfs_gunzip_result r = member(g);
        if (r != CFS_GUNZIP_OK) return r;
    }
    size_t u = 0, n = 0;
    cfs_inflate_result zr = cfs_inflate_step(g->z, in + *used, in_len - *used, &u, out, out_len, &n);
    *used += u;
    *written = n;
    g->consumed += u;
    switch (zr) {
    case CFS_INFLATE_ERROR:
    case CFS_INFLATE_NOMEM:
        g->state = G_FAILED;
        return CFS_GUNZIP_CORRUPT;
    case CFS_INFLATE_END:
        g->state = G_BETWEEN;
        return CFS_GUNZIP_OK;
    case CFS_INFLATE_STALL:
        return n == 0 ? CFS_GUNZIP_NEED : CFS_GUNZIP_OK;
    default:
        return n == 0 && *used == in_len ? CFS_GUNZIP_NEED : CFS_GUNZIP_OK;
    }
}

cfs_inflate_engine cfs_gunzip_engine(const cfs_gunzip *g) {
    return g->members > 0 ? cfs_inflate_current_engine(g->z) : g->engine;
}
int cfs_gunzip_in_member(const cfs_gunzip *g) { return g->state == G_MEMBER; }
uint64_t cfs_gunzip_consumed(const cfs_gunzip *g) { return g->consumed; }
uint64_t cfs_gunzip_padding(const cfs_gunzip *g) { return g->padding; }
uint64_t cfs_gunzip_members(const cfs_gunzip *g) { return g->members; }
uint64_t cfs_gunzip_member_start(const cfs_gunzip *g) { return g->member_start; }
