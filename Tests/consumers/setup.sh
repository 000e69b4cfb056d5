#!/usr/bin/env bash
# SPDX-License-Identifier: Apache-2.0
# Installs the consumers the tests load FeedStream's output with — DuckDB, pandas (and
# zstandard, through which it reads .zst), PySpark, and warcio (which cross-checks the
# web-archive reader) — into a virtual environment, .venv at the top of the repository
# (PEP 668: never into the system's Python). The environment sees the system's site
# packages, so modules already there are not downloaded again. The tests use
# .venv/bin/python3 when it exists; without it, the tests that need a module say
# "consumer check skipped" and name this script. PySpark also needs Java 17 or 21.
set -euo pipefail
cd "$(dirname "$0")/../.."
modules=(duckdb pandas pyspark warcio zstandard)
if [ ! -x .venv/bin/python3 ]; then
  if ! python3 -m venv --system-site-packages .venv; then
    echo "Tests/consumers/setup.sh: python3 -m venv failed; on Debian or Ubuntu: sudo apt-get install python3-venv" >&2
    rm -rf .venv
    exit 1
  fi
fi
if ! .venv/bin/python3 -c "import $(IFS=,; echo "${modules[*]}")" 2>/dev/null; then
  .venv/bin/python3 -m pip install -q "${modules[@]}"
fi
