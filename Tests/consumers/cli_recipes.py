#!/usr/bin/env python3
# SPDX-License-Identifier: Apache-2.0
"""The command blocks of docs/CLI.md "Beyond one machine" run as written, in an empty
folder, one after another as a reader would (run by .ci/run after scripts/build-static.sh,
whose build the first block runs again):

    python3 Tests/consumers/cli_recipes.py

  - the set-up block (the self-contained binary, 300 generated feeds and a bad one, the
    list, a direct run): `FS=~/FeedStream` reads the repository's own path;
  - GNU parallel: both commands, `-S host1,host2` read as `-S :` (this machine); the
    shards together hold the direct run's lines, every job exits 0;
  - the Slurm script is run by ReadmeCLITests (all 64 tasks);
  - Spark: the PySpark block as `python3 spark_recipe.py` and the Scala block as
    `spark-shell --master 'local[2]' -i recipe.scala < /dev/null`, as the text says; each
    writes the direct run's lines and prints its item count.

Exits 0 when all hold, 1 otherwise, 77 with "consumer check skipped: ..." when GNU
parallel, Java or pyspark is missing (.ci/install-deps and Tests/consumers/setup.sh
install them).
"""
import glob
import gzip
import os
import re
import shutil
import subprocess
import sys
import tempfile

root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
doc = open(os.path.join(root, "docs/CLI.md"), encoding="utf-8").read()
section = doc.split("\n## Beyond one machine\n", 1)[1].split("\n## ", 1)[0]


def blocks(language, text=section):
    return re.findall(r"```%s\n(.*?)\n```" % language, text, re.S)


def skip(why):
    print(f"consumer check skipped: {why}")
    sys.exit(77)


if shutil.which("parallel") is None:
    skip("GNU parallel is not installed (.ci/install-deps installs it)")
if shutil.which("java") is None and not os.environ.get("JAVA_HOME"):
    skip("no Java (Spark needs Java 17 or 21)")
try:
    import pyspark
except ImportError:
    skip("python3 module pyspark is not installed (run Tests/consumers/setup.sh)")
spark_shell = os.path.join(os.path.dirname(pyspark.__file__), "bin", "spark-shell")

fails = []
work = tempfile.mkdtemp(prefix="feedstream-recipes-")
env = dict(os.environ, PYTHON=sys.executable, PYSPARK_PYTHON=sys.executable)
# `python3` in the blocks is the one with pyspark (the virtual environment's, first on PATH).
env["PATH"] = os.path.dirname(sys.executable) + ":" + env["PATH"]


def sh(script, what):
    r = subprocess.run(["bash", "-e", "-c", script], cwd=work, env=env, capture_output=True, text=True)
    if r.returncode != 0:
        fails.append(f"{what}: exit {r.returncode}\n{r.stdout[-2000:]}{r.stderr[-2000:]}")
    return r


def lines_of(paths):
    out = []
    for p in paths:
        opener = gzip.open if p.endswith(".gz") else open
        with opener(p, "rt", encoding="utf-8") as f:
            out += f.read().splitlines()
    return sorted(out)


try:
    setup, gnu = blocks("sh")[:2]
    assert setup.startswith("FS=~/FeedStream "), setup
    # The set-up, with the repository where it is: then the direct run.
    setup = setup.replace("FS=~/FeedStream ", "FS=%s " % root, 1)
    r = sh(setup, "the set-up block")
    direct = lines_of([os.path.join(work, "direct.jsonl")]) if r.returncode == 0 else []
    items = sum(1 for l in direct if '"kind":"item"' in l)
    print(f"set-up: {len(direct)} lines, {items} items in direct.jsonl")
    if items < 300:
        fails.append(f"the direct run has {items} items")

    # GNU parallel on this machine: the same commands with -S :.
    assert gnu.count("-S host1,host2") == 2, gnu
    sh("export PATH=\"$PWD:$PATH\"\n" + gnu.replace("-S host1,host2", "-S :"), "the GNU parallel block")
    if lines_of([os.path.join(work, "items.jsonl")]) != direct:
        fails.append("GNU parallel: items.jsonl is not the direct run's lines")
    parts = sorted(glob.glob(os.path.join(work, "part-*.jsonl.gz")))
    if len(parts) != 8 or lines_of(parts) != direct:
        fails.append(f"GNU parallel: {len(parts)} part files, not the direct run's lines")
    print(f"GNU parallel: {len(parts)} shard files, the direct run's lines")

    # Spark, as the text says to run each.
    python, scala = blocks("python")[0], blocks("scala")[0]
    open(os.path.join(work, "spark_recipe.py"), "w").write(python + "\n")
    open(os.path.join(work, "recipe.scala"), "w").write(scala + "\n")
    for what, command, folder in [("PySpark", "python3 spark_recipe.py", "items"),
                                  ("Scala", f"'{spark_shell}' --master 'local[2]' -i recipe.scala < /dev/null",
                                   "items-scala")]:
        r = sh(command, f"the {what} block")
        got = lines_of(sorted(glob.glob(os.path.join(work, folder, "part-*"))))
        said = re.findall(r"^(\d+) items$", r.stdout, re.M)
        if got != direct or said != [str(items)]:
            fails.append(f"{what}: {len(got)} lines written (direct run {len(direct)}), printed {said}")
        print(f"{what}: {len(got)} lines, printed {said} items")
finally:
    shutil.rmtree(work, ignore_errors=True)

if fails:
    print("\n".join("FAIL: " + f for f in fails))
    sys.exit(1)
print("docs/CLI.md \"Beyond one machine\": every block ran as written, with the direct run's lines")
