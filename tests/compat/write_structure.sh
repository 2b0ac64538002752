#!/usr/bin/env bash
# Tables hoodie writes have the structure of the Spark-written fixtures:
#   base files   DuckDB reads each with the meta columns; the footer has parquet.avro.schema, the bloom filter
#                (it says yes to every key, and is byte for byte the filter Java builds from the keys) and the
#                min/max record keys (tests/oracle/basefile_check.mjs, first checked against the fixtures' files)
#   timeline     instant files named as in the v6 and v8 fixtures and encoded alike (tests/oracle/timeline_shape.mjs)
# (the v8 commit files are decoded with libavro in tests/unit/write/writer.c)
set -u
HOODIE=${HOODIE:-build/hoodie}
SRC=${HOODIE_SRC:-.}
FIX=${HOODIE_FIXTURES:-../shared/fixtures}/hudi/tables
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
count() { # read ok/FAIL lines
  local line
  while read -r line; do
    case "$line" in
      ok*) pass=$((pass + 1)) ;;
      FAIL*) echo "$line" | cut -c1-600; fail=$((fail + 1)) ;;
      *) echo "$line" | cut -c1-600; fail=$((fail + 1)) ;;
    esac
  done
}

# the checker itself, on base files Spark wrote (COW tables carry the Avro schema in the footer)
fixture_files=$(find "$FIX"/cow_v8_complexkeygen_hivestyle "$FIX"/cow_v6_simplekeygen_nonhivestyle \
                     "$FIX"/cow_v8_nonpartitioned "$FIX"/cow_v6_complexkeygen_hivestyle -name '*.parquet' -not -path '*/.hoodie/*')
count < <(node "$SRC/tests/oracle/basefile_check.mjs" $fixture_files 2>&1)

if ! node "$SRC/tests/oracle/write_seq.mjs" gen "$tmp" 2> "$tmp/err"; then
  echo "FAIL generating the inputs: $(head -c 400 "$tmp/err")"; fail=$((fail + 1))
fi
tables=()
for type in cow mor; do
  for ver in 8 6; do
    t="$tmp/${type}_v$ver"
    if ! "$HOODIE" create "$t" --type "$type" --table-version "$ver" --name "${type}_v$ver" --ordering-field ts \
         --record-key id --partition-fields city > /dev/null 2> "$tmp/err"; then
      echo "FAIL create $t: $(cat "$tmp/err")"; fail=$((fail + 1)); continue
    fi
    ok=1
    for step in "bulk_insert s1.csv" "upsert s2.csv" "delete s3.csv" "insert_overwrite s4.csv" "upsert s5.csv"; do
      set -- $step
      if ! "$HOODIE" write "$t" --op "$1" --input "$tmp/$2" > /dev/null 2> "$tmp/err"; then
        echo "FAIL $t: write $1: $(cat "$tmp/err")"; fail=$((fail + 1)); ok=0; break
      fi
    done
    [ "$ok" = 1 ] && tables+=("$t")
  done
done
ours=$(find "${tables[@]}" -name '*.parquet' -not -path '*/.hoodie/*')
if [ -z "$ours" ]; then echo "FAIL no base files written"; fail=$((fail + 1)); fi
count < <(node "$SRC/tests/oracle/basefile_check.mjs" $ours 2>&1)
count < <(node "$SRC/tests/oracle/timeline_shape.mjs" "$FIX"/* -- "${tables[@]}" 2>&1)
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
