/* SPDX-License-Identifier: Apache-2.0 */
/* arena.c -- a growable byte arena and vectors of refs. Both keep their capacity
   across resets, so after the first few items nothing is allocated. */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

int cfs_arena_init(cfs_arena *a, size_t initial, size_t limit) {
    a->buf = malloc(initial);
    a->len = 0;
    /* cap never exceeds the limit: appends that fit in cap skip the limit check, so a
       larger initial buffer would let a small limit through, by an amount that
       depended on how earlier items had grown the buffer (found by fuzzing). */
    a->cap = a->buf ? (initial < limit ? initial : limit) : 0;
    a->limit = limit;
    a->truncated = 0;
    a->nomem = a->buf == NULL;
    return a->buf != NULL;
}

void cfs_arena_free(cfs_arena *a) {
    free(a->buf);
    a->buf = NULL;
    a->len = a->cap = 0;
}

void cfs_arena_reset(cfs_arena *a) {
    a->len = 0;
    a->truncated = 0;
}

int cfs_arena_reserve(cfs_arena *a, size_t extra) {
    if (a->len + extra <= a->cap) return 1;
    if (a->len + extra > a->limit) { a->truncated = 1; return 0; }
    size_t cap = a->cap ? a->cap : 4096;
    while (cap < a->len + extra) cap *= 2;
    if (cap > a->limit) cap = a->limit;
    uint8_t *nb = realloc(a->buf, cap);
    if (nb == NULL) { a->nomem = 1; return 0; }
    a->buf = nb;
    a->cap = cap;
    return 1;
}

void cfs_arena_append(cfs_arena *a, const void *data, size_t len) {
    if (len == 0) return;
    if (!cfs_arena_reserve(a, len)) {
        if (a->nomem) return;
        /* Keep what fits under the limit. */
        size_t room = a->limit > a->len ? a->limit - a->len : 0;
        if (room > len) room = len;
        if (room && cfs_arena_reserve(a, room)) {
            memcpy(a->buf + a->len, data, room);
            a->len += room;
        }
        a->truncated = 1;
        return;
    }
    memcpy(a->buf + a->len, data, len);
    a->len += len;
}

cfs_ref cfs_arena_copy(cfs_arena *a, const void *data, size_t len) {
    cfs_ref r = { (uint32_t)a->len, 0 };
    cfs_arena_append(a, data, len);
    r.len = (uint32_t)(a->len - r.off);
    return r;
}

void cfs_refvec_init(cfs_refvec *v, size_t stride) {
    v->v = NULL;
    v->count = v->cap = 0;
    v->stride = stride;
}

void cfs_refvec_free(cfs_refvec *v) {
    free(v->v);
    v->v = NULL;
    v->count = v->cap = 0;
}

cfs_ref *cfs_refvec_push(cfs_refvec *v) {
    if (v->count == v->cap) {
        size_t cap = v->cap ? v->cap * 2 : 8;
        cfs_ref *nv = realloc(v->v, cap * v->stride * sizeof(cfs_ref));
        if (nv == NULL) return NULL;
        v->v = nv;
        v->cap = cap;
    }
    cfs_ref *rec = v->v + v->count * v->stride;
    for (size_t i = 0; i < v->stride; i++) rec[i] = (cfs_ref){ CFS_REF_ABSENT, 0 };
    v->count++;
    return rec;
}
