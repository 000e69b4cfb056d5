/* SPDX-License-Identifier: Apache-2.0 */
/*
 * feedstream_charset.h -- a document's charset, decoded to UTF-8 the way expat decodes it.
 *
 * The one charset stage of every backend: the C tokenizers (expat.c, libxml2.c) and the
 * pure-Swift tokenizer (FeedStreamSwift's XMLTranscoder) all decode here, so that they
 * accept the same charsets, reject the same bytes and produce the same UTF-8. The alias
 * table, expat's built-in names and the charsets whose C1 bytes are controls come from
 * charset_aliases.def beside this file.
 *
 * Not thread-safe per charset: one cfs_charset per parser (the process-wide cache of
 * byte maps is locked). Internal to FeedStream: not installed with feedstream.h.
 */
#ifndef FEEDSTREAM_CHARSET_H
#define FEEDSTREAM_CHARSET_H

#include <iconv.h>
#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif


typedef enum cfs_charset_kind {
    CFS_CHARSET_UTF8,       /* not transcoded: the tokenizer reads it */
    CFS_CHARSET_LATIN1,     /* ISO-8859-1, as expat decodes it */
    CFS_CHARSET_ASCII,      /* US-ASCII */
    CFS_CHARSET_UTF16LE,
    CFS_CHARSET_UTF16BE,
    CFS_CHARSET_MAP,        /* any other name: an iconv byte map */
    CFS_CHARSET_UTF32LE,    /* not expat's: decoded here for every C tokenizer */
    CFS_CHARSET_UTF32BE
} cfs_charset_kind;

/** A charset, decoded exactly as expat decodes it. */
typedef struct cfs_charset {
    cfs_charset_kind kind;
    int map[256];           /* MAP: per byte a scalar value, -n (lead of n bytes) or -1 */
    int multibyte;          /* MAP: some byte leads a sequence */
    uint32_t table[256];    /* LATIN1, ASCII, MAP: UTF-8 per byte (see transcode.c) */
    iconv_t cd;             /* MAP with sequences: their converter, else (iconv_t)-1 */
    uint32_t *memo;         /* 2-byte sequences decoded so far */
    char name[64];          /* the charset's name, as the feed record reports it (encoding) */
} cfs_charset;

/** The charset name a declared name (bytes, not NUL-terminated) stands for, from the
    one alias table (charset_aliases.def), or NULL when it is not there (it goes to
    iconv as written). */
const char *cfs_charset_alias(const uint8_t *name, size_t len);

/** Whether `name` (bytes, not NUL-terminated) is one of expat's built-in encoding names,
    ASCII-case-insensitively (no alias looked up); *kind gets its kind. */
int cfs_charset_builtin(const uint8_t *name, size_t len, cfs_charset_kind *kind);

/** A built-in kind (not MAP). */
void cfs_charset_init(cfs_charset *cs, cfs_charset_kind kind);
/** Frees what the charset holds (the struct itself is the caller's). */
void cfs_charset_release(cfs_charset *cs);
/** expat's unknown-encoding handler: the iconv byte map of `name` (cs->map,
    cs->multibyte) and, when it has sequences, their converter. 0 when iconv does not
    know the name. expat vets the map itself. */
int cfs_charset_open_map(cfs_charset *cs, const char *name);
/** The scalar value of the multi-byte sequence at s (its length fixed by the lead
    byte's map entry), or -1: expat's XML_Encoding convert function. */
int cfs_charset_sequence(const cfs_charset *cs, const char *s);
/** The charset of a declared name (bytes, not NUL-terminated) as expat resolves it:
    its built-in encodings by ASCII-case-insensitive name, others through iconv and
    vetted as XmlInitUnknownEncoding vets them. 0: expat's "unknown encoding". */
int cfs_charset_named(cfs_charset *cs, const uint8_t *name, size_t len);

typedef enum cfs_transcode_status {
    CFS_TRANSCODE_OK,       /* everything complete decoded (a cut character is left) */
    CFS_TRANSCODE_INVALID,  /* stopped at a character expat rejects */
    CFS_TRANSCODE_PARTIAL   /* final, and the input ends inside a character */
} cfs_transcode_status;

/** At most this many UTF-8 bytes come out of `len` input bytes. */
static inline size_t cfs_transcode_max(size_t len) { return 3 * len + 8; }
/** UTF-32, from a byte order mark, the first bytes or the declaration: expat does not
    read it, its adapter gives it the UTF-8 of the charset stage. */
static inline int cfs_charset_utf32(const cfs_charset *cs) {
    return cs->kind == CFS_CHARSET_UTF32LE || cs->kind == CFS_CHARSET_UTF32BE;
}
/** Decodes the complete characters at the start of `in` to UTF-8 in `out` (room for
    cfs_transcode_max(len)). Stops at an invalid character (*consumed is its offset)
    and before a character cut off by the end (reported PARTIAL when final). */
cfs_transcode_status cfs_transcode(cfs_charset *cs, const uint8_t *in, size_t len, int final, uint8_t *out,
                                   size_t *consumed, size_t *written);
/** The fewest input bytes (whole characters, all valid) whose UTF-8 is at least
    `output` bytes; *produced gets their UTF-8 length. */
size_t cfs_transcode_input_length(cfs_charset *cs, const uint8_t *in, size_t len, size_t output,
                                  size_t *produced);

typedef enum cfs_detect_status {
    CFS_DETECT_MORE,        /* give more bytes of the document's start */
    CFS_DETECT_OK,          /* cs is the charset; skip the byte order mark's bytes */
    CFS_DETECT_ERROR,       /* expat rejects the declaration: message, at, line, column */
    CFS_DETECT_NOMEM
} cfs_detect_status;

typedef struct cfs_detect_result {
    size_t skip;            /* bytes of a byte order mark */
    int alias;              /* expat must be told the charset's name: the declared name is an
                               alias, or the transport's charset overrides the declaration */
    const char *message;
    size_t at;              /* document offset of the error */
    unsigned long line, column;
} cfs_detect_result;

/** The charset of a document from its first `len` bytes, as expat chooses it: a byte
    order mark, UTF-16 without one ("00 3C", "3C 00"), then the XML declaration's
    encoding name (checked as expat checks it), resolved through the alias table; and
    UTF-32, which expat does not read, the same way (a mark, "00 00 00 3C",
    "3C 00 00 00"). cs->name is the charset's name.
    `transport` (NULL or "": none) is the charset the transport named (HTTP's
    Content-Type charset): RFC 7303's order, a byte order mark (or UTF-16/UTF-32 found
    by the first bytes) first, then the transport's charset, then the declaration. It
    is used when it names a charset we read that is not UTF-16 or UTF-32 (an 8-bit
    document cannot be those); the declaration is still checked for well-formedness,
    not for its name. */
cfs_detect_status cfs_charset_detect(const uint8_t *head, size_t len, int final, const char *transport,
                                     cfs_charset *cs, cfs_detect_result *r);

#ifdef __cplusplus
}
#endif

#endif
