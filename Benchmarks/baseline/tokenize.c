/* SPDX-License-Identifier: Apache-2.0 */
/*
 * tokenize.c -- the "tokenize only" baseline: expat, namespace-aware, with empty
 * callbacks, over a plain XML stream of concatenated documents (reset at each root
 * end, as FeedStream does). Prints bytes, documents, seconds and MB/s.
 *
 *   cc -O2 -o /tmp/tokenize Benchmarks/baseline/tokenize.c -lexpat
 *   /tmp/tokenize dump.xml
 */
#include <expat.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define CHUNK (256 << 10)

typedef struct { XML_Parser xp; long depth; int done; XML_Index end; } state;

static void on_start(void *ud, const XML_Char *n, const XML_Char **a) { (void)n; (void)a; ((state *)ud)->depth++; }
static void on_end(void *ud, const XML_Char *n) {
    (void)n;
    state *s = ud;
    if (--s->depth == 0) {
        s->done = 1;
        s->end = XML_GetCurrentByteIndex(s->xp) + XML_GetCurrentByteCount(s->xp);
        XML_StopParser(s->xp, XML_FALSE);
    }
}
static void on_text(void *ud, const XML_Char *t, int len) { (void)ud; (void)t; (void)len; }

static void begin(state *s) {
    XML_ParserReset(s->xp, NULL);
    XML_SetUserData(s->xp, s);
    XML_SetElementHandler(s->xp, on_start, on_end);
    XML_SetCharacterDataHandler(s->xp, on_text);
    s->depth = 0;
    s->done = 0;
}

int main(int argc, char **argv) {
    if (argc < 2) { fprintf(stderr, "usage: tokenize FILE\n"); return 2; }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0) { perror(argv[1]); return 2; }
    static char buf[CHUNK];
    state s = { XML_ParserCreateNS(NULL, '\x01'), 0, 0, 0 };
    long long total = 0, docs = 0, errors = 0;
    XML_Index base = 0;   /* index of buf[0] in the current document */
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    begin(&s);
    ssize_t n;
    while ((n = read(fd, buf, CHUNK)) > 0) {
        total += n;
        char *p = buf;
        size_t len = (size_t)n;
        while (len > 0) {
            /* Skip whitespace between documents. */
            if (s.depth == 0 && !s.done && base == 0) {
                while (len > 0 && (*p == ' ' || *p == '\n' || *p == '\r' || *p == '\t')) { p++; len--; }
                if (len == 0) break;
            }
            if (XML_Parse(s.xp, p, (int)len, 0) == XML_STATUS_ERROR) {
                if (!s.done) { errors++; fprintf(stderr, "error: %s\n", XML_ErrorString(XML_GetErrorCode(s.xp))); return 1; }
                size_t used = (size_t)(s.end - base);
                docs++;
                p += used;
                len -= used;
                base = 0;
                begin(&s);
                continue;
            }
            base += (XML_Index)len;
            len = 0;
        }
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double secs = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) / 1e9;
    printf("tokenize-only: %lld bytes, %lld documents, %.3f s, %.1f MB/s\n", total, docs, secs, total / 1e6 / secs);
    return errors ? 1 : 0;
}
