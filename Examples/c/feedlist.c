/* SPDX-License-Identifier: Apache-2.0 */
/*
 * feedlist -- list the items of feed files as JSON Lines, using only feedstream.h.
 *
 *     feedlist [--backend expat|libxml2] FILE...     (FILE "-" is standard input)
 *
 * One line per item and one per document:
 *
 *     {"document":1,"index":0,"title":"...","link":"...","published":"..."}
 *     {"document":1,"feed":"Example News","format":"rss20","items":3}
 *     {"document":2,"error":"mismatched tag","line":10,"column":5}     (on stderr)
 *
 * Values are the C core's raw spans with surrounding white space trimmed; dates are
 * as written (the normalization of docs/SCHEMA.md lives in the Swift library).
 *
 * What it shows: one parser reused for every file (cfs_parser_reset), callbacks that
 * copy nothing (spans are borrowed and written out during the callback), per-document
 * errors that do not stop the stream, and the exit status a converter should have:
 * 0 every file converted, 1 some document or file failed, 2 usage.
 *
 * Build (see build.sh), with the library installed by the repository's Makefile
 * (`make install PREFIX=...`; PKG_CONFIG_PATH=PREFIX/lib/pkgconfig):
 *     cc feedlist.c $(pkg-config --cflags --libs feedstream)
 */
#include "feedstream.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* The callbacks' context: where lines go, and the file being read. */
typedef struct listing {
    FILE *out;
    const char *path;
    int failed;
} listing;

/* A span without the white space around it (spans are raw: nothing is trimmed). */
static cfs_span trimmed(cfs_span s) {
    if (s.ptr == NULL) return s;
    while (s.len > 0 && (s.ptr[0] == ' ' || s.ptr[0] == '\t' || s.ptr[0] == '\n' || s.ptr[0] == '\r')) {
        s.ptr++;
        s.len--;
    }
    while (s.len > 0 && (s.ptr[s.len - 1] == ' ' || s.ptr[s.len - 1] == '\t' || s.ptr[s.len - 1] == '\n' ||
                         s.ptr[s.len - 1] == '\r'))
        s.len--;
    return s;
}

/* Writes a span as a JSON string (spans are UTF-8 and not NUL-terminated). */
static void put_json(FILE *out, cfs_span s) {
    static const char hex[] = "0123456789abcdef";
    putc('"', out);
    for (size_t i = 0; i < s.len; i++) {
        unsigned char c = s.ptr[i];
        if (c == '"' || c == '\\') {
            putc('\\', out);
            putc(c, out);
        } else if (c == '\n') {
            fputs("\\n", out);
        } else if (c == '\t') {
            fputs("\\t", out);
        } else if (c < 0x20) {
            fprintf(out, "\\u00%c%c", hex[c >> 4], hex[c & 15]);
        } else {
            putc(c, out);
        }
    }
    putc('"', out);
}

/* A NUL-terminated string as a span. */
static cfs_span text(const char *s) {
    cfs_span span = {(const uint8_t *)s, strlen(s)};
    return span;
}

/* ,"name":"value" when the field is present. */
static void put_member(FILE *out, const char *name, cfs_span s) {
    s = trimmed(s);
    if (s.ptr == NULL) return;
    fprintf(out, ",\"%s\":", name);
    put_json(out, s);
}

/* The first link of a record: column 0 (href) of the first row of CFS_LIST_LINKS
   whose rel (column 1) is absent or "alternate"; else its first row. */
static cfs_span first_link(const cfs_record *r) {
    size_t columns = cfs_list_columns(CFS_LIST_LINKS);
    const cfs_span *rows = r->rows[CFS_LIST_LINKS];
    cfs_span none = {NULL, 0};
    for (size_t i = 0; i < r->counts[CFS_LIST_LINKS]; i++) {
        cfs_span rel = trimmed(rows[i * columns + 1]);
        if (rel.ptr == NULL || (rel.len == 9 && memcmp(rel.ptr, "alternate", 9) == 0)) return rows[i * columns];
    }
    return r->counts[CFS_LIST_LINKS] > 0 ? rows[0] : none;
}

static int on_item(void *ctx, const cfs_item *item, const cfs_feed *feed) {
    listing *l = ctx;
    fprintf(l->out, "{\"document\":%zu,\"index\":%zu", feed->document, item->index);
    put_member(l->out, "title", item->record.fields[CFS_FIELD_TITLE]);
    put_member(l->out, "link", first_link(&item->record));
    put_member(l->out, "published", item->record.fields[CFS_FIELD_PUBLISHED]);
    if (item->truncated) fputs(",\"truncated\":true", l->out);
    fputs("}\n", l->out);
    return ferror(l->out) ? 1 : 0; /* non-zero stops the parser: CFS_ERR_ABORTED */
}

static int on_document_end(void *ctx, const cfs_feed *feed, const cfs_error *error) {
    listing *l = ctx;
    fprintf(l->out, "{\"document\":%zu", feed->document);
    put_member(l->out, "feed", feed->record.fields[CFS_FIELD_TITLE]);
    fprintf(l->out, ",\"format\":\"%s\",\"items\":%zu}\n", cfs_format_name(feed->format), feed->items_count);
    if (error != NULL) {
        /* error and its message are valid during this call only. */
        fputs("{\"source\":", stderr);
        put_json(stderr, text(l->path));
        fprintf(stderr, ",\"document\":%zu,\"error\":", error->document);
        put_json(stderr, text(error->message));
        fprintf(stderr, ",\"line\":%lu,\"column\":%lu}\n", error->line, error->column);
        l->failed = 1;
    }
    return ferror(l->out) ? 1 : 0;
}

int main(int argc, char **argv) {
    cfs_options options;
    cfs_options_init(&options); /* every default; then set what differs */
    int first = 1;
    if (argc > 2 && strcmp(argv[1], "--backend") == 0) {
        if (strcmp(argv[2], "libxml2") == 0) {
            options.backend = CFS_BACKEND_LIBXML2;
        } else if (strcmp(argv[2], "expat") != 0) {
            fprintf(stderr, "feedlist: unknown backend %s\n", argv[2]);
            return 2;
        }
        first = 3;
    }
    if (first >= argc) {
        fprintf(stderr, "usage: feedlist [--backend expat|libxml2] FILE...\n");
        return 2;
    }

    listing l = {stdout, NULL, 0};
    cfs_callbacks callbacks = {.on_item = on_item, .on_document_end = on_document_end};
    cfs_parser *parser = cfs_parser_create(&options, &callbacks, &l);
    if (parser == NULL) {
        fprintf(stderr, "feedlist: out of memory\n");
        return 2;
    }
    for (int i = first; i < argc; i++) {
        l.path = argv[i];
        int fd = strcmp(argv[i], "-") == 0 ? 0 : open(argv[i], O_RDONLY);
        if (fd < 0) {
            fprintf(stderr, "feedlist: %s: %s\n", argv[i], strerror(errno));
            l.failed = 1;
            continue;
        }
        cfs_parser_reset(parser); /* a new stream; buffers are kept */
        cfs_status status = cfs_parser_feed_fd(parser, fd);
        /* finish() closes the last document even after a fatal status. */
        cfs_status end = cfs_parser_finish(parser);
        if (status == CFS_OK) status = end;
        if (fd != 0) close(fd);
        if (status != CFS_OK) {
            const cfs_error *e = cfs_parser_error(parser); /* valid until the next call */
            /* Errors of a document were reported with it; the others are reported here. */
            if (e != NULL && e->document == 0)
            {
                fputs("{\"source\":", stderr);
                put_json(stderr, text(argv[i]));
                fputs(",\"error\":", stderr);
                put_json(stderr, text(e->message));
                fputs("}\n", stderr);
            }
            if (status == CFS_ERR_NOMEM || status == CFS_ERR_ABORTED) {
                cfs_parser_destroy(parser);
                fprintf(stderr, "feedlist: %s\n", cfs_status_string(status));
                return 2;
            }
            l.failed = 1;
        }
    }
    cfs_parser_destroy(parser);
    if (fflush(stdout) != 0) return 2;
    return l.failed ? 1 : 0;
}
