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
    XML_Index section_start;
    /* UTF-16 surrogates (see utf16_units): the document's byte order once known, and
       the bytes held back from expat (an odd byte, a high surrogate whose next unit has
       not come yet). */
    enum { U16_UNKNOWN, U16_NO, U16_LE, U16_BE } u16;
    uint8_t carry[4];
    size_t carry_len;
    uint8_t *scratch;       /* carry + a chunk, for parse() */
    size_t scratch_cap;
    uint8_t *buf;           /* the buffer handed out by expat_buffer, carry first */
} expat_tok;

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
   now), out of memory, or a callback. */
static void stop(expat_tok *t) {
    if (t->m->limit) {
        XML_Index at = XML_GetCurrentByteIndex(t->xp);
        t->limit_err = (cfs_error){ CFS_ERR_LIMIT, t->m->limit_message, 0,
                                    (unsigned long)XML_GetCurrentLineNumber(t->xp),
                                    (unsigned long)XML_GetCurrentColumnNumber(t->xp) + 1,
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
        t->root_end = XML_GetCurrentByteIndex(t->xp) + XML_GetCurrentByteCount(t->xp);
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
    if (cfs_machine_end(t->m, local, local_len)) {
        stop(t);
        return;
    }
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
    t->section_start = XML_GetCurrentByteIndex(t->xp);
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
    const char *text = cfs_html_entity(name, strlen(name));
    if (text && cfs_machine_text(t->m, text, strlen(text))) stop(t);
}

static void *expat_create(cfs_machine *m) {
    expat_tok *t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    t->m = m;
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
    free(t->scratch);
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
    t->text_on = 0;
    t->root_closed = 0;
    t->aborted = 0;
    t->root_end = 0;
    t->chunk_base = 0;
    t->in_section = 0;
    t->ns_decls = 0;
    t->u16 = U16_UNKNOWN;
    t->carry_len = 0;
    return 1;
}

/* ---- UTF-16 surrogates -------------------------------------------------------------
 *
 * expat decodes UTF-16 itself and pairs a high surrogate with whatever unit follows,
 * making another character of, say, D83D 0058 ("X"). Every backend rejects an
 * unpaired surrogate instead (transcode.c, XMLTranscoder.swift): here each high
 * surrogate not followed by a low one is replaced by U+FFFF before expat sees it,
 * which expat rejects as not an XML character at that very place ("not well-formed
 * (invalid token)", with its own line and column); the length is unchanged, so every
 * offset stays the document's. expat gets whole units only: an odd trailing byte,
 * and a trailing high surrogate whose next unit has not come yet, are held back
 * (t->carry) until the next chunk. The byte order is expat's (initScan): a byte
 * order mark, else a NUL first byte (big-endian) or second byte (little-endian).
 */

/* Decides the byte order from the document's first two bytes. */
static void utf16_detect(expat_tok *t, const uint8_t *p, size_t n) {
    if (t->u16 != U16_UNKNOWN || n < 2) return;
    if ((p[0] == 0xFE && p[1] == 0xFF) || (p[0] == 0 && p[1] != 0)) t->u16 = U16_BE;
    else if ((p[0] == 0xFF && p[1] == 0xFE) || (p[0] != 0 && p[1] == 0)) t->u16 = U16_LE;
    else t->u16 = U16_NO;
}

/* Marks the unpaired high surrogates of p[0..n) (a whole number of units from a unit
   boundary, but for what is held back) and returns how many bytes at the end expat
   must not get yet. */
static size_t utf16_units(expat_tok *t, uint8_t *p, size_t n, int final) {
    if (t->u16 == U16_UNKNOWN) return final ? 0 : n;
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
        p[i] = p[i + 1] = 0xFF;
    }
    return final ? 0 : n - whole;
}

/* Keeps the last `hold` of p[0..n) for the next chunk. */
static void utf16_hold(expat_tok *t, const uint8_t *p, size_t n, size_t hold) {
    memmove(t->carry, p + n - hold, hold);
    t->carry_len = hold;
}

static cfs_tok_result result(expat_tok *t, enum XML_Status st, size_t len, int final, size_t *consumed,
                             cfs_error *err) {
    XML_Index base = t->chunk_base;
    t->chunk_base += (XML_Index)len;
    if (st != XML_STATUS_ERROR) {
        *consumed = len;
        /* The construct expat holds unfinished (it stops at its start) or the section
           it is inside: past max_markup_bytes, the document fails there. */
        XML_Index at = t->in_section ? t->section_start : XML_GetCurrentByteIndex(t->xp);
        if (!final && at >= 0 && (uint64_t)(t->chunk_base - at) > t->m->max_markup_bytes) {
            cfs_machine_markup_limit(t->m);
            *err = (cfs_error){ CFS_ERR_LIMIT, t->m->limit_message, 0,
                                (unsigned long)XML_GetCurrentLineNumber(t->xp),
                                (unsigned long)XML_GetCurrentColumnNumber(t->xp) + 1, (uint64_t)at, 0 };
            *consumed = at < base ? 0 : (size_t)(at - base);
            return TOK_ERROR;
        }
        return TOK_OK;
    }
    enum XML_Error code = XML_GetErrorCode(t->xp);
    if (code == XML_ERROR_ABORTED) {
        if (t->m->nomem) return TOK_NOMEM;
        if (t->m->limit) {
            *err = t->limit_err;
            XML_Index at = (XML_Index)t->limit_err.offset;
            *consumed = at < base ? 0 : (size_t)(at - base);
            if (*consumed > len) *consumed = len;
            return TOK_ERROR;
        }
        if (t->aborted) return TOK_ABORT;
        if (t->root_closed) {
            *consumed = (size_t)(t->root_end - base);
            return TOK_ROOT_END;
        }
    }
    if (code == XML_ERROR_NO_MEMORY) return TOK_NOMEM;
    XML_Index at = XML_GetCurrentByteIndex(t->xp);
    err->code = CFS_ERR_XML;
    err->message = XML_ErrorString(code);
    err->line = (unsigned long)XML_GetCurrentLineNumber(t->xp);
    err->column = (unsigned long)XML_GetCurrentColumnNumber(t->xp) + 1;
    err->offset = at < 0 ? 0 : (uint64_t)at;
    *consumed = at < base ? 0 : (size_t)(at - base);
    if (*consumed > len) *consumed = len;
    return TOK_ERROR;
}

static cfs_tok_result expat_parse(void *tok, const uint8_t *data, size_t len, int final,
                                  size_t *consumed, cfs_error *err) {
    expat_tok *t = tok;
    if (t->u16 == U16_NO) {
        enum XML_Status st = XML_Parse(t->xp, (const char *)data, (int)len, final);
        return result(t, st, len, final, consumed, err);
    }
    /* Possibly UTF-16: the held bytes, then the chunk, in scratch memory. */
    size_t n = t->carry_len + len;
    if (n > t->scratch_cap) {
        uint8_t *p = realloc(t->scratch, n);
        if (p == NULL) return TOK_NOMEM;
        t->scratch = p;
        t->scratch_cap = n;
    }
    memcpy(t->scratch, t->carry, t->carry_len);
    if (len) memcpy(t->scratch + t->carry_len, data, len);
    utf16_detect(t, t->scratch, n);
    size_t hold = utf16_units(t, t->scratch, n, final);
    utf16_hold(t, t->scratch, n, hold);
    enum XML_Status st = XML_Parse(t->xp, (const char *)t->scratch, (int)(n - hold), final);
    return result(t, st, len, final, consumed, err);
}

static uint8_t *expat_buffer(void *tok, size_t len) {
    expat_tok *t = tok;
    uint8_t *p = XML_GetBuffer(t->xp, (int)(len + t->carry_len));
    if (p == NULL) return NULL;
    memcpy(p, t->carry, t->carry_len);
    t->buf = p;
    return p + t->carry_len;
}

static cfs_tok_result expat_parse_buffer(void *tok, size_t len, int final, size_t *consumed,
                                         cfs_error *err) {
    expat_tok *t = tok;
    size_t n = t->carry_len + len, hold = 0;
    if (t->u16 != U16_NO) {
        utf16_detect(t, t->buf, n);
        hold = utf16_units(t, t->buf, n, final);
        utf16_hold(t, t->buf, n, hold);
    }
    enum XML_Status st = XML_ParseBuffer(t->xp, (int)(n - hold), final);
    return result(t, st, len, final, consumed, err);
}

const cfs_tokenizer_ops cfs_expat_ops = {
    expat_create, expat_destroy, expat_begin, expat_parse, expat_buffer, expat_parse_buffer,
};
