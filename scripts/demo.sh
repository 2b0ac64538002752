#!/usr/bin/env bash
# The demo: grows with the project. For now: generate a Parquet file with DuckDB, read it back with hoodie.
set -euo pipefail
HOODIE=${1:-build/hoodie}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
node "$here/tests/oracle/duck.mjs" "COPY (SELECT i AS id, 'name-' || i AS name, i % 90 AS age FROM range(1000) t(i)) TO '$tmp/demo.parquet' (FORMAT parquet)"
echo "== hoodie parquet schema"
"$HOODIE" parquet schema "$tmp/demo.parquet"
echo "== hoodie parquet cat (first rows)"
"$HOODIE" parquet cat "$tmp/demo.parquet" --format csv | head -5
