/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_core.c -- libFuzzer harness for the C core: the input stage (plain, gzip,
 * multi-member gzip, file descriptor), one tokenizer (expat or libxml2, chosen at
 * compile time with -DFUZZ_BACKEND=...) and the feed state machine.
 *
 * Every input is parsed twice with one parser (reset in between, so reuse is
 * exercised too):
 *   1. the bytes as they are, in one cfs_parser_feed call (the reference);
 *   2. a variant chosen from a hash of the bytes: the same bytes split into chunks of
 *      pseudo-random sizes (1 byte up), or gzip-compressed (one or two members) and
 *      fed in chunks, or read from a file descriptor (memfd) the way files are.
 * Besides what the sanitizers catch, the harness aborts when the two runs disagree:
 * how a stream is cut into chunks, or whether it arrives compressed, must never
 * change what comes out. Each run digests everything the callbacks see (every byte of
 * every span, so a dangling span is a read ASan reports) and the final status.
 *
 * Some inputs also run with a small per-item limit (truncation paths), a small
 * field-text limit (its error's position must not depend on the chunks either) or with
 * a callback that stops the parser after the first item (abort paths).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include "feedstream.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>
#include <zlib.h>

#ifndef FUZZ_BACKEND
#define FUZZ_BACKEND CFS_BACKEND_EXPAT
#endif

static int trace;   /* FUZZ_TRACE set: print what each run sees (to study a finding) */

typedef struct digest {
    uint64_t h;
    /* h as it was when the first document error was digested (0: none yet). With
       expat the search for the next document after an error resumes after the error's
       byte whatever chunk held it (input.c's resync_from and replay), and whole digests
       are compared; libxml2's push parser places some errors by how much input it had
       (Fuzz/README.md), so with it what follows a failed document may depend on the
       cuts, and only this is compared. */
    uint64_t h_first_error;
    size_t items, documents, errors;
    int stop_after_first_item;
} digest;

static void mix(digest *d, const void *p, size_t n) {
    const uint8_t *b = p;
    for (size_t i = 0; i < n; i++) d->h = (d->h ^ b[i]) * 0x100000001b3ULL;
}

static void mix_u64(digest *d, uint64_t v) { mix(d, &v, sizeof v); }

static void mix_span(digest *d, cfs_span s) {
    if (s.ptr == NULL) {
        if (s.len != 0) abort();   /* absent spans have no length */
        mix_u64(d, UINT64_MAX);
        return;
    }
    mix_u64(d, s.len);
    mix(d, s.ptr, s.len);
}

static void print_record(const cfs_record *r) {
    for (int f = 0; f < CFS_FIELD_COUNT; f++)
        if (r->fields[f].ptr) fprintf(stderr, "    field %d: %zu bytes: %.*s\n", f, r->fields[f].len, (int)(r->fields[f].len < 60 ? r->fields[f].len : 60), r->fields[f].ptr);
    for (int l = 0; l < CFS_LIST_COUNT; l++) {
        size_t cols = cfs_list_columns((cfs_list)l);
        for (size_t i = 0; i < r->counts[l] * cols; i++)
            if (r->rows[l][i].ptr)
                fprintf(stderr, "    list %d row %zu col %zu: %.*s\n", l, i / cols, i % cols,
                        (int)r->rows[l][i].len, r->rows[l][i].ptr);
    }
}

static void mix_record(digest *d, const cfs_record *r) {
    for (int f = 0; f < CFS_FIELD_COUNT; f++) {
        /* The presence bits may only over-approximate: a clear bit means absent. */
        if (!(r->present[f / 64] >> (f % 64) & 1) && r->fields[f].ptr != NULL) abort();
        mix_span(d, r->fields[f]);
    }
    for (int l = 0; l < CFS_LIST_COUNT; l++) {
        size_t cols = cfs_list_columns((cfs_list)l);
        mix_u64(d, r->counts[l]);
        for (size_t i = 0; i < r->counts[l] * cols; i++) mix_span(d, r->rows[l][i]);
    }
}

static int on_start(void *ctx, size_t document) {
    digest *d = ctx;
    mix_u64(d, 0x5354415254ULL ^ document);
    return 0;
}

static int on_item(void *ctx, const cfs_item *item, const cfs_feed *feed) {
    digest *d = ctx;
    mix_u64(d, item->index);
    mix_u64(d, (uint64_t)item->truncated);
    mix_record(d, &item->record);
    mix_u64(d, feed->document);
    mix_u64(d, feed->format);
    mix_u64(d, feed->items_count);
    mix_record(d, &feed->record);
    d->items++;
    if (trace) fprintf(stderr, "  item %zu of document %zu, truncated %d, hash %016llx\n", item->index,
                       feed->document, item->truncated, (unsigned long long)d->h);
    if (trace > 1) print_record(&item->record);
    return d->stop_after_first_item;
}

static int on_end(void *ctx, const cfs_feed *feed, const cfs_error *error) {
    digest *d = ctx;
    d->documents++;
    mix_u64(d, feed->document);
    mix_u64(d, feed->format);
    mix_u64(d, feed->items_count);
    mix_record(d, &feed->record);
    if (error) {
        d->errors++;
        if (error->message == NULL) abort();
        mix_u64(d, error->code);
        mix_u64(d, error->document);
        /* libxml2's push parser places some errors where its cursor is when it notices
           them, which depends on how much input it was given ("Extra content at the
           end of the document" with two gzip members, where one call finds "Input is not
           proper UTF-8" further on): positions and messages are not compared for it (a
           known difference, Fuzz/README.md); the code and the document are. */
        if (FUZZ_BACKEND != CFS_BACKEND_LIBXML2) {
            mix(d, error->message, strlen(error->message));
            mix_u64(d, error->line);
            mix_u64(d, error->column);
            mix_u64(d, error->offset);
        }
        if (d->h_first_error == 0) d->h_first_error = d->h | 1;
    }
    if (trace) {
        fprintf(stderr, "  end of document %zu, format %d, %zu items", feed->document, feed->format,
                feed->items_count);
        if (error) fprintf(stderr, ", error %d %s at line %lu column %lu offset %llu", error->code,
                           error->message, error->line, error->column, (unsigned long long)error->offset);
        fprintf(stderr, "\n");
    }
    return 0;
}

static const cfs_callbacks callbacks = { on_start, on_item, on_end };

/* xorshift64*: chunk sizes. */
static uint64_t next_random(uint64_t *s) {
    *s ^= *s >> 12;
    *s ^= *s << 25;
    *s ^= *s >> 27;
    return *s * 0x2545F4914F6CDD1DULL;
}

static size_t chunk_size(uint64_t *s) {
    uint64_t r = next_random(s);
    switch (r & 3) {
    case 0: return 1;                           /* byte by byte */
    case 1: return 1 + (r >> 8) % 16;           /* splits inside tokens */
    case 2: return 1 + (r >> 8) % 4096;
    default: return 1 + (r >> 8) % 300000;      /* across the 256 KiB tokenizer chunk */
    }
}

static cfs_status feed_chunks(cfs_parser *p, const uint8_t *data, size_t size, uint64_t seed) {
    size_t at = 0;
    cfs_status st = CFS_OK;
    while (at < size && st == CFS_OK) {
        size_t n = chunk_size(&seed);
        if (n > size - at) n = size - at;
        st = cfs_parser_feed(p, data + at, n);
        at += n;
    }
    return st;
}

/* gzip of data[0..size) as one member, or as two members split at `split`. */
static uint8_t *gzip(const uint8_t *data, size_t size, size_t split, size_t *out_len) {
    size_t cap = compressBound(size) + 64, len = 0;
    uint8_t *out = malloc(cap);
    if (out == NULL) abort();
    size_t parts[2][2] = { { 0, split }, { split, size } };
    for (int k = 0; k < 2; k++) {
        size_t from = parts[k][0], n = parts[k][1] - parts[k][0];
        if (k == 1 && split == 0) break;   /* one member */
        if (k == 0 && split == 0) n = size;
        z_stream z;
        memset(&z, 0, sizeof z);
        if (deflateInit2(&z, 6, Z_DEFLATED, 16 + MAX_WBITS, 8, Z_DEFAULT_STRATEGY) != Z_OK) abort();
        z.next_in = (Bytef *)data + from;
        z.avail_in = (uInt)n;
        z.next_out = out + len;
        z.avail_out = (uInt)(cap - len);
        if (deflate(&z, Z_FINISH) != Z_STREAM_END) abort();
        len = cap - z.avail_out;
        deflateEnd(&z);
    }
    *out_len = len;
    return out;
}

static cfs_status run(cfs_parser *p, digest *d, int variant, const uint8_t *data, size_t size,
                      uint64_t seed) {
    cfs_status st = CFS_OK;
    switch (variant) {
    case 0:
        st = cfs_parser_feed(p, data, size);
        break;
    case 1:
        st = feed_chunks(p, data, size, seed);
        break;
    case 2:
    case 3: {
        size_t split = variant == 3 && size > 0 ? (size_t)(seed % size) : 0;
        size_t zlen;
        uint8_t *z = gzip(data, size, split, &zlen);
        st = feed_chunks(p, z, zlen, seed);
        free(z);
        break;
    }
    case 4: {
        int fd = memfd_create("fuzz", 0);
        if (fd < 0) abort();
        if (size && write(fd, data, size) != (ssize_t)size) abort();
        lseek(fd, 0, SEEK_SET);
        st = cfs_parser_feed_fd(p, fd);
        close(fd);
        break;
    }
    }
    cfs_status fin = cfs_parser_finish(p);
    if (trace) fprintf(stderr, "variant %d: feed status %d, finish %d\n", variant, st, fin);
    mix_u64(d, st == CFS_OK ? fin : st);
    cfs_stats stats = cfs_parser_stats(p);
    /* The counters agree with the callbacks (unless a callback stopped the parser). */
    if (st == CFS_OK && fin != CFS_ERR_ABORTED && fin != CFS_ERR_NOMEM &&
        (stats.documents != d->documents || stats.items != d->items)) {
        fprintf(stderr, "fuzz_core: stats say %llu documents, %llu items; callbacks saw %zu, %zu\n",
                (unsigned long long)stats.documents, (unsigned long long)stats.items, d->documents, d->items);
        abort();
    }
    return st;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    uint64_t h = 0xcbf29ce484222325ULL;
    for (size_t i = 0; i < size; i++) h = (h ^ data[i]) * 0x100000001b3ULL;
    uint64_t seed = h | 1;
    int variant = 1 + (int)((h >> 8) % 4);
    /* gzip of bytes that already are gzip would be inflated once, not twice. */
    int looks_gzip = size >= 2 && data[0] == 0x1f && data[1] == 0x8b;
    if (looks_gzip && (variant == 2 || variant == 3)) variant = 1;
    trace = getenv("FUZZ_TRACE") ? atoi(getenv("FUZZ_TRACE")) : 0;
    if (getenv("FUZZ_VARIANT")) variant = atoi(getenv("FUZZ_VARIANT"));

    cfs_options opt;
    cfs_options_init(&opt);
    opt.backend = FUZZ_BACKEND;
    if ((h >> 20) % 8 == 0) opt.max_item_bytes = 1 + (h >> 24) % 256;
    /* A small field-text limit (the Swift harnesses' fuzzLimits, from the same bits): the
       document fails at the first tag after a field's text passed it, wherever the chunks
       fall (its position is digested, as every error's). */
    if ((h >> 44) % 8 == 0) opt.limits.max_field_bytes = 1 + (h >> 48) % 64;
    int stop = (h >> 32) % 16 == 0;
    if (trace) fprintf(stderr, "max_item_bytes %zu, max_field_bytes %llu, stop after the first item %d\n",
                       opt.max_item_bytes, (unsigned long long)opt.limits.max_field_bytes, stop);

    digest a = { 0xcbf29ce484222325ULL, 0, 0, 0, 0, stop };
    digest b = a;
    cfs_parser *p = cfs_parser_create(&opt, &callbacks, &a);
    if (p == NULL) abort();
    run(p, &a, 0, data, size, seed);
    cfs_parser_destroy(p);

    /* The variant on a fresh parser, then (one input in four) again on the same parser
       after a reset. */
    p = cfs_parser_create(&opt, &callbacks, &b);
    if (p == NULL) abort();
    run(p, &b, variant, data, size, seed);
    int same = FUZZ_BACKEND == CFS_BACKEND_LIBXML2 && (a.h_first_error || b.h_first_error)
                   ? a.h_first_error == b.h_first_error   /* up to the first error */
                   : a.h == b.h && a.items == b.items && a.documents == b.documents;
    if (!same) {
        fprintf(stderr, "fuzz_core: variant %d differs from one-call feed: items %zu/%zu, documents %zu/%zu\n",
                variant, a.items, b.items, a.documents, b.documents);
        abort();
    }
    if ((h >> 40) % 4 != 0) {
        cfs_parser_destroy(p);
        return 0;
    }
    uint64_t variant_h = b.h;
    cfs_parser_reset(p);
    digest c = { 0xcbf29ce484222325ULL, 0, 0, 0, 0, stop };
    /* The parser's ctx is fixed at create; reuse b's storage for the third run. */
    b = c;
    run(p, &b, variant, data, size, seed);
    if (b.h != variant_h) {
        fprintf(stderr, "fuzz_core: variant %d after cfs_parser_reset differs from a fresh parser\n", variant);
        abort();
    }
    cfs_parser_destroy(p);
    return 0;
}
