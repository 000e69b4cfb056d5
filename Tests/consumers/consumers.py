#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""Loads feedstream's output the way its consumers do (Python, DuckDB, pandas), for
ConsumerTests (Tests/feedstreamCLITests/ConsumerTests.swift). Each check prints what it
found and exits 0, 1 on a failure, or 77 (skipped) with a line saying which module is
missing ("consumer check skipped: ..."; .ci/run fails on that line; Tests/consumers/setup.sh
installs them).

    consumers.py schema-keys FEEDSTREAM INPUT...  every member of convert's output (both
                                                  --per layouts) is in `feedstream schema
                                                  --format json-schema` with its type
    consumers.py duckdb FEEDSTREAM REAL-CORPUS    every shard of the corpus loads into one
                                                  DuckDB table with the schema
    consumers.py leap FEEDSTREAM                  a leap second is read by Python, DuckDB
                                                  and pandas
    consumers.py compressed FEEDSTREAM INPUT...   -o FILE.gz and -o FILE.zst load into
                                                  DuckDB (with the schema) and pandas as
                                                  the plain output does
"""
import datetime
import glob
import json
import os
import re
import subprocess
import sys
import tempfile

SKIP = 77
fails = []


def need(module):
    try:
        return __import__(module)
    except ImportError:
        print(f"consumer check skipped: python3 module {module} is not installed (run Tests/consumers/setup.sh)")
        sys.exit(SKIP)


def check(cond, what):
    if not cond:
        fails.append(what)
        print("FAIL:", what)


def run(*args, ok=(0,)):
    r = subprocess.run(args, capture_output=True, text=True)
    if r.returncode not in ok:
        print(f"{args} exited {r.returncode}: {r.stderr[-2000:]}")
        sys.exit(1)
    return r.stdout


def schema(binary, fmt, per="item"):
    return run(binary, "schema", "--format", fmt, "--per", per)


# --- schema-keys ----------------------------------------------------------------------

def conforms(value, s, path, seen):
    """Checks value against the json-schema subset feedstream writes; records key paths."""
    t = s["type"]
    seen.add(path)
    if t == "object":
        check(isinstance(value, dict), f"{path}: {value!r} is not an object")
        if isinstance(value, dict):
            for k, v in value.items():
                check(k in s["properties"], f"{path}.{k}: not in the schema")
                if k in s["properties"]:
                    conforms(v, s["properties"][k], f"{path}.{k}", seen)
    elif t == "array":
        check(isinstance(value, list), f"{path}: {value!r} is not an array")
        for v in value if isinstance(value, list) else []:
            conforms(v, s["items"], path + "[]", seen)
    elif t == "integer":
        check(isinstance(value, int) and not isinstance(value, bool), f"{path}: {value!r} is not an integer")
    elif t == "boolean":
        check(isinstance(value, bool), f"{path}: {value!r} is not a boolean")
    elif t == "string":
        check(isinstance(value, str), f"{path}: {value!r} is not a string")
        if s.get("format") == "date-time" and isinstance(value, str):
            try:
                datetime.datetime.fromisoformat(value)
            except ValueError:
                check(False, f"{path}: {value!r} is not read by datetime.fromisoformat")


def schema_keys(binary, inputs):
    for per in ("item", "feed"):
        s = json.loads(schema(binary, "json-schema", per))
        out = run(binary, "convert", "-q", "--per", per, *inputs, ok=(0, 1))
        seen = set()
        lines = out.splitlines()
        for line in lines:
            conforms(json.loads(line), s, "", seen)
        print(f"--per {per}: {len(lines)} lines conform; {len(seen)} member paths seen")
        check(len(lines) > 0, f"--per {per}: no output")


# --- duckdb -----------------------------------------------------------------------------

def duckdb_shards(binary, real):
    duckdb = need("duckdb")
    with tempfile.TemporaryDirectory(prefix="feedstream-duckdb-") as tmp:
        load_shards(binary, real, duckdb, tmp)


def load_shards(binary, real, duckdb, tmp):
    shards = 8
    for k in range(1, shards + 1):
        run(binary, "convert", "-q", "--shard", f"{k}/{shards}", real, "-o", f"{tmp}/part-{k}.jsonl", ok=(0, 1))
    columns = schema(binary, "duckdb").strip()
    con = duckdb.connect()
    read = lambda p: f"read_json('{p}', format='newline_delimited', columns={columns})"
    con.execute(f"CREATE TABLE t AS SELECT * FROM {read(tmp + '/part-1.jsonl')} LIMIT 0")
    total = 0
    for p in sorted(glob.glob(f"{tmp}/part-*.jsonl")):
        # Each shard alone has the schema's types (what read_json_auto guessed differently).
        types = con.execute(f"DESCRIBE SELECT * FROM {read(p)}").fetchall()
        check(types == con.execute("DESCRIBE t").fetchall(), f"{p}: types differ from the table's")
        con.execute(f"INSERT INTO t BY NAME SELECT * FROM {read(p)}")
        total += sum(1 for _ in open(p))
    rows = con.execute("SELECT count(*) FROM t").fetchone()[0]
    check(rows == total, f"{rows} rows in the table, {total} lines in the shards")
    described = {name: typ for name, typ, *_ in con.execute("DESCRIBE t").fetchall()}
    for key, want in [("published", "TIMESTAMP WITH TIME ZONE"), ("published_raw", "VARCHAR"),
                      ("document", "BIGINT"), ("guid_is_permalink", "BOOLEAN"), ("ttl", "VARCHAR")]:
        check(described.get(key) == want, f"{key}: {described.get(key)}, not {want}")
    # Every ISO-looking _raw stays the text the line holds (read_json_auto made some
    # timestamps, shifting their offsets), and every line's dates loaded.
    iso = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d")
    raws = {}
    for p in sorted(glob.glob(f"{tmp}/part-*.jsonl")):
        for line in open(p):
            r = json.loads(line)
            for key in ("published_raw", "updated_raw"):
                if isinstance(r.get(key), str) and iso.match(r[key]):
                    raws.setdefault((r["source"], r["document"], r.get("index", -1), key), r[key])
    loaded = {}
    for key in ("published_raw", "updated_raw"):
        for source, document, index, value in con.execute(
                f"SELECT source, document, coalesce(\"index\", -1), {key} FROM t WHERE {key} IS NOT NULL").fetchall():
            loaded[(source, document, index, key)] = value
    check(len(raws) > 100, f"only {len(raws)} ISO-looking _raw values in the corpus")
    differ = [k for k, v in raws.items() if loaded.get(k) != v]
    check(not differ, f"{len(differ)} ISO-looking _raw values changed, e.g. {differ[:3]}")
    parsed = con.execute("SELECT count(published) + count(updated) FROM t").fetchone()[0]
    written = sum(1 for p in glob.glob(f"{tmp}/part-*.jsonl") for line in open(p)
                  for k in ("published", "updated") if f'"{k}":"' in line and json.loads(line).get(k))
    check(parsed == written, f"{parsed} dates loaded, {written} written")
    print(f"duckdb {duckdb.__version__}: {shards} shards, {rows} rows in one table, {len(described)} columns, "
          f"{len(raws)} ISO-looking _raw values kept as text, {parsed} dates loaded")


# --- leap -------------------------------------------------------------------------------

LEAP_FEED = """<?xml version="1.0"?>
<rss version="2.0"><channel><title>Leap</title><link>https://example.org/</link>
<item><title>one</title><pubDate>Sat, 31 Dec 2016 23:59:60 +0000</pubDate></item>
<item><title>two</title><pubDate>2016-12-31T23:59:60.5Z</pubDate></item>
<item><title>three</title><pubDate>2017-01-01T00:59:60+01:00</pubDate></item>
<item><title>four</title><pubDate>2016-12-31T23:59:59Z</pubDate></item>
</channel></rss>
"""


def leap(binary):
    with tempfile.TemporaryDirectory(prefix="feedstream-leap-") as tmp:
        read_leap(binary, tmp)


def read_leap(binary, tmp):
    feed = os.path.join(tmp, "leap.xml")
    with open(feed, "w") as f:
        f.write(LEAP_FEED)
    out = os.path.join(tmp, "leap.jsonl")
    run(binary, "convert", "-q", feed, "-o", out)
    items = [json.loads(l) for l in open(out) if '"kind":"item"' in l]
    got = [(i["published"], i["published_raw"]) for i in items]
    want = [("2016-12-31T23:59:59Z", "Sat, 31 Dec 2016 23:59:60 +0000"),
            ("2016-12-31T23:59:59.5Z", "2016-12-31T23:59:60.5Z"),
            ("2016-12-31T23:59:59Z", "2017-01-01T00:59:60+01:00"),
            ("2016-12-31T23:59:59Z", "2016-12-31T23:59:59Z")]
    check(got == want, f"leap seconds written {got}, expected {want}")
    for published, _ in got:
        check(datetime.datetime.fromisoformat(published).second == 59, f"fromisoformat({published})")
    print("python: datetime.fromisoformat reads", len(got), "dates")
    duckdb = need("duckdb")
    columns = schema(binary, "duckdb").strip()
    rows = duckdb.sql(f"SELECT floor(epoch(published))::BIGINT, published_raw FROM read_json('{out}', format='newline_delimited', "
                      f"columns={columns}) WHERE kind = 'item'").fetchall()
    check([r[0] for r in rows] == [1483228799] * 4, f"duckdb epochs {rows}")
    check(rows[0][1] == "Sat, 31 Dec 2016 23:59:60 +0000", f"duckdb raw {rows[0][1]}")
    print("duckdb reads", len(rows), "dates")
    pandas = need("pandas")
    frame = pandas.read_json(out, lines=True, dtype={"published_raw": str})
    stamps = pandas.to_datetime(frame[frame.kind == "item"].published, utc=True, format="ISO8601")
    check(all(s.second == 59 for s in stamps), f"pandas {list(stamps)}")
    print("pandas reads", len(stamps), "dates")


def compressed(binary, inputs):
    with tempfile.TemporaryDirectory(prefix="feedstream-compressed-") as tmp:
        outs = {}
        for suffix in ["jsonl", "jsonl.gz", "jsonl.zst"]:
            outs[suffix] = os.path.join(tmp, "items." + suffix)
            run(binary, "convert", "-q", "--data-errors-ok", "-o", outs[suffix], *inputs)
        duckdb = need("duckdb")
        columns = schema(binary, "duckdb").strip()
        tables = {}
        for suffix, path in outs.items():
            # DuckDB picks the compression by the name (.gz, .zst), as for its own files.
            tables[suffix] = sorted(map(str, duckdb.sql(
                f"SELECT kind, source, document, title, link, published FROM read_json('{path}', "
                f"format='newline_delimited', columns={columns})").fetchall()))
        plain = tables["jsonl"]
        check(len(plain) > 20, f"the plain output has {len(plain)} rows")
        for suffix in ["jsonl.gz", "jsonl.zst"]:
            check(tables[suffix] == plain, f"duckdb: {suffix} holds {len(tables[suffix])} rows, the plain {len(plain)}")
        print("duckdb reads", len(plain), "rows from each of", ", ".join(outs))
        pandas = need("pandas")
        need("zstandard")   # pandas reads .zst through it
        frames = {suffix: pandas.read_json(path, lines=True, dtype=False) for suffix, path in outs.items()}
        for suffix in ["jsonl.gz", "jsonl.zst"]:
            check(frames[suffix].equals(frames["jsonl"]), f"pandas: {suffix} differs from the plain output")
        print("pandas reads", len(frames["jsonl"]), "rows from each")


def main():
    command, binary, *rest = sys.argv[1:]
    {"schema-keys": lambda: schema_keys(binary, rest),
     "duckdb": lambda: duckdb_shards(binary, rest[0]),
     "leap": lambda: leap(binary),
     "compressed": lambda: compressed(binary, rest)}[command]()
    if fails:
        print(f"{len(fails)} failures")
        sys.exit(1)


if __name__ == "__main__":
    main()
