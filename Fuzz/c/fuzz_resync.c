/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fuzz_resync.c -- libFuzzer harness for the resynchronization and encoding stage of
 * the C core: the fuzz input is a recipe for a dump, not the dump itself,
 * so that nearly every run has several documents, document starts of every form, and
 * charsets the charset stage must switch between.
 *
 * The input is split at 0xFF bytes into up to 8 pieces. Each piece becomes one
 * document: its first byte chooses the form (bits 0-2: the root, rss 2.0, Atom, RSS
 * 1.0 rdf:RDF, a bare RDF, or an unknown one; bit 3: an XML declaration; bits 4-5: the
 * charset, UTF-8, ISO-8859-1, UTF-16LE with a byte order mark, or UTF-16BE without one;
 * bit 6: junk bytes before it; bit 7: an item left open), and its other bytes become
 * the text of an item title as they are (so `<`, `&`, bytes that are no character of
 * the charset, and half a declaration all occur). The dump is then run through
 * fuzz_core.c's checks: one-call feed against chunks of random sizes, gzip in one or
 * two members, and a file descriptor; every backend-visible event digested, and the
 * run aborted when they differ — after a failed document, what follows must not
 * depend on where the input was cut.
 */
#define LLVMFuzzerTestOneInput fuzz_core_one_input
#include "fuzz_core.c"
#undef LLVMFuzzerTestOneInput

typedef struct { uint8_t *p; size_t len, cap; } buf;

static void put(buf *b, const void *s, size_t n) {
    if (b->len + n > b->cap) {
        size_t cap = b->cap ? b->cap * 2 : 4096;
        while (cap < b->len + n) cap *= 2;
        b->p = realloc(b->p, cap);
        if (b->p == NULL) abort();
        b->cap = cap;
    }
    memcpy(b->p + b->len, s, n);
    b->len += n;
}

static void puts_(buf *b, const char *s) { put(b, s, strlen(s)); }

/* Appends text (ASCII markup, or the piece's raw bytes) in the document's charset:
   UTF-16 widens each byte to a unit (a byte >= 0x80 becomes that code point, so
   Latin-1 text stays what it was, and 0xD8-0xDF high bytes never occur). */
static void put_in(buf *b, int charset, const uint8_t *s, size_t n) {
    if (charset < 2) { put(b, s, n); return; }
    for (size_t i = 0; i < n; i++) {
        uint8_t u[2] = { charset == 2 ? s[i] : 0, charset == 2 ? 0 : s[i] };
        put(b, u, 2);
    }
}

static void text_in(buf *b, int charset, const char *s) { put_in(b, charset, (const uint8_t *)s, strlen(s)); }

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
    buf dump = { 0 };
    size_t at = 0;
    for (int doc = 0; doc < 8 && at < size; doc++) {
        const uint8_t *end = memchr(data + at, 0xFF, size - at);
        size_t n = end ? (size_t)(end - (data + at)) : size - at;
        const uint8_t *piece = data + at;
        at += n + 1;
        uint8_t form = n ? piece[0] : 0;
        const uint8_t *title = n ? piece + 1 : piece;
        size_t title_len = n ? n - 1 : 0;
        int root = form & 7, declared = form >> 3 & 1, charset = form >> 4 & 3;
        if (form >> 6 & 1) puts_(&dump, "junk </x> & <!-- c --> ");
        if (charset == 2) put(&dump, "\xff\xfe", 2);   /* UTF-16LE's byte order mark */
        if (declared) {
            static const char *names[4] = { "UTF-8", "ISO-8859-1", "UTF-16", "UTF-16BE" };
            char decl[96];
            snprintf(decl, sizeof decl, "<?xml version=\"1.0\" encoding=\"%s\"?>\n", names[charset]);
            text_in(&dump, charset, decl);
        }
        static const char *open[8] = {
            "<rss version=\"2.0\"><channel><title>c</title><item><title>",
            "<feed xmlns=\"http://www.w3.org/2005/Atom\"><title>f</title><entry><title>",
            "<rdf:RDF xmlns:rdf=\"http://www.w3.org/1999/02/22-rdf-syntax-ns#\" xmlns=\"http://purl.org/rss/1.0/\"><item><title>",
            "<RDF xmlns=\"http://purl.org/rss/1.0/\"><item><title>",
            "<rss><channel><item><title>",
            "<feed><entry><title>",
            "<unknown><item><title>",
            "<rss version=\"0.91\"><channel><item><title>",
        };
        static const char *close[8] = {
            "</title></item></channel></rss>\n",
            "</title></entry></feed>\n",
            "</title></item></rdf:RDF>\n",
            "</title></item></RDF>\n",
            "</title></item></channel></rss>\n",
            "</title></entry></feed>\n",
            "</title></item></unknown>\n",
            "</title></item></channel></rss>\n",
        };
        text_in(&dump, charset, open[root]);
        put_in(&dump, charset, title, title_len);
        if (form >> 7 & 1) text_in(&dump, charset, "</title>");   /* the item left open */
        else text_in(&dump, charset, close[root]);
    }
    const char *save = getenv("FUZZ_DUMP");   /* to study a finding: the dump built, to a file */
    if (save) {
        FILE *f = fopen(save, "wb");
        if (f) {
            if (dump.len) fwrite(dump.p, 1, dump.len, f);
            fclose(f);
        }
    }
    int r = fuzz_core_one_input(dump.p ? dump.p : (const uint8_t *)"", dump.len);
    free(dump.p);
    return r;
}
