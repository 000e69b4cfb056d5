#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Cross-checks feedstream's WARC reader against warcio (PyPI), an independent reader.

    warc_check.py FEEDSTREAM WARC_FILE

Converts WARC_FILE with feedstream, then reads it with warcio and checks:
  - every record feedstream converted has warcio's offset for that record id (in a
    .warc.gz, the offset of its gzip member), its target URI and date;
  - the items are those of each feed payload extracted by warcio (chunked transfer
    coding and gzip content coding undone) and converted one by one with
    `--base-url TARGET_URI --content-type HTTP_CONTENT_TYPE`, in the same order, member
    for member (the common members
    `source`, `warc`, `document` aside);
  - the records feedstream counts equal warcio's.
Exits 0 when all hold, 1 otherwise, 77 (skipped) when warcio is missing, saying so with
"consumer check skipped" (.ci/run fails on that line; Tests/consumers/setup.sh installs warcio).
"""
import json
import os
import subprocess
import sys
import tempfile

try:
    from warcio.archiveiterator import ArchiveIterator
except ImportError:
    print("consumer check skipped: python3 module warcio is not installed (run Tests/consumers/setup.sh)")
    sys.exit(77)

binary, warc = sys.argv[1], sys.argv[2]
fails = []


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


def convert(args):
    r = subprocess.run([binary, "convert", "-q", "--data-errors-ok"] + args, capture_output=True)
    if r.returncode != 0:
        print(r.stderr.decode(errors="replace"))
    check(r.returncode == 0, "convert %s exited %d" % (args, r.returncode))
    return [json.loads(l) for l in r.stdout.decode().splitlines()]


def strip(line):
    return {k: v for k, v in line.items() if k not in ("source", "warc", "document")}


with tempfile.TemporaryDirectory() as tmp:
    stats = os.path.join(tmp, "stats.json")
    whole = convert(["--stats", stats, warc])
    counted = json.load(open(stats))

    # warcio's view: every record, its offset, and the payload of the converted ones.
    converted_ids = []
    for line in whole:
        if line["kind"] == "feed":
            converted_ids.append(line["warc"]["record_id"])
    by_id = {}
    records = 0
    with open(warc, "rb") as f:
        it = ArchiveIterator(f)
        for rec in it:
            records += 1
            rid = rec.rec_headers.get_header("WARC-Record-ID")
            payload = rec.content_stream().read()   # before the offset: warcio reads the record's end first
            if rid in converted_ids:
                headers = rec.http_headers if rec.http_headers is not None else rec.rec_headers
                by_id[rid] = {
                    "content_type": headers.get_header("Content-Type"),
                    "offset": it.get_record_offset(),
                    "uri": rec.rec_headers.get_header("WARC-Target-URI"),
                    "date": rec.rec_headers.get_header("WARC-Date"),
                    "payload": payload,
                }
    check(records == counted["warc_records"], "records: warcio %d, feedstream %d" % (records, counted["warc_records"]))
    check(len(converted_ids) == counted["warc_feed_records"], "feed records counted")

    # Offsets, URIs and dates, line by line.
    for line in whole:
        w = line["warc"]
        ref = by_id.get(w["record_id"])
        check(ref is not None, "record %s found by warcio" % w["record_id"])
        if ref is None:
            continue
        check(w["offset"] == ref["offset"], "offset of %s: feedstream %d, warcio %d" % (w["record_id"], w["offset"], ref["offset"]))
        check(w["target_uri"] == ref["uri"], "target URI of %s" % w["record_id"])
        check(w["date"] == ref["date"], "date of %s" % w["record_id"])

    # The payloads one by one.
    expected = []
    for n, rid in enumerate(converted_ids):
        ref = by_id[rid]
        path = os.path.join(tmp, "payload-%d" % n)
        with open(path, "wb") as f:
            f.write(ref["payload"])
        args = ["--base-url", ref["uri"]]
        if ref["content_type"]:
            args += ["--content-type", ref["content_type"]]
        lines = convert(args + [path])
        check(lines, "payload of %s (%d bytes) converts" % (rid, len(ref["payload"])))
        expected += lines
    got = [strip(l) for l in whole]
    want = [strip(l) for l in expected]
    check(len(got) == len(want), "lines: WARC %d, payloads one by one %d" % (len(got), len(want)))
    for i, (a, b) in enumerate(zip(got, want)):
        if a != b:
            keys = sorted(k for k in set(a) | set(b) if a.get(k) != b.get(k))
            check(False, "line %d differs in %s" % (i + 1, keys))
            break

print("warc check: %d records, %d feeds, %d lines; %s" % (records, len(converted_ids), len(whole),
                                                          "ok" if not fails else "%d failures" % len(fails)))
sys.exit(1 if fails else 0)
