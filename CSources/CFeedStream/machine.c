/*
 * machine.c -- the feed state machine.
 *
 * Tokenizer events (start element with namespace URI, local name and attributes;
 * character data; end element) come in; finished items go out through on_item, once
 * per item, as spans into a per-item arena. The machine never sees the tokenizer:
 * expat and libxml2 adapters drive it through the same four functions.
 *
 * Only the text of fields that are kept is gathered; every other subtree is skipped
 * by counting depth (the adapters do not even split names while skipping).
 */
#include "internal.h"

#include <stdlib.h>
#include <string.h>

/* ---- namespaces and names ----------------------------------------------------- */

enum ns {
    NS_NONE, NS_RSS10, NS_RSS090, NS_USERLAND, NS_ATOM10, NS_ATOM03, NS_DC, NS_DCTERMS,
    NS_CONTENT, NS_RDF, NS_XHTML, NS_XML, NS_OTHER
};

/* Families: namespaces whose elements mean the same thing. */
enum fam { F_RSS, F_ATOM, F_DC, F_DCTERMS, F_CONTENT, F_RDF, F_XHTML, F_XML, F_OTHER };

static const struct { const char *uri; size_t len; uint8_t ns, fam; } NAMESPACES[] = {
#define NS_ENTRY(u, n, f) { u, sizeof(u) - 1, n, f }
    NS_ENTRY("http://www.w3.org/2005/Atom", NS_ATOM10, F_ATOM),
    NS_ENTRY("http://purl.org/rss/1.0/", NS_RSS10, F_RSS),
    NS_ENTRY("http://purl.org/dc/elements/1.1/", NS_DC, F_DC),
    NS_ENTRY("http://purl.org/rss/1.0/modules/content/", NS_CONTENT, F_CONTENT),
    NS_ENTRY("http://www.w3.org/1999/02/22-rdf-syntax-ns#", NS_RDF, F_RDF),
    NS_ENTRY("http://purl.org/dc/terms/", NS_DCTERMS, F_DCTERMS),
    NS_ENTRY("http://www.w3.org/1999/xhtml", NS_XHTML, F_XHTML),
    NS_ENTRY("http://www.w3.org/XML/1998/namespace", NS_XML, F_XML),
    NS_ENTRY("http://purl.org/atom/ns#", NS_ATOM03, F_ATOM),
    NS_ENTRY("http://my.netscape.com/rdf/simple/0.9/", NS_RSS090, F_RSS),
    NS_ENTRY("http://backend.userland.com/rss2", NS_USERLAND, F_RSS),
    NS_ENTRY("http://backend.userland.com/rss", NS_USERLAND, F_RSS),
#undef NS_ENTRY
};

static uint8_t classify_ns(const char *uri, size_t len) {
    if (len == 0) return NS_NONE;
    for (size_t i = 0; i < sizeof NAMESPACES / sizeof NAMESPACES[0]; i++)
        if (NAMESPACES[i].len == len && memcmp(NAMESPACES[i].uri, uri, len) == 0)
            return NAMESPACES[i].ns;
    return NS_OTHER;
}

static uint8_t fam_of(uint8_t ns) {
    if (ns == NS_NONE) return F_RSS;
    for (size_t i = 0; i < sizeof NAMESPACES / sizeof NAMESPACES[0]; i++)
        if (NAMESPACES[i].ns == ns) return NAMESPACES[i].fam;
    return F_OTHER;
}

enum el {
    E_UNKNOWN, E_RSS, E_RDF, E_CHANNEL, E_ITEM, E_FEED, E_ENTRY, E_TITLE, E_LINK,
    E_DESCRIPTION, E_LANGUAGE, E_PUBDATE, E_LASTBUILDDATE, E_GUID, E_AUTHOR, E_CATEGORY,
    E_ENCLOSURE, E_ID, E_UPDATED, E_PUBLISHED, E_SUMMARY, E_CONTENT, E_SUBTITLE,
    E_TAGLINE, E_MODIFIED, E_ISSUED, E_NAME, E_EMAIL, E_URI, E_URL, E_ENCODED, E_CREATOR,
    E_DATE, E_SUBJECT, E_IDENTIFIER, E_DIV
};

static const struct { const char *name; uint8_t len, el; } NAMES[] = {
#define N(s, e) { s, sizeof(s) - 1, e }
    N("title", E_TITLE), N("link", E_LINK), N("description", E_DESCRIPTION),
    N("item", E_ITEM), N("entry", E_ENTRY), N("guid", E_GUID), N("pubDate", E_PUBDATE),
    N("category", E_CATEGORY), N("author", E_AUTHOR), N("id", E_ID),
    N("updated", E_UPDATED), N("published", E_PUBLISHED), N("summary", E_SUMMARY),
    N("content", E_CONTENT), N("encoded", E_ENCODED), N("creator", E_CREATOR),
    N("date", E_DATE), N("subject", E_SUBJECT), N("enclosure", E_ENCLOSURE),
    N("name", E_NAME), N("email", E_EMAIL), N("uri", E_URI), N("url", E_URL),
    N("channel", E_CHANNEL), N("language", E_LANGUAGE), N("lastBuildDate", E_LASTBUILDDATE),
    N("subtitle", E_SUBTITLE), N("tagline", E_TAGLINE), N("modified", E_MODIFIED),
    N("issued", E_ISSUED), N("identifier", E_IDENTIFIER), N("rss", E_RSS),
    N("RDF", E_RDF), N("feed", E_FEED), N("div", E_DIV),
#undef N
};

static uint8_t lookup_name(const char *s, size_t len) {
    for (size_t i = 0; i < sizeof NAMES / sizeof NAMES[0]; i++)
        if (NAMES[i].len == len && NAMES[i].name[0] == s[0] && memcmp(NAMES[i].name, s, len) == 0)
            return NAMES[i].el;
    return E_UNKNOWN;
}

static const cfs_attr *find_attr(const cfs_attr *attrs, size_t n, uint8_t ns, const char *local) {
    size_t llen = strlen(local);
    for (size_t i = 0; i < n; i++) {
        if (attrs[i].local_len != llen || memcmp(attrs[i].local, local, llen) != 0) continue;
        if (classify_ns(attrs[i].uri, attrs[i].uri_len) == ns) return &attrs[i];
    }
    return NULL;
}

/* ---- scopes and actions ------------------------------------------------------- */

enum scope { S_DOC, S_RSS, S_RDF, S_FEED, S_ITEM, S_PERSON };
enum action {
    A_NONE, A_CAPTURE_SLOT, A_CAPTURE_VEC, A_END_ITEM, A_END_PERSON
};

/* Priorities: lower wins; on a tie the first occurrence wins. */
enum { P_NATIVE = 1, P_SECOND = 2, P_THIRD = 3 };

/* ---- records ------------------------------------------------------------------ */

static int record_init(cfs_record *r, size_t limit) {
    static const size_t strides[VEC_COUNT] = { LINK_STRIDE, PERSON_STRIDE, CAT_STRIDE, ENC_STRIDE };
    for (int i = 0; i < VEC_COUNT; i++) cfs_refvec_init(&r->vec[i], strides[i]);
    return cfs_arena_init(&r->arena, 16384, limit);
}

static void record_free(cfs_record *r) {
    cfs_arena_free(&r->arena);
    for (int i = 0; i < VEC_COUNT; i++) cfs_refvec_free(&r->vec[i]);
}

static void record_reset(cfs_record *r) {
    cfs_arena_reset(&r->arena);
    for (int i = 0; i < SLOT_COUNT; i++) {
        r->slot[i] = (cfs_ref){ CFS_REF_ABSENT, 0 };
        r->prio[i] = 0;
    }
    for (int i = 0; i < VEC_COUNT; i++) r->vec[i].count = 0;
}

static cfs_ref copy_attr(cfs_record *r, const cfs_attr *a) {
    if (a == NULL) return (cfs_ref){ CFS_REF_ABSENT, 0 };
    return cfs_arena_copy(&r->arena, a->value, a->value_len);
}

/* Sets a slot from an attribute value, obeying priority. */
static void set_slot_attr(cfs_record *r, int slot, uint8_t prio, const cfs_attr *a) {
    if (a == NULL) return;
    if (r->prio[slot] && r->prio[slot] <= prio) return;
    r->slot[slot] = copy_attr(r, a);
    r->prio[slot] = prio;
}

/* ---- the machine -------------------------------------------------------------- */

int cfs_machine_init(cfs_machine *m, size_t max_item_bytes) {
    memset(m, 0, sizeof *m);
    if (max_item_bytes == 0) max_item_bytes = CFS_DEFAULT_MAX_ITEM_BYTES;
    if (max_item_bytes > (size_t)UINT32_MAX - 1) max_item_bytes = (size_t)UINT32_MAX - 1;
    int ok = record_init(&m->item, max_item_bytes);
    ok &= record_init(&m->feed, max_item_bytes);
    record_reset(&m->item);
    record_reset(&m->feed);
    return ok;
}

void cfs_machine_free(cfs_machine *m) {
    record_free(&m->item);
    record_free(&m->feed);
    free(m->pub_links);
    free(m->pub_persons);
    free(m->pub_cats);
    free(m->pub_encls);
    free(m->pub_feed_links);
}

void cfs_machine_begin(cfs_machine *m, size_t document) {
    record_reset(&m->feed);
    record_reset(&m->item);
    m->document = document;
    m->items = 0;
    m->format = CFS_FORMAT_UNKNOWN;
    m->root_seen = m->root_closed = m->not_feed = 0;
    m->depth = 0;
    m->scope = S_DOC;
    m->nframes = 0;
    m->skip_depth = 0;
    m->capturing = 0;
    m->markup = 0;
    m->markup_pending_gt = 0;
    m->markup_depth = 0;
    m->xhtml_strip_div = 0;
}

static int push_frame(cfs_machine *m, uint8_t action, uint8_t slot, uint8_t prio) {
    if (m->nframes == CFS_MAX_FRAMES) return 0;
    m->frames[m->nframes++] = (cfs_frame){ m->scope, action, slot, prio };
    return 1;
}

/* Skips the subtree of the element just started. */
static int skip(cfs_machine *m) {
    m->skip_depth = 1;
    return 0;
}

static void begin_capture(cfs_machine *m, cfs_record *r, int markup) {
    m->capturing = 1;
    m->cap_rec = r;
    m->cap_start = (uint32_t)r->arena.len;
    m->markup = markup;
    m->markup_pending_gt = 0;
    m->markup_depth = 0;
    m->xhtml_strip_div = markup ? 1 : 0;
}

/* Starts capturing the element's text into a scalar slot, unless a value of equal or
   better priority is already there (then the element is skipped). */
static int capture_slot(cfs_machine *m, cfs_record *r, int slot, uint8_t prio) {
    if (r->prio[slot] && r->prio[slot] <= prio) return skip(m);
    if (!push_frame(m, A_CAPTURE_SLOT, (uint8_t)slot, prio)) return skip(m);
    begin_capture(m, r, 0);
    return 0;
}

/* Starts capturing into field `field` of the last record of vector `vec`. */
static int capture_vec(cfs_machine *m, cfs_record *r, int vec, int field) {
    if (!push_frame(m, A_CAPTURE_VEC, (uint8_t)vec, (uint8_t)field)) return skip(m);
    begin_capture(m, r, 0);
    return 0;
}

/* A text construct (title, summary, content, subtitle): its type attribute, and
   markup capture for type="xhtml". */
static int capture_text_construct(cfs_machine *m, cfs_record *r, int slot, int type_slot,
                                  uint8_t prio, const cfs_attr *type) {
    if (r->prio[slot] && r->prio[slot] <= prio) return skip(m);
    if (!push_frame(m, A_CAPTURE_SLOT, (uint8_t)slot, prio)) return skip(m);
    r->slot[type_slot] = copy_attr(r, type);
    r->prio[type_slot] = prio;
    int xhtml = type && type->value_len == 5 && memcmp(type->value, "xhtml", 5) == 0;
    begin_capture(m, r, xhtml);
    return 0;
}

static int push_link(cfs_machine *m, cfs_record *r, const cfs_attr *attrs, size_t n, int item) {
    cfs_ref *l = cfs_refvec_push(&r->vec[VEC_LINKS]);
    if (l == NULL) { m->nomem = 1; return 1; }
    l[LINK_HREF] = copy_attr(r, find_attr(attrs, n, NS_NONE, "href"));
    l[LINK_REL] = copy_attr(r, find_attr(attrs, n, NS_NONE, "rel"));
    l[LINK_TYPE] = copy_attr(r, find_attr(attrs, n, NS_NONE, "type"));
    l[LINK_HREFLANG] = copy_attr(r, find_attr(attrs, n, NS_NONE, "hreflang"));
    l[LINK_TITLE] = copy_attr(r, find_attr(attrs, n, NS_NONE, "title"));
    l[LINK_LENGTH] = copy_attr(r, find_attr(attrs, n, NS_NONE, "length"));
    cfs_ref rel = l[LINK_REL];
    if (item && rel.off != CFS_REF_ABSENT && rel.len == 9 &&
        memcmp(r->arena.buf + rel.off, "enclosure", 9) == 0) {
        cfs_ref href = l[LINK_HREF], type = l[LINK_TYPE], length = l[LINK_LENGTH];
        cfs_ref *e = cfs_refvec_push(&r->vec[VEC_ENCLOSURES]);
        if (e == NULL) { m->nomem = 1; return 1; }
        e[ENC_URL] = href;
        e[ENC_TYPE] = type;
        e[ENC_LENGTH] = length;
    }
    return skip(m);
}

static cfs_ref *push_rec(cfs_machine *m, cfs_record *r, int vec) {
    cfs_ref *rec = cfs_refvec_push(&r->vec[vec]);
    if (rec == NULL) m->nomem = 1;
    return rec;
}

static int begin_item(cfs_machine *m, const cfs_attr *attrs, size_t n) {
    if (!push_frame(m, A_END_ITEM, 0, 0)) return skip(m);
    record_reset(&m->item);
    m->item_truncated = 0;
    m->scope = S_ITEM;
    set_slot_attr(&m->item, SLOT_ID, P_THIRD, find_attr(attrs, n, NS_RDF, "about"));
    return 0;
}

static uint8_t rss_version(const char *v, size_t len) {
    if (len >= 2 && v[0] == '2' && v[1] == '.') return CFS_FORMAT_RSS20;
    if (len == 1 && v[0] == '2') return CFS_FORMAT_RSS20;
    if (len == 4 && memcmp(v, "0.9", 3) == 0) {
        switch (v[3]) {
        case '1': return CFS_FORMAT_RSS091;
        case '2': return CFS_FORMAT_RSS092;
        case '3': return CFS_FORMAT_RSS093;
        case '4': return CFS_FORMAT_RSS094;
        }
    }
    return CFS_FORMAT_RSS;
}

static int start_root(cfs_machine *m, uint8_t ns, uint8_t el, const cfs_attr *attrs, size_t n) {
    m->root_seen = 1;
    uint8_t fam = fam_of(ns);
    const cfs_attr *version = find_attr(attrs, n, NS_NONE, "version");
    if (el == E_RSS && fam == F_RSS) {
        m->format = version ? rss_version(version->value, version->value_len) : CFS_FORMAT_RSS;
        m->scope = S_RSS;
    } else if (el == E_RDF && fam == F_RDF) {
        m->format = CFS_FORMAT_RSS10;   /* refined by the channel's namespace */
        m->scope = S_RDF;
    } else if (el == E_FEED && fam == F_ATOM) {
        m->format = ns == NS_ATOM03 ? CFS_FORMAT_ATOM03 : CFS_FORMAT_ATOM10;
        m->scope = S_FEED;
    } else {
        m->not_feed = 1;
        return skip(m);
    }
    push_frame(m, A_NONE, 0, 0);
    set_slot_attr(&m->feed, SLOT_VERSION, P_NATIVE, version);
    set_slot_attr(&m->feed, SLOT_LANGUAGE, P_THIRD, find_attr(attrs, n, NS_XML, "lang"));
    return 0;
}

/* Feed-level children (RSS channel, Atom feed). */
static int start_in_feed(cfs_machine *m, uint8_t ns, uint8_t el, const cfs_attr *attrs, size_t n) {
    cfs_record *f = &m->feed;
    switch (fam_of(ns)) {
    case F_RSS:
        switch (el) {
        case E_TITLE: return capture_text_construct(m, f, SLOT_TITLE, SLOT_TITLE_TYPE, P_NATIVE, NULL);
        case E_DESCRIPTION: return capture_text_construct(m, f, SLOT_SUMMARY, SLOT_SUMMARY_TYPE, P_NATIVE, NULL);
        case E_LINK: return push_rec(m, f, VEC_LINKS) ? capture_vec(m, f, VEC_LINKS, LINK_HREF) : 1;
        case E_LANGUAGE: return capture_slot(m, f, SLOT_LANGUAGE, P_NATIVE);
        case E_PUBDATE: return capture_slot(m, f, SLOT_PUBLISHED, P_NATIVE);
        case E_LASTBUILDDATE: return capture_slot(m, f, SLOT_UPDATED, P_NATIVE);
        case E_ITEM: return begin_item(m, attrs, n);
        default: return skip(m);
        }
    case F_ATOM: {
        const cfs_attr *type = find_attr(attrs, n, NS_NONE, "type");
        switch (el) {
        case E_TITLE: return capture_text_construct(m, f, SLOT_TITLE, SLOT_TITLE_TYPE, P_NATIVE, type);
        case E_SUBTITLE:
        case E_TAGLINE: return capture_text_construct(m, f, SLOT_SUMMARY, SLOT_SUMMARY_TYPE, P_NATIVE, type);
        case E_LINK: return push_link(m, f, attrs, n, 0);
        case E_ID: return capture_slot(m, f, SLOT_ID, P_NATIVE);
        case E_UPDATED:
        case E_MODIFIED: return capture_slot(m, f, SLOT_UPDATED, P_NATIVE);
        case E_ENTRY: return begin_item(m, attrs, n);
        default: return skip(m);
        }
    }
    case F_DC:
        switch (el) {
        case E_TITLE: return capture_text_construct(m, f, SLOT_TITLE, SLOT_TITLE_TYPE, P_SECOND, NULL);
        case E_DESCRIPTION: return capture_text_construct(m, f, SLOT_SUMMARY, SLOT_SUMMARY_TYPE, P_SECOND, NULL);
        case E_LANGUAGE: return capture_slot(m, f, SLOT_LANGUAGE, P_SECOND);
        case E_DATE: return capture_slot(m, f, SLOT_UPDATED, P_SECOND);
        case E_IDENTIFIER: return capture_slot(m, f, SLOT_ID, P_SECOND);
        default: return skip(m);
        }
    case F_DCTERMS:
        if (el == E_MODIFIED) return capture_slot(m, f, SLOT_UPDATED, P_SECOND);
        return skip(m);
    default:
        return skip(m);
    }
}

static int start_in_item(cfs_machine *m, uint8_t ns, uint8_t el, const cfs_attr *attrs, size_t n) {
    cfs_record *r = &m->item;
    cfs_ref *rec;
    switch (fam_of(ns)) {
    case F_RSS:
        switch (el) {
        case E_TITLE: return capture_text_construct(m, r, SLOT_TITLE, SLOT_TITLE_TYPE, P_NATIVE, NULL);
        case E_DESCRIPTION: return capture_text_construct(m, r, SLOT_SUMMARY, SLOT_SUMMARY_TYPE, P_NATIVE, NULL);
        case E_LINK: return push_rec(m, r, VEC_LINKS) ? capture_vec(m, r, VEC_LINKS, LINK_HREF) : 1;
        case E_PUBDATE: return capture_slot(m, r, SLOT_PUBLISHED, P_NATIVE);
        case E_GUID:
            if (r->prio[SLOT_ID] && r->prio[SLOT_ID] <= P_NATIVE) return skip(m);
            {
                const cfs_attr *pl = find_attr(attrs, n, NS_NONE, "isPermaLink");
                r->slot[SLOT_PERMALINK] = pl ? copy_attr(r, pl) : cfs_arena_copy(&r->arena, "true", 4);
            }
            return capture_slot(m, r, SLOT_ID, P_NATIVE);
        case E_AUTHOR: return push_rec(m, r, VEC_AUTHORS) ? capture_vec(m, r, VEC_AUTHORS, PERSON_NAME) : 1;
        case E_CATEGORY:
            if ((rec = push_rec(m, r, VEC_CATEGORIES)) == NULL) return 1;
            rec[CAT_SCHEME] = copy_attr(r, find_attr(attrs, n, NS_NONE, "domain"));
            return capture_vec(m, r, VEC_CATEGORIES, CAT_TERM);
        case E_ENCLOSURE:
            if ((rec = push_rec(m, r, VEC_ENCLOSURES)) == NULL) return 1;
            rec[ENC_URL] = copy_attr(r, find_attr(attrs, n, NS_NONE, "url"));
            rec[ENC_TYPE] = copy_attr(r, find_attr(attrs, n, NS_NONE, "type"));
            rec[ENC_LENGTH] = copy_attr(r, find_attr(attrs, n, NS_NONE, "length"));
            return skip(m);
        default: return skip(m);
        }
    case F_ATOM: {
        const cfs_attr *type = find_attr(attrs, n, NS_NONE, "type");
        switch (el) {
        case E_TITLE: return capture_text_construct(m, r, SLOT_TITLE, SLOT_TITLE_TYPE, P_NATIVE, type);
        case E_SUMMARY: return capture_text_construct(m, r, SLOT_SUMMARY, SLOT_SUMMARY_TYPE, P_NATIVE, type);
        case E_CONTENT:
            if (r->prio[SLOT_CONTENT] && r->prio[SLOT_CONTENT] <= P_NATIVE) return skip(m);
            r->slot[SLOT_CONTENT_SRC] = copy_attr(r, find_attr(attrs, n, NS_NONE, "src"));
            return capture_text_construct(m, r, SLOT_CONTENT, SLOT_CONTENT_TYPE, P_NATIVE, type);
        case E_LINK: return push_link(m, r, attrs, n, 1);
        case E_ID: return capture_slot(m, r, SLOT_ID, P_NATIVE);
        case E_PUBLISHED: return capture_slot(m, r, SLOT_PUBLISHED, P_NATIVE);
        case E_ISSUED: return capture_slot(m, r, SLOT_PUBLISHED, P_SECOND);
        case E_UPDATED:
        case E_MODIFIED: return capture_slot(m, r, SLOT_UPDATED, P_NATIVE);
        case E_AUTHOR:
            if (push_rec(m, r, VEC_AUTHORS) == NULL) return 1;
            if (!push_frame(m, A_END_PERSON, 0, 0)) return skip(m);
            m->scope = S_PERSON;
            return 0;
        case E_CATEGORY:
            if ((rec = push_rec(m, r, VEC_CATEGORIES)) == NULL) return 1;
            rec[CAT_TERM] = copy_attr(r, find_attr(attrs, n, NS_NONE, "term"));
            rec[CAT_SCHEME] = copy_attr(r, find_attr(attrs, n, NS_NONE, "scheme"));
            rec[CAT_LABEL] = copy_attr(r, find_attr(attrs, n, NS_NONE, "label"));
            return skip(m);
        default: return skip(m);
        }
    }
    case F_CONTENT:
        if (el == E_ENCODED) return capture_text_construct(m, r, SLOT_CONTENT, SLOT_CONTENT_TYPE, P_NATIVE, NULL);
        return skip(m);
    case F_DC:
        switch (el) {
        case E_TITLE: return capture_text_construct(m, r, SLOT_TITLE, SLOT_TITLE_TYPE, P_SECOND, NULL);
        case E_DESCRIPTION: return capture_text_construct(m, r, SLOT_SUMMARY, SLOT_SUMMARY_TYPE, P_SECOND, NULL);
        case E_CREATOR: return push_rec(m, r, VEC_AUTHORS) ? capture_vec(m, r, VEC_AUTHORS, PERSON_NAME) : 1;
        case E_DATE: return capture_slot(m, r, SLOT_PUBLISHED, P_THIRD);
        case E_SUBJECT: return push_rec(m, r, VEC_CATEGORIES) ? capture_vec(m, r, VEC_CATEGORIES, CAT_TERM) : 1;
        case E_IDENTIFIER: return capture_slot(m, r, SLOT_ID, P_SECOND);
        default: return skip(m);
        }
    case F_DCTERMS:
        if (el == E_MODIFIED) return capture_slot(m, r, SLOT_UPDATED, P_SECOND);
        if (el == E_ISSUED) return capture_slot(m, r, SLOT_PUBLISHED, P_SECOND);
        return skip(m);
    default:
        return skip(m);
    }
}

static int start_in_person(cfs_machine *m, uint8_t ns, uint8_t el) {
    if (fam_of(ns) != F_ATOM) return skip(m);
    switch (el) {
    case E_NAME: return capture_vec(m, &m->item, VEC_AUTHORS, PERSON_NAME);
    case E_EMAIL: return capture_vec(m, &m->item, VEC_AUTHORS, PERSON_EMAIL);
    case E_URI:
    case E_URL: return capture_vec(m, &m->item, VEC_AUTHORS, PERSON_URI);
    default: return skip(m);
    }
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
    /* Escape a copy appended at the end, then move it down over the original. */
    if (!cfs_arena_reserve(a, len + specials * 4)) return;
    size_t copy_at = a->len;
    char *tmp = (char *)a->buf + from;
    a->len = copy_at;
    append_escaped(a, tmp, len, 0);
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
            classify_ns(uri, uri_len) == NS_XHTML) {
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
        if (classify_ns(attrs[i].uri, attrs[i].uri_len) == NS_XML) cfs_arena_append(a, "xml:", 4);
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

int cfs_machine_start(cfs_machine *m, const char *uri, size_t uri_len, const char *local,
                      size_t local_len, const cfs_attr *attrs, size_t nattrs) {
    if (m->capturing) {
        m->depth++;
        markup_start(m, uri, uri_len, local, local_len, attrs, nattrs);
        return m->cap_rec->arena.nomem ? (m->nomem = 1) : 0;
    }
    m->depth++;
    if (local_len == 0) return skip(m);
    uint8_t ns = classify_ns(uri, uri_len);
    uint8_t el = lookup_name(local, local_len);
    int rc;
    switch (m->scope) {
    case S_DOC:
        if (m->root_seen) return skip(m);
        rc = start_root(m, ns, el, attrs, nattrs);
        break;
    case S_RSS:
        if (fam_of(ns) == F_RSS && el == E_CHANNEL) {
            push_frame(m, A_NONE, 0, 0);
            m->scope = S_FEED;
            rc = 0;
        } else if (fam_of(ns) == F_RSS && el == E_ITEM) {
            rc = begin_item(m, attrs, nattrs);
        } else {
            rc = skip(m);
        }
        break;
    case S_RDF:
        if (fam_of(ns) == F_RSS && (el == E_CHANNEL || el == E_ITEM)) {
            if (ns == NS_RSS090) m->format = CFS_FORMAT_RSS090;
            if (el == E_ITEM) {
                rc = begin_item(m, attrs, nattrs);
            } else {
                push_frame(m, A_NONE, 0, 0);
                m->scope = S_FEED;
                set_slot_attr(&m->feed, SLOT_ID, P_SECOND, find_attr(attrs, nattrs, NS_RDF, "about"));
                rc = 0;
            }
        } else {
            rc = skip(m);
        }
        break;
    case S_FEED: rc = start_in_feed(m, ns, el, attrs, nattrs); break;
    case S_ITEM: rc = start_in_item(m, ns, el, attrs, nattrs); break;
    case S_PERSON: rc = start_in_person(m, ns, el); break;
    default: rc = skip(m); break;
    }
    if (m->item.arena.nomem || m->feed.arena.nomem) m->nomem = 1;
    return rc || m->nomem;
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
    return a->nomem ? (m->nomem = 1) : 0;
}

static cfs_span span_of(const cfs_record *r, cfs_ref ref) {
    if (ref.off == CFS_REF_ABSENT) return (cfs_span){ NULL, 0 };
    return (cfs_span){ r->arena.buf + ref.off, ref.len };
}

static int ensure_cap(void **arr, size_t *cap, size_t need, size_t elem) {
    if (need <= *cap) return 1;
    size_t c = *cap ? *cap : 8;
    while (c < need) c *= 2;
    void *n = realloc(*arr, c * elem);
    if (n == NULL) return 0;
    *arr = n;
    *cap = c;
    return 1;
}

static const cfs_link *build_links(const cfs_record *r, cfs_link **arr, size_t *cap, int *ok) {
    const cfs_refvec *v = &r->vec[VEC_LINKS];
    if (!ensure_cap((void **)arr, cap, v->count, sizeof(cfs_link))) { *ok = 0; return NULL; }
    for (size_t i = 0; i < v->count; i++) {
        const cfs_ref *x = v->v + i * LINK_STRIDE;
        (*arr)[i] = (cfs_link){ span_of(r, x[LINK_HREF]), span_of(r, x[LINK_REL]),
                                span_of(r, x[LINK_TYPE]), span_of(r, x[LINK_HREFLANG]),
                                span_of(r, x[LINK_TITLE]), span_of(r, x[LINK_LENGTH]) };
    }
    return *arr;
}

const cfs_feed *cfs_machine_feed(cfs_machine *m) {
    const cfs_record *f = &m->feed;
    cfs_feed *p = &m->pub_feed;
    int ok = 1;
    p->document = m->document;
    p->format = m->format;
    p->version = span_of(f, f->slot[SLOT_VERSION]);
    p->title = (cfs_text){ span_of(f, f->slot[SLOT_TITLE]), span_of(f, f->slot[SLOT_TITLE_TYPE]) };
    p->subtitle = (cfs_text){ span_of(f, f->slot[SLOT_SUMMARY]), span_of(f, f->slot[SLOT_SUMMARY_TYPE]) };
    p->id = span_of(f, f->slot[SLOT_ID]);
    p->language = span_of(f, f->slot[SLOT_LANGUAGE]);
    p->updated = span_of(f, f->slot[SLOT_UPDATED]);
    p->published = span_of(f, f->slot[SLOT_PUBLISHED]);
    p->links = build_links(f, &m->pub_feed_links, &m->pub_feed_links_cap, &ok);
    p->links_count = ok ? f->vec[VEC_LINKS].count : 0;
    p->items_count = m->items;
    if (!ok) m->nomem = 1;
    return p;
}

static int emit_item(cfs_machine *m) {
    const cfs_record *r = &m->item;
    cfs_item *it = &m->pub_item;
    int ok = 1;
    it->index = m->items;
    it->id = span_of(r, r->slot[SLOT_ID]);
    it->guid_is_permalink = span_of(r, r->slot[SLOT_PERMALINK]);
    it->title = (cfs_text){ span_of(r, r->slot[SLOT_TITLE]), span_of(r, r->slot[SLOT_TITLE_TYPE]) };
    it->summary = (cfs_text){ span_of(r, r->slot[SLOT_SUMMARY]), span_of(r, r->slot[SLOT_SUMMARY_TYPE]) };
    it->content = (cfs_text){ span_of(r, r->slot[SLOT_CONTENT]), span_of(r, r->slot[SLOT_CONTENT_TYPE]) };
    it->content_src = span_of(r, r->slot[SLOT_CONTENT_SRC]);
    it->published = span_of(r, r->slot[SLOT_PUBLISHED]);
    it->updated = span_of(r, r->slot[SLOT_UPDATED]);
    it->links = build_links(r, &m->pub_links, &m->pub_links_cap, &ok);
    it->links_count = r->vec[VEC_LINKS].count;

    const cfs_refvec *v = &r->vec[VEC_AUTHORS];
    if (ensure_cap((void **)&m->pub_persons, &m->pub_persons_cap, v->count, sizeof(cfs_person))) {
        for (size_t i = 0; i < v->count; i++) {
            const cfs_ref *x = v->v + i * PERSON_STRIDE;
            m->pub_persons[i] = (cfs_person){ span_of(r, x[PERSON_NAME]), span_of(r, x[PERSON_EMAIL]),
                                              span_of(r, x[PERSON_URI]) };
        }
    } else ok = 0;
    it->authors = m->pub_persons;
    it->authors_count = v->count;

    v = &r->vec[VEC_CATEGORIES];
    if (ensure_cap((void **)&m->pub_cats, &m->pub_cats_cap, v->count, sizeof(cfs_category))) {
        for (size_t i = 0; i < v->count; i++) {
            const cfs_ref *x = v->v + i * CAT_STRIDE;
            m->pub_cats[i] = (cfs_category){ span_of(r, x[CAT_TERM]), span_of(r, x[CAT_SCHEME]),
                                             span_of(r, x[CAT_LABEL]) };
        }
    } else ok = 0;
    it->categories = m->pub_cats;
    it->categories_count = v->count;

    v = &r->vec[VEC_ENCLOSURES];
    if (ensure_cap((void **)&m->pub_encls, &m->pub_encls_cap, v->count, sizeof(cfs_enclosure))) {
        for (size_t i = 0; i < v->count; i++) {
            const cfs_ref *x = v->v + i * ENC_STRIDE;
            m->pub_encls[i] = (cfs_enclosure){ span_of(r, x[ENC_URL]), span_of(r, x[ENC_TYPE]),
                                               span_of(r, x[ENC_LENGTH]) };
        }
    } else ok = 0;
    it->enclosures = m->pub_encls;
    it->enclosures_count = v->count;
    it->truncated = r->arena.truncated;

    if (!ok) { m->nomem = 1; return 1; }
    const cfs_feed *feed = cfs_machine_feed(m);
    m->items++;
    if (m->cb.on_item && m->cb.on_item(m->ctx, it, feed)) return 1;
    return 0;
}

static void finish_capture(cfs_machine *m, const cfs_frame *fr) {
    cfs_record *r = m->cap_rec;
    close_pending_gt(m);
    cfs_ref ref = { m->cap_start, (uint32_t)(r->arena.len - m->cap_start) };
    if (fr->action == A_CAPTURE_SLOT) {
        r->slot[fr->slot] = ref;
        r->prio[fr->slot] = fr->prio;
    } else {
        cfs_refvec *v = &r->vec[fr->slot];
        if (v->count) v->v[(v->count - 1) * v->stride + fr->prio] = ref;
    }
    m->capturing = 0;
    m->markup = 0;
}

int cfs_machine_end(cfs_machine *m, const char *local, size_t local_len) {
    m->depth--;
    if (m->depth == 0 && m->root_seen) m->root_closed = 1;
    if (m->capturing && m->markup_depth > 0) {
        markup_end(m, local, local_len);
        return m->cap_rec->arena.nomem ? (m->nomem = 1) : 0;
    }
    if (m->nframes == 0) return 0;
    cfs_frame fr = m->frames[--m->nframes];
    m->scope = fr.scope;
    switch (fr.action) {
    case A_CAPTURE_SLOT:
    case A_CAPTURE_VEC:
        finish_capture(m, &fr);
        return 0;
    case A_END_ITEM:
        return emit_item(m);
    default:
        return 0;
    }
}

int cfs_machine_finish(cfs_machine *m, const cfs_error *error) {
    if (m->cb.on_document_end == NULL) return 0;
    return m->cb.on_document_end(m->ctx, cfs_machine_feed(m), error);
}
