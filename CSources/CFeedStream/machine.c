/* SPDX-License-Identifier: Apache-2.0 */
/*
 * machine.c -- the feed state machine.
 *
 * Tokenizer events (start element with namespace URI, local name and attributes;
 * character data; end element) come in; finished items go out through on_item, once
 * per item, as spans into a per-item arena. The machine never sees the tokenizer:
 * expat and libxml2 adapters drive it through the same functions.
 *
 * What each element means is data, not code: RULES below maps (namespace family,
 * local name, scopes) to an action on a field or list of the record in scope (the
 * item, or the feed). Only the text of fields that are kept is gathered; every
 * other subtree is skipped by counting depth.
 */
#include "internal.h"

#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

/* ---- the rules --------------------------------------------------------------------

   Every namespace, scope, action, field, list, attribute map and element rule is
   written once, in feed_rules.def; this file expands it (X-macros) into its enums and
   tables. The Swift machine's tables are generated from the same file
   (scripts/generate-rules.py). */

/* Families: namespaces whose elements mean the same thing. */
enum fam {
#define CFS_FAMILY(name, label, title) F_##name,
#include "feed_rules.def"
    F_COUNT
};

enum ns {
#define CFS_NSKIND(name) NS_##name,
#include "feed_rules.def"
    NS_COUNT
};

static const struct { const char *uri; uint8_t len, ns, fam; } NAMESPACES[] = {
#define CFS_NAMESPACE(u, kind, family, note) { u, sizeof(u) - 1, NS_##kind, F_##family },
#include "feed_rules.def"
};

typedef struct { uint8_t ns, fam; } ns_class;

/* `uri` without `http://` or `https://` (any case) and without one trailing '/'. */
static void loose_uri(const char **uri, size_t *len) {
    if (*len >= 7 && strncasecmp(*uri, "http://", 7) == 0) *uri += 7, *len -= 7;
    else if (*len >= 8 && strncasecmp(*uri, "https://", 8) == 0) *uri += 8, *len -= 8;
    if (*len > 0 && (*uri)[*len - 1] == '/') *len -= 1;
}

#define NAMESPACE_COUNT (sizeof NAMESPACES / sizeof NAMESPACES[0])
/* Each namespace's loose form (offset into its URI, length), and a bitmap of those
   lengths so that most unknown URIs are rejected at once (built with the lists). */
static uint8_t LOOSE_OFF[NAMESPACE_COUNT], LOOSE_LEN[NAMESPACE_COUNT];
static uint64_t LOOSE_LENGTHS[4];

static void build_loose(void) {
    for (size_t i = 0; i < NAMESPACE_COUNT; i++) {
        const char *t = NAMESPACES[i].uri;
        size_t tn = NAMESPACES[i].len;
        loose_uri(&t, &tn);
        LOOSE_OFF[i] = (uint8_t)(t - NAMESPACES[i].uri);
        LOOSE_LEN[i] = (uint8_t)tn;
        LOOSE_LENGTHS[tn >> 6] |= (uint64_t)1 << (tn & 63);
    }
}

/* Namespaces are matched by URI exactly, or else as people misspell them: in any case,
   http or https, with or without a trailing slash (feed_rules.def). */
static ns_class classify(const char *uri, size_t len) {
    if (len == 0) return (ns_class){ NS_NONE, F_RSS };
    for (size_t i = 0; i < NAMESPACE_COUNT; i++)
        if (NAMESPACES[i].len == len && memcmp(NAMESPACES[i].uri, uri, len) == 0)
            return (ns_class){ NAMESPACES[i].ns, NAMESPACES[i].fam };
    const char *u = uri;
    size_t n = len;
    loose_uri(&u, &n);
    if (n < 256 && (LOOSE_LENGTHS[n >> 6] >> (n & 63) & 1))
        for (size_t i = 0; i < NAMESPACE_COUNT; i++)
            if (LOOSE_LEN[i] == n && strncasecmp(NAMESPACES[i].uri + LOOSE_OFF[i], u, n) == 0)
                return (ns_class){ NAMESPACES[i].ns, NAMESPACES[i].fam };
    return (ns_class){ NS_OTHER, F_OTHER };
}

static int is_xml_ns(const cfs_attr *a) {
    return a->uri_len == 36 && memcmp(a->uri, "http://www.w3.org/XML/1998/namespace", 36) == 0;
}

static int is_xlink_ns(const cfs_attr *a) {
    return a->uri_len == 28 && memcmp(a->uri, "http://www.w3.org/1999/xlink", 28) == 0;
}

/* ---- scopes, actions, rules ------------------------------------------------------ */

/* Scopes, as bits so that a rule can apply in several. The root-level scopes (before
   the feed element) are handled in start_root. */
enum {
#define CFS_SCOPE(name) SCB_##name,
#include "feed_rules.def"
    SCB_COUNT
};
enum {
#define CFS_SCOPE(name) SC_##name = 1 << SCB_##name,
#include "feed_rules.def"
};
enum {
#define CFS_SCOPE_SET(name, scopes) SC_##name = (scopes),
#include "feed_rules.def"
};

enum action {
#define CFS_ACTION(name, doc) R_##name,
#include "feed_rules.def"
    R_COUNT
};

#define NONE 0xFFFF

/* Attribute maps: attribute (no namespace) -> column of the row, or field. */
typedef struct { const char *name; uint16_t index; } attr_map;

#define FLD(f) CFS_FIELD_##f
#define CFS_ATTR_MAP(name, ...) static const attr_map AM_##name[] = { __VA_ARGS__, { 0, 0 } };
#include "feed_rules.def"

typedef struct rule {
    uint8_t fam;
    const char *name;
    uint32_t scopes;
    uint8_t action;
    uint16_t target;    /* field or list (NONE: none) */
    uint8_t col;        /* column for R_LTEXT; priority for fields */
    const attr_map *attrs;
    uint32_t enter;     /* scope entered (R_SCOPE, R_LATTR) */
    const char *type;   /* R_TEXTC: the type when the element has no type attribute */
} rule;

/* Priorities for fields: lower wins; on a tie the first occurrence wins. */
enum { P1 = 1, P2 = 2, P3 = 3 };

#define LST(l) CFS_LIST_##l
#define AM(m) AM_##m
#define NOMAP 0
static const rule RULES[] = {
#define CFS_RULE(family, name, scopes, action, target, col, map, enter, deftype) \
    { F_##family, name, scopes, R_##action, target, col, map, enter, deftype },
#include "feed_rules.def"
};
#undef FLD
#undef LST
#undef AM
#undef NOMAP

#define NRULES (sizeof RULES / sizeof RULES[0])
#define HASH_SIZE 512

/* Rules by (family, name): chains through `next`, built once. A second table keys them
   by their names in lower case, for an element no rule names as written: feedparser
   reads element names in any case (`pubdate`, `Title`, `LINK`), so a name that matches
   a rule but for case is read by it (the exact name first, then the first rule in table
   order whose name differs only in ASCII case). SwiftFeedMachine.findRule is the same
   lookup. */
static uint16_t rule_head[HASH_SIZE];
static uint16_t rule_next[NRULES];
static uint16_t rule_head_ci[HASH_SIZE];
static uint16_t rule_next_ci[NRULES];
static uint8_t rule_len[NRULES];
static pthread_once_t rules_once = PTHREAD_ONCE_INIT;

static inline uint8_t ascii_lower(uint8_t c) { return c >= 'A' && c <= 'Z' ? (uint8_t)(c + 32) : c; }

static uint32_t hash_name(uint8_t fam, const char *s, size_t len) {
    uint32_t h = 2166136261u ^ fam;
    for (size_t i = 0; i < len; i++) h = (h ^ (uint8_t)s[i]) * 16777619u;
    return h & (HASH_SIZE - 1);
}

static uint32_t hash_lower(uint8_t fam, const char *s, size_t len) {
    uint32_t h = 2166136261u ^ fam;
    for (size_t i = 0; i < len; i++) h = (h ^ ascii_lower((uint8_t)s[i])) * 16777619u;
    return h & (HASH_SIZE - 1);
}

static void build_rules(void) {
    for (size_t i = 0; i < HASH_SIZE; i++) rule_head[i] = rule_head_ci[i] = 0xFFFF;
    for (size_t i = NRULES; i-- > 0;) {
        rule_len[i] = (uint8_t)strlen(RULES[i].name);
        uint32_t h = hash_name(RULES[i].fam, RULES[i].name, rule_len[i]);
        rule_next[i] = rule_head[h];
        rule_head[h] = (uint16_t)i;
        h = hash_lower(RULES[i].fam, RULES[i].name, rule_len[i]);
        rule_next_ci[i] = rule_head_ci[h];
        rule_head_ci[h] = (uint16_t)i;
    }
}

static int equal_ignoring_case(const char *a, const char *b, size_t len) {
    for (size_t i = 0; i < len; i++)
        if (ascii_lower((uint8_t)a[i]) != ascii_lower((uint8_t)b[i])) return 0;
    return 1;
}

static inline int same_bytes(const char *a, const char *b, size_t len) { return memcmp(a, b, len) == 0; }

/* The first rule of a chain (from i, through next) of the family, named `name` as
   `equal` compares, that applies in `scope`: the walk of both lookups. */
static inline const rule *walk_rules(uint16_t i, const uint16_t *next, uint8_t fam, const char *name, size_t len,
                                     uint32_t scope, int (*equal)(const char *, const char *, size_t)) {
    for (; i != 0xFFFF; i = next[i]) {
        const rule *r = &RULES[i];
        if (r->fam == fam && rule_len[i] == len && (r->scopes & scope) && equal(r->name, name, len)) return r;
    }
    return NULL;
}

static __attribute__((noinline)) const rule *find_rule_any_case(uint8_t fam, const char *name, size_t len, uint32_t scope) {
    return walk_rules(rule_head_ci[hash_lower(fam, name, len)], rule_next_ci, fam, name, len, scope, equal_ignoring_case);
}

static const rule *find_rule(uint8_t fam, const char *name, size_t len, uint32_t scope) {
    const rule *r = walk_rules(rule_head[hash_name(fam, name, len)], rule_next, fam, name, len, scope, same_bytes);
    return r ? r : find_rule_any_case(fam, name, len, scope);
}

/* Lists: their column names, space-separated; the counts (and the column holding the
   xml:base chain, in lists that resolve URLs) are read from them once. */
static const char *const LIST_COLUMN_NAMES[CFS_LIST_COUNT] = {
#define CFS_LIST(name, columns, doc) [CFS_LIST_##name] = columns,
#include "feed_rules.def"
};
static size_t LIST_COLUMNS[CFS_LIST_COUNT];
static int LIST_BASE[CFS_LIST_COUNT];
static int LIST_PARENT[CFS_LIST_COUNT];
static pthread_once_t lists_once = PTHREAD_ONCE_INIT;

static void build_lists(void) {
    build_loose();
    for (int l = 0; l < CFS_LIST_COUNT; l++) {
        size_t n = 0;
        LIST_BASE[l] = -1;
        LIST_PARENT[l] = -1;
        for (const char *c = LIST_COLUMN_NAMES[l]; *c;) {
            const char *e = strchr(c, ' ');
            size_t len = e ? (size_t)(e - c) : strlen(c);
            if (len == 4 && memcmp(c, "base", 4) == 0) LIST_BASE[l] = (int)n;
            if (len == 10 && memcmp(c, "parent_row", 10) == 0) LIST_PARENT[l] = (int)n;
            n++;
            c += len + (e != NULL);
        }
        LIST_COLUMNS[l] = n;
    }
}

size_t cfs_list_columns(cfs_list list) {
    pthread_once(&lists_once, build_lists);
    return (unsigned)list < CFS_LIST_COUNT ? LIST_COLUMNS[list] : 0;
}

/* The column holding the xml:base chain in lists that resolve URLs, or -1. */
static inline int base_column(int list) { return LIST_BASE[list]; }

/* ---- records ------------------------------------------------------------------- */

static int rec_init(cfs_rec *r, size_t limit) {
    for (int i = 0; i < CFS_LIST_COUNT; i++) cfs_refvec_init(&r->list[i], LIST_COLUMNS[i]);
    for (int i = 0; i < CFS_FIELD_COUNT; i++) r->field[i] = (cfs_ref){ CFS_REF_ABSENT, 0 };
    return cfs_arena_init(&r->arena, 16384, limit);
}

static void rec_free(cfs_rec *r) {
    cfs_arena_free(&r->arena);
    for (int i = 0; i < CFS_LIST_COUNT; i++) cfs_refvec_free(&r->list[i]);
}

/* Every write to a field goes through put(), which marks it in `set`, so that resets
   and publishing touch only the few fields a record uses. */
static inline void put(cfs_rec *r, int field, cfs_ref ref) {
    r->field[field] = ref;
    r->set[field >> 6] |= (uint64_t)1 << (field & 63);
}

static void rec_reset(cfs_rec *r) {
    cfs_arena_reset(&r->arena);
    for (int w = 0; w < CFS_PRESENT_WORDS; w++) {
        for (uint64_t bits = r->set[w]; bits; bits &= bits - 1) {
            int i = w * 64 + __builtin_ctzll(bits);
            r->field[i] = (cfs_ref){ CFS_REF_ABSENT, 0 };
            r->prio[i] = 0;
        }
        r->set[w] = 0;
    }
    for (uint64_t bits = r->lists_used; bits; bits &= bits - 1) r->list[__builtin_ctzll(bits)].count = 0;
    r->lists_used = 0;
}

static cfs_ref copy(cfs_rec *r, const char *s, size_t len) { return cfs_arena_copy(&r->arena, s, len); }

/* An attribute in no namespace, by name: as written, else with ASCII letters in any case
   (`URL`, `isPermalink`, `VERSION`: feedparser lower-cases attribute names as it does
   element names, find_rule). SwiftFeedMachineCore.findAttr is the same lookup. */
static const cfs_attr *find_attr(const cfs_attr *attrs, size_t n, const char *local) {
    size_t llen = strlen(local);
    const cfs_attr *any_case = NULL;
    for (size_t i = 0; i < n; i++) {
        if (attrs[i].uri_len != 0 || attrs[i].local_len != llen) continue;
        if (memcmp(attrs[i].local, local, llen) == 0) return &attrs[i];
        if (any_case == NULL && equal_ignoring_case(attrs[i].local, local, llen)) any_case = &attrs[i];
    }
    return any_case;
}

static const cfs_attr *find_ns_attr(const cfs_attr *attrs, size_t n, uint8_t ns, const char *local) {
    size_t llen = strlen(local);
    for (size_t i = 0; i < n; i++)
        if (attrs[i].local_len == llen && memcmp(attrs[i].local, local, llen) == 0 &&
            classify(attrs[i].uri, attrs[i].uri_len).ns == ns)
            return &attrs[i];
    return NULL;
}

static int attr_is(const cfs_attr *a, const char *v) {
    size_t n = strlen(v);
    return a && a->value_len == n && memcmp(a->value, v, n) == 0;
}

/* True when `field` holds a value of a higher priority than `prio` (a smaller P
   number): the new one is dropped. An equal priority is no bar: a repeated element, or
   another of the same priority, replaces the value (the last one wins, docs/SCHEMA.md). */
static inline int taken(const cfs_rec *r, int field, uint8_t prio) {
    return r->prio[field] && r->prio[field] < prio;
}

static void set_field(cfs_rec *r, int field, uint8_t prio, cfs_ref ref) {
    if (taken(r, field, prio)) return;
    put(r, field, ref);
    r->prio[field] = prio;
}

static void set_field_attr(cfs_rec *r, int field, uint8_t prio, const cfs_attr *a) {
    if (a == NULL || taken(r, field, prio)) return;
    set_field(r, field, prio, copy(r, a->value, a->value_len));
}

/* ---- xml:lang and xml:base ---------------------------------------------------- */

static const cfs_scope_attrs *scope_top(const cfs_machine *m) {
    return m->nscopes ? &m->scopes[m->nscopes - 1] : NULL;
}

static cfs_ref current_lang(const cfs_machine *m) {
    const cfs_scope_attrs *s = scope_top(m);
    return s ? s->lang : (cfs_ref){ CFS_REF_ABSENT, 0 };
}

static cfs_ref current_base(const cfs_machine *m) {
    const cfs_scope_attrs *s = scope_top(m);
    return s ? s->base : (cfs_ref){ CFS_REF_ABSENT, 0 };
}

/* Pushes the element's xml:lang / xml:base, if it has either. */
static void push_scope_attrs(cfs_machine *m, const cfs_attr *attrs, size_t n) {
    const cfs_attr *lang = NULL, *base = NULL;
    for (size_t i = 0; i < n; i++) {
        if (!is_xml_ns(&attrs[i])) continue;
        if (attrs[i].local_len == 4 && memcmp(attrs[i].local, "lang", 4) == 0) lang = &attrs[i];
        if (attrs[i].local_len == 4 && memcmp(attrs[i].local, "base", 4) == 0) base = &attrs[i];
    }
    if (lang == NULL && base == NULL) return;
    if (m->nscopes == m->scopes_cap) {
        size_t cap = m->scopes_cap ? m->scopes_cap * 2 : 16;
        cfs_scope_attrs *ns = realloc(m->scopes, cap * sizeof *ns);
        if (ns == NULL) { m->nomem = 1; return; }
        m->scopes = ns;
        m->scopes_cap = cap;
    }
    cfs_scope_attrs s = { m->depth, current_lang(m), current_base(m) };
    cfs_arena *a = &m->scope_arena;
    if (lang) s.lang = cfs_arena_copy(a, lang->value, lang->value_len);
    if (base) {
        cfs_ref outer = s.base;
        uint32_t start = (uint32_t)a->len;
        if (outer.off != CFS_REF_ABSENT) {
            cfs_arena_reserve(a, outer.len);
            cfs_arena_append(a, a->buf + outer.off, outer.len);
            cfs_arena_append(a, "\x01", 1);
        }
        cfs_arena_append(a, base->value, base->value_len);
        s.base = (cfs_ref){ start, (uint32_t)(a->len - start) };
    }
    m->scopes[m->nscopes++] = s;
}

static void pop_scope_attrs(cfs_machine *m) {
    if (m->nscopes && m->scopes[m->nscopes - 1].depth == m->depth) m->nscopes--;
}

static cfs_ref copy_scope_ref(cfs_machine *m, cfs_rec *r, cfs_ref ref) {
    if (ref.off == CFS_REF_ABSENT) return ref;
    cfs_arena_reserve(&r->arena, ref.len);
    return copy(r, (const char *)m->scope_arena.buf + ref.off, ref.len);
}

/* ---- the machine ----------------------------------------------------------------- */

void cfs_options_init(cfs_options *o) {
    memset(o, 0, sizeof *o);
    o->struct_size = sizeof *o;
    o->backend = CFS_BACKEND_EXPAT;
    o->max_item_bytes = CFS_DEFAULT_MAX_ITEM_BYTES;
    o->limits = cfs_limits_default();
}

cfs_attr *cfs_machine_attrs(cfs_machine *m, size_t n) {
    if (m->attrs != NULL && n <= m->attrs_cap) return m->attrs;
    size_t cap = m->attrs_cap ? m->attrs_cap : 16;
    while (cap < n) cap = cap <= SIZE_MAX / 2 ? cap * 2 : n;
    cfs_attr *a = cap > SIZE_MAX / sizeof(cfs_attr) ? NULL : realloc(m->attrs, cap * sizeof(cfs_attr));
    if (a == NULL) {
        m->nomem = 1;
        return NULL;
    }
    m->attrs = a;
    m->attrs_cap = cap;
    return a;
}

/* Records the message of the limit that stopped the document (the first: cfs_limit_over,
   cfs_limit_count) and returns 1 (stop). */
static int limit_over(cfs_machine *m, cfs_limit_id id, uint64_t max) {
    if (!m->limit) {
        cfs_limit_over(m->limit_message, sizeof m->limit_message, id, max);
        m->limit = 1;
    }
    return 1;
}

int cfs_machine_markup_limit(cfs_machine *m) {
    /* The section's text may have passed the field-text limit already (field_over: that
       limit waits for the next tag): the construct's limit is the document's error. */
    m->limit = 0;
    m->markup_over = 1;
    return limit_over(m, CFS_LIMIT_max_markup_bytes, m->max_markup_bytes);
}

int cfs_machine_limit(cfs_machine *m, enum cfs_limit_id id, uint64_t value, uint64_t max) {
    if (!m->limit) {
        cfs_limit_count(m->limit_message, sizeof m->limit_message, id, value, max);
        m->limit = 1;
    }
    return 1;
}

/* The text being gathered passed max_field_bytes: the field's text is dropped and no
   more is gathered (the capture ends: cfs_machine_text takes none), and the document
   stops at the next start or end tag (field_limit), a place in the input however the
   tokenizer cut the text, the same from every backend and every chunking
   (SwiftFeedMachineCore.checkField). */
static int field_over(cfs_machine *m);

static inline int check_field(cfs_machine *m) {
    if (m->cap_rec->arena.len - m->cap_start <= m->max_field_bytes) return 0;
    return field_over(m);
}

/* A start or end tag after the field's text passed max_field_bytes: the limit, at that
   tag (the message gives only the limit, not the length reached). */
__attribute__((noinline, cold)) static int field_limit(cfs_machine *m) {
    return limit_over(m, CFS_LIMIT_max_field_bytes, m->max_field_bytes);
}

int cfs_machine_init(cfs_machine *m, size_t max_item_bytes, const cfs_limits *limits) {
    pthread_once(&rules_once, build_rules);
    pthread_once(&lists_once, build_lists);
    memset(m, 0, sizeof *m);
    cfs_limits l = cfs_limits_resolve(limits);
    m->max_depth = l.max_depth > ULONG_MAX ? ULONG_MAX : (unsigned long)l.max_depth;
    m->max_field_bytes = l.max_field_bytes;
    m->max_attributes = l.max_attributes;
    m->max_items = l.max_items > SIZE_MAX ? SIZE_MAX : (size_t)l.max_items;
    m->max_markup_bytes = l.max_markup_bytes;
    if (max_item_bytes == 0) max_item_bytes = CFS_DEFAULT_MAX_ITEM_BYTES;
    if (max_item_bytes > (size_t)UINT32_MAX - 1) max_item_bytes = (size_t)UINT32_MAX - 1;
    int ok = rec_init(&m->item, max_item_bytes);
    ok &= rec_init(&m->feed, max_item_bytes);
    ok &= cfs_arena_init(&m->scope_arena, 1024, max_item_bytes);
    rec_reset(&m->item);
    rec_reset(&m->feed);
    return ok;
}

static void pub_free(cfs_pub *p) {
    for (int i = 0; i < CFS_LIST_COUNT; i++) free(p->rows[i]);
}

void cfs_machine_free(cfs_machine *m) {
    free(m->attrs);
    rec_free(&m->item);
    rec_free(&m->feed);
    cfs_arena_free(&m->scope_arena);
    free(m->scopes);
    free(m->lenient_ns);
    pub_free(&m->pub_item);
    pub_free(&m->pub_feed);
}

void cfs_machine_begin(cfs_machine *m, size_t document) {
    rec_reset(&m->feed);
    rec_reset(&m->item);
    cfs_arena_reset(&m->scope_arena);
    m->nscopes = 0;
    m->cur = &m->feed;
    m->feed_dirty = 1;
    m->document = document;
    m->items = 0;
    m->last_item_end = 0;
    m->format = CFS_FORMAT_UNKNOWN;
    m->netscape = 0;
    m->root_seen = m->root_closed = m->not_feed = m->seeking = m->in_item = 0;
    m->lenient = 0;
    m->lenient_ns_len = 0;
    m->depth = 0;
    m->scope = SC_DOC;
    m->nframes = 0;
    m->skip_depth = 0;
    m->capturing = 0;
    m->markup = 0;
    m->markup_pending_gt = 0;
    m->markup_depth = 0;
    m->xhtml_strip_div = 0;
    m->itcat_row = 0;
    m->parent_row = 0;
    m->limit = 0;
    m->markup_over = 0;
    m->field_over = 0;
    m->limit_message[0] = 0;
}

int cfs_machine_encoding(cfs_machine *m, const char *name) {
    if (strcmp(name, "utf-8") != 0) put(&m->feed, CFS_FIELD_ENCODING, copy(&m->feed, name, strlen(name)));
    return 0;
}

void cfs_machine_doctype(cfs_machine *m, const char *public_id, const char *system_id) {
    const char *ids[2] = { public_id, system_id };
    for (int i = 0; i < 2; i++) {
        const char *s = ids[i];
        if (s == NULL) continue;
        for (; *s; s++)
            if ((s[0] | 0x20) == 'n' && strncasecmp(s, "netscape", 8) == 0) m->netscape = 1;
    }
}

/* Frame actions: what to do when an element with a frame ends (feed_rules.def). */
enum {
#define CFS_FRAME(name, doc) A_##name,
#include "feed_rules.def"
};

static int push_frame(cfs_machine *m, uint8_t action, uint16_t target, uint8_t col, uint32_t row) {
    if (m->nframes == CFS_MAX_FRAMES) return 0;
    m->frames[m->nframes++] = (cfs_frame){ .scope = m->scope, .item = m->cur == &m->item, .action = action,
                                           .target = target, .col = col, .row = row };
    return 1;
}

/* Skips the subtree of the element just started. */
static int skip(cfs_machine *m) {
    m->skip_depth = 1;
    return 0;
}

static void begin_capture(cfs_machine *m, cfs_rec *r, int markup) {
    m->capturing = 1;
    m->cap_rec = r;
    m->cap_start = (uint32_t)r->arena.len;
    m->markup = markup;
    m->markup_pending_gt = 0;
    m->markup_depth = 0;
    m->xhtml_strip_div = markup ? 1 : 0;
}

static int capture_field_as(cfs_machine *m, uint8_t action, int field, uint8_t prio) {
    cfs_rec *r = m->cur;
    if (taken(r, field, prio)) return skip(m);
    if (!push_frame(m, action, (uint16_t)field, prio, 0)) return skip(m);
    begin_capture(m, r, 0);
    return 0;
}

static int capture_row(cfs_machine *m, int list, int col) {
    cfs_rec *r = m->cur;
    if (r->list[list].count == 0) return skip(m);
    if (!push_frame(m, A_CAP_ROW, (uint16_t)list, (uint8_t)col, (uint32_t)(r->list[list].count - 1)))
        return skip(m);
    begin_capture(m, r, 0);
    return 0;
}

static int capture_field(cfs_machine *m, int field, uint8_t prio) {
    return capture_field_as(m, A_CAP_FIELD, field, prio);
}

/* A text construct: value, type, lang, base, mode at field .. field + 4. */
static int capture_text(cfs_machine *m, int field, uint8_t prio, const char *deftype, const cfs_attr *attrs,
                        size_t n) {
    cfs_rec *r = m->cur;
    if (taken(r, field, prio)) return skip(m);
    if (!push_frame(m, A_CAP_FIELD, (uint16_t)field, prio, 0)) return skip(m);
    const cfs_attr *type = find_attr(attrs, n, "type"), *mode = find_attr(attrs, n, "mode");
    for (int k = 1; k <= 4; k++) {
        put(r, field + k, (cfs_ref){ CFS_REF_ABSENT, 0 });
        r->prio[field + k] = prio;
    }
    if (type) put(r, field + 1, copy(r, type->value, type->value_len));
    else if (deftype) put(r, field + 1, copy(r, deftype, strlen(deftype)));
    put(r, field + 2, copy_scope_ref(m, r, current_lang(m)));
    put(r, field + 3, copy_scope_ref(m, r, current_base(m)));
    if (mode) put(r, field + 4, copy(r, mode->value, mode->value_len));
    int xhtml = attr_is(type, "xhtml") || attr_is(mode, "xml");
    begin_capture(m, r, xhtml);
    return 0;
}

/* Pushes a row and fills it from attributes (and the base column). */
static cfs_ref *push_row(cfs_machine *m, int list, const attr_map *map, const cfs_attr *attrs, size_t n) {
    cfs_rec *r = m->cur;
    cfs_ref *row = cfs_refvec_push(&r->list[list]);
    r->lists_used |= 1ull << list;
    if (row == NULL) {
        m->nomem = 1;
        return NULL;
    }
    for (const attr_map *a = map; a && a->name; a++) {
        const cfs_attr *v = find_attr(attrs, n, a->name);
        if (v) row[a->index] = copy(r, v->value, v->value_len);
    }
    int bc = base_column(list);
    if (bc >= 0) row[bc] = copy_scope_ref(m, r, current_base(m));
    if (LIST_PARENT[list] >= 0) {
        /* The row the enclosing element pushed (LATTR entering a scope), from 0. */
        char digits[12];
        int len = snprintf(digits, sizeof digits, "%u", (unsigned)m->parent_row);
        row[LIST_PARENT[list]] = copy(r, digits, (size_t)len);
    }
    return row;
}

/* The fields of an attribute map, from one element: a repeated element replaces the
   values of the one before (the last one wins) with all its attributes, so the map's
   fields it may set are cleared first, taking the element's priority (an attribute it
   lacks is not filled in later by an element of a lower priority). Returns 1 when an
   attribute gave the field `target`, 2 when the map has it but no attribute gave it,
   0 when the map does not have it. */
static int set_fields_from(cfs_machine *m, const attr_map *map, uint8_t prio, const cfs_attr *attrs, size_t n,
                           int target) {
    int gave = 0;
    for (const attr_map *a = map; a && a->name; a++)
        if (!taken(m->cur, a->index, prio)) {
            put(m->cur, a->index, (cfs_ref){ CFS_REF_ABSENT, 0 });
            m->cur->prio[a->index] = prio;
        }
    for (const attr_map *a = map; a && a->name; a++) {
        const cfs_attr *v = find_attr(attrs, n, a->name);
        if (a->index == target && gave != 1) gave = v ? 1 : 2;
        set_field_attr(m->cur, a->index, prio, v);
    }
    return gave;
}

static int enter(cfs_machine *m, uint32_t scope) {
    if (!push_frame(m, A_NONE, 0, 0, 0)) return skip(m);
    m->scope = scope;
    return 0;
}

/* CDF: the HREF of a channel or item is its link, LASTMOD its update date (feedparser's
   reading). */
static void cdf_common(cfs_machine *m, const cfs_attr *attrs, size_t n) {
    const cfs_attr *href = find_attr(attrs, n, "HREF"), *mod = find_attr(attrs, n, "LASTMOD");
    if (href) {
        cfs_ref *row = push_row(m, CFS_LIST_LINKS, NULL, attrs, n);
        if (row) row[0] = copy(m->cur, href->value, href->value_len);
    }
    set_field_attr(m->cur, CFS_FIELD_UPDATED, P1, mod);
}

static int begin_item(cfs_machine *m, const cfs_attr *attrs, size_t n) {
    if (m->items >= m->max_items) return cfs_machine_limit(m, CFS_LIMIT_max_items, (uint64_t)m->items + 1, m->max_items);
    if (!push_frame(m, A_END_ITEM, 0, 0, 0)) return skip(m);
    rec_reset(&m->item);
    m->cur = &m->item;
    m->in_item = 1;
    m->scope = SC_ITEM;
    /* rdf:about is the item's id as a guid or Atom id is (feedparser's reading), and as it
     * is on the start tag, one of those in the item wins (the last of a priority does);
     * it beats dc:identifier. The same in SwiftFeedMachine.beginItem. */
    set_field_attr(&m->item, CFS_FIELD_ID, P1, find_ns_attr(attrs, n, NS_RDF, "about"));
    set_field(&m->item, CFS_FIELD_LANGUAGE, P3, copy_scope_ref(m, &m->item, current_lang(m)));
    put(&m->item, CFS_FIELD_BASE, copy_scope_ref(m, &m->item, current_base(m)));
    if (m->format == CFS_FORMAT_CDF) cdf_common(m, attrs, n);
    return 0;
}

/* An element of the feed or of an item that no rule reads (an extension element, RFC 4287
   section 6.4): a row of CFS_LIST_EXTENSIONS per attribute (xml: ones are the scope's),
   then one for its text, captured. A child element turns it into a skipped subtree and
   its rows are dropped (extension_child); white space only, after attribute rows, drops
   the text row (finish_capture). SwiftFeedMachineCore.startExtension is the same. */
static cfs_ref copy_name(cfs_rec *r, const char *uri, size_t uri_len, const char *local, size_t local_len) {
    if (uri_len == 0) return copy(r, local, local_len);
    cfs_arena *a = &r->arena;
    uint32_t off = (uint32_t)a->len;
    cfs_arena_append(a, "{", 1);
    cfs_arena_append(a, uri, uri_len);
    cfs_arena_append(a, "}", 1);
    cfs_arena_append(a, local, local_len);
    return (cfs_ref){ off, (uint32_t)(a->len - off) };
}

static int start_extension(cfs_machine *m, const char *uri, size_t uri_len, const char *local, size_t local_len,
                           const cfs_attr *attrs, size_t n) {
    cfs_rec *r = m->cur;
    cfs_refvec *v = &r->list[CFS_LIST_EXTENSIONS];
    uint32_t first = (uint32_t)v->count;
    if (!push_frame(m, A_CAP_EXT, CFS_LIST_EXTENSIONS, 3, first)) return skip(m);
    cfs_ref ns = copy(r, uri, uri_len), name = copy(r, local, local_len);
    for (size_t i = 0; i <= n; i++) {
        if (i < n && is_xml_ns(&attrs[i])) continue;
        cfs_ref *row = cfs_refvec_push(v);
        if (row == NULL) {
            m->nomem = 1;
            return 1;
        }
        r->lists_used |= 1ull << CFS_LIST_EXTENSIONS;
        row[0] = ns;
        row[1] = name;
        if (i < n) {
            row[2] = copy_name(r, attrs[i].uri, attrs[i].uri_len, attrs[i].local, attrs[i].local_len);
            row[3] = copy(r, attrs[i].value, attrs[i].value_len);
        }
    }
    begin_capture(m, r, 0);
    return 0;
}

/* True when the element being read is an extension element (its text captured, no
   child yet). */
static int in_extension(const cfs_machine *m) {
    return m->markup_depth == 0 && !m->markup && m->nframes > 0 && m->frames[m->nframes - 1].action == A_CAP_EXT;
}

/* The extension element being read is dropped, its rows and text, and the rest of it
   skipped: `depth` elements end the skip (the element, and a child just started). */
static void drop_extension(cfs_machine *m, unsigned depth) {
    const cfs_frame *fr = &m->frames[m->nframes - 1];
    cfs_rec *r = m->cap_rec;
    r->list[CFS_LIST_EXTENSIONS].count = fr->row;
    r->arena.len = m->cap_start;
    m->capturing = 0;
    m->scope = fr->scope;
    m->cur = fr->item ? &m->item : &m->feed;
    m->nframes--;
    m->skip_depth = depth;
}

/* A child element in an extension element being read: the element is skipped whole, as
   one no rule reads was before extensions were kept. */
static int extension_child(cfs_machine *m) {
    if (!in_extension(m)) return 0;
    drop_extension(m, 2);
    return 1;
}

/* The text being gathered passed max_field_bytes. A field's: the text is dropped and no
   more is gathered (the capture ends), and the document stops at the next start or end
   tag (field_limit). An extension element's: the element is skipped, as one holding
   elements is, and the document goes on. */
static int field_over(cfs_machine *m) {
    if (in_extension(m)) {
        drop_extension(m, 1);
        return 0;
    }
    m->cap_rec->arena.len = m->cap_start;
    m->capturing = 0;
    m->field_over = 1;
    return 0;
}

static int apply(cfs_machine *m, const rule *ru, const cfs_attr *attrs, size_t n) {
    cfs_rec *r = m->cur;
    cfs_ref *row;
    switch (ru->action) {
    case R_TEXT:
        return capture_field(m, ru->target, ru->col);
    case R_TEXTC:
        return capture_text(m, ru->target, ru->col, ru->type, attrs, n);
    case R_LTEXT: {
        int list = ru->target == NONE ? m->person_list : ru->target;
        if (ru->target != NONE && push_row(m, list, ru->attrs, attrs, n) == NULL) return 1;
        return capture_row(m, list, ru->col);
    }
    case R_LATTR:
        if ((row = push_row(m, ru->target, ru->attrs, attrs, n)) == NULL) return 1;
        if (ru->target == CFS_LIST_ITUNES_CATEGORIES) {
            /* Nested categories: the row names its parent; the frame keeps the outer
               category to restore. */
            if (m->itcat_row) row[1] = r->list[ru->target].v[(m->itcat_row - 1) * 2];
            if (!push_frame(m, A_NONE, 0, 0, m->itcat_row)) return skip(m);
            m->scope = SC_ITCAT;
            m->itcat_row = (uint32_t)r->list[ru->target].count;
            return 0;
        }
        if (ru->enter == 0) return skip(m);
        /* The row is the parent of the rows pushed inside; the outer one's is restored
           when the element ends. */
        if (!push_frame(m, A_END_PARENT, 0, 0, m->parent_row)) return skip(m);
        m->scope = ru->enter;
        m->parent_row = (uint32_t)(r->list[ru->target].count - 1);
        return 0;
    case R_RESOURCE: {
        const cfs_attr *res = find_ns_attr(attrs, n, NS_RDF, "resource");
        if (res == NULL) return capture_field(m, ru->target, ru->col);
        set_field_attr(r, ru->target, ru->col, res);
        return skip(m);
    }
    case R_FATTR:
    {
        int gave = set_fields_from(m, ru->attrs, ru->col, attrs, n, ru->target == NONE ? -1 : ru->target);
        if (gave == 1 || ru->target == NONE) return skip(m);
        return capture_field_as(m, gave == 2 ? A_CAP_FALLBACK : A_CAP_FIELD, ru->target, ru->col);
    }
    case R_SCOPE:
        set_fields_from(m, ru->attrs, ru->col, attrs, n, -1);   /* a map: the element's attributes */
        return enter(m, ru->enter);
    case R_ITEM: {
        int rc = begin_item(m, attrs, n);
        if (m->cur == &m->item) set_fields_from(m, ru->attrs, ru->col, attrs, n, -1);
        return rc;
    }
    case R_PERSON:
        if (push_row(m, ru->target, NULL, attrs, n) == NULL) return 1;
        m->person_list = ru->target;
        return enter(m, SC_PERSON);
    case R_ROWATTR: {
        /* The last row of the list (the person being read): columns from attributes. */
        cfs_refvec *v = &r->list[ru->target == NONE ? m->person_list : ru->target];
        if (v->count > 0) {
            cfs_ref *row = v->v + (v->count - 1) * v->stride;
            for (const attr_map *a = ru->attrs; a && a->name; a++) {
                const cfs_attr *at = find_attr(attrs, n, a->name);
                if (at) row[a->index] = copy(r, at->value, at->value_len);
            }
        }
        return skip(m);
    }
    case R_GUID: {
        if (taken(r, CFS_FIELD_ID, P1)) return skip(m);
        const cfs_attr *pl = find_attr(attrs, n, "isPermaLink");
        put(r, CFS_FIELD_GUID_PERMALINK, pl ? copy(r, pl->value, pl->value_len) : copy(r, "true", 4));
        return capture_field(m, CFS_FIELD_ID, P1);
    }
    case R_CONTENT:
        if (taken(r, CFS_FIELD_CONTENT, P1)) return skip(m);
        put(r, CFS_FIELD_CONTENT_SRC, (cfs_ref){ CFS_REF_ABSENT, 0 });
        set_field_attr(r, CFS_FIELD_CONTENT_SRC, P1, find_attr(attrs, n, "src"));
        return capture_text(m, CFS_FIELD_CONTENT, P1, NULL, attrs, n);
    case R_ALINK: {
        const cfs_attr *rel = find_attr(attrs, n, "rel");
        if (m->scope == SC_SOURCE) {
            if (rel == NULL || attr_is(rel, "alternate"))
                set_field_attr(r, CFS_FIELD_SOURCE_URL, P1, find_attr(attrs, n, "href"));
            if (push_row(m, CFS_LIST_SOURCE_LINKS, AM_LINK, attrs, n) == NULL) return 1;
            return skip(m);
        }
        if ((row = push_row(m, CFS_LIST_LINKS, AM_LINK, attrs, n)) == NULL) return 1;
        if (m->scope == SC_ITEM && attr_is(rel, "enclosure")) {
            cfs_ref href = row[0], type = row[2], length = row[5], base = row[6];
            cfs_ref *e = cfs_refvec_push(&r->list[CFS_LIST_ENCLOSURES]);
            r->lists_used |= 1ull << CFS_LIST_ENCLOSURES;
            if (e == NULL) { m->nomem = 1; return 1; }
            e[0] = href;
            e[1] = type;
            e[2] = length;
            e[3] = base;
            return skip(m);
        }
        /* A link without an href whose address is its text (Atom 0.3 as some wrote it;
           feedparser takes the text as the link). */
        if (row[0].off == CFS_REF_ABSENT) return capture_row(m, CFS_LIST_LINKS, 0);
        return skip(m);
    }
    }
    return skip(m);
}

static uint8_t rss_version(const char *v, size_t len, int netscape) {
    if (len >= 2 && v[0] == '2' && v[1] == '.') return CFS_FORMAT_RSS20;
    if (len == 1 && v[0] == '2') return CFS_FORMAT_RSS20;
    if (len == 4 && memcmp(v, "0.9", 3) == 0) {
        switch (v[3]) {
        case '1': return netscape ? CFS_FORMAT_RSS091N : CFS_FORMAT_RSS091U;
        case '2': return CFS_FORMAT_RSS092;
        case '3': return CFS_FORMAT_RSS093;
        case '4': return CFS_FORMAT_RSS094;
        }
    }
    return CFS_FORMAT_RSS;
}

/* The root's namespace is not the format's: its elements are read as `c`'s. */
static int remember_lenient_ns(cfs_machine *m, const char *uri, size_t len, ns_class c) {
    if (len > m->lenient_ns_cap) {
        char *p = realloc(m->lenient_ns, len);
        if (p == NULL) return m->nomem = 1, 0;
        m->lenient_ns = p;
        m->lenient_ns_cap = len;
    }
    if (len) memcpy(m->lenient_ns, uri, len);
    m->lenient_ns_len = len;
    m->lenient_ns_kind = c.ns;
    m->lenient_family = c.fam;
    m->lenient = 1;
    return 1;
}

static void feed_root(cfs_machine *m, const cfs_attr *version, const cfs_attr *attrs, size_t n);

static int start_root(cfs_machine *m, ns_class c, const char *uri, size_t uri_len, const char *local, size_t len,
                      const cfs_attr *attrs, size_t n) {
    m->root_seen = 1;
    const cfs_attr *version = find_attr(attrs, n, "version");
    if (c.fam == F_RSS && len == 3 && equal_ignoring_case(local, "rss", 3)) {
        m->format = version ? rss_version(version->value, version->value_len, m->netscape) : CFS_FORMAT_RSS;
        m->scope = SC_RSS;
    } else if (c.fam == F_OTHER && len == 3 && equal_ignoring_case(local, "rss", 3)) {
        /* An rss root in a namespace that is not RSS's (a URL of the specification,
           say): RSS, its namespace's elements read as RSS's. */
        if (!remember_lenient_ns(m, uri, uri_len, (ns_class){ NS_NONE, F_RSS })) return skip(m);
        m->format = version ? rss_version(version->value, version->value_len, m->netscape) : CFS_FORMAT_RSS;
        m->scope = SC_RSS;
    } else if (uri_len == 0 && len == 7 && memcmp(local, "CHANNEL", 7) == 0) {
        /* Microsoft's CDF: its elements, in no namespace, are read by the CDF rules. */
        if (!remember_lenient_ns(m, uri, 0, (ns_class){ NS_NONE, F_CDF })) return skip(m);
        m->format = CFS_FORMAT_CDF;
        m->scope = SC_FEED;
    } else if (c.fam == F_RSS && c.ns == NS_NONE && len == 7 && memcmp(local, "channel", 7) == 0) {
        /* An RSS channel without its rss root. */
        m->format = CFS_FORMAT_RSS;
        m->scope = SC_FEED;
    } else if (c.fam == F_RSS && c.ns == NS_NONE && !m->seeking && len == 8 && memcmp(local, "redirect", 8) == 0) {
        /* A moved feed's redirect document (<redirect><newLocation>…): its elements read
           as an RSS channel's, newLocation the feed's new URL. */
        m->format = CFS_FORMAT_REDIRECT;
        m->scope = SC_FEED;
    } else if (c.fam == F_RDF && len == 3 && memcmp(local, "RDF", 3) == 0) {
        m->format = CFS_FORMAT_RSS10;   /* refined by the channel's namespace */
        m->scope = SC_RDF;
    } else if (c.ns == NS_RSS11 && len == 7 && memcmp(local, "Channel", 7) == 0) {
        /* RSS 1.1: the root is the channel, its rdf:about the feed's id. */
        m->format = CFS_FORMAT_RSS11;
        m->scope = SC_FEED;
        set_field_attr(&m->feed, CFS_FIELD_ID, P1, find_ns_attr(attrs, n, NS_RDF, "about"));
    } else if (c.fam == F_ATOM && len == 4 && memcmp(local, "feed", 4) == 0) {
        m->format = c.ns == NS_ATOM03 ? CFS_FORMAT_ATOM03 : CFS_FORMAT_ATOM10;
        m->scope = SC_FEED;
    } else if (len == 4 && memcmp(local, "feed", 4) == 0) {
        /* A feed in no or another namespace: Atom of an unknown version, its
           namespace's elements read as Atom's (as lenient parsers do). */
        if (!remember_lenient_ns(m, uri, uri_len, (ns_class){ NS_ATOM10, F_ATOM })) return skip(m);
        m->format = CFS_FORMAT_ATOM;
        m->scope = SC_FEED;
    } else if (c.fam == F_ATOM && !m->seeking && len == 5 && memcmp(local, "entry", 5) == 0) {
        /* An Atom Entry Document (RFC 4287, section 2): the root is the one entry. */
        m->format = c.ns == NS_ATOM03 ? CFS_FORMAT_ATOM03 : CFS_FORMAT_ATOM10;
        m->scope = SC_FEED;
        feed_root(m, version, attrs, n);
        return begin_item(m, attrs, n);
    } else {
        /* Not a feed's root: a feed may be inside it (an Atom feed in an XHTML page, as
           lenient parsers find it). Its elements are looked at as roots in turn, the first
           feed root found is the document's feed; none, and the document is not a feed
           (input.c end_document). SwiftFeedMachine.startRoot does the same. */
        m->not_feed = 1;
        m->seeking = 1;
        if (!push_frame(m, A_NONE, 0, 0, 0)) return skip(m);
        return 0;
    }
    push_frame(m, A_NONE, 0, 0, 0);
    feed_root(m, version, attrs, n);
    return 0;
}

/* The feed record's fields from its root element (or the entry of an entry document). */
static void feed_root(cfs_machine *m, const cfs_attr *version, const cfs_attr *attrs, size_t n) {
    m->not_feed = m->seeking = 0;
    m->cur = &m->feed;
    set_field_attr(&m->feed, CFS_FIELD_VERSION, P1, version);
    set_field(&m->feed, CFS_FIELD_LANGUAGE, P3, copy_scope_ref(m, &m->feed, current_lang(m)));
    put(&m->feed, CFS_FIELD_BASE, copy_scope_ref(m, &m->feed, current_base(m)));
    if (m->format == CFS_FORMAT_CDF) cdf_common(m, attrs, n);
}

/* Children of <rss> and <rdf:RDF>: the channel, and RSS 1.0's sibling elements. */
static int start_in_root(cfs_machine *m, ns_class c, const char *uri, size_t uri_len, const char *local, size_t len,
                         const cfs_attr *attrs, size_t n) {
    if (c.fam == F_OTHER && m->scope == SC_RDF && !m->lenient && uri_len > 0 && len == 7
        && memcmp(local, "channel", 7) == 0) {
        /* An RDF channel in a namespace that is not RSS's (RSS 0.90's spelled another way,
           say): RSS, its namespace's elements read as RSS's, as for an rss root in such a
           namespace (SwiftFeedMachine.startInRoot does the same). */
        if (!remember_lenient_ns(m, uri, uri_len, (ns_class){ NS_NONE, F_RSS })) return skip(m);
        c = (ns_class){ NS_NONE, F_RSS };
    }
    if (c.fam != F_RSS) return skip(m);
    m->cur = &m->feed;
    if (len == 7 && equal_ignoring_case(local, "channel", 7)) {
        if (c.ns == NS_RSS090) m->format = CFS_FORMAT_RSS090;
        if (m->scope == SC_RDF) set_field_attr(&m->feed, CFS_FIELD_ID, P1, find_ns_attr(attrs, n, NS_RDF, "about"));
        /* The channel is the feed's record element: its xml:base counts. */
        put(&m->feed, CFS_FIELD_BASE, copy_scope_ref(m, &m->feed, current_base(m)));
        return enter(m, SC_FEED);
    }
    if (len == 4 && equal_ignoring_case(local, "item", 4)) return begin_item(m, attrs, n);
    if (m->scope == SC_RDF) {
        if (len == 5 && equal_ignoring_case(local, "image", 5)) return enter(m, SC_IMAGE);
        if (len == 9 && equal_ignoring_case(local, "textinput", 9)) return enter(m, SC_TEXTINPUT);
    }
    return skip(m);
}

/* ---- markup inside captured text --------------------------------------------- */

static void append_escaped(cfs_arena *a, const char *s, size_t len, int attr) {
    size_t start = 0;
    for (size_t i = 0; i < len; i++) {
        const char *rep = NULL;
        switch (s[i]) {
        case '&': rep = "&amp;"; break;
        case '<': rep = "&lt;"; break;
        case '>': if (!attr) rep = "&gt;"; break;
        case '"': if (attr) rep = "&quot;"; break;
        }
        if (rep) {
            cfs_arena_append(a, s + start, i - start);
            cfs_arena_append(a, rep, strlen(rep));
            start = i + 1;
        }
    }
    cfs_arena_append(a, s + start, len - start);
}

/* The captured element turned out to have child elements: what was captured as plain
   text so far becomes escaped markup text. */
static void switch_to_markup(cfs_machine *m) {
    cfs_arena *a = &m->cap_rec->arena;
    size_t from = m->cap_start, len = a->len - from;
    size_t specials = 0;
    for (size_t i = from; i < a->len; i++)
        specials += a->buf[i] == '&' || a->buf[i] == '<' || a->buf[i] == '>';
    m->markup = 1;
    m->xhtml_strip_div = 0;
    if (specials == 0) return;
    if (!cfs_arena_reserve(a, len + specials * 4)) return;
    size_t copy_at = a->len;
    a->len = copy_at;
    append_escaped(a, (const char *)a->buf + from, len, 0);
    size_t esc_len = a->len - copy_at;
    memmove(a->buf + from, a->buf + copy_at, esc_len);
    a->len = from + esc_len;
}

static void close_pending_gt(cfs_machine *m) {
    if (m->markup_pending_gt) {
        cfs_arena_append(&m->cap_rec->arena, ">", 1);
        m->markup_pending_gt = 0;
    }
}

static void markup_start(cfs_machine *m, const char *uri, size_t uri_len, const char *local,
                         size_t local_len, const cfs_attr *attrs, size_t n) {
    if (!m->markup) switch_to_markup(m);
    close_pending_gt(m);
    m->markup_depth++;
    if (m->xhtml_strip_div == 1) {
        if (m->markup_depth == 1 && local_len == 3 && memcmp(local, "div", 3) == 0 &&
            classify(uri, uri_len).ns == NS_XHTML) {
            m->xhtml_strip_div = 2;   /* the wrapper: not serialized */
            return;
        }
        m->xhtml_strip_div = 0;
    }
    cfs_arena *a = &m->cap_rec->arena;
    cfs_arena_append(a, "<", 1);
    cfs_arena_append(a, local, local_len);
    for (size_t i = 0; i < n; i++) {
        cfs_arena_append(a, " ", 1);
        /* An attribute's name as HTML serializes it: the XML and XLink namespaces'
           with their prefixes (xml:lang, xlink:href), the others by local name. */
        if (is_xml_ns(&attrs[i])) cfs_arena_append(a, "xml:", 4);
        else if (is_xlink_ns(&attrs[i])) cfs_arena_append(a, "xlink:", 6);
        cfs_arena_append(a, attrs[i].local, attrs[i].local_len);
        cfs_arena_append(a, "=\"", 2);
        append_escaped(a, attrs[i].value, attrs[i].value_len, 1);
        cfs_arena_append(a, "\"", 1);
    }
    m->markup_pending_gt = 1;
}

static void markup_end(cfs_machine *m, const char *local, size_t local_len) {
    cfs_arena *a = &m->cap_rec->arena;
    if (m->markup_depth == 1 && m->xhtml_strip_div == 2) {
        m->xhtml_strip_div = 0;
        close_pending_gt(m);
    } else if (m->markup_pending_gt) {
        cfs_arena_append(a, "/>", 2);
        m->markup_pending_gt = 0;
    } else {
        cfs_arena_append(a, "</", 2);
        cfs_arena_append(a, local, local_len);
        cfs_arena_append(a, ">", 1);
    }
    m->markup_depth--;
}

/* ---- events ------------------------------------------------------------------- */

static int is_space(uint8_t c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; }

/* True when the bytes of `ref` are XML white space only (or none). */
static int is_blank(const cfs_rec *r, cfs_ref ref) {
    for (uint32_t i = 0; i < ref.len; i++)
        if (!is_space(r->arena.buf[ref.off + i])) return 0;
    return 1;
}

/* An element's namespace class: its URI's, or the lenient one the root set for it. */
static ns_class element_class(const cfs_machine *m, const char *uri, size_t uri_len) {
    ns_class c = classify(uri, uri_len);
    if (m->lenient && uri_len == m->lenient_ns_len && (uri_len == 0 || memcmp(uri, m->lenient_ns, uri_len) == 0))
        c = (ns_class){ m->lenient_ns_kind, m->lenient_family };
    return c;
}

/* A person written as text (RSS author, dc:creator: CFS_PERSON_TEXT_COLUMN) whose first
   child, after white space only, is one a person rule reads (name, email, uri, url): the
   person is read as Atom's instead. The white space captured is dropped, the element's
   frame becomes a person scope's, and the child is read by the person rules. The same
   in SwiftFeedMachine.becomesPerson. */
static int becomes_person(cfs_machine *m, const char *uri, size_t uri_len, const char *local, size_t local_len) {
    if (m->markup_depth != 0 || m->markup || m->nframes == 0) return 0;
    cfs_frame *fr = &m->frames[m->nframes - 1];
    if (fr->action != A_CAP_ROW || fr->col != CFS_PERSON_TEXT_COLUMN
        || (fr->target != CFS_LIST_AUTHORS && fr->target != CFS_LIST_CONTRIBUTORS)) return 0;
    cfs_arena *a = &m->cap_rec->arena;
    if (!is_blank(m->cap_rec, (cfs_ref){ m->cap_start, (uint32_t)(a->len - m->cap_start) })) return 0;
    if (find_rule(element_class(m, uri, uri_len).fam, local, local_len, SC_PERSON) == NULL) return 0;
    a->len = m->cap_start;
    m->capturing = 0;
    fr->action = A_NONE;
    m->person_list = fr->target;
    m->scope = SC_PERSON;
    return 1;
}

int cfs_machine_start(cfs_machine *m, const char *uri, size_t uri_len, const char *local,
                      size_t local_len, const cfs_attr *attrs, size_t nattrs) {
    if (++m->depth > m->max_depth) return cfs_machine_limit(m, CFS_LIMIT_max_depth, m->depth, m->max_depth);
    if (m->field_over) return field_limit(m);
    if (m->capturing && extension_child(m)) return 0;
    if (m->capturing && !becomes_person(m, uri, uri_len, local, local_len)) {
        markup_start(m, uri, uri_len, local, local_len, attrs, nattrs);
        return m->cap_rec->arena.nomem ? (m->nomem = 1) : check_field(m);
    }
    if (nattrs) push_scope_attrs(m, attrs, nattrs);
    if (local_len == 0) return skip(m);
    ns_class c = element_class(m, uri, uri_len);
    int rc;
    if (m->scope == SC_DOC) {
        rc = m->root_seen && !m->seeking ? skip(m) : start_root(m, c, uri, uri_len, local, local_len, attrs, nattrs);
    } else if (m->scope == SC_RSS || m->scope == SC_RDF) {
        rc = start_in_root(m, c, uri, uri_len, local, local_len, attrs, nattrs);
    } else {
        const rule *ru = find_rule(c.fam, local, local_len, m->scope);
        rc = ru ? apply(m, ru, attrs, nattrs)
             : m->scope & (SC_FEED | SC_ITEM) ? start_extension(m, uri, uri_len, local, local_len, attrs, nattrs)
             : skip(m);
        if (m->cur == &m->feed) m->feed_dirty = 1;
    }
    if (m->item.arena.nomem || m->feed.arena.nomem || m->scope_arena.nomem) m->nomem = 1;
    return rc || m->nomem;
}

int cfs_machine_skip_end(cfs_machine *m) {
    int done = --m->skip_depth == 0;
    if (done) pop_scope_attrs(m);   /* the element that started the skip may have pushed */
    if (--m->depth == 0 && m->root_seen) m->root_closed = 1;
    return done;
}

int cfs_machine_text(cfs_machine *m, const char *s, size_t len) {
    if (!m->capturing) return 0;
    cfs_arena *a = &m->cap_rec->arena;
    if (m->markup) {
        close_pending_gt(m);
        append_escaped(a, s, len, 0);
    } else {
        cfs_arena_append(a, s, len);
    }
    return a->nomem ? (m->nomem = 1) : check_field(m);
}

static cfs_span span_of(const cfs_rec *r, cfs_ref ref) {
    if (ref.off == CFS_REF_ABSENT) return (cfs_span){ NULL, 0 };
    return (cfs_span){ r->arena.buf + ref.off, ref.len };
}

/* Converts a record under construction to its public form. */
static int publish(const cfs_rec *r, cfs_pub *p) {
    /* Fields set now or at the last publish (those must be cleared). */
    for (int w = 0; w < CFS_PRESENT_WORDS; w++) {
        for (uint64_t bits = r->set[w] | p->shown[w]; bits; bits &= bits - 1) {
            int i = w * 64 + __builtin_ctzll(bits);
            p->record.fields[i] = span_of(r, r->field[i]);
        }
        p->shown[w] = r->set[w];
        p->record.present[w] = r->set[w];
    }
    /* Lists with rows now or at the last publish (those must be emptied). */
    uint64_t lists = r->lists_used | p->lists_shown;
    p->lists_shown = r->lists_used;
    for (; lists; lists &= lists - 1) {
        int l = __builtin_ctzll(lists);
        const cfs_refvec *v = &r->list[l];
        size_t cells = v->count * v->stride;
        p->record.counts[l] = v->count;
        p->record.rows[l] = p->rows[l];
        if (cells == 0) continue;
        if (cells > p->cap[l]) {
            size_t cap = p->cap[l] ? p->cap[l] : 16;
            while (cap < cells) cap *= 2;
            cfs_span *nr = realloc(p->rows[l], cap * sizeof *nr);
            if (nr == NULL) return 0;
            p->rows[l] = nr;
            p->cap[l] = cap;
            p->record.rows[l] = nr;
        }
        for (size_t k = 0; k < cells; k++) p->rows[l][k] = span_of(r, v->v[k]);
    }
    return 1;
}

const cfs_feed *cfs_machine_feed(cfs_machine *m) {
    if (m->feed_dirty) {
        if (!publish(&m->feed, &m->pub_feed)) m->nomem = 1;
        m->feed_view.record = m->pub_feed.record;
        m->feed_dirty = 0;
    }
    m->feed_view.document = m->document;
    m->feed_view.format = m->format;
    m->feed_view.items_count = m->items;
    return &m->feed_view;
}

static int emit_item(cfs_machine *m) {
    if (!publish(&m->item, &m->pub_item)) {
        m->nomem = 1;
        return 1;
    }
    m->item_view.index = m->items;
    m->item_view.truncated = m->item.arena.truncated;
    m->item_view.record = m->pub_item.record;
    const cfs_feed *feed = cfs_machine_feed(m);
    m->items++;
    if (m->cb.on_item && m->cb.on_item(m->ctx, &m->item_view, feed)) return 1;
    return 0;
}

static void finish_capture(cfs_machine *m, const cfs_frame *fr) {
    cfs_rec *r = m->cap_rec;
    close_pending_gt(m);
    cfs_ref ref = { m->cap_start, (uint32_t)(r->arena.len - m->cap_start) };
    if (fr->action == A_CAP_FALLBACK) {
        if (!is_blank(r, ref)) {
            put(r, fr->target, ref);
            r->prio[fr->target] = fr->col;
        }
    } else if (fr->action == A_CAP_FIELD) {
        put(r, fr->target, ref);
        r->prio[fr->target] = fr->col;
    } else if (fr->action == A_CAP_EXT) {
        /* The text row is the last; after attribute rows, white space only drops it. */
        cfs_refvec *v = &r->list[fr->target];
        if (v->count > fr->row + 1 && is_blank(r, ref)) v->count--;
        else if (v->count > fr->row) v->v[(v->count - 1) * v->stride + fr->col] = ref;
    } else {
        /* A link's address from its text (R_ALINK): white space only gives none. */
        cfs_refvec *v = &r->list[fr->target];
        if (fr->row < v->count && !(fr->target == CFS_LIST_LINKS && is_blank(r, ref)))
            v->v[fr->row * v->stride + fr->col] = ref;
    }
    m->capturing = 0;
    m->markup = 0;
    if (r == &m->feed) m->feed_dirty = 1;
}

int cfs_machine_end(cfs_machine *m, const char *local, size_t local_len) {
    if (m->field_over) return field_limit(m);
    if (m->capturing && m->markup_depth > 0) {
        markup_end(m, local, local_len);
        m->depth--;
        return m->cap_rec->arena.nomem ? (m->nomem = 1) : check_field(m);
    }
    pop_scope_attrs(m);
    m->depth--;
    if (m->depth == 0 && m->root_seen) m->root_closed = 1;
    if (m->nframes == 0) return 0;
    cfs_frame fr = m->frames[--m->nframes];
    if (m->scope == SC_ITCAT) m->itcat_row = fr.row;
    m->scope = fr.scope;
    m->cur = fr.item ? &m->item : &m->feed;
    switch (fr.action) {
    case A_CAP_FIELD:
    case A_CAP_ROW:
    case A_CAP_FALLBACK:
    case A_CAP_EXT:
        finish_capture(m, &fr);
        return 0;
    case A_END_ITEM:
        m->in_item = 0;
        m->cur = &m->feed;
        return emit_item(m);
    case A_END_PARENT:
        m->parent_row = fr.row;
        return 0;
    default:
        return 0;
    }
}

int cfs_machine_finish(cfs_machine *m, const cfs_error *error) {
    if (m->cb.on_document_end == NULL) return 0;
    m->feed_dirty = 1;
    return m->cb.on_document_end(m->ctx, cfs_machine_feed(m), error);
}
