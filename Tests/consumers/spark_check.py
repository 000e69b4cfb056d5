#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The PySpark recipe of docs/CLI.md ("Spark"), run for real (pyspark from PyPI, local[2]): run by
.ci/run with the self-contained binary (scripts/build-static.sh).

    python3 Tests/consumers/spark_check.py FEEDSTREAM [COUNT]

Over COUNT generated feeds (default 300; corpus/generate.py) plus one bad feed:
  - the recipe (absolute path, checkCode=True, --data-errors-ok) gives exactly the
    lines of a direct run (the bad feed's good items included), and the job succeeds;
  - with --strict and without --data-errors-ok the bad feed fails the job (strict, it
    loses an item: exit 1);
  - a missing binary and a mistyped option (exit 2) fail the job: no silent empty output;
  - the lines load with `feedstream schema --format spark`, every date a timestamp, and
    so do the same lines written as .jsonl.gz and .jsonl.zst.
Without Java or pyspark it prints "spark check skipped: ..." and exits 77.
"""
import os
import shutil
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def skip(why):
    print(f"spark check skipped: {why}")
    sys.exit(77)


binary = os.path.abspath(sys.argv[1])
count = int(sys.argv[2]) if len(sys.argv) > 2 else 300
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    skip("no Java (Spark needs Java 17 or 21; CI has it)")
try:
    from pyspark import SparkContext
except ImportError:
    skip("python3 module pyspark is not installed (run Tests/consumers/setup.sh)")

tmp = tempfile.mkdtemp(prefix="feedstream-spark-")
feeds = os.path.join(tmp, "feeds")
subprocess.run([sys.executable, os.path.join(root, "corpus/generate.py"), "files", "--count", str(count),
                "--seed", "19", "-o", feeds], check=True, stdout=subprocess.DEVNULL)
shutil.copy(os.path.join(root, "corpus/bad/mismatched.xml"), os.path.join(feeds, "zz-bad.xml"))
paths = sorted(os.path.join(feeds, name) for name in os.listdir(feeds))
listing = os.path.join(tmp, "all-paths.txt")
with open(listing, "w") as f:
    f.write("".join(p + "\n" for p in paths))

# The direct run: the reference lines.
direct = subprocess.run([binary, "convert", "-q", "-j", "1", "--files-from", listing], capture_output=True, text=True)
assert direct.returncode == 0, f"direct run exited {direct.returncode}, not 0 (the bad feed is recovered): {direct.stderr}"
reference = sorted(direct.stdout.splitlines())
items = sum(1 for l in reference if '"kind":"item"' in l)

os.environ.setdefault("PYSPARK_PYTHON", sys.executable)
sc = SparkContext("local[2]", "feedstream-spark-check")
sc.setLogLevel("OFF")
fails = []


def expect_failure(what, command):
    try:
        sc.textFile(listing, minPartitions=4).pipe(command, checkCode=True).count()
    except Exception as e:   # Py4JJavaError (the task failed) or the worker's RuntimeError
        causes = [l.strip() for l in str(e).splitlines()
                  if "FileNotFoundError" in l or "exited with error code" in l or "RuntimeError" in l]
        print(f"{what}: the job failed, as it must ({(causes or [type(e).__name__])[0][:160]})")
        return
    fails.append(f"{what}: the job succeeded")
    print(f"FAIL: {what}: the job succeeded")


try:
    # The recipe of docs/CLI.md, as written there (absolute path; RDD.pipe clears the environment).
    feedstream = binary
    command = f"{feedstream} convert -q -j 1 --data-errors-ok --files-from -"
    paths_rdd = sc.textFile(listing, minPartitions=4)
    lines = paths_rdd.pipe(command, checkCode=True)
    out = os.path.join(tmp, "items")
    lines.saveAsTextFile(out)
    got = sorted(l for name in sorted(os.listdir(out)) if name.startswith("part-")
                 for l in open(os.path.join(out, name)).read().splitlines())
    spark_items = sum(1 for l in got if '"kind":"item"' in l)
    if got != reference:
        fails.append(f"spark wrote {len(got)} lines ({spark_items} items), the direct run {len(reference)} ({items} items)")
    print(f"spark: {paths_rdd.getNumPartitions()} partitions, {len(paths)} feeds, {len(got)} lines, "
          f"{spark_items} items; direct run: {len(reference)} lines, {items} items")

    # The lines loaded with `feedstream schema --format spark` (docs/CLI.md, "Loading it
    # elsewhere"): every item, every normalized date a timestamp.
    from pyspark.sql import SparkSession
    ddl = subprocess.run([binary, "schema", "--format", "spark"], capture_output=True, text=True, check=True).stdout
    df = SparkSession(sc).read.schema(ddl).json(out)
    frame_items = df.where(df.kind == "item")
    dated = sum(1 for l in reference if '"kind":"item"' in l and '"published":"' in l)
    loaded = (frame_items.count(), frame_items.where(frame_items.published.isNotNull()).count())
    if loaded != (items, dated):
        fails.append(f"spark.read.schema: {loaded} items and published timestamps, expected {(items, dated)}")
    print(f"spark.read.schema(feedstream schema --format spark): {loaded[0]} items, {loaded[1]} published timestamps")

    # The same run written compressed (-o FILE.gz, -o FILE.zst) loads with every item.
    for suffix in ("gz", "zst"):
        path = os.path.join(tmp, f"items.jsonl.{suffix}")
        subprocess.run([binary, "convert", "-q", "-j", "1", "--files-from", listing, "-o", path],
                       check=True, capture_output=True)
        n = SparkSession(sc).read.schema(ddl).json(path).where("kind = 'item'").count()
        if n != items:
            fails.append(f"spark.read.json(items.jsonl.{suffix}): {n} items, expected {items}")
        print(f"spark.read.json(items.jsonl.{suffix}): {n} items")

    expect_failure("--strict without --data-errors-ok (the bad feed loses an item: exit 1)",
                   f"{feedstream} convert -q -j 1 --strict --files-from -")
    expect_failure("a missing binary", "/nonexistent/feedstream convert -q -j 1 --data-errors-ok --files-from -")
    expect_failure("a mistyped option (exit 2)", f"{feedstream} convert -q -j 1 --data-errors-ok --file-from -")
finally:
    sc.stop()
    shutil.rmtree(tmp, ignore_errors=True)

if fails:
    print("\n".join(fails))
    sys.exit(1)
print("spark check: all as expected")
