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
 *      own point), so nothing is compared;
 *   3. the gzip of (1), or the data as zstd frames cut the same way, damaged where the
 *      input's last bytes say (bytes flipped, cut out, overwritten), read by the member
 *      loop (cfs_unpack; gzip with zlib) in pieces of the chosen size and whole: the
 *      output and the gaps (where each is told, and the compressed range it skipped)
 *      must be the same -- a gap depends on the bytes only.
 * Without ISA-L (not built in, or libisal.so.2 missing) only zlib runs.
 */
#include <feedstream_inflate.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>
#include <zstd.h>

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

/* What cfs_unpack makes of stream[0..n) in pieces of `piece`: the output, and per gap
   its range and the output offset it came at, folded into a hash. */
struct loop_result {
    uint64_t out_len, out_hash, gaps, gap_hash, members;
};

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ull; }

static void loop(cfs_pack_format format, const uint8_t *stream, size_t n, size_t piece, struct loop_result *r) {
    memset(r, 0, sizeof *r);
    cfs_unpack *g = cfs_unpack_new();
    if (g == NULL) abort();
    cfs_unpack_set_engine(g, CFS_INFLATE_ZLIB);
    if (cfs_unpack_begin(g, format) != CFS_UNPACK_OK) abort();
    static uint8_t out[ROOM];
    size_t pos = 0;
    for (int ended = 0;;) {
        size_t k = ended ? 0 : piece < n - pos ? piece : n - pos;
        size_t used = 0, written = 0;
        cfs_unpack_result st = cfs_unpack_step(g, stream + pos, k, &used, out, sizeof out, &written);
        if (used > k || written > sizeof out) abort();
        pos += used;
        for (size_t i = 0; i < written; i++) r->out_hash = mix(r->out_hash, out[i]);
        r->out_len += written;
        if (st == CFS_UNPACK_NOMEM || st == CFS_UNPACK_CORRUPT) abort();
        if (st == CFS_UNPACK_GAP) {
            uint64_t from, to;
            const char *why;
            cfs_unpack_gap(g, &from, &to, &why);
            if (to <= from || to > n) abort();
            r->gaps++;
            r->gap_hash = mix(mix(mix(r->gap_hash, from), to), r->out_len);
            continue;
        }
        if (st == CFS_UNPACK_OK) continue;
        if (pos < n) continue;   /* this piece used up: the next */
        ended = 1;
        cfs_unpack_result f = cfs_unpack_finish(g);
        if (f == CFS_UNPACK_NOMEM) abort();
        if (f == CFS_UNPACK_OK) continue;   /* bytes held: read them */
        if (f != CFS_UNPACK_GAP) break;
        uint64_t from, to;
        const char *why;
        cfs_unpack_gap(g, &from, &to, &why);
        if (to < from || to > n) abort();
        r->gaps++;
        r->gap_hash = mix(mix(mix(r->gap_hash, from), to), r->out_len);
    }
    r->members = cfs_unpack_members(g);
    cfs_unpack_free(g);
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

    /* 3. That gzip damaged as the input's last bytes say, read by the member loop in
       pieces and whole: the same output and gaps. */
    if (gz_len > 16 && n >= 4) {
        const uint8_t *say = body + n - 4;
        cfs_pack_format format = say[1] & 1 ? CFS_PACK_ZSTD : CFS_PACK_GZIP;
        if (format == CFS_PACK_ZSTD) {   /* the same cuts, as zstd frames */
            gz_len = 0;
            for (size_t m = 0, from = 0; m < cuts; m++) {
                size_t end = m + 1 == cuts ? n : n * (m + 1) / cuts;
                size_t bound = ZSTD_compressBound(end - from);
                if (gz_len + bound > gz_cap) { gz_cap = (gz_len + bound) * 2; gz = realloc(gz, gz_cap); if (!gz) abort(); }
                size_t k = ZSTD_compress(gz + gz_len, bound, body + from, end - from, 1 + level % 5);
                if (ZSTD_isError(k)) abort();
                gz_len += k;
                from = end;
            }
        }
        size_t at1 = (size_t)(say[0] | say[1] << 8) % gz_len;
        size_t at2 = (size_t)(say[2] | say[3] << 8) % gz_len;
        switch (say[3] % 4) {
        case 0: gz[at1] ^= 0x5a; break;                          /* a byte flipped */
        case 1: gz[at1] ^= 0xff; gz[at2] ^= 0x01; break;          /* two */
        case 2: memmove(gz + at1, gz + (at1 > at2 ? at1 : at2), gz_len - (at1 > at2 ? at1 : at2));   /* bytes cut out */
                gz_len -= (at1 > at2 ? at1 - at2 : at2 - at1); break;
        default: memset(gz + at1, 'x', (at2 % 32) < gz_len - at1 ? (at2 % 32) : gz_len - at1); break;   /* overwritten */
        }
        struct loop_result a, b;
        loop(format, gz, gz_len, piece, &a);
        loop(format, gz, gz_len, gz_len, &b);
        if (memcmp(&a, &b, sizeof a) != 0) {
            fprintf(stderr, "gaps depend on the cuts: pieces of %zu give %llu bytes, %llu gaps; whole %llu bytes, %llu gaps\n",
                    piece, (unsigned long long)a.out_len, (unsigned long long)a.gaps, (unsigned long long)b.out_len,
                    (unsigned long long)b.gaps);
            abort();
        }
    }
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
