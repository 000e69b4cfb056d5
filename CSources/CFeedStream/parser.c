/* SPDX-License-Identifier: Apache-2.0 */
/*
 * parser.c -- cfs_parser: the input stage (CFeedStreamInput's input.c) reading each
 * document with a tokenizer adapter (expat.c, libxml2.c) and the feed machine.
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

struct cfs_parser {
    cfs_machine m;
    const cfs_tokenizer_ops *ops;
    void *tok;
    cfs_document_ops reader;   /* the adapter and the machine, as the input stage sees them */
    cfs_input *in;
    int last_final;            /* the last parse call ended the input */
    /* Where a document's XML error is and what it says, as expat judges it (judge()):
       made at the first error of a reader other than expat. */
    cfs_machine judge_m;
    void *judge_tok;
    int judge_failed;          /* it could not be made (out of memory): not tried again */
    size_t max_item_bytes;
    cfs_limits limits;
};

const char *cfs_format_name(cfs_format f) {
    switch (f) {
#define CFS_FORMAT(name, label, doc) case CFS_FORMAT_##name: return label;
#include "feed_rules.def"
    }
    return "unknown";
}

/* ---- the reader the input stage drives ------------------------------------------- */

static cfs_status reader_begin(void *r, size_t number) {
    cfs_parser *p = r;
    if (!p->ops->begin(p->tok)) return CFS_ERR_NOMEM;
    cfs_machine_begin(&p->m, number);
    if (p->m.cb.on_document_start && p->m.cb.on_document_start(p->m.ctx, number)) return CFS_ERR_ABORTED;
    return CFS_OK;
}

/* The adapters check max_markup_bytes when the bytes end on a checkpoint (internal.h,
   at_checkpoint). */
static cfs_doc_result reader_parse(void *r, const uint8_t *data, size_t len, int final, int at_checkpoint,
                                   size_t *consumed, cfs_error *err) {
    cfs_parser *p = r;
    p->m.at_checkpoint = at_checkpoint;
    p->last_final = final;
    cfs_doc_result res = p->ops->parse(p->tok, data, len, final, consumed, err);
    p->m.at_checkpoint = 0;
    return res;
}

static uint8_t *reader_buffer(void *r, size_t len) {
    cfs_parser *p = r;
    return p->ops->buffer(p->tok, len);
}

static cfs_doc_result reader_parse_buffer(void *r, size_t len, int at_checkpoint, size_t *consumed, cfs_error *err) {
    cfs_parser *p = r;
    p->m.at_checkpoint = at_checkpoint;
    p->last_final = 0;
    cfs_doc_result res = p->ops->parse_buffer(p->tok, len, 0, consumed, err);
    p->m.at_checkpoint = 0;
    return res;
}

static cfs_doc_result reader_settle(void *r, size_t *consumed, cfs_error *err) {
    cfs_parser *p = r;
    p->last_final = 0;
    return p->ops->settle(p->tok, consumed, err);
}

/* The position and message of a not-well-formed document, and the position of a
   limit the machine checks or of the end of a document cut short by gzip data, are expat's, whichever tokenizer found them, so that every backend reports the same error record for the same
   bytes, however they were cut (docs/SCHEMA.md, "Errors"): a reader other than expat
   has the document's bytes, from its first to the end of the failing call, judged again
   by expat with a machine of its own (same limits, no callbacks). Where expat finds no
   error in them (a construct only the other tokenizer rejects), or the document is past
   the bytes kept, the tokenizer's own error stands. */
static void judge(void *r, const uint8_t *bytes, size_t len, uint64_t at, cfs_error *err, uint64_t *last_item_end) {
    (void)at;
    (void)last_item_end;
    cfs_parser *p = r;
    int packed = err->code == CFS_ERR_GZIP || err->code == CFS_ERR_ZSTD;   /* cut short by compressed data */
    if (bytes == NULL || (err->code != CFS_ERR_XML && err->code != CFS_ERR_LIMIT && !packed)) return;
    if (p->judge_tok == NULL) {
        if (p->judge_failed) return;
        p->judge_failed = 1;
        if (!cfs_machine_init(&p->judge_m, p->max_item_bytes, &p->limits)) return;
        p->judge_tok = cfs_expat_ops.create(&p->judge_m);
        if (p->judge_tok == NULL) return;
        p->judge_failed = 0;
    }
    memcpy(p->judge_m.transport_charset, p->m.transport_charset, sizeof p->m.transport_charset);
    if (!cfs_expat_ops.begin(p->judge_tok)) return;
    cfs_machine_begin(&p->judge_m, err->document);
    size_t consumed = 0;
    cfs_error e = { 0 };
    /* As the expat backend reads them: the bytes, then the end of the input if it
       ended there. */
    cfs_doc_result res = cfs_expat_ops.parse(p->judge_tok, bytes, len, 0, &consumed, &e);
    int before_end = res == CFS_DOC_ERROR;
    if (res == CFS_DOC_OK && p->last_final) res = cfs_expat_ops.parse(p->judge_tok, NULL, 0, 1, &consumed, &e);
    if (res != CFS_DOC_ERROR) return;
    if (packed && !before_end) {
        /* A document the gzip data cut short: where expat stopped reading it. */
        err->line = e.line;
        err->column = e.column;
        err->offset = e.offset;
        return;
    }
    /* In a document the gzip data cut short, an error expat meets before the cut is the
       document's own, as the expat backend reports it. A limit the machine checks is
       where expat's events reach it: the same limit. Where the tokenizer stopped at a
       limit and expat at a fault first (in a start tag over the attribute limit, which
       libxml2 reads only whole), the fault is the document's error. */
    if (e.code != err->code && !packed && !(err->code == CFS_ERR_LIMIT && e.code == CFS_ERR_XML)) return;
    if (e.code == CFS_ERR_LIMIT && strcmp(e.message, err->message) != 0) return;
    size_t document = err->document;
    *err = e;
    err->document = document;
}

static void reader_facts(void *r, cfs_doc_facts *out) {
    cfs_parser *p = r;
    *out = (cfs_doc_facts){ p->m.items, p->m.last_item_end, p->m.root_seen, p->m.not_feed, p->m.markup_over };
}

static int reader_end(void *r, const cfs_error *error) {
    cfs_parser *p = r;
    return cfs_machine_finish(&p->m, error);
}

/* ---- lifecycle ---------------------------------------------------------------- */

cfs_parser *cfs_parser_create(const cfs_options *options, const cfs_callbacks *callbacks, void *ctx) {
    cfs_options opt;
    cfs_options_init(&opt);
    if (options) {
        /* The members the caller's struct has; the rest keep their defaults. */
        if (options->struct_size == 0 || options->struct_size > sizeof opt) return NULL;
        memcpy(&opt, options, options->struct_size);
        opt.struct_size = sizeof opt;
    }
    cfs_parser *p = calloc(1, sizeof *p);
    if (p == NULL) return NULL;
    switch (opt.backend) {
    case CFS_BACKEND_EXPAT: p->ops = &cfs_expat_ops; break;
    case CFS_BACKEND_LIBXML2: p->ops = &cfs_libxml2_ops; break;
    default: free(p); return NULL;
    }
    p->reader = (cfs_document_ops){
        .begin = reader_begin,
        .parse = reader_parse,
        .buffer = p->ops->buffer ? reader_buffer : NULL,
        .parse_buffer = p->ops->parse_buffer ? reader_parse_buffer : NULL,
        .settle = p->ops->settle ? reader_settle : NULL,
        .locate = p->ops == &cfs_expat_ops ? NULL : judge,
        .facts = reader_facts,
        .end = reader_end,
    };
    p->max_item_bytes = opt.max_item_bytes;
    p->limits = opt.limits;
    if (!cfs_machine_init(&p->m, opt.max_item_bytes, &opt.limits)) goto fail;
    if (callbacks) p->m.cb = *callbacks;
    p->m.ctx = ctx;
    p->tok = p->ops->create(&p->m);
    p->in = cfs_input_create(&p->reader, p, &opt.limits);
    if (p->tok == NULL || p->in == NULL) goto fail;
    return p;
fail:
    cfs_parser_destroy(p);
    return NULL;
}

void cfs_parser_destroy(cfs_parser *p) {
    if (p == NULL) return;
    cfs_input_destroy(p->in);
    if (p->tok) p->ops->destroy(p->tok);
    cfs_machine_free(&p->m);
    if (p->judge_tok) cfs_expat_ops.destroy(p->judge_tok);
    cfs_machine_free(&p->judge_m);
    free(p);
}

int cfs_parser_set_charset(cfs_parser *p, const char *name) {
    size_t n = name ? strlen(name) : 0;
    if (n >= sizeof p->m.transport_charset) {
        p->m.transport_charset[0] = 0;
        return 0;
    }
    if (n) memcpy(p->m.transport_charset, name, n);
    p->m.transport_charset[n] = 0;
    return 1;
}

void cfs_parser_set_recover(cfs_parser *p, cfs_recover_fn fn, size_t max_bytes) {
    cfs_input_set_recover(p->in, fn, p->m.ctx, max_bytes);
}

void cfs_parser_set_gap(cfs_parser *p, cfs_gap_fn fn) { cfs_input_set_gap_hook(p->in, fn, p->m.ctx); }

void cfs_parser_reset(cfs_parser *p) {
    cfs_input_reset(p->in);
    p->m.transport_charset[0] = 0;
}

/* ---- the stream: the input stage's ------------------------------------------------ */

cfs_status cfs_parser_feed(cfs_parser *p, const void *data, size_t len) { return cfs_input_feed(p->in, data, len); }
cfs_status cfs_parser_feed_fd(cfs_parser *p, int fd) { return cfs_input_feed_fd(p->in, fd); }
cfs_status cfs_parser_feed_inflated(cfs_parser *p, const void *data, size_t len, uint64_t compressed) {
    return cfs_input_feed_inflated(p->in, data, len, compressed);
}
cfs_status cfs_parser_inflated_origin(cfs_parser *p, uint64_t offset, uint64_t checkpoint) {
    return cfs_input_inflated_origin(p->in, offset, checkpoint);
}
cfs_status cfs_parser_feed_gap(cfs_parser *p, int format, const char *why, uint64_t from, uint64_t to) {
    return cfs_input_feed_gap(p->in, format, why, from, to);
}
cfs_status cfs_parser_settle(cfs_parser *p) { return cfs_input_settle(p->in); }
cfs_status cfs_parser_finish(cfs_parser *p) { return cfs_input_finish(p->in); }
const cfs_error *cfs_parser_error(const cfs_parser *p) { return cfs_input_error(p->in); }
cfs_stats cfs_parser_stats(const cfs_parser *p) { return cfs_input_stats(p->in); }
int cfs_parser_in_document(const cfs_parser *p) { return cfs_input_in_document(p->in); }
uint64_t cfs_parser_document_offset(const cfs_parser *p) { return cfs_input_document_offset(p->in); }
uint64_t cfs_parser_reread_end(const cfs_parser *p) { return cfs_input_reread_end(p->in); }
cfs_input *cfs_parser_input(cfs_parser *p) { return p->in; }
