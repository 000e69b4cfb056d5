/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_inflate.c -- the inflate step (CSources/CFeedStreamInflate) with zlib and ISA-L.
 *
 * Each input is used twice:
 *   1. as data: gzipped here by zlib (the first byte picks the level and how the data
 *      is cut into members, padding between some), then inflated by each inflater in
 *      pieces whose sizes the second byte picks, into output rooms that stop at the
 *      same checkpoints as the input stage's: both must give back the data exactly,
 *      with the same member ends (the bytes used up to each) -- intact gzip is the
 *      same whichever inflates (docs/SCHEMA.md, "Gzip");
 *   2. as a gzip stream itself (after a gzip header, so that the deflate data is the
 *      fuzzer's): each inflater must end it without a memory error, a hang or output
 *      past its room; what they say may differ (damage is found at each decoder's
 *      own point), so nothing is compared.
 * Without ISA-L (not built in, or libisal.so.2 missing) only zlib runs.
 */
#include <feedstream_inflate.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#define ROOM (256u << 10)   /* the input stage's checkpoint distance (CFS_RATIO_INTERVAL) */

/* gzip of data[0..n) at level, appended to out (grown). */
static void gzip_append(uint8_t **out, size_t *len, size_t *cap, const uint8_t *data, size_t n, int level) {
    z_stream z;
    memset(&z, 0, sizeof z);
    if (deflateInit2(&z, level, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
    size_t bound = deflateBound(&z, n) + 64;
    if (*len + bound > *cap) {
        *cap = (*len + bound) * 2;
        *out = realloc(*out, *cap);
        if (*out == NULL) abort();
    }
    z.next_in = (Bytef *)data;
    z.avail_in = (uInt)n;
    z.next_out = *out + *len;
    z.avail_out = (uInt)bound;
    if (deflate(&z, Z_FINISH) != Z_STREAM_END) abort();
    *len += bound - z.avail_out;
    deflateEnd(&z);
}

struct result {
    uint8_t *out;
    size_t out_len;
    size_t ends[64];   /* input bytes used at each member's end */
    int members;
    int status;        /* 0 whole, 1 corrupt, 2 truncated */
};

/* Inflates stream[0..n) member after member (zero padding between members skipped,
   anything else ends it as corrupt), in pieces of `piece` bytes; output rooms stop at
   multiples of ROOM as the input stage's do. */
static void run(cfs_inflate_engine engine, const uint8_t *stream, size_t n, size_t piece, size_t out_cap,
                struct result *r) {
    memset(r, 0, sizeof *r);
    r->out = malloc(out_cap + 1);
    if (r->out == NULL) abort();
    cfs_inflate *s = cfs_inflate_new();
    if (s == NULL) abort();
    int in_member = 0;
    size_t pos = 0;
    while (pos < n && r->status == 0) {
        size_t k = piece < n - pos ? piece : n - pos;
        const uint8_t *p = stream + pos;
        size_t left = k;
        for (;;) {
            if (!in_member) {
                while (left > 0 && *p == 0) { p++; left--; }
                if (left == 0) break;
                if (*p != 0x1f) { r->status = 1; break; }
                if (cfs_inflate_begin(s, engine) != CFS_INFLATE_OK) abort();
                in_member = 1;
            }
            size_t room = ROOM - r->out_len % ROOM;
            if (room > out_cap - r->out_len) room = out_cap - r->out_len;
            if (room == 0) { r->status = 3; break; }   /* more output than the data: wrong */
            size_t used, written;
            cfs_inflate_result st = cfs_inflate_step(s, p, left, &used, r->out + r->out_len, room, &written);
            if (used > left || written > room) abort();
            p += used;
            left -= used;
            r->out_len += written;
            if (st == CFS_INFLATE_ERROR) { r->status = 1; break; }
            if (st == CFS_INFLATE_END) {
                if (r->members < 64) r->ends[r->members] = (size_t)(p - stream);
                r->members++;
                in_member = 0;
                continue;
            }
            if (st == CFS_INFLATE_STALL || (used == 0 && written == 0)) break;
            if (left == 0 && written < room) break;   /* input used up; the rest next piece */
        }
        pos += k;
    }
    if (r->status == 0 && in_member) r->status = 2;
    cfs_inflate_free(s);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    if (size < 2) return 0;
    uint8_t shape = data[0], pieces = data[1];
    const uint8_t *body = data + 2;
    size_t n = size - 2;
    static const size_t piece_sizes[] = { 1, 2, 7, 64, 4096, 65536, (size_t)1 << 30 };
    size_t piece = piece_sizes[pieces % 7];
    int engines = cfs_inflate_isal_available() ? 2 : 1;
    cfs_inflate_engine list[2] = { CFS_INFLATE_ZLIB, CFS_INFLATE_ISAL };

    /* 1. The data, gzipped here: both inflaters give it back, members alike. */
    uint8_t *gz = NULL;
    size_t gz_len = 0, gz_cap = 0;
    int level = shape % 10;
    size_t cuts = 1 + (shape >> 4) % 4;   /* members */
    size_t at = 0;
    for (size_t m = 0; m < cuts; m++) {
        size_t end = m + 1 == cuts ? n : n * (m + 1) / cuts;
        gzip_append(&gz, &gz_len, &gz_cap, body + at, end - at, level);
        if (shape & 8) {   /* padding after the member */
            if (gz_len + 3 > gz_cap) { gz_cap = gz_len + 64; gz = realloc(gz, gz_cap); if (!gz) abort(); }
            memset(gz + gz_len, 0, 3);
            gz_len += 3;
        }
        at = end;
    }
    struct result r[2];
    for (int e = 0; e < engines; e++) {
        run(list[e], gz, gz_len, piece, n + 1, &r[e]);   /* a byte of room past the data: the trailer is read */
        if (r[e].status != 0 || r[e].out_len != n || memcmp(r[e].out, body, n) != 0 || r[e].members != (int)cuts) {
            fprintf(stderr, "%s: intact gzip not given back: status %d, %zu of %zu bytes, %d of %zu members\n",
                    cfs_inflate_engine_name(list[e]), r[e].status, r[e].out_len, n, r[e].members, cuts);
            abort();
        }
    }
    if (engines == 2 && memcmp(r[0].ends, r[1].ends, sizeof r[0].ends) != 0) {
        fprintf(stderr, "the inflaters end members at different bytes\n");
        abort();
    }
    for (int e = 0; e < engines; e++) free(r[e].out);
    free(gz);

    /* 2. The input as deflate data after a gzip header: whatever it says, safely. */
    uint8_t *raw = malloc(n + 10);
    if (raw == NULL) abort();
    static const uint8_t header[10] = { 0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 3 };
    memcpy(raw, header, 10);
    memcpy(raw + 10, body, n);
    for (int e = 0; e < engines; e++) {
        struct result d;
        run(list[e], raw, n + 10, piece, 4u << 20, &d);   /* at most 4 MiB of output each */
        free(d.out);
    }
    free(raw);
    return 0;
}
