/* SPDX-License-Identifier: Apache-2.0 */
/*
 * libxml2.c -- the libxml2 tokenizer adapter: the SAX2 push parser
 * (xmlCreatePushParserCtxt / xmlParseChunk) drives the same feed machine as expat.
 *
 * Safety: XML_PARSE_NONET always; never XML_PARSE_NOENT or XML_PARSE_DTDLOAD, so no
 * external entity or DTD is ever loaded (libxml2 only loads external parsed entities
 * under NOENT or DTDVALID). Internal entities are substituted (replaceEntities = 1,
 * set on the context, not through NOENT) so that text and attribute values come out
 * decoded exactly as expat delivers them; libxml2's entity-amplification checks stay
 * on (no XML_PARSE_HUGE). Errors go to a structured handler on this context, never to
 * the global one. Namespace errors, which libxml2 treats as recoverable, stop the
 * document as they do in expat, so both backends agree on what is well-formed.
 *
 * Charsets: libxml2 never decodes one. The document's charset is chosen as expat
 * chooses it (byte order mark, UTF-16 sniffing, the declared name) and every
 * non-UTF-8 document is transcoded to UTF-8 by the shared charset stage
 * (transcode.c, the decoding expat uses), whatever the chunking; libxml2 is told the
 * input is UTF-8 and ignores the declared encoding (XML_PARSE_IGNORE_ENC: the
 * declaration stays in place, so libxml2 still checks it and line/column numbers are
 * unchanged). Positions libxml2 reports are offsets in that UTF-8; they are mapped
 * back to document offsets through the raw bytes still held (see doc_offset). A
 * character the stage rejects ends the UTF-8 given to libxml2 with a byte that is
 * never XML (0x01), so libxml2 delivers everything before it and fails there; the
 * document's error is then expat's ("not well-formed (invalid token)" or "partial
 * character") at the character's document offset.
 */
#include "internal.h"

#include <libxml/parser.h>
#include <libxml/parserInternals.h>
#include <libxml/SAX2.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <ctype.h>
#include <string.h>

#define OPTIONS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)

typedef struct lx_tok {
    xmlParserCtxtPtr ctxt;
    cfs_machine *m;
    int root_closed;
    int aborted;
    int error;             /* an error stopped the document */
    cfs_error err;
    char message[160];
    int started;           /* the charset is known and libxml2 has the document */
    /* The document's first bytes, until its charset is known. */
    uint8_t *head;
    size_t head_len, head_cap, head_check;
    /* The charset stage. */
    cfs_charset cs;
    int transcoding;       /* not UTF-8: libxml2 gets cs's UTF-8 */
    size_t skip;           /* byte order mark bytes libxml2 does not get */
    uint8_t *win;          /* raw bytes from document offset win_raw: decoded up to */
    size_t win_len, win_cap, win_dec;   /* win_dec, the rest is a cut character */
    long win_raw, win_u;   /* document and libxml2 offsets of win[0] */
    size_t cur_i;          /* a cursor: win[cur_i] is at libxml2 offset cur_u */
    long cur_u;
    uint8_t *out;          /* UTF-8 for libxml2 */
    size_t out_cap;
    int bad;               /* the stage stopped at an invalid character, at bad_raw */
    long bad_raw;
    const char *bad_message;
    int err_doc_end;       /* libxml2's error is its end-of-input one (terminate) */
    int cdata_cr;          /* the last CDATA block ended with CR */
    /* The CDATA section libxml2 delivers in blocks (it holds one without its "]]>" and
       gives it 300 bytes a call): the libxml2 offset just past the last block, and the
       document offset, line and column of its section's '<' (a section over
       max_markup_bytes fails there, as in the other tokenizers). */
    long cdata_next;
    long cdata_start;
    unsigned long cdata_line, cdata_column;
    xmlDocPtr entities;    /* HTML named entities made on demand */
    xmlEntityPtr nothing;  /* an empty entity, for references that are dropped */
    xmlEntityPtr no_pe;    /* an empty parameter entity, for external ones (not read) */
    uint64_t expanded;     /* bytes of internal entity text expanded in the document */
    long root_end;         /* bytes of the document up to the root's end tag */
    cfs_attr_scan scan;    /* the attribute pre-check, over the UTF-8 given (give_piece) */
    long chunk_base;       /* document bytes before the current chunk */
    size_t piece;          /* the next piece given to libxml2 at most (give) */
} lx_tok;

/* Callbacks receive the parser context (the xmlSAX2* entity handlers need it as
   their user data); our state hangs off its _private. */
static inline lx_tok *tok_of(void *ctx) { return ((xmlParserCtxtPtr)ctx)->_private; }

/* The document offset of libxml2 offset `u` (in the UTF-8 it was given): past the
   byte order mark when not transcoding; else found by walking the characters held
   in the window from a cursor (libxml2's offsets only grow, so each walk is short). */
static long doc_offset(lx_tok *t, long u) {
    if (u < 0) u = 0;
    if (!t->transcoding) return u + (long)t->skip;
    if (u < t->cur_u) {
        t->cur_i = 0;
        t->cur_u = t->win_u;
    }
    if (u > t->cur_u) {
        size_t produced = 0;
        size_t n = cfs_transcode_input_length(&t->cs, t->win + t->cur_i, t->win_dec - t->cur_i,
                                              (size_t)(u - t->cur_u), &produced);
        t->cur_i += n;
        t->cur_u += (long)produced;
    }
    return t->win_raw + (long)t->cur_i;
}

/* The document offset of what libxml2 has consumed. */
static long consumed_at(lx_tok *t) { return doc_offset(t, xmlByteConsumed(t->ctxt)); }

/* The machine asked to stop: a limit (reported as the document's error, at the
   current position), out of memory, or a callback. */
static void stop(lx_tok *t) {
    if (t->m->limit && !t->error) {
        t->error = 1;
        t->err.code = CFS_ERR_LIMIT;
        t->err.message = t->m->limit_message;
        t->err.line = (unsigned long)xmlSAX2GetLineNumber(t->ctxt);
        t->err.column = (unsigned long)xmlSAX2GetColumnNumber(t->ctxt);
        t->err.offset = (uint64_t)consumed_at(t);
    } else {
        t->aborted = 1;
    }
    xmlStopParser(t->ctxt);
}

static void on_start(void *ud, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri,
                     int nb_namespaces, const xmlChar **namespaces, int nb_attributes,
                     int nb_defaulted, const xmlChar **attributes) {
    (void)prefix; (void)nb_namespaces; (void)namespaces; (void)nb_defaulted;
    lx_tok *t = tok_of(ud);
    if (t->root_closed || t->error) return;
    if (nb_attributes + nb_namespaces > 0
        && cfs_machine_check_attributes(t->m, (uint64_t)nb_attributes + (uint64_t)nb_namespaces)) {
        stop(t);
        return;
    }
    if (cfs_machine_skipping(t->m)) {
        if (cfs_machine_skip_start(t->m)) stop(t);
        return;
    }
    /* Every attribute reaches the machine (their count is within max_attributes),
       in the machine's reused buffer. */
    cfs_attr *attrs = cfs_machine_attrs(t->m, nb_attributes > 0 ? (size_t)nb_attributes : 0);
    if (attrs == NULL) {
        stop(t);
        return;
    }
    size_t n = 0;
    for (int i = 0; i < nb_attributes; i++, n++) {
        const xmlChar **a = attributes + 5 * i;
        attrs[n].local = (const char *)a[0];
        attrs[n].local_len = strlen((const char *)a[0]);
        attrs[n].uri = a[2] ? (const char *)a[2] : "";
        attrs[n].uri_len = a[2] ? strlen((const char *)a[2]) : 0;
        attrs[n].value = (const char *)a[3];
        attrs[n].value_len = (size_t)(a[4] - a[3]);
    }
    const char *u = uri ? (const char *)uri : "";
    if (cfs_machine_start(t->m, u, strlen(u), (const char *)localname, strlen((const char *)localname),
                          attrs, n))
        stop(t);
}

static void check_root_end(lx_tok *t) {
    if (t->m->root_closed && !t->root_closed) {
        t->root_closed = 1;
        t->root_end = consumed_at(t);
        xmlStopParser(t->ctxt);
    }
}

static void on_end(void *ud, const xmlChar *localname, const xmlChar *prefix, const xmlChar *uri) {
    (void)prefix; (void)uri;
    lx_tok *t = tok_of(ud);
    if (t->root_closed || t->error) return;
    if (cfs_machine_skipping(t->m)) {
        cfs_machine_skip_end(t->m);
    } else {
        size_t items = t->m->items;
        if (cfs_machine_end(t->m, (const char *)localname, strlen((const char *)localname))) {
            stop(t);
            return;
        }
        if (t->m->items != items) t->m->last_item_end = (uint64_t)consumed_at(t);
    }
    check_root_end(t);
}

static void on_text(void *ud, const xmlChar *s, int len) {
    lx_tok *t = tok_of(ud);
    if (t->root_closed || t->error || !cfs_machine_wants_text(t->m)) return;
    if (cfs_machine_text(t->m, (const char *)s, (size_t)len)) stop(t);
}

/* The bytes of "<![CDATA[" in the document's raw bytes (libxml2 is given UTF-8). */
static long section_open_bytes(const lx_tok *t) {
    return 9 * ((t->cs.kind == CFS_CHARSET_UTF16LE || t->cs.kind == CFS_CHARSET_UTF16BE) ? 2 : 1);
}

/* libxml2 stands at the first byte of a CDATA section's text, `at` in the document:
   its '<' is just before (the section's start, line and column). */
static void section_opened(lx_tok *t, long at) {
    t->cdata_start = at - section_open_bytes(t);
    t->cdata_line = (unsigned long)xmlSAX2GetLineNumber(t->ctxt);
    unsigned long c = (unsigned long)xmlSAX2GetColumnNumber(t->ctxt);
    t->cdata_column = c > 9 ? c - 9 : 1;
}

/* A block of a CDATA section (libxml2's input at its first byte): the first of its
   section when it does not follow the last one. */
static void section_block(lx_tok *t, int len) {
    long u = xmlByteConsumed(t->ctxt);
    if (u != t->cdata_next) section_opened(t, consumed_at(t));
    t->cdata_next = u + len;
}

/* libxml2 passes CDATA sections without the XML line-end normalization the spec
   requires (CR LF and lone CR become LF), which expat applies: do it here. */
static void on_cdata(void *ud, const xmlChar *s, int len) {
    lx_tok *t = tok_of(ud);
    section_block(t, len);
    if (t->root_closed || t->error || !cfs_machine_wants_text(t->m)) return;
    const char *p = (const char *)s, *end = p + len, *run = p;
    if (t->cdata_cr && p < end && *p == '\n') run = ++p;
    t->cdata_cr = 0;
    for (; p < end; p++) {
        if (*p != '\r') continue;
        if ((p > run && cfs_machine_text(t->m, run, (size_t)(p - run))) || cfs_machine_text(t->m, "\n", 1)) {
            stop(t);
            return;
        }
        if (p + 1 < end && p[1] == '\n') p++;
        else if (p + 1 == end) t->cdata_cr = 1;
        run = p + 1;
    }
    if (end > run && cfs_machine_text(t->m, run, (size_t)(end - run))) stop(t);
}

/* The namespace errors expat rejects too (not, e.g., a namespace name that is not a
   valid URI, which libxml2 reports and expat accepts). */
static int namespace_error(const xmlError *e) {
    if (e->domain != XML_FROM_NAMESPACE) return 0;
    switch (e->code) {
    case XML_NS_ERR_UNDEFINED_NAMESPACE:
    case XML_NS_ERR_XML_NAMESPACE:
    case XML_NS_ERR_QNAME:
    case XML_NS_ERR_ATTRIBUTE_REDEFINED:
    case XML_NS_ERR_EMPTY:
    case XML_NS_ERR_COLON:
        return 1;
    default:
        return 0;
    }
}

/* The document holds a markup construct longer than max_markup_bytes (or than
   libxml2's own 10,000,000-byte ceiling): the limit error, at libxml2's position. */
static void markup_limit(lx_tok *t, long read) {
    cfs_machine_markup_limit(t->m);
    t->error = 1;
    t->err.code = CFS_ERR_LIMIT;
    t->err.message = t->m->limit_message;
    t->err.line = (unsigned long)xmlSAX2GetLineNumber(t->ctxt);
    t->err.column = (unsigned long)xmlSAX2GetColumnNumber(t->ctxt);
    t->err.offset = read > 0 ? (uint64_t)read : 0;
    xmlStopParser(t->ctxt);
}

/* libxml2's own ceilings on one construct (without XML_PARSE_HUGE, which would also
   lift its entity checks): the same failure as max_markup_bytes. */
static int construct_too_big(const xmlError *e) {
    const char *m = e->message;
    return m && (strstr(m, "Huge input lookup") || strstr(m, "too big") || strstr(m, "AttValue length too long"));
}

/* Moves the error to p, a place in libxml2's input buffer before its position. */
static void move_to(lx_tok *t, xmlParserInputPtr in, const xmlChar *p) {
    unsigned long newlines = 0, chars = 0;
    for (const xmlChar *q = p; q < in->cur; q++) {
        if (*q == '\n') newlines++;
        if ((*q & 0xC0) != 0x80) chars++;
    }
    if (newlines == 0) {
        if (t->err.column <= chars) return;
        t->err.column -= chars;
    } else {
        /* The column of p: from the line start before it, when still in the buffer. */
        const xmlChar *ls = p;
        while (ls > in->base && ls[-1] != '\n') ls--;
        if (ls == in->base && in->consumed > 0) return;
        unsigned long col = 1;
        for (const xmlChar *q = ls; q < p; q++)
            if ((*q & 0xC0) != 0x80) col++;
        t->err.line -= newlines;
        t->err.column = col;
    }
    t->err.offset = (uint64_t)doc_offset(t, (long)xmlByteConsumed(t->ctxt) - (long)(in->cur - p));
}

/* A namespace error or a duplicate attribute is found once the whole start tag is
   read, and libxml2 reports it at the tag's end; expat (and swift) report a namespace
   error at the tag's '<' and an attribute given twice at its second name (`name`):
   moved there (and a misplaced XML declaration, after its name, to its '<'). The tag
   is still in libxml2's input buffer (a raw '<' cannot occur inside it), on one line
   or not. */
static void in_tag(lx_tok *t, const char *name) {
    xmlParserInputPtr in = t->ctxt->input;
    if (in == NULL || in->base == NULL || in->cur == NULL || in->cur <= in->base) return;
    const xmlChar *lt = in->cur;
    while (lt > in->base && *lt != '<') lt--;
    if (*lt != '<') return;
    if (name == NULL) {
        move_to(t, in, lt);
        return;
    }
    /* The attribute names of the tag, outside quoted values: the second `name`. */
    size_t n = strlen(name);
    int seen = 0;
    char quote = 0;
    for (const xmlChar *q = lt + 1; q + n <= in->cur; q++) {
        if (quote) {
            if (*q == quote) quote = 0;
            continue;
        }
        if (*q == '"' || *q == '\'') {
            quote = (char)*q;
            continue;
        }
        int before = q[-1] == ' ' || q[-1] == '\t' || q[-1] == '\n' || q[-1] == '\r';
        xmlChar after = q + n < in->cur ? q[n] : 0;
        if (before && memcmp(q, name, n) == 0 && (after == '=' || after == ' ' || after == '\t' || after == '\n' || after == '\r')
            && ++seen == 2) {
            move_to(t, in, q);
            return;
        }
    }
}

/* The first error (or namespace error) of the document stops it. */
static void on_error(void *ud, xmlErrorPtr e) {
    lx_tok *t = tok_of(ud);
    if (e == NULL || t->error || t->root_closed || t->aborted) return;
    if (construct_too_big(e)) {
        markup_limit(t, consumed_at(t));
        return;
    }
    /* Fatal errors stop the document, and so do namespace errors (libxml2 would
       recover from those; expat does not). Other errors are the recoverable kind
       expat does not report either, such as an undeclared entity in a document whose
       external DTD is not read. */
    if (e->level < XML_ERR_FATAL && !namespace_error(e)) return;
    t->error = 1;
    t->err_doc_end = e->domain == XML_FROM_PARSER && e->code == XML_ERR_DOCUMENT_END;
    size_t n = e->message ? strlen(e->message) : 0;
    while (n > 0 && (e->message[n - 1] == '\n' || e->message[n - 1] == ' ')) n--;
    if (n >= sizeof t->message) n = sizeof t->message - 1;
    if (n) memcpy(t->message, e->message, n);
    t->message[n] = 0;
    /* One line: libxml2 continues some messages on a second one ("...indicate
       encoding !\nBytes: 0xC3 0x28 ..."). */
    for (size_t i = 0; i < n; i++)
        if (t->message[i] == '\n' || t->message[i] == '\r') t->message[i] = ' ';
    t->err.code = CFS_ERR_XML;
    t->err.message = n ? t->message : "not well-formed";
    t->err.line = e->line > 0 ? (unsigned long)e->line : 0;
    t->err.column = e->int2 > 0 ? (unsigned long)e->int2 : 0;
    t->err.offset = (uint64_t)consumed_at(t);
    if (namespace_error(e)) in_tag(t, NULL);
    else if (e->domain == XML_FROM_PARSER && e->code == XML_ERR_ATTRIBUTE_REDEFINED && e->str1) {
        /* str1 the name, or the prefix and str2 the local name (xmlErrAttributeDup) */
        char qname[256];
        if (e->str2 && snprintf(qname, sizeof qname, "%s:%s", e->str1, e->str2) < (int)sizeof qname) in_tag(t, qname);
        else if (!e->str2) in_tag(t, e->str1);
    } else if (e->domain == XML_FROM_PARSER && e->code == XML_ERR_RESERVED_XML_NAME) {
        /* An XML declaration in a document (the next document of a dump, after one
           cut short): reported after its name; expat (and swift) report it at its
           '<', where the next document is then found (input.c's resync_from). */
        in_tag(t, NULL);
    }
    xmlStopParser(t->ctxt);
}

static void on_internal_subset(void *ctx, const xmlChar *name, const xmlChar *external_id,
                               const xmlChar *system_id) {
    cfs_machine_doctype(tok_of(ctx)->m, (const char *)external_id, (const char *)system_id);
    xmlSAX2InternalSubset(ctx, name, external_id, system_id);
}

/* Entities the document does not declare: as expat does (see expat.c), HTML named
   entities in text are decoded and every other reference is dropped, never an error;
   references in attribute values are dropped too (expat skips them there). */
/* The document that owns the entities made here (freed with the tokenizer). */
static int entities_doc(lx_tok *t) {
    if (t->entities == NULL) {
        t->entities = xmlNewDoc(BAD_CAST "1.0");
        if (t->entities == NULL || xmlCreateIntSubset(t->entities, BAD_CAST "html", NULL, NULL) == NULL) return 0;
        t->nothing = xmlAddDocEntity(t->entities, BAD_CAST " ", XML_INTERNAL_GENERAL_ENTITY, NULL, NULL, BAD_CAST "");
        t->no_pe = xmlAddDocEntity(t->entities, BAD_CAST " ", XML_INTERNAL_PARAMETER_ENTITY, NULL, NULL, BAD_CAST "");
    }
    return t->nothing != NULL && t->no_pe != NULL;
}

/* A reference libxml2 lets pass that expat rejects stops the document; where, and in
   what words, is expat's to say (parser.c, judge). */
static void fail_at_reference(lx_tok *t, xmlParserCtxtPtr ctxt, const char *message) {
    t->error = 1;
    t->err.code = CFS_ERR_XML;
    t->err.message = message;
    t->err.line = (unsigned long)xmlSAX2GetLineNumber(ctxt);
    t->err.column = (unsigned long)xmlSAX2GetColumnNumber(ctxt);
    long read = consumed_at(t);
    t->err.offset = read > 0 ? (uint64_t)read : 0;
    xmlStopParser(ctxt);
}

static xmlEntityPtr on_get_entity(void *ctx, const xmlChar *name) {
    xmlEntityPtr e = xmlSAX2GetEntity(ctx, name);
    xmlParserCtxtPtr ctxt = ctx;
    if (e != NULL && e->etype == XML_EXTERNAL_GENERAL_UNPARSED_ENTITY && !ctxt->inSubset) {
        /* XML 1.0, WFC: Parsed Entity (libxml2 2.9 lets a reference to one pass). */
        lx_tok *t = tok_of(ctx);
        if (!t->error) fail_at_reference(t, ctxt, "reference to binary entity");
        return NULL;
    }
    if (e != NULL) {
        /* expat's billion-laughs rule, which libxml2 2.9 lacks for flat repetition (one
           big entity referenced many times): past 8 MiB of input read and text
           expanded, more than 100 times the input read is an error. Every reference, nested ones
           included, comes through here. */
        lx_tok *t = tok_of(ctx);
        if (!ctxt->inSubset && e->etype == XML_INTERNAL_GENERAL_ENTITY && !t->error) {
            t->expanded += (uint64_t)e->length;
            long read = consumed_at(t);
            uint64_t direct = read > 0 ? (uint64_t)read + 1 : 1;
            if (direct + t->expanded > ((uint64_t)8 << 20) && direct + t->expanded > 100 * direct) {
                t->error = 1;
                t->err.code = CFS_ERR_XML;
                t->err.message = "limit on input amplification factor (from DTD and entities) breached";
                t->err.line = (unsigned long)xmlSAX2GetLineNumber(ctxt);
                t->err.column = (unsigned long)xmlSAX2GetColumnNumber(ctxt);
                t->err.offset = read > 0 ? (uint64_t)read : 0;
                xmlStopParser(ctxt);
                return NULL;
            }
        }
        return e;
    }
    if (ctxt->inSubset) return NULL;
    lx_tok *t = tok_of(ctx);
    if (ctxt->standalone == 1 && !t->error) {
        /* A standalone document declares every entity it uses (XML 1.0, WFC: Entity
           Declared), as expat holds it; libxml2 only warns. */
        fail_at_reference(t, ctxt, "undefined entity");
        return NULL;
    }
    if (!entities_doc(t)) return NULL;
    if (ctxt->instate != XML_PARSER_CONTENT) return t->nothing;
    const char *text = cfs_html_entity((const char *)name, strlen((const char *)name));
    e = xmlGetDocEntity(t->entities, name);
    if (e != NULL) return e;
    if (text != NULL) return xmlAddDocEntity(t->entities, name, XML_INTERNAL_GENERAL_ENTITY, NULL, NULL, BAD_CAST text);
    /* Not declared and not HTML: kept as the literal text "&name;", never dropped (the
       entity's replacement text is parsed, hence the character reference). */
    xmlChar *literal = xmlStrcat(xmlStrcat(xmlStrdup(BAD_CAST "&#38;"), name), BAD_CAST ";");
    if (literal == NULL) return t->nothing;
    e = xmlAddDocEntity(t->entities, name, XML_INTERNAL_GENERAL_ENTITY, NULL, NULL, literal);
    xmlFree(literal);
    return e;
}

/* Parameter entities: an external one reads as empty. With replaceEntities set,
   libxml2 2.9 loads an external parameter entity it is given (file:// included: NONET
   only stops the network), and the declarations of that file would reach the
   document; expat does not read it, and neither does this. */
static xmlEntityPtr on_get_parameter_entity(void *ctx, const xmlChar *name) {
    xmlEntityPtr e = xmlSAX2GetParameterEntity(ctx, name);
    if (e != NULL && e->etype == XML_EXTERNAL_PARAMETER_ENTITY) {
        lx_tok *t = tok_of(ctx);
        return entities_doc(t) ? t->no_pe : NULL;
    }
    return e;
}

static xmlSAXHandler sax_handler(void) {
    xmlSAXHandler sax;
    memset(&sax, 0, sizeof sax);
    sax.initialized = XML_SAX2_MAGIC;
    sax.startElementNs = on_start;
    sax.endElementNs = on_end;
    sax.characters = on_text;
    sax.cdataBlock = on_cdata;
    sax.ignorableWhitespace = on_text;
    sax.serror = on_error;
    /* Keep internal-subset entity declarations so that they can be expanded; nothing
       here loads an external subset or entity. */
    sax.startDocument = xmlSAX2StartDocument;
    sax.internalSubset = on_internal_subset;
    sax.entityDecl = xmlSAX2EntityDecl;
    sax.unparsedEntityDecl = xmlSAX2UnparsedEntityDecl;   /* a reference to one is an error */
    sax.getEntity = on_get_entity;
    sax.getParameterEntity = on_get_parameter_entity;
    return sax;
}

static pthread_once_t init_once = PTHREAD_ONCE_INIT;
static void init_library(void) { xmlInitParser(); }

static void *lx_create(cfs_machine *m) {
    pthread_once(&init_once, init_library);   /* xmlInitParser is not thread-safe itself */
    lx_tok *t = calloc(1, sizeof *t);
    if (t == NULL) return NULL;
    t->m = m;
    cfs_charset_init(&t->cs, CFS_CHARSET_UTF8);
    xmlSAXHandler sax = sax_handler();
    t->ctxt = xmlCreatePushParserCtxt(&sax, NULL, NULL, 0, NULL);
    if (t->ctxt == NULL) {
        free(t);
        return NULL;
    }
    t->ctxt->_private = t;
    return t;
}

static void lx_destroy(void *tok) {
    lx_tok *t = tok;
    if (t == NULL) return;
    if (t->ctxt->myDoc) xmlFreeDoc(t->ctxt->myDoc);
    t->ctxt->myDoc = NULL;
    xmlFreeParserCtxt(t->ctxt);
    if (t->entities) xmlFreeDoc(t->entities);
    cfs_charset_release(&t->cs);
    free(t->head);
    free(t->win);
    free(t->out);
    free(t);
}

/* Makes room for `len` bytes in a growable buffer. */
static int reserve(uint8_t **buf, size_t *cap, size_t len) {
    if (len <= *cap && *buf != NULL) return 1;   /* always a buffer after a call (memcpy of 0 bytes) */
    size_t c = *cap ? *cap : 4096;
    while (c < len) c *= 2;
    uint8_t *b = realloc(*buf, c);
    if (b == NULL) return 0;
    *buf = b;
    *cap = c;
    return 1;
}

/* Starts the document on the context, its charset known: libxml2 reads UTF-8 and
   ignores the declared encoding (no bytes given here, so it sniffs nothing). */
static int start_document(lx_tok *t) {
    if (t->ctxt->myDoc) xmlFreeDoc(t->ctxt->myDoc);
    t->ctxt->myDoc = NULL;
    if (xmlCtxtResetPush(t->ctxt, NULL, 0, NULL, NULL) != 0) return 0;
    xmlSwitchEncoding(t->ctxt, XML_CHAR_ENCODING_UTF8);
    xmlCtxtUseOptions(t->ctxt, OPTIONS | XML_PARSE_IGNORE_ENC);
    t->ctxt->_private = t;
    t->ctxt->replaceEntities = 1;   /* decode like expat; NOENT stays off: nothing external loads */
    t->started = 1;
    t->transcoding = t->cs.kind != CFS_CHARSET_UTF8;
    t->win_raw = (long)t->skip;
    return 1;
}

static int lx_begin(void *tok) {
    lx_tok *t = tok;
    t->root_closed = 0;
    t->aborted = 0;
    t->error = 0;
    t->root_end = 0;
    t->chunk_base = 0;
    t->piece = 4096;
    t->cdata_next = -1;
    t->head_len = 0;
    t->head_check = 4;
    t->started = 0;
    t->cdata_cr = 0;
    t->expanded = 0;
    cfs_attr_scan_begin(&t->scan, t->m->max_attributes);
    t->scan.cut_all = 1;   /* (libxml2 compares attributes pairwise: never a tag over the limit) */
    cfs_charset_release(&t->cs);
    cfs_charset_init(&t->cs, CFS_CHARSET_UTF8);
    t->transcoding = 0;
    t->skip = 0;
    t->win_len = t->win_dec = t->cur_i = 0;
    t->win_raw = t->win_u = t->cur_u = 0;
    t->bad = 0;
    t->bad_raw = 0;
    t->bad_message = NULL;
    t->err_doc_end = 0;
    memset(&t->err, 0, sizeof t->err);
    return 1;
}

/* Encoding errors are reported by libxml2 through the thread's generic error
   function, outside the context: silence them while we parse (the failure itself
   reaches us through the context's structured handler). */
static void quiet(void *ctx, const char *msg, ...) { (void)ctx; (void)msg; }

static int parse_chunk(lx_tok *t, const uint8_t *data, size_t len, int final) {
    xmlGenericErrorFunc saved = xmlGenericError;
    void *saved_ctx = xmlGenericErrorContext;
    xmlSetGenericErrorFunc(NULL, quiet);
    int rc = xmlParseChunk(t->ctxt, (const char *)data, (int)len, final);
    xmlSetGenericErrorFunc(saved_ctx, saved);
    return rc;
}

/* Gives libxml2 the next UTF-8 bytes, but never a start tag over the attribute limit
   (attribute_scan.c): libxml2 gets what comes before its '>', and the document fails
   there (libxml2 waits for a tag's '>' before it reads the tag; the judge, parser.c,
   finds a fault in the tag's syntax before it, as expat and the Swift tokenizer do). */
static int give_piece(lx_tok *t, const uint8_t *p, size_t n, int final) {
    size_t cut = cfs_attr_scan_cut(&t->scan, p, n);
    if (cut == n) return parse_chunk(t, p, n, final);
    int rc = parse_chunk(t, p, cut, 0);
    if (!t->error && !t->aborted && !t->root_closed && cfs_machine_check_attributes(t->m, t->scan.count)) stop(t);
    return rc;
}

/* Gives libxml2 a document's bytes in pieces that double from 4 KiB over the document
   (then as they come), up to where its root closes: the bytes after a root are the
   next document's, given to it again, and libxml2 copies (and the attribute pre-check scans)
   every byte it is given, so a call with a dump's many small documents would cost each
   document the rest of the call. */
static int give(lx_tok *t, const uint8_t *p, size_t n, int final) {
    while (n > t->piece && t->piece < CFS_RATIO_INTERVAL) {
        size_t step = t->piece;
        int rc = give_piece(t, p, step, 0);
        if (rc != 0 || t->error || t->aborted || t->root_closed) return rc;
        p += step;
        n -= step;
        t->piece *= 2;
    }
    return give_piece(t, p, n, final);
}

/* Gives libxml2 the document's next raw bytes (`final`: the last). Returns
   xmlParseChunk's result, or -1 when out of memory. */
static int feed(lx_tok *t, const uint8_t *data, size_t len, int final) {
    if (!t->transcoding) return len > 0 || final ? give(t, data, len, final) : 0;
    /* The window keeps the raw bytes libxml2 may still report positions in. */
    if (!reserve(&t->win, &t->win_cap, t->win_len + len)) return -1;
    if (len) memcpy(t->win + t->win_len, data, len);
    t->win_len += len;
    size_t todo = t->win_len - t->win_dec;
    if (!reserve(&t->out, &t->out_cap, cfs_transcode_max(todo) + 1)) return -1;
    size_t used = 0, written = 0;
    cfs_transcode_status st = cfs_transcode(&t->cs, t->win + t->win_dec, todo, final, t->out, &used, &written);
    t->win_dec += used;
    if (st != CFS_TRANSCODE_OK) {
        /* Everything before the character, then a byte that is never XML: libxml2
           delivers what precedes and fails there. */
        t->bad = 1;
        t->bad_raw = t->win_raw + (long)t->win_dec;
        t->bad_message = st == CFS_TRANSCODE_PARTIAL ? "partial character" : "not well-formed (invalid token)";
        t->out[written++] = 0x01;
        final = 1;
    }
    return written > 0 || final ? give(t, t->out, written, final) : 0;
}

/* Drops the window's bytes before libxml2's position (it reports no position before
   it again). */
static void trim_window(lx_tok *t, long at) {
    (void)at;
    if (!t->transcoding || t->cur_i == 0) return;
    memmove(t->win, t->win + t->cur_i, t->win_len - t->cur_i);
    t->win_len -= t->cur_i;
    t->win_dec -= t->cur_i;
    t->win_raw += (long)t->cur_i;
    t->win_u = t->cur_u;
    t->cur_i = 0;
}

/* Before libxml2 starts: collects the document's first bytes until its charset is
   known. CFS_DOC_OK with *ready set when it is (the bytes past the byte order mark then
   go to libxml2), else CFS_DOC_OK for more, or the declaration's error. */
static cfs_doc_result detect(lx_tok *t, const uint8_t *data, size_t len, int final, int *ready,
                             cfs_error *err, size_t *consumed) {
    *ready = 0;
    if (!reserve(&t->head, &t->head_cap, t->head_len + len)) return CFS_DOC_NOMEM;
    if (len) memcpy(t->head + t->head_len, data, len);
    t->head_len += len;
    /* Looked at again each time the bytes double (a long declaration costs linear
       time); past max_markup_bytes libxml2 gets them as they are (and fails on the
       construct's length). */
    int over = (uint64_t)t->head_len > t->m->max_markup_bytes;
    if (!final && !over && t->head_len < t->head_check) return CFS_DOC_OK;
    t->head_check = t->head_len * 2;
    cfs_detect_result r;
    cfs_detect_status st = cfs_charset_detect(t->head, t->head_len, final || over, t->m->transport_charset, &t->cs, &r);
    switch (st) {
    case CFS_DETECT_MORE:
        return CFS_DOC_OK;
    case CFS_DETECT_NOMEM:
        return CFS_DOC_NOMEM;
    case CFS_DETECT_ERROR:
        err->code = CFS_ERR_XML;
        err->message = r.message;
        err->line = r.line;
        err->column = r.column;
        err->offset = r.at;
        {
            long before = t->chunk_base - (long)len;   /* document offset of data[0] */
            long at = (long)r.at - before;
            *consumed = at < 0 ? 0 : (size_t)at > len ? len : (size_t)at;
        }
        return CFS_DOC_ERROR;
    case CFS_DETECT_OK:
        break;
    }
    t->skip = r.skip;
    cfs_machine_encoding(t->m, t->cs.name);
    *ready = 1;
    return CFS_DOC_OK;
}

/* libxml2's push parser, at a '&' in content, waits for a ';' anywhere further on
   before it reads the reference (xmlParseTryOrFinish), so a bare '&' held every byte
   after it until the input ended, and the documents in them were never searched for
   (expat fails at once). True when libxml2 waits at a reference that cannot be one:
   a byte that is no name (or character reference) byte comes before any ';'. Then
   libxml2 is told the input ended: it fails at the '&' as it would have at the end. */
static int waits_at_bad_reference(const lx_tok *t) {
    const xmlParserCtxtPtr c = t->ctxt;
    const xmlParserInputPtr in = c->input;
    if (c->instate != XML_PARSER_CONTENT || in == NULL || in->cur == NULL || in->cur >= in->end || *in->cur != '&')
        return 0;
    const xmlChar *q = in->cur + 1, *end = in->end;
    if (q < end && *q == '#') {
        for (q++; q < end && (isxdigit(*q) || *q == 'x'); q++) {}
    } else {
        for (; q < end && (*q >= 0x80 || isalnum(*q) || *q == '.' || *q == '-' || *q == '_' || *q == ':'); q++) {}
    }
    return q < end && *q != ';';
}

/* libxml2 never sees the byte order mark; expat counts it as a column of line 1. */
static void mark_column(const lx_tok *t, cfs_error *err) {
    if (t->skip && err->line == 1 && err->column > 0) err->column++;
}

static cfs_doc_result lx_parse(void *tok, const uint8_t *data, size_t len, int final,
                               size_t *consumed, cfs_error *err) {
    lx_tok *t = tok;
    long base = t->chunk_base;
    size_t total = len;
    t->chunk_base += (long)len;
    int rc = 0;
    if (!t->started) {
        int ready;
        cfs_doc_result r = detect(t, data, len, final, &ready, err, consumed);
        if (r != CFS_DOC_OK || !ready) {
            if (r == CFS_DOC_OK) *consumed = total;
            return r;
        }
        if (!start_document(t)) return CFS_DOC_NOMEM;
        data = t->head ? t->head + t->skip : NULL;   /* everything so far, past a byte order mark */
        len = t->head_len - t->skip;
    }
    rc = feed(t, data, len, final);
    if (rc >= 0 && !final && !t->error && !t->aborted && !t->root_closed && waits_at_bad_reference(t))
        rc = parse_chunk(t, NULL, 0, 1);
    if (t->started && t->head_len) t->head_len = 0;
    if (rc < 0) return CFS_DOC_NOMEM;
    *consumed = total;
    len = total;
    if (t->m->nomem) return CFS_DOC_NOMEM;
    if (t->aborted) return CFS_DOC_ABORT;
    /* An error libxml2 recovered from by itself (a bare '&': "xmlParseEntityRef: no
       name") before the root closed is the document's error, as expat's would be. */
    if (t->root_closed && !(t->error && (long)t->err.offset < t->root_end)) {
        long used = t->root_end - base;
        *consumed = used < 0 ? 0 : (size_t)used > len ? len : (size_t)used;
        return CFS_DOC_ROOT_END;
    }
    if (t->bad) {
        /* The character the charset stage rejected: expat's error there, unless libxml2
           failed before it (an error of its own, not the end of input it was told of). */
        if (!t->error || t->err_doc_end || (long)t->err.offset >= t->bad_raw) {
            if (!t->error) {
                t->err.line = (unsigned long)xmlSAX2GetLineNumber(t->ctxt);
                t->err.column = (unsigned long)xmlSAX2GetColumnNumber(t->ctxt);
            }
            t->error = 1;
            t->err.code = CFS_ERR_XML;
            t->err.message = t->bad_message;
            t->err.offset = (uint64_t)t->bad_raw;
        }
    } else if (!t->error && !final) {
        /* The bytes libxml2 holds unparsed: an unfinished construct (a tag, a comment,
           a CDATA section, the DOCTYPE). At a markup checkpoint (internal.h,
           at_checkpoint), past max_markup_bytes, the document fails. */
        long read = consumed_at(t);
        /* In a CDATA section, libxml2 has consumed the blocks it delivered: the
           construct starts at the section's '<' (section_block), or, before its first
           block, just before what libxml2 consumed. */
        int section = t->ctxt->instate == XML_PARSER_CDATA_SECTION;
        if (section && xmlByteConsumed(t->ctxt) != t->cdata_next) section_opened(t, read);
        long from = section ? t->cdata_start : read;
        trim_window(t, read);
        if (t->m->at_checkpoint && t->chunk_base - from > 0 && (uint64_t)(t->chunk_base - from) > t->m->max_markup_bytes) {
            markup_limit(t, from);
            if (section) {
                t->err.line = t->cdata_line;
                t->err.column = t->cdata_column;
            }
        }
    }
    if (t->error || (rc != 0 && !t->ctxt->wellFormed)) {
        if (!t->error) {
            t->err.code = CFS_ERR_XML;
            t->err.message = "not well-formed";
        }
        *err = t->err;
        mark_column(t, err);
        long at = (long)t->err.offset - base;
        *consumed = at < 0 ? 0 : (size_t)at > len ? len : (size_t)at;
        return CFS_DOC_ERROR;
    }
    if (final) {
        /* The input ended before the root element closed. */
        err->code = CFS_ERR_XML;
        err->message = "no element found";
        err->line = (unsigned long)xmlSAX2GetLineNumber(t->ctxt);
        err->column = (unsigned long)xmlSAX2GetColumnNumber(t->ctxt);
        err->offset = (uint64_t)t->chunk_base;
        mark_column(t, err);
        return CFS_DOC_ERROR;
    }
    return CFS_DOC_OK;
}

/* The stream stops here (corrupt gzip data, say): the document's first bytes, held
   until their charset is known and looked at only as they double (detect), are looked
   at now, as one call with all of them would have, and go to libxml2; so whether their
   error is theirs or the end's does not depend on how the input was cut (found by
   fuzz_libxml2). Bytes libxml2 itself holds wait for the end, as with any cut. */
static cfs_doc_result lx_settle(void *tok, size_t *consumed, cfs_error *err) {
    lx_tok *t = tok;
    *consumed = 0;
    if (t->started || t->head_len == 0) return CFS_DOC_OK;
    t->head_check = 0;
    return lx_parse(tok, NULL, 0, 0, consumed, err);
}

const cfs_tokenizer_ops cfs_libxml2_ops = {
    lx_create, lx_destroy, lx_begin, lx_parse, NULL, NULL, lx_settle,
};
