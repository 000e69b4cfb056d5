#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Deterministic synthetic feed generator for FeedStream benchmarks and tests.

Produces realistic-looking RSS 2.0, Atom 1.0 and RSS 1.0 (RDF) documents from
an embedded word list, driven entirely by ``random.Random(seed)``: the same
seed (and the same Python version) always yields byte-identical output.

Two modes:

``dump``
    Write ONE multi-document stream: complete feed documents, each starting
    with its own ``<?xml version="1.0" encoding="UTF-8"?>`` declaration and
    ending with a newline, concatenated until the uncompressed size reaches
    ``--size-mb`` * 1,000,000 bytes (generation stops after the document that
    crosses the limit).  If the output path ends in ``.gz`` the stream is
    gzip-compressed (level 6, mtime=0, no embedded file name).

``files``
    Write ``--count`` single-feed files named ``feed-00000.xml``, ...; every
    4th file (index 3, 7, 11, ...) is gzip-compressed and named
    ``feed-NNNNN.xml.gz``.

Format mix (per document): ~70% RSS 2.0, ~20% Atom 1.0, ~10% RSS 1.0.
Each feed has 5-40 items.  Output is streamed document by document; the whole
dump is never held in memory.

Standard benchmark inputs::

    python3 corpus/generate.py dump --size-mb 500 --seed 42 -o /tmp/feedstream-dump.xml.gz
    python3 corpus/generate.py files --count 3000 --seed 42 -o /tmp/feedstream-files

Standard library only.
"""

import argparse
import gzip
import os
import queue
import sys
import threading
import random
import time
import zlib

XML_DECL = '<?xml version="1.0" encoding="UTF-8"?>\n'

NS_ATOM = "http://www.w3.org/2005/Atom"
NS_CONTENT = "http://purl.org/rss/1.0/modules/content/"
NS_DC = "http://purl.org/dc/elements/1.1/"
NS_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
NS_RSS1 = "http://purl.org/rss/1.0/"
NS_MEDIA = "http://search.yahoo.com/mrss/"

# ---------------------------------------------------------------------------
# Embedded vocabulary
# ---------------------------------------------------------------------------

WORDS = """
the a an and or but of to in on for with from by at as is are was were be been
has have had will would can could should may might this that these those it its
we our they their you your he she his her new old first last next more most
less many few some every each other same different early late small large big
great little long short high low fast slow open closed free public private
local global national city council team project release version update report
study research data model system service network server client browser mobile
phone app application software hardware cloud storage database query index
cache memory disk file stream feed parser reader writer library framework
language compiler runtime kernel driver security privacy policy law court
market price cost budget revenue growth company startup investor customer
user developer engineer designer manager editor author journalist community
school university student teacher science health hospital doctor patient
energy climate weather rain storm river bridge road train station airport
flight travel hotel restaurant coffee kitchen recipe garden music album film
festival museum gallery book story history culture sport match season player
coach league election vote minister government agency program plan strategy
launch announce release improve reduce increase support replace remove add
build ship test measure deploy monitor fix break change move grow start stop
today yesterday tomorrow week month year morning evening night weekend spring
summer autumn winter during after before while because although however also
only just still already again soon often never always nearly about around
performance latency throughput benchmark memory allocation streaming parsing
encoding unicode format protocol interface standard specification draft
feature issue bug patch review merge branch commit pipeline workflow
dashboard alert incident outage recovery backup migration upgrade rollout
""".split()

# Non-ASCII and "interesting" words mixed in at a low rate.
SPICE_WORDS = [
    "café", "naïve", "日本語", "Ünïcödé", "résumé", "façade", "Zürich",
    "Kraków", "São Paulo", "東京", "데이터", "Ελληνικά", "crème brûlée",
    "jalapeño", "smörgåsbord", "coöperate", "déjà vu", "Straße", "Ångström",
    "naïveté", "piñata", "fiancée", "北京", "Москва", "€20", "±5%", "½ hour",
]

FIRST_NAMES = [
    "Jane", "John", "Priya", "Lukas", "Chen", "Maria", "Tom", "Aisha", "Omar",
    "Sofia", "Kenji", "Amara", "Diego", "Elena", "Noah", "Fatima", "Hiroshi",
    "Zoë", "José", "Ingrid", "Mateo", "Léa", "Björn", "Yuki", "Sam", "Alex",
]
LAST_NAMES = [
    "Doe", "Smith", "Natarajan", "Meyer", "Wei", "Lopez", "Becker", "Khan",
    "Haddad", "Rossi", "Tanaka", "Okafor", "García", "Petrova", "Brown",
    "Müller", "Nakamura", "O'Brien", "Johansson", "Kowalski", "Dubois", "Kim",
]

TAGS = [
    "technology", "science", "politics", "business", "sports", "music",
    "travel", "food", "health", "culture", "opinion", "releases", "security",
    "open-source", "performance", "databases", "mobile", "web", "climate",
    "education", "local", "world", "podcast", "video", "interviews", "how-to",
    "Q&A", "R&D", "café culture", "日本語",
]

HOSTS = [
    "example.com", "www.example.com", "blog.example.com", "news.example.com",
    "example.org", "www.example.org", "dev.example.org", "example.net",
    "news.example.net", "podcasts.example.net",
]

LANGS = ["en", "en-us", "en-gb", "de", "fr", "es", "ja", "pt-br", "it", "nl"]

FEED_KINDS = [
    "Blog", "News", "Journal", "Notes", "Digest", "Weekly", "Podcast",
    "Updates", "Diary", "Review", "Bulletin", "Chronicle",
]

ENCLOSURE_TYPES = [
    ("audio/mpeg", "mp3", 2_000_000, 90_000_000),
    ("audio/mp4", "m4a", 2_000_000, 60_000_000),
    ("video/mp4", "mp4", 10_000_000, 400_000_000),
    ("image/jpeg", "jpg", 40_000, 3_000_000),
    ("application/pdf", "pdf", 50_000, 8_000_000),
]

DAYS = ["Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"]
MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun",
          "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
# (seconds offset, RFC 822 zone, RFC 3339 zone)
ZONES = [
    (0, "+0000", "Z"), (0, "GMT", "+00:00"), (-5 * 3600, "-0500", "-05:00"),
    (-8 * 3600, "-0800", "-08:00"), (3600, "+0100", "+01:00"),
    (2 * 3600, "+0200", "+02:00"), (9 * 3600, "+0900", "+09:00"),
    (19800, "+0530", "+05:30"),
]

# 2023-01-01T00:00:00Z .. 2025-06-30T00:00:00Z
TS_MIN = 1672531200
TS_MAX = 1751241600


def esc(s):
    """Escape text for XML character data."""
    if "&" in s:
        s = s.replace("&", "&amp;")
    if "<" in s:
        s = s.replace("<", "&lt;")
    if ">" in s:
        s = s.replace(">", "&gt;")
    return s


def esc_attr(s):
    """Escape text for a double-quoted XML attribute."""
    s = esc(s)
    if '"' in s:
        s = s.replace('"', "&quot;")
    return s


def rfc822(ts, zone):
    off, z822, _ = zone
    t = time.gmtime(ts + off)
    return "%s, %02d %s %04d %02d:%02d:%02d %s" % (
        DAYS[t.tm_wday], t.tm_mday, MONTHS[t.tm_mon - 1], t.tm_year,
        t.tm_hour, t.tm_min, t.tm_sec, z822)


def rfc3339(ts, zone):
    off, _, z3339 = zone
    t = time.gmtime(ts + off)
    return "%04d-%02d-%02dT%02d:%02d:%02d%s" % (
        t.tm_year, t.tm_mon, t.tm_mday, t.tm_hour, t.tm_min, t.tm_sec, z3339)


# ---------------------------------------------------------------------------
# Generator
# ---------------------------------------------------------------------------

class FeedGenerator:
    """Generates feed documents as ``str``; all randomness from one Random."""

    SENTENCE_POOL = 6000

    def __init__(self, seed):
        self.rng = random.Random(seed)
        self._build_pools()
        self.doc_no = 0
        self.items = 0

    # -- pools --------------------------------------------------------------
    def _build_pools(self):
        rng = self.rng
        words = WORDS
        # Each sentence is stored in three precomputed renditions so that the
        # hot path never does per-character work:
        #   plain  - XML-escaped plain text
        #   hraw   - raw HTML fragment (for CDATA sections)
        #   hxml   - the HTML fragment XML-escaped (entity-encoded HTML)
        plain, hraw, hxml, lens = [], [], [], []
        for _ in range(self.SENTENCE_POOL):
            n = rng.randint(6, 20)
            ws = rng.choices(words, k=n)
            if rng.random() < 0.25:
                ws[rng.randrange(n)] = rng.choice(SPICE_WORDS)
            text_ws = list(ws)
            html_ws = list(ws)
            r = rng.random()
            if r < 0.12:
                i = rng.randrange(n)
                text_ws[i] = text_ws[i] + " & " + rng.choice(words)
                html_ws[i] = html_ws[i] + " &amp; " + text_ws[i].split(" & ")[1]
            elif r < 0.22:
                i = rng.randrange(n)
                html_ws[i] = "<em>" + html_ws[i] + "</em>"
            elif r < 0.30:
                i = rng.randrange(n)
                html_ws[i] = '<a href="https://%s/%s?id=%d&amp;ref=feed">%s</a>' % (
                    rng.choice(HOSTS), rng.choice(words), rng.randrange(100000),
                    html_ws[i])
            elif r < 0.36:
                i = rng.randrange(1, n)
                text_ws[i] = '"' + text_ws[i] + '"'
                html_ws[i] = "&quot;" + html_ws[i] + "&quot;"
            elif r < 0.42:
                text_ws.append("\u2014 it\u2019s")
                html_ws.append("&mdash; it&rsquo;s")
            end = "." if rng.random() < 0.85 else ("?" if rng.random() < 0.5 else "!")
            t = " ".join(text_ws) + end
            t = t[0].upper() + t[1:]
            h = " ".join(html_ws) + end
            h = h[0].upper() + h[1:] if h[0] != "<" else h
            p = esc(t)
            if rng.random() < 0.05:
                # a numeric character reference in the XML form
                p = p.replace(" ", " &#8211; ", 1) if " " in p else p
            plain.append(p)
            hraw.append(h)
            hxml.append(esc(h))
            lens.append(len(t) + 1)
        self.s_plain, self.s_hraw, self.s_hxml, self.s_len = plain, hraw, hxml, lens
        self.pool_idx = range(self.SENTENCE_POOL)
        self.avg_len = sum(lens) / len(lens)

        self.names = [f + " " + l for f in FIRST_NAMES for l in LAST_NAMES]
        self.emails = [
            (f.lower() + "." + l.lower()).replace("'", "")
            .encode("ascii", "ignore").decode() + "@" + rng.choice(HOSTS)
            for f in FIRST_NAMES for l in LAST_NAMES
        ]

    # -- small helpers -------------------------------------------------------
    def _pick_sentences(self, target):
        """Indices of sentences whose total length is about ``target`` chars."""
        rng = self.rng
        k = max(1, int(target / self.avg_len))
        idx = rng.choices(self.pool_idx, k=k)
        lens = self.s_len
        total = 0
        for i in idx:
            total += lens[i]
        while total < target:
            i = rng.randrange(self.SENTENCE_POOL)
            idx.append(i)
            total += lens[i]
        return idx

    def _paragraphs(self, idx, pool, popen, pclose):
        """Group sentences into paragraphs of 2-5 sentences."""
        rng = self.rng
        out = []
        i = 0
        n = len(idx)
        while i < n:
            j = i + rng.randint(2, 5)
            out.append(popen)
            out.append(" ".join([pool[x] for x in idx[i:j]]))
            out.append(pclose)
            i = j
        return "".join(out)

    def description(self, lo=200, hi=2000):
        """Return the XML content of a description element.

        One of: plain escaped text, entity-encoded HTML, or HTML in CDATA.
        """
        rng = self.rng
        idx = self._pick_sentences(rng.randint(lo, hi))
        r = rng.random()
        if r < 0.35:
            return " ".join([self.s_plain[i] for i in idx])
        if r < 0.75:
            return self._paragraphs(idx, self.s_hxml, "&lt;p&gt;", "&lt;/p&gt;")
        return "<![CDATA[" + self._paragraphs(idx, self.s_hraw, "<p>", "</p>") + "]]>"

    def html_body_cdata(self):
        """content:encoded style body: CDATA-wrapped HTML."""
        rng = self.rng
        idx = self._pick_sentences(rng.randint(400, 3000))
        body = self._paragraphs(idx, self.s_hraw, "<p>", "</p>")
        if rng.random() < 0.4:
            body += '<p><img src="https://%s/img/%d.jpg" alt="figure %d"/></p>' % (
                rng.choice(HOSTS), rng.randrange(1, 10**6), rng.randrange(1, 20))
        if rng.random() < 0.3:
            body = "<h2>" + self.title() + "</h2>" + body
        return "<![CDATA[" + body + "]]>"

    def title(self):
        rng = self.rng
        ws = rng.choices(WORDS, k=rng.randint(3, 10))
        if rng.random() < 0.15:
            ws[rng.randrange(len(ws))] = rng.choice(SPICE_WORDS)
        if rng.random() < 0.08:
            ws.insert(rng.randrange(len(ws)), "&")
        t = " ".join(ws)
        return t[0].upper() + t[1:]

    def slug(self):
        return "-".join(self.rng.choices(WORDS, k=self.rng.randint(2, 5)))

    def uuid(self):
        h = "%032x" % self.rng.getrandbits(128)
        return "%s-%s-4%s-a%s-%s" % (h[:8], h[8:12], h[13:16], h[17:20], h[20:32])

    def person(self):
        i = self.rng.randrange(len(self.names))
        return self.names[i], self.emails[i]

    def timeline(self, n):
        """Feed build time and n item timestamps, newest first."""
        rng = self.rng
        ts = rng.randrange(TS_MIN, TS_MAX)
        out = []
        t = ts - rng.randrange(0, 7200)
        for _ in range(n):
            out.append(t)
            t -= rng.randrange(600, 4 * 86400)
        return ts, out

    def unknown_element(self):
        """An extension element the converter should skip."""
        rng = self.rng
        r = rng.random()
        if r < 0.35:
            return ('<media:content url="https://%s/media/%d.jpg" medium="image" '
                    'width="%d" height="%d"><media:title type="plain">%s</media:title>'
                    '<media:credit role="photographer">%s</media:credit></media:content>' % (
                        rng.choice(HOSTS), rng.randrange(10**7),
                        rng.choice((640, 800, 1024, 1280)), rng.choice((480, 600, 720)),
                        esc(self.title()), esc(self.person()[0])))
        if r < 0.6:
            return ('<trk:tracking xmlns:trk="http://example.com/ns/tracking" id="%d">'
                    '<trk:pixel src="https://px.example.net/%x.gif" w="1" h="1"/>'
                    '<trk:campaign name="%s"><trk:source>feed</trk:source></trk:campaign>'
                    '</trk:tracking>' % (rng.randrange(10**9), rng.getrandbits(48),
                                         rng.choice(WORDS)))
        if r < 0.8:
            return '<slash:comments xmlns:slash="http://purl.org/rss/1.0/modules/slash/">%d</slash:comments>' % rng.randrange(500)
        return ('<ext:meta xmlns:ext="urn:example:ext" version="%d"><ext:rating scale="5">%d</ext:rating>'
                '<ext:note lang="en">%s</ext:note><ext:empty/></ext:meta>' % (
                    rng.randrange(1, 4), rng.randrange(1, 6), esc(self.title())))

    # -- documents -------------------------------------------------------------
    def document(self):
        """Return one complete feed document (str, ends with a newline)."""
        self.doc_no += 1
        r = self.rng.random()
        if r < 0.70:
            body = self.rss2()
        elif r < 0.90:
            body = self.atom()
        else:
            body = self.rss1()
        return XML_DECL + body

    def _feed_meta(self):
        rng = self.rng
        host = rng.choice(HOSTS)
        base = "https://%s/%s-%d" % (host, rng.choice(WORDS), self.doc_no)
        title = "%s %s" % (self.title(), rng.choice(FEED_KINDS))
        return host, base, title

    def rss2(self):
        rng = self.rng
        host, base, ftitle = self._feed_meta()
        n = rng.randint(5, 40)
        build_ts, times = self.timeline(n)
        self.items += n
        zone = rng.choice(ZONES)
        has_dc = rng.random() < 0.5
        has_content = rng.random() < 0.5
        ns = ['<rss version="2.0" xmlns:atom="%s"' % NS_ATOM]
        if has_content:
            ns.append(' xmlns:content="%s"' % NS_CONTENT)
        if has_dc:
            ns.append(' xmlns:dc="%s"' % NS_DC)
        ns.append(' xmlns:media="%s">\n' % NS_MEDIA)
        out = ["".join(ns), "<channel>\n",
               "<title>", esc(ftitle), "</title>\n",
               "<link>", base, "/</link>\n",
               "<description>", self.description(60, 300), "</description>\n",
               "<language>", rng.choice(LANGS), "</language>\n",
               "<pubDate>", rfc822(times[0], zone), "</pubDate>\n",
               "<lastBuildDate>", rfc822(build_ts, zone), "</lastBuildDate>\n",
               '<atom:link href="', base, '/feed.xml" rel="self" type="application/rss+xml"/>\n']
        if rng.random() < 0.3:
            out.append("<generator>FeedForge 3.%d</generator>\n" % rng.randrange(10))
        if rng.random() < 0.3:
            out.append("<ttl>%d</ttl>\n" % rng.choice((15, 30, 60, 120)))
        for t in times:
            slug = self.slug()
            link = "%s/%d/%s" % (base, t // 86400, slug)
            out.append("<item>\n<title>")
            out.append(esc(self.title()))
            out.append("</title>\n<link>")
            out.append(link)
            out.append("</link>\n<description>")
            out.append(self.description())
            out.append("</description>\n")
            if rng.random() < 0.9:
                out.append("<pubDate>" + rfc822(t, zone) + "</pubDate>\n")
            r = rng.random()
            if r < 0.45:
                out.append('<guid isPermaLink="false">urn:uuid:' + self.uuid() + "</guid>\n")
            elif r < 0.9:
                out.append("<guid>" + link + "</guid>\n")
            name, email = self.person()
            if has_dc and rng.random() < 0.7:
                out.append("<dc:creator>" + esc(name) + "</dc:creator>\n")
            elif rng.random() < 0.6:
                out.append("<author>" + esc("%s (%s)" % (email, name)) + "</author>\n")
            for tag in rng.sample(TAGS, rng.randint(0, 4)):
                if rng.random() < 0.3:
                    out.append('<category domain="https://%s/tags">%s</category>\n' % (host, esc(tag)))
                else:
                    out.append("<category>" + esc(tag) + "</category>\n")
            if rng.random() < 0.15:
                mime, ext, lo, hi = rng.choice(ENCLOSURE_TYPES)
                out.append('<enclosure url="https://media.%s/%s.%s" length="%d" type="%s"/>\n' % (
                    host.split(".", 1)[-1] if host.count(".") > 1 else host,
                    slug, ext, rng.randrange(lo, hi), mime))
            if has_content and rng.random() < 0.5:
                out.append("<content:encoded>" + self.html_body_cdata() + "</content:encoded>\n")
            if has_dc and rng.random() < 0.1:
                out.append("<dc:date>" + rfc3339(t, zone) + "</dc:date>\n")
            if rng.random() < 0.2:
                out.append(self.unknown_element() + "\n")
            out.append("</item>\n")
        out.append("</channel>\n</rss>\n")
        return "".join(out)

    def atom(self):
        rng = self.rng
        host, base, ftitle = self._feed_meta()
        n = rng.randint(5, 40)
        build_ts, times = self.timeline(n)
        self.items += n
        zone = rng.choice(ZONES)
        year = time.gmtime(build_ts).tm_year
        tagbase = "tag:%s,%d:" % (host, year)
        fname, femail = self.person()
        out = ['<feed xmlns="%s" xmlns:media="%s" xml:lang="%s">\n' % (NS_ATOM, NS_MEDIA, rng.choice(LANGS)),
               "<id>", tagbase, "feed/", str(self.doc_no), "</id>\n",
               "<title>", esc(ftitle), "</title>\n",
               "<subtitle>", esc(self.title()), "</subtitle>\n",
               "<updated>", rfc3339(build_ts, zone), "</updated>\n",
               '<link rel="alternate" type="text/html" href="', base, '/"/>\n',
               '<link rel="self" type="application/atom+xml" href="', base, '/atom.xml"/>\n',
               "<author><name>", esc(fname), "</name><email>", femail,
               "</email></author>\n"]
        if rng.random() < 0.3:
            out.append('<generator uri="https://example.org/forge" version="3.%d">FeedForge</generator>\n' % rng.randrange(10))
        for t in times:
            slug = self.slug()
            link = "%s/%d/%s" % (base, t // 86400, slug)
            out.append("<entry>\n<id>")
            if rng.random() < 0.5:
                out.append(tagbase + "entry/" + slug + "-" + str(t))
            else:
                out.append("urn:uuid:" + self.uuid())
            out.append("</id>\n")
            if rng.random() < 0.2:
                out.append('<title type="html">' + esc("<em>" + esc(self.title()) + "</em> " + esc(self.title())) + "</title>\n")
            elif rng.random() < 0.5:
                out.append('<title type="text">' + esc(self.title()) + "</title>\n")
            else:
                out.append("<title>" + esc(self.title()) + "</title>\n")
            out.append('<link rel="alternate" type="text/html" href="' + link + '"/>\n')
            if rng.random() < 0.1:
                mime, ext, lo, hi = rng.choice(ENCLOSURE_TYPES)
                out.append('<link rel="enclosure" type="%s" length="%d" href="https://media.example.net/%s.%s"/>\n' % (
                    mime, rng.randrange(lo, hi), slug, ext))
            if rng.random() < 0.1:
                out.append('<link rel="related" hreflang="de" title="%s" href="%s/de"/>\n' % (
                    esc_attr(self.title()), link))
            pub = t - rng.randrange(0, 3) * rng.randrange(0, 86400)
            if rng.random() < 0.7:
                out.append("<published>" + rfc3339(pub, zone) + "</published>\n")
            out.append("<updated>" + rfc3339(t, zone) + "</updated>\n")
            for _ in range(1 if rng.random() < 0.8 else rng.randint(2, 3)):
                name, email = self.person()
                out.append("<author><name>" + esc(name) + "</name>")
                if rng.random() < 0.6:
                    out.append("<email>" + email + "</email>")
                if rng.random() < 0.4:
                    out.append("<uri>https://" + host + "/people/" + str(rng.randrange(1000)) + "</uri>")
                out.append("</author>\n")
            if rng.random() < 0.1:
                out.append("<contributor><name>" + esc(self.person()[0]) + "</name></contributor>\n")
            r = rng.random()
            if r < 0.5:
                out.append("<summary>" + self.description() + "</summary>\n")
            elif r < 0.8:
                out.append("<summary>" + self.description(200, 500) + "</summary>\n")
                idx = self._pick_sentences(rng.randint(400, 2500))
                out.append('<content type="html">' +
                           self._paragraphs(idx, self.s_hxml, "&lt;p&gt;", "&lt;/p&gt;") +
                           "</content>\n")
            else:
                out.append('<content type="html">' + self.description() + "</content>\n")
            for tag in rng.sample(TAGS, rng.randint(0, 4)):
                if rng.random() < 0.5:
                    out.append('<category term="%s" scheme="https://%s/tags" label="%s"/>\n' % (
                        esc_attr(tag.lower().replace(" ", "-")), host, esc_attr(tag.title())))
                else:
                    out.append('<category term="%s"/>\n' % esc_attr(tag))
            if rng.random() < 0.15:
                out.append(self.unknown_element() + "\n")
            out.append("</entry>\n")
        out.append("</feed>\n")
        return "".join(out)

    def rss1(self):
        rng = self.rng
        host, base, ftitle = self._feed_meta()
        n = rng.randint(5, 40)
        build_ts, times = self.timeline(n)
        self.items += n
        zone = rng.choice(ZONES)
        links = ["%s/%d/%s" % (base, t // 86400, self.slug()) for t in times]
        out = ['<rdf:RDF xmlns:rdf="%s" xmlns="%s" xmlns:dc="%s" xmlns:content="%s" xmlns:media="%s">\n' % (
                   NS_RDF, NS_RSS1, NS_DC, NS_CONTENT, NS_MEDIA),
               '<channel rdf:about="', base, '/index.rdf">\n',
               "<title>", esc(ftitle), "</title>\n",
               "<link>", base, "/</link>\n",
               "<description>", self.description(60, 300), "</description>\n",
               "<dc:language>", rng.choice(LANGS), "</dc:language>\n",
               "<dc:date>", rfc3339(build_ts, zone), "</dc:date>\n",
               "<items>\n<rdf:Seq>\n"]
        for link in links:
            out.append('<rdf:li rdf:resource="' + link + '"/>\n')
        out.append("</rdf:Seq>\n</items>\n</channel>\n")
        for t, link in zip(times, links):
            out.append('<item rdf:about="' + link + '">\n<title>')
            out.append(esc(self.title()))
            out.append("</title>\n<link>" + link + "</link>\n<description>")
            out.append(self.description())
            out.append("</description>\n<dc:creator>")
            out.append(esc(self.person()[0]))
            out.append("</dc:creator>\n<dc:date>" + rfc3339(t, zone) + "</dc:date>\n")
            for tag in rng.sample(TAGS, rng.randint(0, 4)):
                out.append("<dc:subject>" + esc(tag) + "</dc:subject>\n")
            if rng.random() < 0.25:
                out.append("<content:encoded>" + self.html_body_cdata() + "</content:encoded>\n")
            if rng.random() < 0.15:
                out.append(self.unknown_element() + "\n")
            out.append("</item>\n")
        out.append("</rdf:RDF>\n")
        return "".join(out)


# ---------------------------------------------------------------------------
# Output
# ---------------------------------------------------------------------------

def open_output(path):
    """Open path for binary writing; gzip (level 6, mtime 0) if it ends in .gz."""
    raw = open(path, "wb")
    if path.endswith(".gz"):
        # filename="" keeps the output path out of the gzip header.
        return gzip.GzipFile(filename="", mode="wb", fileobj=raw,
                             compresslevel=6, mtime=0), raw
    return raw, None


class BackgroundWriter:
    """Writes chunks to a file object from a worker thread.

    zlib releases the GIL while compressing, so generating the next chunk
    overlaps with compressing the previous one.  Chunks are written strictly
    in order by a single thread, so the output bytes do not depend on timing.
    The queue is bounded, so memory use stays at a few chunks.
    """

    def __init__(self, fileobj, depth=4):
        self.fileobj = fileobj
        self.queue = queue.Queue(maxsize=depth)
        self.error = None
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            chunk = self.queue.get()
            if chunk is None:
                return
            if self.error is None:
                try:
                    self.fileobj.write(chunk)
                except BaseException as e:  # reported by write()/close()
                    self.error = e

    def write(self, chunk):
        if self.error is not None:
            raise self.error
        self.queue.put(chunk)

    def close(self):
        self.queue.put(None)
        self.thread.join()
        if self.error is not None:
            raise self.error


CHUNK_BYTES = 1 << 20


def cmd_dump(args):
    limit = int(args.size_mb * 1_000_000)
    gen = FeedGenerator(args.seed)
    start = time.perf_counter()
    total = docs = 0
    out, raw = open_output(args.output)
    try:
        writer = BackgroundWriter(out)
        try:
            buf = []
            buffered = 0
            while total < limit:
                doc = gen.document().encode("utf-8")
                buf.append(doc)
                buffered += len(doc)
                total += len(doc)
                docs += 1
                if buffered >= CHUNK_BYTES:
                    writer.write(b"".join(buf))
                    buf = []
                    buffered = 0
            if buf:
                writer.write(b"".join(buf))
        finally:
            writer.close()
    finally:
        out.close()
        if raw is not None:
            raw.close()
    elapsed = time.perf_counter() - start
    print("dump: %d documents, %d items, %d bytes uncompressed, %d bytes written, "
          "%.2fs (%.1f MB/s)" % (docs, gen.items, total, os.path.getsize(args.output),
                                 elapsed, total / 1e6 / elapsed if elapsed else 0.0),
          file=sys.stderr)
    return 0


def cmd_files(args):
    os.makedirs(args.output, exist_ok=True)
    gen = FeedGenerator(args.seed)
    width = max(5, len(str(max(args.count - 1, 0))))
    start = time.perf_counter()
    total = written = 0
    for i in range(args.count):
        doc = gen.document().encode("utf-8")
        total += len(doc)
        name = "feed-%0*d.xml" % (width, i)
        if i % 4 == 3:
            path = os.path.join(args.output, name + ".gz")
        else:
            path = os.path.join(args.output, name)
        out, raw = open_output(path)
        try:
            out.write(doc)
        finally:
            out.close()
            if raw is not None:
                raw.close()
        written += os.path.getsize(path)
    elapsed = time.perf_counter() - start
    print("files: %d documents, %d items, %d bytes uncompressed, %d bytes written, "
          "%.2fs (%.1f MB/s)" % (args.count, gen.items, total, written, elapsed,
                                 total / 1e6 / elapsed if elapsed else 0.0),
          file=sys.stderr)
    return 0


# ---- web archives (WARC) -------------------------------------------------------------
#
# A crawl-like WARC/1.1 file: a warcinfo record, then per capture a request and a
# response (feeds, HTML pages, images; some feeds sent chunked and gzip-encoded, some
# with their charset only in the HTTP header, some with relative links), a revisit now
# and then. A .gz output has one gzip member per record, as crawlers write them.

def warc_record(rtype, uri, body, rid, date, content_type=None, extra=()):
    head = ["WARC/1.1", "WARC-Type: " + rtype, "WARC-Record-ID: <urn:uuid:%s>" % rid, "WARC-Date: " + date]
    if uri:
        head.append("WARC-Target-URI: " + uri)
    if content_type:
        head.append("Content-Type: " + content_type)
    head.extend(extra)
    head.append("Content-Length: %d" % len(body))
    return ("\r\n".join(head) + "\r\n\r\n").encode("ascii") + body + b"\r\n\r\n"


def http_response(body, content_type, chunked=False, gzipped=False, status="200 OK"):
    headers = ["HTTP/1.1 " + status, "Content-Type: " + content_type, "Server: generate.py"]
    if gzipped:
        body = gzip.compress(body, mtime=0)
        headers.append("Content-Encoding: gzip")
    if chunked:
        parts, i, step = [], 0, 1000
        while i < len(body):
            piece = body[i:i + step]
            parts.append(b"%x\r\n" % len(piece) + piece + b"\r\n")
            i += step
            step = step * 3 // 2
        body = b"".join(parts) + b"0\r\n\r\n"
        headers.append("Transfer-Encoding: chunked")
    else:
        headers.append("Content-Length: %d" % len(body))
    return ("\r\n".join(headers) + "\r\n\r\n").encode("ascii") + body


def cmd_warc(args):
    limit = int(args.size_mb * 1_000_000)
    gen = FeedGenerator(args.seed)
    rnd = random.Random(args.seed)
    compress = args.output.endswith(".gz")
    start = time.perf_counter()
    total = records = feeds = 0
    if os.path.dirname(args.output):
        os.makedirs(os.path.dirname(args.output), exist_ok=True)
    with open(args.output, "wb") as out:
        def put(rec):
            nonlocal total, records
            total += len(rec)
            records += 1
            out.write(gzip.compress(rec, compresslevel=6, mtime=0) if compress else rec)

        def uid():
            return "%08x-%04x-4%03x-8%03x-%012x" % (rnd.getrandbits(32), rnd.getrandbits(16), rnd.getrandbits(12),
                                                    rnd.getrandbits(12), rnd.getrandbits(48))
        info = b"software: corpus/generate.py\r\nformat: WARC File Format 1.1\r\n"
        put(warc_record("warcinfo", None, info, uid(), "2026-01-01T00:00:00Z", "application/warc-fields"))
        n = 0
        while total < limit:
            n += 1
            date = "2026-01-%02dT%02d:%02d:%02dZ" % (1 + n % 28, n % 24, n % 60, (n * 7) % 60)
            site = "https://site%d.example.org" % (n % 97)
            kind = rnd.random()
            if kind < 0.55:
                uri = "%s/feeds/%d.xml" % (site, n)
                doc = gen.document()
                ctype = rnd.choice(["application/rss+xml", "application/atom+xml", "text/xml", "application/xml"])
                payload = doc.encode("utf-8")
                r = rnd.random()
                if r < 0.1:
                    ctype += "; charset=utf-8"
                elif r < 0.3:
                    # The charset in the HTTP header only: the declaration names none, or
                    # (as servers often get it) the wrong one; the header is right. What
                    # the charset lacks becomes "?".
                    charset = rnd.choice(["windows-1252", "iso-8859-1"])
                    decl = rnd.choice(['<?xml version="1.0"?>\n', XML_DECL])
                    payload = (decl + doc[len(XML_DECL):]).encode(charset, errors="replace")
                    ctype += "; charset=" + charset
                body = http_response(payload, ctype, chunked=rnd.random() < 0.2, gzipped=rnd.random() < 0.2)
                feeds += 1
            elif kind < 0.85:
                uri = "%s/page/%d.html" % (site, n)
                page = "<!DOCTYPE html><html><head><title>%s</title></head><body><p>%s</p></body></html>" % (
                    esc(gen.title()), esc(gen.description(100, 400)))
                body = http_response(page.encode("utf-8"), "text/html; charset=utf-8")
            elif kind < 0.95:
                uri = "%s/img/%d.png" % (site, n)
                body = http_response(bytes(rnd.getrandbits(8) for _ in range(rnd.randint(500, 5000))), "image/png")
            else:
                uri = "%s/feeds/%d.xml" % (site, n - 1)
                body = ("HTTP/1.1 304 Not Modified\r\nContent-Type: application/rss+xml\r\n\r\n").encode("ascii")
                rid = uid()
                put(warc_record("request", uri, ("GET %s HTTP/1.1\r\n\r\n" % uri).encode("ascii"), uid(), date,
                                "application/http; msgtype=request"))
                put(warc_record("revisit", uri, body, rid, date, "application/http; msgtype=response",
                                ("WARC-Profile: http://netpreserve.org/warc/1.1/revisit/server-not-modified",
                                 "WARC-Refers-To-Target-URI: " + uri)))
                continue
            put(warc_record("request", uri, ("GET %s HTTP/1.1\r\n\r\n" % uri).encode("ascii"), uid(), date,
                            "application/http; msgtype=request"))
            put(warc_record("response", uri, body, uid(), date, "application/http; msgtype=response"))
    elapsed = time.perf_counter() - start
    print("warc: %d records, %d feeds, %d items, %d bytes uncompressed, %d bytes written, %.2fs"
          % (records, feeds, gen.items, total, os.path.getsize(args.output), elapsed), file=sys.stderr)
    return 0


# ---- hostile inputs (corpus/hostile) -------------------------------------------------
#
# Small files are committed (corpus/hostile/README.md lists each and its expected
# outcome); the big ones (--big) are made on demand: the tests build them in memory.

HOSTILE_HEAD = ('<?xml version="1.0" encoding="UTF-8"?>\n<rss version="2.0"><channel><title>hostile</title>'
                '<item><title>before</title><guid>h-0</guid></item>\n')
HOSTILE_TAIL = '</channel></rss>\n'


def hostile_files():
    """(name, bytes) of every small hostile input."""
    h, t = HOSTILE_HEAD, HOSTILE_TAIL
    f = []
    # Entity expansion.
    dtd = '<!ENTITY l0 "haha">' + ''.join(
        '<!ENTITY l%d "%s">' % (i, ('&l%d;' % (i - 1)) * 10) for i in range(1, 13))
    f.append(('billion-laughs.xml', '<?xml version="1.0"?>\n<!DOCTYPE rss [%s]>\n' % dtd
              + h.split('\n', 1)[1] + '<item><title>&l12;</title></item>' + t))
    big = 'a' * 20000
    f.append(('quadratic-blowup.xml', '<?xml version="1.0"?>\n<!DOCTYPE rss [<!ENTITY a "%s">]>\n' % big
              + h.split('\n', 1)[1] + '<item><title>' + '&a;' * 20000 + '</title></item>' + t))
    # External entities and DTDs: never read, never fetched.
    f.append(('external-entity-file.xml', '<?xml version="1.0"?>\n'
              '<!DOCTYPE rss [<!ENTITY xxe SYSTEM "file:///etc/passwd">]>\n'
              + h.split('\n', 1)[1] + '<item><title>a &xxe; b</title><guid>h-1</guid></item>' + t))
    f.append(('external-entity-url.xml', '<?xml version="1.0"?>\n'
              '<!DOCTYPE rss [<!ENTITY xxe SYSTEM "http://127.0.0.1:9/feedstream-must-not-fetch">]>\n'
              + h.split('\n', 1)[1] + '<item><title>a &xxe; b</title><guid>h-1</guid></item>' + t))
    f.append(('external-dtd-url.xml', '<?xml version="1.0"?>\n'
              '<!DOCTYPE rss SYSTEM "http://127.0.0.1:9/feedstream-must-not-fetch.dtd">\n'
              + h.split('\n', 1)[1] + '<item><title>dtd</title><guid>h-1</guid></item>' + t))
    f.append(('parameter-entities.xml', '<?xml version="1.0"?>\n'
              '<!DOCTYPE rss [\n'
              '  <!ENTITY % ext SYSTEM "file:///etc/passwd">\n'
              '  %ext;\n'
              '  <!ENTITY % decl "<!ENTITY pe \'from a parameter entity\'>">\n'
              '  %decl;\n'
              ']>\n'
              + h.split('\n', 1)[1] + '<item><title>a &pe; b</title><guid>h-1</guid></item>' + t))
    # Structure past the default limits.
    f.append(('deep-nesting.xml', h + '<x>' * 2000 + '</x>' * 2000 + t))
    f.append(('many-attributes.xml', h + '<item><title>t</title><x '
              + ' '.join('a%d="v"' % i for i in range(1000)) + '/></item>' + t))
    # Bytes that are not well-formed UTF-8 / XML.
    f.append(('invalid-utf8.xml', (h + '<item><title>caf').encode() + b'\xc3\x28' + ('</title></item>' + t).encode()))
    f.append(('overlong-utf8.xml', (h + '<item><title>slash ').encode() + b'\xc0\xaf \xe0\x80\xaf'
              + ('</title></item>' + t).encode()))
    f.append(('nul-bytes.xml', (h + '<item><title>nul').encode() + b'\x00\x00' + ('</title></item>' + t).encode()))
    doc16 = '<?xml version="1.0" encoding="UTF-16"?>\n<rss version="2.0"><channel><title>utf16</title>' \
            '<item><title>caf\u00e9</title><guid>u-1</guid></item></channel></rss>\n'
    f.append(('utf16le-no-bom.xml', doc16.encode('utf-16-le')))
    f.append(('utf16be-no-bom.xml', doc16.encode('utf-16-be')))
    f.append(('bom-utf8-declares-utf16.xml', b'\xef\xbb\xbf' + doc16.encode('utf-8')))
    f.append(('bom-utf16le-declares-latin1.xml', b'\xff\xfe' + doc16.replace('UTF-16', 'ISO-8859-1').encode('utf-16-le')))
    # Not feeds at all.
    f.append(('html-page.html', '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
              '<title>404 Not Found</title><link rel="stylesheet" href="/s.css"></head>\n'
              '<body><h1>Not Found</h1><p>The requested URL was not found on this server.<br>\n'
              '<hr><address>Apache Server at example.com Port 80</address></body></html>\n'))
    f.append(('empty.xml', b''))
    rnd = random.Random(8)
    f.append(('binary.bin', b'\x89PNG\r\n\x1a\n' + bytes(rnd.randrange(256) for _ in range(4096))))
    # gzip damage (one good member to start from).
    good = gzip.compress((h + ''.join('<item><title>i%d</title><guid>g-%d</guid></item>' % (i, i)
                                      for i in range(200)) + t).encode(), mtime=0)
    f.append(('gzip-truncated.xml.gz', good[:len(good) * 2 // 3]))
    crc = bytearray(good)
    crc[-8] ^= 0xFF
    f.append(('gzip-bad-crc.xml.gz', bytes(crc)))
    hdr = bytearray(good)
    hdr[2] = 7   # compression method: not deflate
    f.append(('gzip-bad-header.xml.gz', bytes(hdr)))
    f.append(('gzip-trailing-garbage.xml.gz', good + b'GARBAGE AFTER THE MEMBER'))
    return [(n, b if isinstance(b, bytes) else b.encode()) for n, b in f]


def hostile_big():
    """(name, writer) of the big hostile inputs, written in pieces."""
    def deep(out):
        out.write(HOSTILE_HEAD.encode())
        for _ in range(1000): out.write(b'<a>' * 1000)
        for _ in range(1000): out.write(b'</a>' * 1000)
        out.write(HOSTILE_TAIL.encode())

    def text(out):
        out.write((HOSTILE_HEAD + '<item><description>').encode())
        block = b'0123456789abcdef' * 65536
        for _ in range(200): out.write(block)
        out.write(('</description></item>' + HOSTILE_TAIL).encode())

    def bomb(out):
        z = zlib.compressobj(9, zlib.DEFLATED, 31)
        out.write(z.compress((HOSTILE_HEAD + '<x>').encode()))
        block = b' ' * (1 << 20)
        for _ in range(1024): out.write(z.compress(block))
        out.write(z.compress(('</x>' + HOSTILE_TAIL).encode()))
        out.write(z.flush())
    return [('million-deep.xml', deep), ('text-200mb.xml', text), ('gzip-bomb-1gib.xml.gz', bomb)]


def cmd_hostile(args):
    os.makedirs(args.output, exist_ok=True)
    for name, data in hostile_files():
        with open(os.path.join(args.output, name), 'wb') as out:
            out.write(data)
    if args.big:
        for name, write in hostile_big():
            with open(os.path.join(args.output, name), 'wb') as out:
                write(out)
    return 0


def cmd_tiny(args):
    """Minimal feeds (a title and one item each) one after another: a dump whose cost is
    per document, not per byte."""
    rng = random.Random(args.seed)
    out, raw = open_output(args.output)
    total = 0
    try:
        buf = []
        for i in range(args.count):
            word = rng.choice(WORDS)
            doc = ('%s<rss version="2.0"><channel><title>%s %d</title><item><title>%s</title>'
                   '<guid>t-%d</guid></item></channel></rss>\n' % (XML_DECL.rstrip("\n"), word, i, word, i))
            buf.append(doc.encode("utf-8"))
            if len(buf) == 4096:
                data = b"".join(buf)
                out.write(data)
                total += len(data)
                buf = []
        data = b"".join(buf)
        out.write(data)
        total += len(data)
    finally:
        out.close()
        if raw is not None:
            raw.close()
    print("tiny: %d documents, %d bytes uncompressed" % (args.count, total), file=sys.stderr)


def main(argv=None):
    parser = argparse.ArgumentParser(
        description="Deterministic synthetic RSS/Atom feed generator for FeedStream.",
        epilog="Same seed => byte-identical output (for a given Python version).")
    sub = parser.add_subparsers(dest="mode", required=True)

    p = sub.add_parser("dump", help="write one multi-document stream (.gz => gzip)")
    p.add_argument("--size-mb", type=float, required=True,
                   help="stop after the document that crosses N*1,000,000 uncompressed bytes")
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    p.add_argument("-o", "--output", required=True,
                   help="output path; gzip-compressed if it ends in .gz")
    p.set_defaults(func=cmd_dump)

    p = sub.add_parser("tiny", help="write N minimal feeds one after another (.gz => gzip)")
    p.add_argument("--count", type=int, required=True, help="number of documents")
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    p.add_argument("-o", "--output", required=True, help="output path; gzip-compressed if it ends in .gz")
    p.set_defaults(func=cmd_tiny)

    p = sub.add_parser("files", help="write N single-feed files into a directory")
    p.add_argument("--count", type=int, required=True, help="number of files")
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    p.add_argument("-o", "--output", required=True, help="output directory")
    p.set_defaults(func=cmd_files)

    p = sub.add_parser("warc", help="write a crawl-like web archive: feeds, pages, images, revisits (.gz => a member per record)")
    p.add_argument("--size-mb", type=float, required=True,
                   help="stop after the record that crosses N*1,000,000 uncompressed bytes")
    p.add_argument("--seed", type=int, default=42, help="random seed (default 42)")
    p.add_argument("-o", "--output", required=True, help="output path; one gzip member per record if it ends in .gz")
    p.set_defaults(func=cmd_warc)

    p = sub.add_parser("hostile", help="write the hostile inputs of corpus/hostile (see its README)")
    p.add_argument("-o", "--output", default=os.path.join(os.path.dirname(os.path.abspath(__file__)), "hostile"),
                   help="output directory (default corpus/hostile)")
    p.add_argument("--big", action="store_true",
                   help="also the big ones (million-deep.xml 7 MB, text-200mb.xml, gzip-bomb-1gib.xml.gz), never committed")
    p.set_defaults(func=cmd_hostile)

    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
