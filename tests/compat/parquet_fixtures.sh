#!/usr/bin/env bash
# Real-world Parquet: every *.parquet under $HOODIE_FIXTURES/hudi (base files of Hudi tables written by Spark, and
# standalone files) goes through `hoodie parquet cat F --format parquet -o OUT`, and DuckDB must read the same
# schema and rows from OUT as from F (tests/oracle/pqcompare semantics). A file that is not Parquet at all (no PAR1
# magic at both ends, e.g. the empty stubs of the timeline fixtures) must be rejected: non-zero exit, no crash.
# Ends with `N passed, M failed`.
set -uo pipefail
. "$(dirname "$0")/common/pq.bash"

pq_need_node
pq_tmpdir fixtures
root=$HOODIE_FIXTURES/hudi
if [ ! -d "$root" ]; then
    pq_fail "setup" "no fixtures folder $root (set HOODIE_FIXTURES)"
    pq_finish
fi
mapfile -t files < <(cd "$root" && find . -name '*.parquet' -type f | sed 's|^\./||' | LC_ALL=C sort)
if [ ${#files[@]} -eq 0 ]; then
    pq_fail "setup" "no *.parquet under $root"
    pq_finish
fi
echo "fixtures: ${#files[@]} Parquet files under $root"
for rel in "${files[@]}"; do
    [ "$(head -c 4 "$root/$rel")" = PAR1 ] && { pq_preflight "$root/$rel"; break; }
done

manifest=$PQ_TMP/manifest.tsv
: >"$manifest"
is_parquet() { [ "$(head -c 4 "$1")" = PAR1 ] && [ "$(tail -c 4 "$1")" = PAR1 ] && [ "$(stat -c %s "$1")" -ge 12 ]; }
n=0
for rel in "${files[@]}"; do
    n=$((n + 1))
    o=$PQ_TMP/$n.parquet
    if ! is_parquet "$root/$rel"; then
        pq_run /dev/null "$PQ_TMP/err" "$HOODIE" parquet cat "$root/$rel" --format parquet -o "$o"
        if [ "$PQ_RC" -eq 0 ] || [ "$PQ_RC" -eq 124 ] || pq_crashed "$PQ_RC" "$PQ_TMP/err"; then
            pq_fail "$rel (not Parquet: must be rejected)" "$(pq_why "$PQ_RC" "$PQ_TMP/err")"
        elif ! grep -qF "$(basename "$rel")" "$PQ_TMP/err"; then
            pq_fail "$rel (not Parquet: rejected, but the message does not name the file)" "$(head -c 400 "$PQ_TMP/err")"
        else
            pq_pass "$rel (not Parquet: rejected)"
        fi
        continue
    fi
    pq_run /dev/null "$PQ_TMP/err" "$HOODIE" parquet cat "$root/$rel" --format parquet -o "$o"
    if [ "$PQ_RC" -eq 0 ] && ! pq_crashed 0 "$PQ_TMP/err"; then
        printf '%s\troundtrip\t%s\t%s\n' "$rel" "$root/$rel" "$o" >>"$manifest"
    else
        pq_fail "$rel" "hoodie parquet cat --format parquet: $(pq_why "$PQ_RC" "$PQ_TMP/err")"
    fi
done
pq_checks "$manifest"
pq_finish
