/* SPDX-License-Identifier: Apache-2.0 */
/*
 * expat.c -- the expat tokenizer adapter: expat's SAX events drive the feed machine.
 *
 * Namespace-aware (names arrive as "URI\x01local"); no external entity handler, so
 * expat never loads anything a document points at; billion-laughs protection on.
 * While the machine skips a subtree, start/end tags only count depth and the
 * character-data handler is unset, so skipped text costs expat's tokenizing only.
 */
#include "internal.h"

#include <errno.h>
#include <expat.h>
#include <stdlib.h>
#include <string.h>

#define NS_SEP '\x01'

typedef struct expat_tok {
    XML_Parser xp;
    cfs_machine *m;
    int text_on;            /* the character-data handler is set */
    int root_closed;
    int aborted;            /* a callback asked to stop */
    XML_Index root_end;     /* byte index just past the root's end tag */
    XML_Index chunk_base;   /* byte index of the first byte of the current chunk */
    cfs_error limit_err;    /* where the machine's limit stopped the document */
    int in_section;         /* inside a CDATA section or the DOCTYPE (expat streams them) */
    uint64_t ns_decls;      /* namespace declarations of the start tag being reported */
    cfs_attr_scan scan;     /* the attribute pre-check, over the bytes expat gets (parse) */
    XML_Index section_start;   /* where it starts: a section over max_markup_bytes fails
                                  there (its line and column are not asked of expat at
                                  each section: that costs a pass over the bytes, 12% of
                                  the time on the generated dump) */
    /* The charset (see "charsets" below): known once the document's first bytes are. */
    int detected;
    cfs_charset cs;
    /* UTF-16 surrogates (see utf16_units): the document's byte order. */
    enum { U16_UNKNOWN, U16_NO, U16_LE, U16_BE } u16;
    /* Bytes held back from expat: the document's start until its charset is known, an
       odd byte or a high surrogate whose next unit has not come yet, a cut character. */
    uint8_t *held;
    size_t held_len, held_cap;
    uint8_t *scratch;       /* held + a chunk */
    size_t scratch_cap;
    /* The unpaired surrogates marked in expat's own buffer (IN_EXPAT) by the last
       call: where, and the unit's bytes. Past the document's end that buffer holds
       the next documents' bytes, which the input stage reads from there: they are
       put back once the document ended. */
    struct u16_mark { size_t at; uint8_t b[2]; } *marks;
    size_t marks_len, marks_cap;
    int record_marks;
    uint8_t *buf;           /* the buffer handed out by expat_buffer, held bytes first */
    int own_buf;            /* buf is scratch (transcoding), not expat's */
    /* UTF-32, which expat does not read: expat gets the charset stage's UTF-8 (utf8),
       and its byte indexes are mapped back through the UTF-8 given to it from index
       win_u on (win), every character 4 document bytes after the mark. */
    int transcoding;
    /* A byte order mark expat is not given: the bytes of a UTF-32 document's mark, or
       of a UTF-8 mark before a declaration naming an 8-bit charset (detect). `mark`
       bytes come before expat's byte index 0 (doc_index adds them back; the mark is one
       column on the first line); `mark_left` of them are still to drop (feed). */
    size_t mark, mark_left;
    const char *bad_message;   /* the charset stage stopped at an invalid character, at bad_at */
    XML_Index bad_at;
    uint8_t *utf8;
    size_t utf8_cap;
    uint8_t *win;
    size_t win_len, win_cap;
    XML_Index win_u;
    uint64_t win_chars;
} expat_tok;

/* Grows a buffer to hold n bytes; 0 when out of memory. */
static int grow(uint8_t **p, size_t *cap, size_t n) {
    /* Always a buffer after a call, also for n 0: callers pass it to memcpy and do
       arithmetic on it, which a NULL pointer makes undefined even for 0 bytes. */
    if (n <= *cap && *p != NULL) return 1;
    size_t c = *cap ? *cap : 256;
    while (c < n) c *= 2;
    uint8_t *q = realloc(*p, c);
    if (q == NULL) return 0;
    *p = q;
    *cap = c;
    return 1;
}

/* The document offset of expat's byte index u. */
static XML_Index doc_index(expat_tok *t, XML_Index u) {
    if (u < 0) return u;
    if (!t->transcoding) return u + (XML_Index)t->mark;
    if (u < t->win_u) u = t->win_u;
    size_t end = (size_t)(u - t->win_u);
    if (end > t->win_len) end = t->win_len;
    uint64_t chars = t->win_chars;
    for (size_t i = 0; i < end; i++) chars += (t->win[i] & 0xC0) != 0x80;
    return (XML_Index)(t->mark + 4 * chars);
}

static XML_Index byte_index(expat_tok *t) { return doc_index(t, XML_GetCurrentByteIndex(t->xp)); }

/* expat's column, 1-based; a byte order mark it did not see counts as one (as expat
   counts the marks it reads). */
static unsigned long column(expat_tok *t) {
    unsigned long c = (unsigned long)XML_GetCurrentColumnNumber(t->xp) + 1;
    return c + (t->mark > 0) * (XML_GetCurrentLineNumber(t->xp) == 1);
}

static void split_name(const char *name, const char **uri, size_t *uri_len,
                       const char **local, size_t *local_len) {
    const char *sep = strchr(name, NS_SEP);
    if (sep) {
        *uri = name;
        *uri_len = (size_t)(sep - name);
        *local = sep + 1;
    } else {
        *uri = "";
        *uri_len = 0;
        *local = name;
    }
    *local_len = strlen(*local);
}

static void on_text(void *ud, const XML_Char *s, int len);

static void sync_text_handler(expat_tok *t) {
    int want = cfs_machine_wants_text(t->m);
    if (want != t->text_on) {
        XML_SetCharacterDataHandler(t->xp, want ? on_text : NULL);
        t->text_on = want;
    }
}

/* The machine asked to stop: a limit (the position is the current event's, taken
   now: a limit is passed at a start or end tag), out of memory, or a callback. */
static void stop(expat_tok *t) {
    if (t->m->limit) {
        XML_Index at = byte_index(t);
        t->limit_err = (cfs_error){ CFS_ERR_LIMIT, t->m->limit_message, 0,
                                    (unsigned long)XML_GetCurrentLineNumber(t->xp), column(t),
                                    at < 0 ? 0 : (uint64_t)at, 0 };
    } else {
        t->aborted = 1;
    }
    XML_StopParser(t->xp, XML_FALSE);
}

/* After XML_StopParser expat may still report the rest of the current token (the end
   of an empty element): the machine must not see it. */
static inline int stopped(const expat_tok *t) { return t->aborted || t->m->limit || t->m->nomem; }

static void check_root_end(expat_tok *t) {
    if (t->m->root_closed && !t->root_closed) {
        t->root_closed = 1;
        t->root_end = doc_index(t, XML_GetCurrentByteIndex(t->xp) + XML_GetCurrentByteCount(t->xp));
        XML_StopParser(t->xp, XML_FALSE);
    }
}

static void on_start(void *ud, const XML_Char *name, const XML_Char **atts) {
    expat_tok *t = ud;
    if (stopped(t)) return;
    if (atts[0] || t->ns_decls) {
        /* Attributes and namespace declarations, as the other tokenizers count them. */
        uint64_t total = t->ns_decls;
        t->ns_decls = 0;
        for (size_t i = 0; atts[i]; i += 2) total++;
        if (cfs_machine_check_attributes(t->m, total)) {
            stop(t);
            return;
        }
    }
    if (cfs_machine_skipping(t->m)) {
        if (cfs_machine_skip_start(t->m)) stop(t);
        return;
    }
    /* Every attribute reaches the machine (their count is within max_attributes),
       in the machine's reused buffer. */
    size_t count = 0;
    while (atts[2 * count]) count++;
    cfs_attr *attrs = cfs_machine_attrs(t->m, count);
    if (attrs == NULL) {
        stop(t);
        return;
    }
    size_t n = 0;
    for (; atts[0]; atts += 2, n++) {
        split_name(atts[0], &attrs[n].uri, &attrs[n].uri_len, &attrs[n].local, &attrs[n].local_len);
        attrs[n].value = atts[1];
        attrs[n].value_len = strlen(atts[1]);
    }
    const char *uri, *local;
    size_t uri_len, local_len;
    split_name(name, &uri, &uri_len, &local, &local_len);
    if (cfs_machine_start(t->m, uri, uri_len, local, local_len, attrs, n)) {
        stop(t);
        return;
    }
    sync_text_handler(t);
}

static void on_end(void *ud, const XML_Char *name) {
    expat_tok *t = ud;
    if (stopped(t)) return;
    if (cfs_machine_skipping(t->m)) {
        cfs_machine_skip_end(t->m);
        check_root_end(t);
        return;
    }
    const char *uri, *local;
    size_t uri_len, local_len;
    split_name(name, &uri, &uri_len, &local, &local_len);
    size_t items = t->m->items;
    if (cfs_machine_end(t->m, local, local_len)) {
        stop(t);
        return;
    }
    if (t->m->items != items) t->m->last_item_end = (uint64_t)byte_index(t);
    sync_text_handler(t);
    check_root_end(t);
}

static void on_text(void *ud, const XML_Char *s, int len) {
    expat_tok *t = ud;
    if (stopped(t)) return;
    if (cfs_machine_text(t->m, s, (size_t)len)) stop(t);
}

/* ---- declared encodings expat does not know ---------------------------------------
 *
 * expat decodes UTF-8, UTF-16, ISO-8859-1 and US-ASCII itself. For any other declared
 * encoding it asks this handler for a byte map: the shared charset stage's
 * (transcode.c), which libxml2's adapter decodes with too, so both backends accept
 * the same charsets and produce the same characters.
 */
static int convert_sequence(void *data, const char *s) { return cfs_charset_sequence(data, s); }

static void release_encoding(void *data) {
    cfs_charset_release(data);
    free(data);
}

static int XMLCALL unknown_encoding(void *ud, const XML_Char *name, XML_Encoding *info) {
    (void)ud;
    cfs_charset *cs = malloc(sizeof *cs);
    if (cs == NULL) return XML_STATUS_ERROR;
    if (!cfs_charset_open_map(cs, name)) {
        free(cs);
        return XML_STATUS_ERROR;
    }
    memcpy(info->map, cs->map, sizeof info->map);
    if (!cs->multibyte) {
        release_encoding(cs);
        info->data = NULL;
        info->convert = NULL;
        info->release = NULL;
        return XML_STATUS_OK;
    }
    info->data = cs;
    info->convert = convert_sequence;
    info->release = release_encoding;
    return XML_STATUS_OK;
}

/* CDATA sections and the DOCTYPE count as one markup construct each (max_markup_bytes)
   as they do in the other tokenizers, though expat streams them. */
static void section_start(expat_tok *t) {
    t->in_section = 1;
    t->section_start = byte_index(t);
}

static void XMLCALL on_section_end(void *ud) { ((expat_tok *)ud)->in_section = 0; }

/* Reported before the start tag that makes the declaration (max_attributes counts it). */
static void XMLCALL on_namespace_decl(void *ud, const XML_Char *prefix, const XML_Char *uri) {
    (void)prefix; (void)uri;
    ((expat_tok *)ud)->ns_decls++;
}
static void XMLCALL on_cdata_start(void *ud) { section_start(ud); }

static void XMLCALL on_doctype(void *ud, const XML_Char *name, const XML_Char *sysid,
                               const XML_Char *pubid, int has_internal_subset) {
    (void)name; (void)has_internal_subset;
    expat_tok *t = ud;
    section_start(t);
    cfs_machine_doctype(t->m, pubid, sysid);
}

/* The document is parsed as if it had an external DTD (XML_UseForeignDTD), which this
   handler declines to read: nothing is ever loaded. Per the XML spec, references to
   entities such a DTD might declare are then not errors, and expat reports them here;
   HTML named entities (&nbsp; ...) are decoded, others dropped. */
static int XMLCALL on_external_entity(XML_Parser p, const XML_Char *context, const XML_Char *base,
                                      const XML_Char *sysid, const XML_Char *pubid) {
    (void)base; (void)sysid; (void)pubid;
    if (context != NULL) return XML_STATUS_OK;   /* an external general entity: skipped */
    /* The external DTD subset: read as empty (expat must see it read to treat
       undeclared entities as declared there). */
    XML_Parser dtd = XML_ExternalEntityParserCreate(p, context, NULL);
    if (dtd == NULL) return XML_STATUS_ERROR;
    enum XML_Status st = XML_Parse(dtd, "", 0, XML_TRUE);
    XML_ParserFree(dtd);
    return st == XML_STATUS_ERROR ? XML_STATUS_ERROR : XML_STATUS_OK;
}

static void XMLCALL on_skipped_entity(void *ud, const XML_Char *name, int is_parameter_entity) {
    expat_tok *t = ud;
    if (stopped(t) || is_parameter_entity || !cfs_machine_wants_text(t->m)) return;
    size_t len = strlen(name);
    const char *text = cfs_html_entity(name, len);
    if (text) {
        if (cfs_machine_text(t->m, text, strlen(text))) stop(t);
        return;
    }
    /* Not declared and not HTML: kept as the literal text "&name;", never dropped. */
    if (cfs_machine_text(t->m, "&", 1) || cfs_machine_text(t->m, name, len) || cfs_machine_text(t->m, ";", 1)) stop(t);
}

/* Reparse deferral (expat 2.6.0, and Debian's 2.5.0 since its security updates):
   expat may leave a token it has all the bytes of unparsed until more input comes, so
   that small pieces are not scanned again and again. Then a root's end tag, an error
   or a limit is reported during a later call than the one that gave its last byte,
   and where a document ends would depend on how the input was cut: the input stage
   relies on each call parsing all it can (found when the suite ran against
   2.5.0-1+deb12u5: fed one byte at a time, the end of a root came a call late and the
   search for the next document began before that call's byte). Turned off for every
   document. Declared weak, so that the library still builds and runs with an expat
   that has no such function (deferral is then not there to turn off). */
extern XML_Bool XML_SetReparseDeferralEnabled(XML_Parser parser, XML_Bool enabled) __attribute__((weak));

static void *expat_create(cfs_machine *m) {
    expat_tok *t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    t->m = m;
    cfs_charset_init(&t->cs, CFS_CHARSET_UTF8);
    t->xp = XML_ParserCreateNS(NULL, NS_SEP);
    if (t->xp == NULL) {
        free(t);
        return NULL;
    }
    return t;
}

static void expat_destroy(void *tok) {
    expat_tok *t = tok;
    if (t == NULL) return;
    XML_ParserFree(t->xp);
    cfs_charset_release(&t->cs);
    free(t->held);
    free(t->scratch);
    free(t->marks);
    free(t->utf8);
    free(t->win);
    free(t);
}

static int expat_begin(void *tok) {
    expat_tok *t = tok;
    if (!XML_ParserReset(t->xp, NULL)) return 0;
    /* Reset clears every handler and setting. */
    XML_SetUserData(t->xp, t);
    XML_SetElementHandler(t->xp, on_start, on_end);
    XML_SetCharacterDataHandler(t->xp, NULL);
    XML_SetDoctypeDeclHandler(t->xp, on_doctype, on_section_end);
    XML_SetCdataSectionHandler(t->xp, on_cdata_start, on_section_end);
    XML_SetStartNamespaceDeclHandler(t->xp, on_namespace_decl);
    XML_SetParamEntityParsing(t->xp, XML_PARAM_ENTITY_PARSING_UNLESS_STANDALONE);
    XML_UseForeignDTD(t->xp, XML_TRUE);
    XML_SetExternalEntityRefHandler(t->xp, on_external_entity);
    XML_SetSkippedEntityHandler(t->xp, on_skipped_entity);
    XML_SetUnknownEncodingHandler(t->xp, unknown_encoding, NULL);
#ifdef XML_DTD
    XML_SetBillionLaughsAttackProtectionMaximumAmplification(t->xp, 100.0f);
    XML_SetBillionLaughsAttackProtectionActivationThreshold(t->xp, 8u << 20);
#endif
    if (XML_SetReparseDeferralEnabled != NULL) XML_SetReparseDeferralEnabled(t->xp, XML_FALSE);
    t->text_on = 0;
    t->root_closed = 0;
    t->aborted = 0;
    t->root_end = 0;
    t->chunk_base = 0;
    t->in_section = 0;
    t->ns_decls = 0;
    t->detected = 0;
    cfs_charset_release(&t->cs);
    t->u16 = U16_UNKNOWN;
    t->held_len = 0;
    t->transcoding = 0;
    t->mark = t->mark_left = 0;
    t->bad_message = NULL;
    t->win_len = 0;
    t->win_u = 0;
    t->win_chars = 0;
    cfs_attr_scan_begin(&t->scan, t->m->max_attributes);
    return 1;
}

/* ---- charsets ----------------------------------------------------------------------
 *
 * expat reads the document's charset itself, except what the charset stage
 * (transcode.c) settles first, from the document's first bytes (held back from expat
 * until then): a declared name that is an alias (charset_aliases.def: "u16",
 * "latin_1", ...) is given to expat as the charset's name (XML_SetEncoding), and
 * UTF-32, which expat does not read, reaches it as the stage's UTF-8. The charset's
 * name goes to the machine (the feed record's encoding).
 *
 * UTF-16 surrogates: expat decodes UTF-16 itself and pairs a high surrogate with
 * whatever unit follows, making another character of, say, D83D 0058 ("X"). Every
 * backend rejects an unpaired surrogate instead (transcode.c, XMLTranscoder.swift):
 * here each high surrogate not followed by a low one is replaced by U+FFFF before
 * expat sees it, which expat rejects as not an XML character at that very place
 * ("not well-formed (invalid token)", with its own line and column); the length is
 * unchanged, so every offset stays the document's. expat gets whole units only: an odd
 * trailing byte, and a trailing high surrogate whose next unit has not come yet, are
 * held back until the next chunk.
 */

static cfs_doc_result result(expat_tok *t, enum XML_Status st, size_t len, int final, size_t *consumed,
                             cfs_error *err);

/* Marks the unpaired high surrogates of p[0..n) (from a unit boundary) and returns how
   many bytes at the end expat must not get yet. */
static size_t utf16_units(expat_tok *t, uint8_t *p, size_t n, int final) {
    if (t->u16 == U16_NO) return 0;
    int be = t->u16 == U16_BE;
    size_t whole = n & ~(size_t)1;
    for (size_t i = 0; i + 1 < whole; i += 2) {
        unsigned u = be ? (unsigned)p[i] << 8 | p[i + 1] : (unsigned)p[i + 1] << 8 | p[i];
        if ((u & 0xFC00) != 0xD800) continue;
        if (i + 3 >= whole) {
            if (!final) return n - i;   /* its next unit is still to come */
            break;                      /* cut off by the end: expat's "partial character" */
        }
        unsigned lo = be ? (unsigned)p[i + 2] << 8 | p[i + 3] : (unsigned)p[i + 3] << 8 | p[i + 2];
        if ((lo & 0xFC00) == 0xDC00) {
            i += 2;
            continue;
        }
        if (t->record_marks) {
            if (t->marks_len == t->marks_cap) {
                size_t cap = t->marks_cap ? 2 * t->marks_cap : 16;
                struct u16_mark *m = realloc(t->marks, cap * sizeof *m);
                if (m == NULL) return (size_t)-1;
                t->marks = m;
                t->marks_cap = cap;
            }
            t->marks[t->marks_len++] = (struct u16_mark){ i, { p[i], p[i + 1] } };
        }
        p[i] = p[i + 1] = 0xFF;
    }
    return final ? 0 : n - whole;
}

/* Keeps the last `hold` of p[0..n) for the next chunk. */
static int hold_back(expat_tok *t, const uint8_t *p, size_t n, size_t hold) {
    if (!grow(&t->held, &t->held_cap, hold)) return 0;
    if (hold) memmove(t->held, p + n - hold, hold);   /* held may still be NULL when hold is 0 */
    t->held_len = hold;
    return 1;
}

/* Drops the UTF-8 before expat's position from the window (expat reports no position
   before it again; the sections and root end it reported are mapped already). */
static void trim_window(expat_tok *t) {
    if (!t->transcoding) return;
    XML_Index u = XML_GetCurrentByteIndex(t->xp);
    if (u <= t->win_u) return;
    size_t n = (size_t)(u - t->win_u);
    if (n > t->win_len) n = t->win_len;
    for (size_t i = 0; i < n; i++) t->win_chars += (t->win[i] & 0xC0) != 0x80;
    memmove(t->win, t->win + n, t->win_len - n);
    t->win_len -= n;
    t->win_u += (XML_Index)n;
}

/* The charset, from the document's first n bytes at p: CFS_DOC_OK with t->detected set
   when known (or left clear for more bytes), or the declaration's error. */
static cfs_doc_result detect(expat_tok *t, const uint8_t *p, size_t n, size_t len, int final,
                             size_t *consumed, cfs_error *err) {
    cfs_detect_result r;
    int over = (uint64_t)n > t->m->max_markup_bytes;
    cfs_charset_release(&t->cs);
    cfs_detect_status st = cfs_charset_detect(p, n, final || over, t->m->transport_charset, &t->cs, &r);
    if (st == CFS_DETECT_MORE) return CFS_DOC_OK;
    if (st == CFS_DETECT_NOMEM) return CFS_DOC_NOMEM;
    if (st == CFS_DETECT_ERROR) {
        *err = (cfs_error){ CFS_ERR_XML, r.message, 0, r.line, r.column, (uint64_t)r.at, 0 };
        XML_Index before = t->chunk_base;   /* document offset of the chunk's first byte */
        XML_Index at = (XML_Index)r.at - before;
        *consumed = at < 0 ? 0 : (size_t)at > len ? len : (size_t)at;
        return CFS_DOC_ERROR;
    }
    t->detected = 1;
    if (cfs_machine_encoding(t->m, t->cs.name)) return CFS_DOC_NOMEM;
    switch (t->cs.kind) {
    case CFS_CHARSET_UTF16LE: t->u16 = U16_LE; break;
    case CFS_CHARSET_UTF16BE: t->u16 = U16_BE; break;
    default: t->u16 = U16_NO; break;
    }
    const char *name = NULL;
    if (cfs_charset_utf32(&t->cs)) {
        t->transcoding = 1;
        t->mark = t->mark_left = r.skip;
        name = "UTF-8";
    } else if (r.alias) {
        switch (t->cs.kind) {
        case CFS_CHARSET_UTF8: name = "UTF-8"; break;
        case CFS_CHARSET_LATIN1: name = "ISO-8859-1"; break;
        case CFS_CHARSET_ASCII: name = "US-ASCII"; break;
        case CFS_CHARSET_UTF16LE: name = "UTF-16LE"; break;
        case CFS_CHARSET_UTF16BE: name = "UTF-16BE"; break;
        default: name = t->cs.name; break;   /* through the unknown-encoding handler */
        }
    }
    /* A UTF-8 mark before a declaration naming an 8-bit charset (`encoding="latin1"`,
       "ISO-8859-1", "US-ASCII", "cp1251", "IBM855", ...): expat, given the charset as
       its protocol encoding, read the mark in it (for Latin-1 the mark then won: the
       document was read as UTF-8 and failed at its first byte past ASCII; for a mapped
       charset it failed at the first byte: found by the differential fuzzer,
       `encoding="IBM855"`), and reading the declaration itself it counted the mark's
       bytes as 3 columns on the first line. The mark is not given to expat (t->mark):
       expat reads the document as it reads one without a mark (Latin-1 and ASCII by
       their own tables, set by name; a mapped charset through the unknown-encoding
       handler, named by the declaration or, for an alias, above), and the mark counts
       one column, as the other backends count it (doc_index, column). */
    if (r.skip && !t->transcoding
        && (t->cs.kind == CFS_CHARSET_LATIN1 || t->cs.kind == CFS_CHARSET_ASCII || t->cs.kind == CFS_CHARSET_MAP)) {
        t->mark = t->mark_left = r.skip;
        if (t->cs.kind == CFS_CHARSET_LATIN1) name = "ISO-8859-1";
        if (t->cs.kind == CFS_CHARSET_ASCII) name = "US-ASCII";
    }
    if (name && XML_SetEncoding(t->xp, name) != XML_STATUS_OK) return CFS_DOC_NOMEM;
    cfs_attr_scan_charset(&t->scan, &t->cs);   /* (its map stays in t->cs until the next document) */
    if (!t->transcoding) cfs_charset_release(&t->cs);
    return CFS_DOC_OK;
}

/* expat parses p[0..n) (in its own buffer when in_expat), but never a well-ended start
   tag over the attribute limit (attribute_scan.c): expat gets what comes before the
   tag's '>' and reads the tag as far as that, so a fault in its syntax is found where it
   is; else the document fails with the limit at the tag's '<', where expat stopped
   (expat checks the attributes against each other before on_start could count them). */
static enum XML_Status parse(expat_tok *t, const uint8_t *p, size_t n, int final, int in_expat) {
    size_t cut = cfs_attr_scan_cut(&t->scan, p, n);
    int over = cut < n;
    if (over) {
        n = cut;
        final = 0;
    }
    enum XML_Status st = in_expat ? XML_ParseBuffer(t->xp, (int)n, final)
                                  : XML_Parse(t->xp, (const char *)p, (int)n, final);
    if (over && st == XML_STATUS_OK && cfs_machine_check_attributes(t->m, t->scan.count)) {
        stop(t);
        return XML_STATUS_ERROR;
    }
    return st;
}

/* Where feed's bytes are: expat's own buffer (from expat_buffer), ours (scratch), or
   the caller's, which are only read (borrowed: copied to scratch before a UTF-16
   document's unpaired surrogates are marked in them). */
enum { IN_OURS, IN_EXPAT, IN_CALLERS };

/* The new bytes expat_parse lets the charset be settled from, with the held ones. */
#define DETECT_HEAD 4096

/* The document's next bytes, p[0..n): the bytes held back, then the caller's `len`
   new ones, in `where`. */
static cfs_doc_result feed(expat_tok *t, uint8_t *p, size_t n, size_t len, int where, int final,
                           size_t *consumed, cfs_error *err) {
    int in_expat = where == IN_EXPAT;
    if (!t->detected) {
        cfs_doc_result r = detect(t, p, n, len, final, consumed, err);
        if (r != CFS_DOC_OK) return r;
        if (!t->detected) {
            if (!hold_back(t, p, n, n)) return CFS_DOC_NOMEM;
            t->chunk_base += (XML_Index)len;
            *consumed = len;
            return CFS_DOC_OK;
        }
    }
    enum XML_Status st;
    if (t->transcoding) {
        size_t from = t->mark_left < n ? t->mark_left : n;
        t->mark_left -= from;
        size_t todo = n - from;
        if (!grow(&t->utf8, &t->utf8_cap, cfs_transcode_max(todo) + 1)) return CFS_DOC_NOMEM;
        size_t used = 0, written = 0;
        cfs_transcode_status ts = cfs_transcode(&t->cs, p + from, todo, final, t->utf8, &used, &written);
        if (ts != CFS_TRANSCODE_OK) {
            /* Everything before the character, then a byte that is never XML: expat
               fails there, and the error is the charset stage's. */
            t->bad_message = ts == CFS_TRANSCODE_PARTIAL ? "partial character" : "not well-formed (invalid token)";
            t->bad_at = t->chunk_base - (XML_Index)(n - len) + (XML_Index)(from + used);
            t->utf8[written++] = 0x01;
            final = 1;
            used = todo;
        }
        if (!hold_back(t, p + from, todo, todo - used)) return CFS_DOC_NOMEM;
        if (!grow(&t->win, &t->win_cap, t->win_len + written)) return CFS_DOC_NOMEM;
        if (written) memcpy(t->win + t->win_len, t->utf8, written);
        t->win_len += written;
        st = parse(t, t->utf8, written, final, 0);
    } else {
        /* The byte order mark expat is not given (detect). In expat's own buffer the
           bytes are moved over it, and put back if the document ends with this call:
           the input stage reads the next documents' bytes from there (as for the marks
           below); while the document goes on, expat owns them as moved. */
        uint8_t dropped[4];
        size_t shifted = 0;
        if (t->mark_left) {
            size_t k = t->mark_left < n ? t->mark_left : n;
            if (k > sizeof dropped) k = sizeof dropped;
            t->mark_left -= k;
            if (in_expat) {
                memcpy(dropped, p, k);
                memmove(p, p + k, n - k);
                shifted = k;
            } else {
                p += k;
            }
            n -= k;
        }
        if (where == IN_CALLERS && t->u16 != U16_NO) {
            if (!grow(&t->scratch, &t->scratch_cap, n)) return CFS_DOC_NOMEM;
            if (n) memcpy(t->scratch, p, n);   /* p is NULL at the end of the input */
            p = t->scratch;
        }
        /* In expat's buffer and ours (the caller's bytes, read again by the input
           stage) the marks are recorded, to be undone: in ours once expat has its copy,
           in expat's past the document's end (marks, above: left there, a UTF-16BE
           document followed by a UTF-8 one in the same inflated chunk turned the UTF-8
           bytes DB 8F into FF FF, found by the resync fuzzer). */
        t->record_marks = where != IN_CALLERS && t->u16 != U16_NO;
        t->marks_len = 0;
        size_t hold = utf16_units(t, p, n, final);
        t->record_marks = 0;
        if (hold == (size_t)-1) return CFS_DOC_NOMEM;
        if (!hold_back(t, p, n, hold)) return CFS_DOC_NOMEM;
        st = parse(t, p, n - hold, final, in_expat);
        if (shifted) {
            cfs_doc_result r = result(t, st, len, final, consumed, err);
            if (r != CFS_DOC_OK) {
                memmove(p + shifted, p, n);
                memcpy(p, dropped, shifted);
            }
            return r;
        }
        if (t->marks_len) {
            cfs_doc_result r = result(t, st, len, final, consumed, err);
            /* The document went on in expat's buffer: its bytes keep their marks
               (expat may scan the unfinished token again). It ended, or expat parsed a
               copy: every byte is put back. */
            if (r != CFS_DOC_OK || !in_expat)
                for (size_t k = 0; k < t->marks_len; k++) memcpy(p + t->marks[k].at, t->marks[k].b, 2);
            t->marks_len = 0;
            return r;
        }
    }
    return result(t, st, len, final, consumed, err);
}

static cfs_doc_result result(expat_tok *t, enum XML_Status st, size_t len, int final, size_t *consumed,
                             cfs_error *err) {
    XML_Index base = t->chunk_base;
    t->chunk_base += (XML_Index)len;
    if (st != XML_STATUS_ERROR) {
        *consumed = len;
        /* At a markup checkpoint (internal.h, at_checkpoint), the construct expat holds
           unfinished (it stops at its start) or the section it is inside: past
           max_markup_bytes, the document fails there. */
        XML_Index at = t->m->at_checkpoint ? (t->in_section ? t->section_start : byte_index(t)) : -1;
        if (!final && at >= 0 && (uint64_t)(t->chunk_base - at) > t->m->max_markup_bytes) {
            cfs_machine_markup_limit(t->m);
            *err = (cfs_error){ CFS_ERR_LIMIT, t->m->limit_message, 0,
                                (unsigned long)XML_GetCurrentLineNumber(t->xp), column(t), (uint64_t)at, 0 };
            *consumed = at < base ? 0 : (size_t)(at - base);
            return CFS_DOC_ERROR;
        }
        trim_window(t);
        return CFS_DOC_OK;
    }
    /* (A limit parse found between expat's calls stops expat with no error code.) */
    enum XML_Error code = t->m->limit ? XML_ERROR_ABORTED : XML_GetErrorCode(t->xp);
    if (code == XML_ERROR_ABORTED) {
        if (t->m->nomem) return CFS_DOC_NOMEM;
        if (t->m->limit) {
            *err = t->limit_err;
            XML_Index at = (XML_Index)t->limit_err.offset;
            *consumed = at < base ? 0 : (size_t)(at - base);
            if (*consumed > len) *consumed = len;
            return CFS_DOC_ERROR;
        }
        if (t->aborted) return CFS_DOC_ABORT;
        if (t->root_closed) {
            /* Never before this call's bytes (the root's end came with them: see
               XML_SetReparseDeferralEnabled above), never past them. */
            XML_Index end = t->root_end < base ? base : t->root_end;
            *consumed = (size_t)(end - base) > len ? len : (size_t)(end - base);
            return CFS_DOC_ROOT_END;
        }
    }
    if (code == XML_ERROR_NO_MEMORY) return CFS_DOC_NOMEM;
    XML_Index at = byte_index(t);
    err->code = CFS_ERR_XML;
    err->message = XML_ErrorString(code);
    if (t->bad_message && at >= t->bad_at) err->message = t->bad_message;
    err->line = (unsigned long)XML_GetCurrentLineNumber(t->xp);
    err->column = column(t);
    err->offset = at < 0 ? 0 : (uint64_t)at;
    *consumed = at < base ? 0 : (size_t)(at - base);
    if (*consumed > len) *consumed = len;
    return CFS_DOC_ERROR;
}

static cfs_doc_result expat_parse(void *tok, const uint8_t *data, size_t len, int final,
                                  size_t *consumed, cfs_error *err) {
    expat_tok *t = tok;
    /* (A byte order mark still to drop, mark_left, goes the way of feed.) */
    if (t->detected && !t->transcoding && t->u16 == U16_NO && t->held_len == 0 && t->mark_left == 0) {
        enum XML_Status st = parse(t, data, len, final, 0);
        return result(t, st, len, final, consumed, err);
    }
    /* Nothing held (a document's first bytes, as a rule): the caller's bytes as they are. */
    if (t->held_len == 0) return feed(t, (uint8_t *)data, len, len, IN_CALLERS, final, consumed, err);
    /* Bytes held for the charset (a document's first bytes: the input stage gives the
       ones before a document start apart): settle it from them and the new bytes'
       head, so that a chunk is not copied whole for a few bytes. The head decides as
       all the bytes would: detection on a prefix never differs from detection on more,
       or the output would depend on chunking. */
    size_t head = t->held_len + (len < DETECT_HEAD ? len : DETECT_HEAD);
    if (!t->detected && len > DETECT_HEAD && (uint64_t)head <= t->m->max_markup_bytes) {   /* (over the limit, all the bytes decide) */
        if (!grow(&t->scratch, &t->scratch_cap, head)) return CFS_DOC_NOMEM;
        memcpy(t->scratch, t->held, t->held_len);
        memcpy(t->scratch + t->held_len, data, DETECT_HEAD);
        cfs_error ignored;
        size_t none;
        if (detect(t, t->scratch, head, DETECT_HEAD, 0, &none, &ignored) == CFS_DOC_NOMEM) return CFS_DOC_NOMEM;
    }
    if (t->detected && !t->transcoding && t->u16 == U16_NO && t->mark_left == 0) {
        /* The held bytes, then the caller's, each as they are. */
        enum XML_Status st = parse(t, t->held, t->held_len, 0, 0);
        t->held_len = 0;
        if (st != XML_STATUS_ERROR) st = parse(t, data, len, final, 0);
        return result(t, st, len, final, consumed, err);
    }
    size_t n = t->held_len + len;
    if (!grow(&t->scratch, &t->scratch_cap, n)) return CFS_DOC_NOMEM;
    memcpy(t->scratch, t->held, t->held_len);
    if (len) memcpy(t->scratch + t->held_len, data, len);
    t->held_len = 0;
    return feed(t, t->scratch, n, len, IN_OURS, final, consumed, err);
}

/* A buffer for the caller to fill: expat's own, after the bytes held back (so that it
   parses them in place), or, when expat gets UTF-8 made from the bytes or the charset
   is not settled yet (the bytes may settle it so), ours: the UTF-8 given to expat
   (XML_Parse) is copied into expat's buffer, over the caller's bytes, which the input
   stage reads again after an error (the search for the next document). */
static uint8_t *expat_buffer(void *tok, size_t len) {
    expat_tok *t = tok;
    uint8_t *p;
    t->own_buf = t->transcoding || !t->detected;
    if (t->own_buf) {
        if (!grow(&t->scratch, &t->scratch_cap, len + t->held_len)) return NULL;
        p = t->scratch;
    } else {
        p = XML_GetBuffer(t->xp, (int)(len + t->held_len));
        if (p == NULL) return NULL;
    }
    if (t->held_len) memcpy(p, t->held, t->held_len);   /* held may be NULL when empty */
    t->buf = p;
    return p + t->held_len;
}

static cfs_doc_result expat_parse_buffer(void *tok, size_t len, int final, size_t *consumed,
                                         cfs_error *err) {
    expat_tok *t = tok;
    size_t n = t->held_len + len;
    t->held_len = 0;
    return feed(t, t->buf, n, len, t->own_buf ? IN_OURS : IN_EXPAT, final, consumed, err);
}

const cfs_tokenizer_ops cfs_expat_ops = {
    expat_create, expat_destroy, expat_begin, expat_parse, expat_buffer, expat_parse_buffer, NULL,
};
