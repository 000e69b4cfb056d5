/* SPDX-License-Identifier: Apache-2.0 */
/*
 * feedstream_baseline.h -- benchmarking helpers: the two physical limits a feed parser
 * is measured against. Not part of the parsing API (feedstream.h); `feedstream bench`
 * and the benchmark suite use them so that the baselines run in the same process, on
 * the same bytes, in the same run as the parsers they bound.
 *
 *   tokenize only   expat, namespace-aware, with empty callbacks (start, end, character
 *                   data), over a plain XML stream of concatenated documents: the
 *                   tokenizer is reset at each root end tag, as the parser does. Bytes
 *                   are read straight into expat's buffer (XML_GetBuffer), the parser's
 *                   own input path, so the baseline is the fastest this tokenizer goes.
 *   inflate only    zlib (or ISA-L, when chosen: feedstream_inflate.h), every member of a gzip stream, nothing parsed.
 */
#ifndef FEEDSTREAM_BASELINE_H
#define FEEDSTREAM_BASELINE_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/** What a baseline run saw. */
typedef struct cfs_baseline_stats {
    /** In: what inflates gzip input, CFS_INFLATE_ZLIB or CFS_INFLATE_ISAL
        (feedstream_inflate.h); 0 for cfs_inflate_default_engine(). */
    int inflater;
    /** Bytes read from the input descriptor (compressed, for gzip). */
    uint64_t bytes_in;
    /** Uncompressed bytes: tokenized (tokenize) or produced (inflate). */
    uint64_t bytes_xml;
    /** Documents whose root element closed (tokenize only; 0 for inflate). */
    uint64_t documents;
    /** 0, or why the run stopped: a static English string. */
    const char *error;
} cfs_baseline_stats;

/**
 * Tokenize only: reads `fd` to end of file and runs expat over it with empty
 * callbacks, one document after another (whitespace between documents is skipped).
 * The input must be plain XML; gzip input is refused (inflate it first, e.g. through a
 * pipe fed by cfs_baseline_inflate_fd on another thread, or use
 * cfs_baseline_tokenize_gzip_fd).
 * @param fd     an open descriptor; read to its end, not closed.
 * @param stats  filled in; must not be NULL.
 * @return 0 on success, -1 on a read error, ill-formed XML or gzip input
 *         (stats->error says which).
 * @warning Allocates one expat parser per call (cfs_baseline_tokenizer keeps one);
 *          thread-safe (no shared state).
 */
int cfs_baseline_tokenize_fd(int fd, cfs_baseline_stats *stats);

/**
 * Tokenize only, for a gzip stream: as cfs_baseline_tokenize_fd over the stream's
 * members inflated in turn on this thread (zlib, or ISA-L when chosen), straight into
 * expat's buffer. stats->bytes_in counts the compressed bytes read.
 * @param fd     an open descriptor of gzip data; read to its end, not closed.
 * @param stats  filled in; must not be NULL.
 * @return 0 on success, -1 on a read error, corrupt or truncated gzip data, or
 *         ill-formed XML (stats->error says which).
 * @warning Allocates one expat parser and one inflater per call; thread-safe.
 */
int cfs_baseline_tokenize_gzip_fd(int fd, cfs_baseline_stats *stats);

/**
 * The tokenize-only baseline kept between inputs, as a program tokenizing many files
 * keeps its parser: one expat parser (reset at each document, XML_ParserReset), its
 * buffers and an inflater, so that a run allocates nothing per file.
 */
typedef struct cfs_baseline_tokenizer cfs_baseline_tokenizer;

/** A tokenizer; NULL when out of memory. Free it with cfs_baseline_tokenizer_free. */
cfs_baseline_tokenizer *cfs_baseline_tokenizer_new(void);

/** Frees `t` (NULL is allowed). */
void cfs_baseline_tokenizer_free(cfs_baseline_tokenizer *t);

/**
 * Tokenize only with `t`: cfs_baseline_tokenize_fd (gzip == 0) or
 * cfs_baseline_tokenize_gzip_fd (gzip != 0) over `fd`, same results.
 * @warning One thread at a time per tokenizer.
 */
int cfs_baseline_tokenizer_run(cfs_baseline_tokenizer *t, int fd, int gzip, cfs_baseline_stats *stats);

/**
 * Inflate only: reads `in_fd` to end of file and inflates every gzip member. The
 * output is written to `out_fd` when it is >= 0 (e.g. the write end of a pipe; a
 * closed reader ends the run without an error) and dropped otherwise. Input that is
 * not gzip is passed through unchanged (counted as read and, with out_fd, copied).
 * @param in_fd  an open descriptor; read to its end, not closed.
 * @param out_fd -1 to drop the output; otherwise written to, not closed.
 * @param stats  filled in; must not be NULL.
 * @return 0 on success, -1 on a read or write error or corrupt gzip data.
 * @warning Thread-safe (no shared state).
 */
int cfs_baseline_inflate_fd(int in_fd, int out_fd, cfs_baseline_stats *stats);

#ifdef __cplusplus
}
#endif

#endif /* FEEDSTREAM_BASELINE_H */
