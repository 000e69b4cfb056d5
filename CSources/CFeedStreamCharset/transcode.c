/* SPDX-License-Identifier: Apache-2.0 AND MIT */
/*
 * transcode.c -- charsets, decoded once, the way expat decodes them.
 *
 * Every tokenizer decodes a document's charset here, so that they accept the same
 * charsets, reject the same bytes and produce the same UTF-8:
 *
 *   - expat decodes UTF-8, UTF-16, ISO-8859-1 and US-ASCII itself; for every other
 *     declared name its unknown-encoding handler (expat.c) takes the byte map and the
 *     sequence converter built here (cfs_charset_open_map, cfs_charset_sequence);
 *     expat then vets the map (XmlInitUnknownEncoding) and each multi-byte character
 *     (unknown_isInvalid).
 *   - libxml2 never decodes anything: its adapter (libxml2.c) picks the charset here
 *     (cfs_charset_detect: byte order mark, UTF-16 sniffing and the declared name, as
 *     expat picks them), transcodes every non-UTF-8 document to UTF-8 here
 *     (cfs_transcode, which applies expat's checks: the same maps rejected, the same
 *     characters invalid) and tells libxml2 the input is UTF-8.
 *
 *   - the pure-Swift tokenizer (Sources/FeedStreamSwift/Charset/XMLTranscoder.swift)
 *     takes the charset a name stands for (cfs_charset_named, cfs_charset_builtin,
 *     cfs_charset_alias) and decodes with cfs_transcode, as libxml2's adapter does.
 *
 * Byte maps come from iconv: each byte is a character (its scalar value), the lead
 * byte of an n-byte sequence (-n), or invalid (-1). Every single-byte charset iconv
 * knows works, and so do the multi-byte ones whose sequence length is fixed by the
 * lead byte (Shift_JIS, EUC-JP, EUC-KR, GB2312/GBK, Big5). Charsets that need state
 * or longer sequences (ISO-2022-JP's escapes, GB18030's 4-byte sequences, UTF-7's
 * '+') are rejected or their sequences invalid, in every backend alike. A stateful
 * iconv decoder that composes (CP1255, CP1258: vav + dagesh -> U+FB35) never composes
 * here: each character is converted on its own.
 */
#include "feedstream_charset.h"

#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- expat's character classes (lib/xmltok.c, asciitab.h) ---------------------- */

/* The ASCII bytes whose type is BT_OTHER: $ @ \ ^ ` { } ~ DEL. */
static int ascii_other(int c) {
    return c == 0x24 || c == 0x40 || c == 0x5C || c == 0x5E || c == 0x60 || c == 0x7B || c == 0x7D
        || c == 0x7E || c == 0x7F;
}

/* BT_NONXML among the ASCII bytes: controls other than tab, LF, CR. */
static int ascii_nonxml(int c) { return c < 0x20 && c != 0x09 && c != 0x0A && c != 0x0D; }

/* expat's checkCharRefNumber: surrogates, U+FFFE, U+FFFF and the non-XML controls
   are not characters. */
static int xml_char(int c) {
    switch (c >> 8) {
    case 0xD8: case 0xD9: case 0xDA: case 0xDB: case 0xDC: case 0xDD: case 0xDE: case 0xDF:
        return 0;
    case 0:
        return !ascii_nonxml(c);
    case 0xFF:
        return c != 0xFFFE && c != 0xFFFF;
    default:
        return 1;
    }
}

/* A table entry: UTF-8 bytes in the low 24 bits (first byte lowest) and their count
   in the top byte (1-3); 0 invalid; 0x80 | n the lead byte of an n-byte sequence. */
static uint32_t utf8_entry(uint32_t c) {
    if (c < 0x80) return 1u << 24 | c;
    if (c < 0x800) return 2u << 24 | (0x80 | (c & 0x3F)) << 8 | (0xC0 | c >> 6);
    return 3u << 24 | (0x80 | (c & 0x3F)) << 16 | (0x80 | ((c >> 6) & 0x3F)) << 8 | (0xE0 | c >> 12);
}

/* ---- charset names: the one alias table ------------------------------------------- */

static const struct { const char *key, *name; } aliases[] = {
#define CHARSET_ALIAS(key, name) { key, name },
#define BUILTIN_CHARSET(name, kind)
#define C1_CHARSET(name)
#include "charset_aliases.def"
#undef C1_CHARSET
#undef BUILTIN_CHARSET
#undef CHARSET_ALIAS
};

const char *cfs_charset_alias(const uint8_t *name, size_t len) {
    char key[64];
    size_t k = 0;
    for (size_t i = 0; i < len; i++) {
        uint8_t c = name[i];
        if (c == '-' || c == '_' || c == '.') continue;
        if (k + 1 >= sizeof key) return NULL;
        key[k++] = (char)(c >= 'A' && c <= 'Z' ? c + 0x20 : c);
    }
    key[k] = 0;
    size_t lo = 0, hi = sizeof aliases / sizeof aliases[0];
    while (lo < hi) {
        size_t mid = (lo + hi) / 2;
        int c = strcmp(aliases[mid].key, key);
        if (c == 0) return aliases[mid].name;
        if (c < 0) lo = mid + 1;
        else hi = mid;
    }
    return NULL;
}

/* The name a charset is reported by: its alias table name, else as declared, in
   lower case. */
static void set_name(cfs_charset *cs, const char *name, size_t len) {
    if (len >= sizeof cs->name) len = sizeof cs->name - 1;
    for (size_t i = 0; i < len; i++) {
        char c = name[i];
        cs->name[i] = c >= 'A' && c <= 'Z' ? (char)(c + 0x20) : c;
    }
    cs->name[len] = 0;
}

/* ---- byte maps from iconv ---------------------------------------------------------- */

/* Converts `len` bytes to one Unicode scalar; -1 if they are not exactly one
   character. */
static int iconv_scalar(iconv_t cd, const char *in, size_t len) {
    char buf[8];
    char *ip = (char *)in, *op = buf;
    size_t il = len, ol = sizeof buf;
    iconv(cd, NULL, NULL, NULL, NULL);
    if (iconv(cd, &ip, &il, &op, &ol) == (size_t)-1 || il != 0) return -1;
    /* Stateful decoders (e.g. CP1255, which composes) may hold the character back. */
    if (iconv(cd, NULL, NULL, &op, &ol) == (size_t)-1) return -1;
    if (ol != sizeof buf - 4) return -1;   /* UTF-32 out: exactly one character */
    uint32_t v;
    memcpy(&v, buf, 4);
    return v > 0x10FFFF ? -1 : (int)v;
}

/* Builds the byte map of a charset by asking iconv about every byte: a character, or
   the lead byte of a 2- or 3-byte sequence (found by trying every trail byte), or
   invalid. */
static void build_map(iconv_t cd, int map[256], int *multibyte) {
    *multibyte = 0;
    for (int b = 0; b < 256; b++) {
        char c = (char)b;
        int v = iconv_scalar(cd, &c, 1);
        map[b] = v >= 0 ? v : -1;
        if (v >= 0) continue;
        for (int t = 0x40; t <= 0xFE && map[b] == -1; t++) {
            char seq[2] = { c, (char)t };
            if (iconv_scalar(cd, seq, 2) >= 0) map[b] = -2;
        }
        for (int t = 0xA1; t <= 0xFE && map[b] == -1; t++) {
            char seq[3] = { c, (char)t, (char)t };
            if (iconv_scalar(cd, seq, 3) >= 0) map[b] = -3;
        }
        if (map[b] < -1) *multibyte = 1;
    }
}

/* Maps are costly to build (thousands of iconv calls) and documents of one charset
   come in runs: keep the last few, process-wide. */
#define MAP_CACHE 8
static struct { char name[40]; int map[256]; int multibyte; } map_cache[MAP_CACHE];
static unsigned map_cache_next;
static pthread_mutex_t map_cache_lock = PTHREAD_MUTEX_INITIALIZER;

static void lookup_map(const char *name, iconv_t cd, int map[256], int *multibyte) {
    size_t len = strlen(name);
    pthread_mutex_lock(&map_cache_lock);
    for (unsigned i = 0; i < MAP_CACHE; i++)
        if (len < sizeof map_cache[i].name && strcmp(map_cache[i].name, name) == 0) {
            memcpy(map, map_cache[i].map, sizeof map_cache[i].map);
            *multibyte = map_cache[i].multibyte;
            pthread_mutex_unlock(&map_cache_lock);
            return;
        }
    pthread_mutex_unlock(&map_cache_lock);
    build_map(cd, map, multibyte);
    if (len >= sizeof map_cache[0].name) return;
    pthread_mutex_lock(&map_cache_lock);
    unsigned i = map_cache_next++ % MAP_CACHE;
    memcpy(map_cache[i].name, name, len + 1);
    memcpy(map_cache[i].map, map, sizeof map_cache[i].map);
    map_cache[i].multibyte = multibyte ? *multibyte : 0;
    pthread_mutex_unlock(&map_cache_lock);
}

void cfs_charset_init(cfs_charset *cs, cfs_charset_kind kind) {
    static const char *const names[] = {
        [CFS_CHARSET_UTF8] = "utf-8", [CFS_CHARSET_LATIN1] = "iso-8859-1", [CFS_CHARSET_ASCII] = "us-ascii",
        [CFS_CHARSET_UTF16LE] = "utf-16le", [CFS_CHARSET_UTF16BE] = "utf-16be", [CFS_CHARSET_MAP] = "",
        [CFS_CHARSET_UTF32LE] = "utf-32le", [CFS_CHARSET_UTF32BE] = "utf-32be",
    };
    memset(cs, 0, sizeof *cs);
    cs->kind = kind;
    cs->cd = (iconv_t)-1;
    set_name(cs, names[kind], strlen(names[kind]));
    if (kind == CFS_CHARSET_LATIN1 || kind == CFS_CHARSET_ASCII)
        for (int i = 0; i < 256; i++)
            cs->table[i] = ascii_nonxml(i) || (kind == CFS_CHARSET_ASCII && i >= 0x80) ? 0 : utf8_entry((uint32_t)i);
}

void cfs_charset_release(cfs_charset *cs) {
    if (cs->cd != (iconv_t)-1) iconv_close(cs->cd);
    cs->cd = (iconv_t)-1;
    free(cs->memo);
    cs->memo = NULL;
}

/* 1 when the bytes 0x80-0x9F that iconv leaves undefined in charset `name` are the C1
   controls (C1_CHARSET in charset_aliases.def; XMLTranscoder reads the same entries). */
static int c1_charset(const char *name) {
    static const char *const names[] = {
#define CHARSET_ALIAS(key, name)
#define BUILTIN_CHARSET(name, kind)
#define C1_CHARSET(name) name,
#include "charset_aliases.def"
#undef C1_CHARSET
#undef BUILTIN_CHARSET
#undef CHARSET_ALIAS
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (strcmp(names[i], name) == 0) return 1;
    return 0;
}

int cfs_charset_open_map(cfs_charset *cs, const char *name) {
    cfs_charset_init(cs, CFS_CHARSET_MAP);
    const char *alias = cfs_charset_alias((const uint8_t *)name, strlen(name));
    if (alias) name = alias;
    set_name(cs, name, strlen(name));
    iconv_t cd = iconv_open("UTF-32LE", name);
    if (cd == (iconv_t)-1) return 0;
    lookup_map(name, cd, cs->map, &cs->multibyte);
    if (c1_charset(name))
        for (int b = 0x80; b < 0xA0; b++)
            if (cs->map[b] == -1) cs->map[b] = b;
    if (cs->multibyte) cs->cd = cd;
    else iconv_close(cd);
    return 1;
}

int cfs_charset_sequence(const cfs_charset *cs, const char *s) {
    int n = -cs->map[(unsigned char)s[0]];   /* the lead byte fixes the length */
    return n >= 2 && n <= 4 && cs->cd != (iconv_t)-1 ? iconv_scalar(cs->cd, s, (size_t)n) : -1;
}

/* expat's XmlInitUnknownEncoding, on the map: 0 when expat rejects it ("unknown
   encoding"); else the per-byte table. */
static int vet_map(cfs_charset *cs) {
    const int *map = cs->map;
    for (int i = 0; i < 128; i++)
        if (!ascii_other(i) && !ascii_nonxml(i) && map[i] != i) return 0;
    for (int i = 0; i < 256; i++) {
        int c = map[i];
        if (c == -1) {
            cs->table[i] = 0;                                   /* BT_MALFORM */
        } else if (c < 0) {
            if (c < -4 || cs->cd == (iconv_t)-1) return 0;
            cs->table[i] = (uint32_t)(0x80 | -c) << 24;         /* BT_LEAD2..4 */
        } else if (c < 0x80) {
            if (!ascii_other(c) && !ascii_nonxml(c) && c != i) return 0;
            cs->table[i] = ascii_nonxml(c) ? 0 : utf8_entry((uint32_t)c);
        } else if (!xml_char(c)) {
            cs->table[i] = 0;                                   /* BT_NONXML */
        } else {
            if (c > 0xFFFF) return 0;
            cs->table[i] = utf8_entry((uint32_t)c);
        }
    }
    return 1;
}

/* ASCII-case-insensitive comparison of a name with an upper-case keyword (expat's
   streqci). */
static int name_is(const uint8_t *name, size_t len, const char *keyword) {
    size_t k = strlen(keyword);
    if (len != k) return 0;
    for (size_t i = 0; i < len; i++) {
        uint8_t c = name[i];
        if (c >= 'a' && c <= 'z') c -= 0x20;
        if (c != (uint8_t)keyword[i]) return 0;
    }
    return 1;
}

/* expat's built-in encodings (getEncodingIndex; BUILTIN_CHARSET in charset_aliases.def):
   1 and *kind set when `name` is one. */
int cfs_charset_builtin(const uint8_t *name, size_t len, cfs_charset_kind *kind) {
    static const struct { const char *name; cfs_charset_kind kind; } names[] = {
#define CHARSET_ALIAS(key, name)
#define BUILTIN_CHARSET(name, kind) { name, CFS_CHARSET_##kind },
#define C1_CHARSET(name)
#include "charset_aliases.def"
#undef C1_CHARSET
#undef BUILTIN_CHARSET
#undef CHARSET_ALIAS
    };
    for (size_t i = 0; i < sizeof names / sizeof names[0]; i++)
        if (name_is(name, len, names[i].name)) {
            *kind = names[i].kind;
            return 1;
        }
    return 0;
}

/* cfs_charset_builtin, with cs initialized to the kind found. */
static int builtin(const uint8_t *name, size_t len, cfs_charset *cs) {
    cfs_charset_kind kind;
    if (!cfs_charset_builtin(name, len, &kind)) return 0;
    cfs_charset_init(cs, kind);
    return 1;
}

int cfs_charset_named(cfs_charset *cs, const uint8_t *name, size_t len) {
    const char *alias = cfs_charset_alias(name, len);
    if (alias) {
        name = (const uint8_t *)alias;
        len = strlen(alias);
    }
    if (builtin(name, len, cs)) return 1;
    char buf[64];
    if (len == 0 || len >= sizeof buf || memchr(name, 0, len)) {
        cfs_charset_init(cs, CFS_CHARSET_MAP);
        return 0;
    }
    memcpy(buf, name, len);
    buf[len] = 0;
    if (!cfs_charset_open_map(cs, buf)) return 0;
    if (!vet_map(cs)) {
        cfs_charset_release(cs);
        return 0;
    }
    return 1;
}

/* ---- decoding ------------------------------------------------------------------------ */

/* A multi-byte sequence as expat's unknown_isInvalid judges it: its table entry, or 0.
   2-byte sequences are memoized. */
static uint32_t sequence_entry(cfs_charset *cs, const uint8_t *p, size_t n) {
    uint32_t *slot = NULL;
    if (n == 2) {
        if (cs->memo == NULL) cs->memo = calloc(65536, sizeof *cs->memo);
        if (cs->memo) {
            slot = &cs->memo[(size_t)p[0] << 8 | p[1]];
            if (*slot) return *slot == UINT32_MAX ? 0 : *slot;
        }
    }
    int c = iconv_scalar(cs->cd, (const char *)p, n);
    /* unknown_isInvalid: (c & ~0xFFFF) || checkCharRefNumber(c) < 0 */
    uint32_t e = c < 0 || c > 0xFFFF || !xml_char(c) ? 0 : utf8_entry((uint32_t)c);
    if (slot) *slot = e ? e : UINT32_MAX;
    return e;
}

/* Decodes the character at p (n bytes available): its UTF-8 into out (room for 4)
   and its byte count; 0 when it is cut off by the end, -1 when invalid. */
static int decode_char(cfs_charset *cs, const uint8_t *p, size_t n, uint8_t *out, size_t *out_len) {
    switch (cs->kind) {
    case CFS_CHARSET_UTF8:
        return -1;   /* never transcoded */
    case CFS_CHARSET_LATIN1:
    case CFS_CHARSET_ASCII:
    case CFS_CHARSET_MAP: {
        uint32_t e = cs->table[p[0]];
        if (e == 0) return -1;
        size_t len = e >> 24;
        if (len & 0x80) {
            size_t need = len & 0x7F;
            if (n < need) return 0;
            e = sequence_entry(cs, p, need);
            if (e == 0) return -1;
            len = e >> 24;
            for (size_t k = 0; k < len; k++) out[k] = (uint8_t)(e >> (8 * k));
            *out_len = len;
            return (int)need;
        }
        for (size_t k = 0; k < len; k++) out[k] = (uint8_t)(e >> (8 * k));
        *out_len = len;
        return 1;
    }
    case CFS_CHARSET_UTF32LE:
    case CFS_CHARSET_UTF32BE: {
        if (n < 4) return 0;
        uint32_t c = cs->kind == CFS_CHARSET_UTF32BE
            ? (uint32_t)p[0] << 24 | (uint32_t)p[1] << 16 | (uint32_t)p[2] << 8 | p[3]
            : (uint32_t)p[3] << 24 | (uint32_t)p[2] << 16 | (uint32_t)p[1] << 8 | p[0];
        /* Scalar values that are XML characters (no surrogates, U+FFFE/U+FFFF, controls). */
        if (c > 0x10FFFF || !xml_char((int)c)) return -1;
        if (c < 0x80) {
            out[0] = (uint8_t)c;
            *out_len = 1;
        } else if (c < 0x800) {
            out[0] = (uint8_t)(0xC0 | c >> 6);
            out[1] = (uint8_t)(0x80 | (c & 0x3F));
            *out_len = 2;
        } else if (c < 0x10000) {
            out[0] = (uint8_t)(0xE0 | c >> 12);
            out[1] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            out[2] = (uint8_t)(0x80 | (c & 0x3F));
            *out_len = 3;
        } else {
            out[0] = (uint8_t)(0xF0 | c >> 18);
            out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
            out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            out[3] = (uint8_t)(0x80 | (c & 0x3F));
            *out_len = 4;
        }
        return 4;
    }
    case CFS_CHARSET_UTF16LE:
    case CFS_CHARSET_UTF16BE: {
        int be = cs->kind == CFS_CHARSET_UTF16BE;
        if (n < 2) return 0;
        uint32_t u = be ? (uint32_t)p[0] << 8 | p[1] : (uint32_t)p[1] << 8 | p[0];
        if (u < 0x80) {
            if (ascii_nonxml((int)u)) return -1;
            out[0] = (uint8_t)u;
            *out_len = 1;
            return 2;
        }
        if (u < 0x800) {
            out[0] = (uint8_t)(0xC0 | u >> 6);
            out[1] = (uint8_t)(0x80 | (u & 0x3F));
            *out_len = 2;
            return 2;
        }
        if ((u & 0xFC00) == 0xD800) {
            if (n < 4) return 0;
            /* A high surrogate must be followed by a low one (expat itself would take
               any next unit's low 10 bits and make another character of the pair): an
               unpaired one is an invalid character, in every backend (expat.c). */
            uint32_t lo = be ? (uint32_t)p[2] << 8 | p[3] : (uint32_t)p[3] << 8 | p[2];
            if ((lo & 0xFC00) != 0xDC00) return -1;
            uint32_t c = 0x10000 + ((u & 0x3FF) << 10) + (lo & 0x3FF);
            out[0] = (uint8_t)(0xF0 | c >> 18);
            out[1] = (uint8_t)(0x80 | ((c >> 12) & 0x3F));
            out[2] = (uint8_t)(0x80 | ((c >> 6) & 0x3F));
            out[3] = (uint8_t)(0x80 | (c & 0x3F));
            *out_len = 4;
            return 4;
        }
        if ((u & 0xFC00) == 0xDC00 || u >= 0xFFFE) return -1;
        out[0] = (uint8_t)(0xE0 | u >> 12);
        out[1] = (uint8_t)(0x80 | ((u >> 6) & 0x3F));
        out[2] = (uint8_t)(0x80 | (u & 0x3F));
        *out_len = 3;
        return 2;
    }
    }
    return -1;
}

cfs_transcode_status cfs_transcode(cfs_charset *cs, const uint8_t *in, size_t len, int final, uint8_t *out,
                                   size_t *consumed, size_t *written) {
    size_t i = 0, o = 0;
    cfs_transcode_status st = CFS_TRANSCODE_OK;
    int table = cs->kind == CFS_CHARSET_LATIN1 || cs->kind == CFS_CHARSET_ASCII || cs->kind == CFS_CHARSET_MAP;
    while (i < len) {
        if (table) {
            /* The common case, inline: a byte that is a character of 1-3 UTF-8 bytes. */
            uint32_t e = cs->table[in[i]];
            uint32_t n = e >> 24;
            if (n - 1 < 3) {
                out[o] = (uint8_t)e;
                if (n > 1) out[o + 1] = (uint8_t)(e >> 8);
                if (n > 2) out[o + 2] = (uint8_t)(e >> 16);
                o += n;
                i++;
                continue;
            }
        }
        size_t ol = 0;
        int r = decode_char(cs, in + i, len - i, out + o, &ol);
        if (r > 0) {
            i += (size_t)r;
            o += ol;
            continue;
        }
        if (r < 0) st = CFS_TRANSCODE_INVALID;
        else if (final) st = CFS_TRANSCODE_PARTIAL;
        break;
    }
    *consumed = i;
    *written = o;
    return st;
}

size_t cfs_transcode_input_length(cfs_charset *cs, const uint8_t *in, size_t len, size_t output,
                                  size_t *produced) {
    size_t i = 0, o = 0;
    uint8_t scratch[4];
    while (i < len && o < output) {
        size_t ol = 0;
        int r = decode_char(cs, in + i, len - i, scratch, &ol);
        if (r <= 0) break;
        i += (size_t)r;
        o += ol;
    }
    if (produced) *produced = o;
    return i;
}

/* ---- which charset: byte order marks, UTF-16 sniffing, the XML declaration -------- */

static int xml_space(int c) { return c == 0x20 || c == 0x09 || c == 0x0A || c == 0x0D; }
static int ascii_letter(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'); }

/* The pseudo-attributes of an XML declaration, s[from..end) just after "<?xml" up to
   "?>", checked as expat's doParseXmlDecl / parsePseudoAttribute check them: version,
   then optionally encoding, then optionally standalone. Returns 1 with the encoding
   name's place (len 0: none), or 0 with *bad where expat reports the error. */
static int parse_declaration(const uint8_t *s, size_t from, size_t end, size_t *name, size_t *name_len,
                             size_t *bad) {
#define ASCII(k) ((k) < end && s[k] < 0x80 ? (int)s[k] : -1)
    struct { size_t name, name_end, value, next; } a;
    *name_len = 0;
    int which = 0;   /* 0 version, 1 encoding, 2 standalone */
    size_t p = from;
    for (;;) {
        /* parsePseudoAttribute */
        if (p >= end) {
            if (which == 0) { *bad = from; return 0; }   /* expat leaves its pointer where it was */
            return 1;
        }
        if (!xml_space(ASCII(p))) { *bad = p; return 0; }
        do p++; while (xml_space(ASCII(p)));
        if (p >= end) {
            if (which == 0) { *bad = from; return 0; }
            return 1;
        }
        a.name = p;
        for (;;) {
            int c = ASCII(p);
            if (c == -1) { *bad = p; return 0; }
            if (c == '=') { a.name_end = p; break; }
            if (xml_space(c)) {
                a.name_end = p;
                do p++; while (xml_space(ASCII(p)));
                if (ASCII(p) != '=') { *bad = p; return 0; }
                break;
            }
            p++;
        }
        if (p == a.name) { *bad = p; return 0; }
        p++;
        while (xml_space(ASCII(p))) p++;
        int open = ASCII(p);
        if (open != '"' && open != '\'') { *bad = p; return 0; }
        a.value = ++p;
        for (;;) {
            int c = ASCII(p);
            if (c == open) break;
            if (!(ascii_letter(c) || (c >= '0' && c <= '9') || c == '.' || c == '-' || c == '_')) {
                *bad = p;
                return 0;
            }
            p++;
        }
        a.next = p + 1;
        size_t nl = a.name_end - a.name;
        const uint8_t *n = s + a.name;
        if (which == 0) {
            if (nl != 7 || memcmp(n, "version", 7) != 0) { *bad = a.name; return 0; }
            which = 1;
        } else if (which == 1 && nl == 8 && memcmp(n, "encoding", 8) == 0) {
            if (!ascii_letter(ASCII(a.value))) { *bad = a.value; return 0; }
            *name = a.value;
            *name_len = a.next - 1 - a.value;
            which = 2;
        } else {
            if (nl != 10 || memcmp(n, "standalone", 10) != 0) { *bad = a.name; return 0; }
            size_t vl = a.next - 1 - a.value;
            if (!((vl == 3 && memcmp(s + a.value, "yes", 3) == 0) || (vl == 2 && memcmp(s + a.value, "no", 2) == 0))) {
                *bad = a.value;
                return 0;
            }
            p = a.next;
            while (xml_space(ASCII(p))) p++;
            if (p < end) { *bad = p; return 0; }
            return 1;
        }
        p = a.next;
    }
#undef ASCII
}

/* Line and column (1-based, in characters) of offset `at` of ASCII text. */
static void position(const uint8_t *s, size_t at, unsigned long *line, unsigned long *column) {
    unsigned long l = 1;
    size_t start = 0;
    for (size_t i = 0; i < at; i++)
        if (s[i] == '\n' || (s[i] == '\r' && (i + 1 >= at || s[i + 1] != '\n'))) {
            l++;
            start = i + 1;
        }
    *line = l;
    *column = (unsigned long)(at - start) + 1;
}

/* The transport's charset as one this stage reads, when it is one an 8-bit document
   can be in (not UTF-16 or UTF-32); 0 when not (unknown, or wide). */
static int transport_charset(const char *name, cfs_charset *cs) {
    size_t len = strlen(name);
    const char *alias = cfs_charset_alias((const uint8_t *)name, len);
    const uint8_t *nm = (const uint8_t *)(alias ? alias : name);
    size_t nm_len = alias ? strlen(alias) : len;
    if (builtin(nm, nm_len, cs)) {   /* "UTF-16" and "UTF-32" are built in, as big-endian */
        if (cs->kind == CFS_CHARSET_UTF16BE || cs->kind == CFS_CHARSET_UTF16LE || cfs_charset_utf32(cs)) return 0;
        return 1;
    }
    return cfs_charset_named(cs, nm, nm_len);
}

cfs_detect_status cfs_charset_detect(const uint8_t *head, size_t len, int final, const char *transport,
                                     cfs_charset *cs, cfs_detect_result *r) {
    memset(r, 0, sizeof *r);
    if (len < 4 && !final) return CFS_DETECT_MORE;
    int utf16 = 0, utf32 = 0;
    size_t skip = 0;
    cfs_charset_init(cs, CFS_CHARSET_UTF8);
    /* UTF-32 first (its little-endian mark starts as UTF-16's): a mark, or a '<' in
       four bytes. */
    static const uint8_t be32[4] = { 0, 0, 0xFE, 0xFF }, le32[4] = { 0xFF, 0xFE, 0, 0 };
    static const uint8_t lt_be32[4] = { 0, 0, 0, '<' }, lt_le32[4] = { '<', 0, 0, 0 };
    if (len >= 4 && (memcmp(head, be32, 4) == 0 || memcmp(head, le32, 4) == 0)) {
        cfs_charset_init(cs, head[0] == 0 ? CFS_CHARSET_UTF32BE : CFS_CHARSET_UTF32LE);
        skip = 4;
        utf32 = 1;
    } else if (len >= 4 && (memcmp(head, lt_be32, 4) == 0 || memcmp(head, lt_le32, 4) == 0)) {
        cfs_charset_init(cs, head[0] == 0 ? CFS_CHARSET_UTF32BE : CFS_CHARSET_UTF32LE);
        utf32 = 1;
    } else if (len >= 3 && head[0] == 0xEF && head[1] == 0xBB && head[2] == 0xBF) {
        skip = 3;
    } else if (len >= 2 && ((head[0] == 0xFE && head[1] == 0xFF) || (head[0] == 0xFF && head[1] == 0xFE))) {
        cfs_charset_init(cs, head[0] == 0xFE ? CFS_CHARSET_UTF16BE : CFS_CHARSET_UTF16LE);
        skip = 2;
        utf16 = 1;
    } else if (len >= 2 && (head[0] == 0 || head[1] == 0)) {
        /* UTF-16 without a mark, as expat's initScan finds it: a document starts with
           ASCII, so a zero first byte is UTF-16BE ("00 3C", "00 20"), a zero second byte
           UTF-16LE. (Only "00 3C" and "3C 00" were taken here: expat read "00 20 00 3C"
           as UTF-16BE by itself, while this stage took it for UTF-8.) */
        cfs_charset_init(cs, head[0] == 0 ? CFS_CHARSET_UTF16BE : CFS_CHARSET_UTF16LE);
        utf16 = 1;
    }
    r->skip = skip;
    /* The transport's charset, for an 8-bit document without a byte order mark. */
    cfs_charset over;
    int use_transport = transport && *transport && !utf16 && !utf32 && skip == 0 && transport_charset(transport, &over);

    /* The declaration, in ASCII: the bytes themselves, or UTF-16 decoded (every
       character of a declaration is ASCII, 2 bytes in UTF-16). */
    const uint8_t *s = head + skip;
    size_t n = len - skip;
    uint8_t *decoded = NULL;
    size_t unit = utf32 ? 4 : utf16 ? 2 : 1;
    if (unit > 1) {
        decoded = malloc(n / unit + 1);
        if (decoded == NULL) return CFS_DETECT_NOMEM;
        int be = cs->kind == CFS_CHARSET_UTF16BE || cs->kind == CFS_CHARSET_UTF32BE;
        size_t k = 0;
        for (; unit * (k + 1) <= n; k++) {
            const uint8_t *u = s + unit * k;
            uint32_t v = 0;
            for (size_t j = 0; j < unit; j++) v = v << 8 | u[be ? j : unit - 1 - j];
            if (v >= 0x80) break;   /* not ASCII: the declaration (if any) ended before */
            decoded[k] = (uint8_t)v;
        }
        s = decoded;
        n = k;
    }
    cfs_detect_status st = CFS_DETECT_OK;
    /* The ASCII text runs to the end of what we have: more bytes may extend it. */
    int open_end = skip + n * unit + unit - 1 >= len;
    if (n < 6 && !final && open_end && memcmp(s, "<?xml", n < 5 ? n : 5) == 0) {
        /* Only while what there is could begin a declaration: bytes that cannot (say
           "<?xm/") are the tokenizer's at once, so that an error in them comes before
           whatever stops the input next (a gzip gap), as in the Swift tokenizer. */
        st = CFS_DETECT_MORE;
    } else if (n >= 6 && memcmp(s, "<?xml", 5) == 0 && xml_space(s[5])) {
        size_t close = 0;
        int found = 0;
        for (size_t i = 5; i + 1 < n; i++)
            if (s[i] == '?' && s[i + 1] == '>') { close = i; found = 1; break; }
        if (!found) {
            /* Wait for the end of the declaration (it is ASCII: in UTF-16, a character
               that is not stops it, and so does the end of the input). */
            if (!final && open_end) st = CFS_DETECT_MORE;
        } else {
            size_t name = 0, name_len = 0, bad = 0;
            if (!parse_declaration(s, 5, close, &name, &name_len, &bad)) {
                st = CFS_DETECT_ERROR;
                r->message = "XML declaration not well-formed";
                r->at = bad;
            } else if (name_len > 0 && !use_transport) {
                /* expat's processXmlDecl with findEncoding: "UTF-16" in a UTF-16 document
                   keeps the byte order found; another built-in name must agree with
                   the document (its character width and, for UTF-16, byte order): else
                   "encoding specified in XML declaration is incorrect". */
                const uint8_t *nm = s + name;
                const char *alias = cfs_charset_alias(nm, name_len);
                size_t nm_len = name_len;
                if (alias) {
                    r->alias = strlen(alias) != name_len || strncasecmp((const char *)nm, alias, name_len) != 0;
                    nm = (const uint8_t *)alias;   /* the name it stands for */
                    nm_len = strlen(alias);
                }
                cfs_charset named;
                if ((utf16 && name_is(nm, nm_len, "UTF-16")) || (utf32 && name_is(nm, nm_len, "UTF-32"))) {
                    /* keep */
                } else if (builtin(nm, nm_len, &named)) {
                    int named16 = named.kind == CFS_CHARSET_UTF16BE || named.kind == CFS_CHARSET_UTF16LE;
                    int named32 = cfs_charset_utf32(&named);
                    if (utf16 != named16 || utf32 != named32 || ((utf16 || utf32) && named.kind != cs->kind)) {
                        st = CFS_DETECT_ERROR;
                        r->message = "encoding specified in XML declaration is incorrect";
                        r->at = name;
                    } else if (!utf16 && !utf32) {
                        *cs = named;
                    }
                } else if (utf16 || utf32) {
                    /* A name expat does not know, in a UTF-16 document: expat switches to
                       it after the declaration, reading UTF-16 bytes as 8-bit ones. Not
                       followed here: rejected at the name (see docs/SCHEMA.md). */
                    st = CFS_DETECT_ERROR;
                    r->message = "encoding specified in XML declaration is incorrect";
                    r->at = name;
                } else if (!cfs_charset_named(&named, nm, nm_len)) {
                    st = CFS_DETECT_ERROR;
                    r->message = "unknown encoding";
                    r->at = name;
                } else {
                    *cs = named;
                }
            }
            if (st == CFS_DETECT_ERROR) {
                position(s, r->at, &r->line, &r->column);
                if (skip && r->line == 1) r->column++;   /* expat counts a byte order mark as a column */
                r->at = skip + r->at * unit;
            }
        }
    }
    free(decoded);
    if (use_transport) {
        if (st == CFS_DETECT_OK) {
            cfs_charset_release(cs);
            *cs = over;
            r->alias = 1;   /* expat is told the charset, over the declaration */
        } else {
            cfs_charset_release(&over);
        }
    }
    return st;
}
