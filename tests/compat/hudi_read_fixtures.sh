#!/usr/bin/env bash
# Every fixture table reads back exactly as its expected CSVs (snapshot and as-of): hoodie writes the result as
# Parquet and DuckDB renders it the way the CSVs were rendered (tests/oracle/render_expected.mjs). Each read is done
# three times: as is; with --merge-memory 0.0002 (about 200 bytes), which merges every slice with log files in
# key-hash partitions, one pass over its base file each (Spark's log files: rollbacks, deletes, log-only slices,
# Parquet blocks), their Avro records read lazily (only keys and ordering values in memory, each record decoded when
# merged); and with --merge-memory 0.003 (about 3 KB), under which the slices with more than a quarter of that in
# log files read their Avro records lazily, in one pass. A fourth time with --metadata-table: the table whose
# metadata table is on (mdt_basic_*) takes its files from that table's files partition, the others are listed.
set -u
HOODIE=${HOODIE:-build/hoodie}
SRC=${HOODIE_SRC:-.}
FIX=${HOODIE_FIXTURES:-../shared/fixtures}/hudi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
for mode in whole parts lazy mdt; do
for exp in "$FIX"/expected/*.csv; do
  base=$(basename "$exp" .csv)
  table=${base%%.*}
  kind=${base#*.}
  args=()
  case "$kind" in
    snapshot) ;;
    asof_*) args=(--as-of "${kind#asof_}") ;;
    *) echo "skip $base (unknown kind)"; continue ;;
  esac
  [ "$mode" = parts ] && args+=(--merge-memory 0.0002) && base="$base (in key-hash partitions)"
  [ "$mode" = lazy ] && args+=(--merge-memory 0.003) && base="$base (lazy log records)"
  [ "$mode" = mdt ] && args+=(--metadata-table) && base="$base (files from the metadata table)"
  out="$tmp/out.parquet"
  if ! "$HOODIE" read "$FIX/tables/$table" "${args[@]}" --format parquet -o "$out" 2> "$tmp/err"; then
    echo "FAIL $base: hoodie read failed: $(cat "$tmp/err")"
    fail=$((fail + 1))
    continue
  fi
  if ! node "$SRC/tests/oracle/render_expected.mjs" "$out" "$exp" > "$tmp/got.csv" 2> "$tmp/err"; then
    echo "FAIL $base: rendering failed: $(head -c 400 "$tmp/err")"
    fail=$((fail + 1))
    continue
  fi
  if [ ! -s "$exp" ]; then
    if [ -s "$tmp/got.csv" ]; then echo "FAIL $base: $(cat "$tmp/got.csv")"; fail=$((fail + 1)); else pass=$((pass + 1)); fi
    continue
  fi
  if diff -q "$exp" "$tmp/got.csv" > /dev/null; then
    pass=$((pass + 1))
  else
    echo "FAIL $base:"
    diff "$exp" "$tmp/got.csv" | head -10
    fail=$((fail + 1))
  fi
done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
