/* SPDX-License-Identifier: Apache-2.0 */
/*
 * attribute_scan.c -- the attribute pre-check both C tokenizer adapters run on the
 * bytes before their tokenizer gets them.
 *
 * A start tag's attributes are checked against each other (duplicates) by expat and
 * by libxml2 before any callback sees the tag; libxml2 2.9 does it in quadratic time
 * (50,000 attributes take 1.4 s, 200,000 over 20 s, and a signal waits for it). The
 * attribute limit, checked at the start callback, came too late for both: libxml2
 * spent the time, and expat reported a duplicate among the attributes where the Swift
 * tokenizer, which counts first, reported the limit. So the bytes are scanned first
 * (outside comments, processing instructions, CDATA sections and the DOCTYPE): a start
 * tag with more attributes than the limit (counted as the '=' outside its quoted
 * values, namespace declarations included) is given to the tokenizer without its
 * '>'. The tokenizer then reads the tag as far as it goes, so a fault in its syntax
 * before the end is still found where it is; without one the document fails with the
 * limit at the tag's '<', where the tokenizer stopped, as in the Swift tokenizer. A
 * tag whose syntax fails at its '>' (an attribute name or an '=' just before it) is
 * given to expat whole: it reports the fault before it compares any attributes, in
 * linear time. libxml2 is never given a tag over the limit whole (cut_all): its
 * comparisons are quadratic, and the judge (parser.c) finds the fault at the '>'.
 * A document with an internal DTD subset is not scanned (declared default attributes
 * add to the count the start callback sees; it checks them there).
 *
 * The scan reads ASCII: UTF-8 and the 8-bit charsets that keep it as they are. For
 * UTF-16 and for byte maps that move it (EBCDIC) or lead sequences (whose trailing
 * bytes may look like ASCII), each character is first read as its ASCII byte or as
 * 0x80, a few hundred at a time.
 */
#include "internal.h"

#include <string.h>

enum { PC_TEXT, PC_LT, PC_BANG, PC_TAG, PC_QUOTE, PC_END, PC_COMMENT, PC_PI, PC_CDATA, PC_DOCTYPE, PC_DQUOTE };

void cfs_attr_scan_begin(cfs_attr_scan *s, uint64_t max) {
    *s = (cfs_attr_scan){ .state = PC_TEXT, .max = max, .units = CFS_UNITS_ASCII };
}

/* The bytes the scan cares about, which a byte map must keep for CFS_UNITS_ASCII. */
static const char marks[] = "<>=\"'!?-[]/";

void cfs_attr_scan_charset(cfs_attr_scan *s, const cfs_charset *cs) {
    s->map = NULL;
    switch (cs->kind) {
    case CFS_CHARSET_UTF16LE: s->units = CFS_UNITS_UTF16LE; return;
    case CFS_CHARSET_UTF16BE: s->units = CFS_UNITS_UTF16BE; return;
    case CFS_CHARSET_MAP:
        s->units = CFS_UNITS_ASCII;
        for (const char *c = marks; *c && !cs->multibyte; c++)
            if (cs->map[(unsigned char)*c] != *c) s->units = CFS_UNITS_MAP;
        if (cs->multibyte) s->units = CFS_UNITS_MAP;
        if (s->units == CFS_UNITS_MAP) s->map = cs->map;
        return;
    default: s->units = CFS_UNITS_ASCII; return;   /* UTF-8, Latin-1, ASCII; UTF-32 is given as UTF-8 */
    }
}

/* The index of the '>' of a start tag over the limit in p[0..n) (ASCII), or n. Each
   state skips to the next byte that can change it (memchr, or a tight loop in tags),
   so text, quoted values, comments and CDATA sections cost little per byte. */
static size_t scan_ascii(cfs_attr_scan *s, const uint8_t *p, size_t n) {
    size_t i = 0;
    const uint8_t *q;
    while (i < n) {
        uint8_t c;
        switch (s->state) {
        case PC_TEXT:
            if ((q = memchr(p + i, '<', n - i)) == NULL) return n;
            i = (size_t)(q - p) + 1;
            s->state = PC_LT;
            break;
        case PC_LT:
            c = p[i];
            if (c == '!') { s->state = PC_BANG; i++; }
            else if (c == '?') { s->state = PC_PI; s->run = 0; i++; }
            else if (c == '/') { s->state = PC_END; i++; }
            else { s->state = PC_TAG; s->count = 0; s->last = 0; }   /* the name's first byte is the tag's */
            break;
        case PC_BANG:
            c = p[i++];
            if (c == '-') { s->state = PC_COMMENT; s->run = 0; }
            else if (c == '[') { s->state = PC_CDATA; s->run = 0; }
            else s->state = PC_DOCTYPE;
            break;
        case PC_TAG:
            while (i < n) {
                c = p[i++];
                if (c > '>') {   /* '"', '\'', '=', '>' and white space are all below */
                    s->last = c;
                    continue;
                }
                if (c == '"' || c == '\'') { s->state = PC_QUOTE; s->quote = c; break; }
                if (c == '>') {
                    s->state = PC_TEXT;
                    /* A tag with attributes ends well after a value's closing quote (or
                       a '/' after one); after a name or an '=' its syntax fails at the
                       '>' itself, which the tokenizer must then be given to say so. */
                    if (s->count > s->max && (s->last == '"' || s->last == '\'' || s->last == '/' || s->cut_all)) return i - 1;
                    break;
                }
                if (c == '=') s->count++;
                if (c != ' ' && c != '\t' && c != '\n' && c != '\r') s->last = c;
            }
            break;
        case PC_QUOTE:
        case PC_DQUOTE:
            if ((q = memchr(p + i, s->quote, n - i)) == NULL) return n;
            i = (size_t)(q - p) + 1;
            if (s->state == PC_QUOTE) s->last = s->quote;
            s->state = s->state == PC_QUOTE ? PC_TAG : PC_DOCTYPE;
            break;
        case PC_END:
            if ((q = memchr(p + i, '>', n - i)) == NULL) return n;
            i = (size_t)(q - p) + 1;
            s->state = PC_TEXT;
            break;
        case PC_COMMENT:   /* "-->" */
        case PC_CDATA:     /* "]]>" */
        case PC_PI: {      /* "?>" */
            uint8_t mark = s->state == PC_COMMENT ? '-' : s->state == PC_CDATA ? ']' : '?';
            unsigned need = s->state == PC_PI ? 1 : 2;
            if (s->run == 0) {   /* nothing can end it before the next mark */
                if ((q = memchr(p + i, mark, n - i)) == NULL) return n;
                i = (size_t)(q - p);
            }
            c = p[i++];
            if (c == '>' && s->run >= need) s->state = PC_TEXT;
            else s->run = c == mark ? (unsigned char)(s->run < need ? s->run + 1 : need) : 0;
            break;
        }
        case PC_DOCTYPE:
            c = p[i++];
            if (c == '[') { s->off = 1; return n; }
            if (c == '"' || c == '\'') { s->state = PC_DQUOTE; s->quote = c; }
            else if (c == '>') s->state = PC_TEXT;
            break;
        }
    }
    return n;
}

size_t cfs_attr_scan_cut(cfs_attr_scan *s, const uint8_t *p, size_t n) {
    if (s->off || s->max >= (uint64_t)INT64_MAX) return n;   /* no limit */
    if (s->units == CFS_UNITS_ASCII) return scan_ascii(s, p, n);
    /* Characters as ASCII bytes, a block at a time; i and the cut are byte indexes. */
    uint8_t ascii[512];
    size_t width = s->units == CFS_UNITS_MAP ? 1 : 2;
    size_t i = 0;
    while (n - i >= width) {
        size_t k = 0;
        for (; k < sizeof ascii && n - i - k * width >= width; k++) {
            const uint8_t *u = p + i + k * width;
            int c;
            switch (s->units) {
            case CFS_UNITS_UTF16LE: c = u[1] ? 0x80 : u[0]; break;
            case CFS_UNITS_UTF16BE: c = u[0] ? 0x80 : u[1]; break;
            default:
                if (s->trail) {   /* a sequence's trailing byte */
                    s->trail--;
                    c = 0x80;
                } else {
                    c = s->map[*u];
                    if (c < -1) s->trail = (unsigned)(-c - 1);
                    if (c < 0 || c > 0x7F) c = 0x80;
                }
                break;
            }
            ascii[k] = (uint8_t)c;
        }
        size_t cut = scan_ascii(s, ascii, k);
        if (cut < k) return i + cut * width;
        if (s->off) return n;
        i += k * width;
    }
    return n;   /* (an odd byte of UTF-16 left: the adapters give whole units) */
}
