#!/usr/bin/env bash
# make bench: hoodie next to DuckDB (single-threaded), one line per case:
#   BENCH <case> hoodie_s=<s> duckdb_s=<s> ratio=<hoodie/duckdb> hoodie_rss_mb=<mb> duckdb_rss_mb=<mb>
# A case the hoodie side does not have yet (no bench_parquet in BUILD_DIR/bench, or it reports no such case)
# prints hoodie_s=NA. Both sides' results are checked against DuckDB's aggregates of the dataset (count, string
# lengths, sums); a mismatch is reported on the line (check=MISMATCH) and makes the exit status 1.
# Environment: BENCH_ROWS (default 10000000), BENCH_REPEAT (default 1: best of N runs per side and case).
# Dataset: bench/bench_gen.h (= duck_bench.mjs datasetSql), cached as bench/data/people_<rows>.parquet.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
build=${1:-$here/../build}
rows=${BENCH_ROWS:-10000000}
repeat=${BENCH_REPEAT:-1}
data_dir=$here/data
hoodie_bench=$build/bench/bench_parquet
duck() { node "$here/duck_bench.mjs" "$@"; }
field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }   # field NAME LINE

mkdir -p "$data_dir"
echo "bench: dataset of $rows rows (cached in $data_dir)"
data=$(duck data "$data_dir" "$rows")
ref=$(field check "$(duck checksum "$data")")
[ -x "$hoodie_bench" ] || echo "bench: no $hoodie_bench (the Parquet reader/writer are not built yet): hoodie_s=NA"

status=0
for case in parquet_write parquet_scan; do
    best_d="" d_rss="" d_check=""
    for _ in $(seq "$repeat"); do
        line=$(duck run "$case" "$data")
        t=$(field duckdb_s "$line")
        if [ -z "$best_d" ] || awk "BEGIN{exit !($t < $best_d)}"; then best_d=$t; fi
        d_rss=$(field duckdb_rss_mb "$line"); d_check=$(field check "$line")
    done
    best_h=NA h_rss=NA h_check=""
    if [ -x "$hoodie_bench" ]; then
        for _ in $(seq "$repeat"); do
            out=$data_dir/hoodie_write_$$.parquet
            rc=0
            case $case in
                parquet_write) line=$("$hoodie_bench" parquet_write "$out" "$rows") || rc=$? ;;
                parquet_scan) line=$("$hoodie_bench" parquet_scan "$data") || rc=$? ;;
            esac
            if [ "$rc" -eq 3 ]; then break; fi            # no such case on the hoodie side
            if [ "$rc" -ne 0 ]; then echo "bench: $case: bench_parquet failed (exit $rc)" >&2; status=1; break; fi
            t=$(field hoodie_s "$line")
            if [ "$best_h" = NA ] || awk "BEGIN{exit !($t < $best_h)}"; then best_h=$t; fi
            h_rss=$(field hoodie_rss_mb "$line")
            h_check=$(field check "$line")
            # What hoodie wrote must read back in DuckDB as the dataset.
            if [ "$case" = parquet_write ]; then
                h_check=$(field check "$(duck checksum "$out" 2>&1 || true)")
                rm -f "$out"
            fi
        done
    fi
    ratio=NA
    [ "$best_h" != NA ] && ratio=$(awk "BEGIN{printf \"%.2f\", $best_h / $best_d}")
    check=ok
    if [ "$d_check" != "$ref" ] || { [ "$best_h" != NA ] && [ "$h_check" != "$ref" ]; }; then
        check=MISMATCH status=1
        echo "bench: $case: expected check=$ref, duckdb=$d_check hoodie=${h_check:-none}" >&2
    fi
    echo "BENCH $case hoodie_s=$best_h duckdb_s=$best_d ratio=$ratio hoodie_rss_mb=$h_rss duckdb_rss_mb=$d_rss check=$check"
done

# LSM cases (bench_lsm.c): one file group, a base of LSM_ROWS rows and 10 sorted logs of LSM_ROWS/10 rows.
#   lsm_compaction  FULL compaction (loser-tree sorted merge + streaming base-file writer) next to DuckDB's
#                   UNION ALL + row_number() + ORDER BY + COPY; also loser-tree vs binary-heap comparisons per record
#   point_lookup    one key in the compacted file (LSM_ROWS rows), time inside the process, best of 5 both sides
lsm_bench=$build/bench/bench_lsm
lsm_rows=${BENCH_LSM_ROWS:-$rows}
lsm_logs=10
lsm_dir=$data_dir/lsm_v1_${lsm_rows}
if [ -x "$lsm_bench" ]; then
    mkdir -p "$lsm_dir"
    [ -f "$lsm_dir/log_$lsm_logs.parquet" ] ||
        "$lsm_bench" build "$lsm_dir" "$lsm_rows" "$lsm_logs" $((lsm_rows / lsm_logs)) >/dev/null
    hout=$lsm_dir/hoodie_compacted.parquet
    h=$("$lsm_bench" compact "$lsm_dir" "$hout")
    heap=$("$lsm_bench" heap "$lsm_dir")
    d=$(duck run lsm_compaction "$lsm_dir")
    h_check=$(field check "$(duck checksum "$hout")")
    d_check=$(field check "$d")
    check=ok
    [ "$h_check" = "$d_check" ] || { check=MISMATCH status=1; echo "bench: lsm_compaction: hoodie=$h_check duckdb=$d_check" >&2; }
    ht=$(field hoodie_s "$h") dt=$(field duckdb_s "$d")
    echo "BENCH lsm_compaction hoodie_s=$ht duckdb_s=$dt ratio=$(awk "BEGIN{printf \"%.2f\", $ht / $dt}")" \
         "hoodie_rss_mb=$(field hoodie_rss_mb "$h") duckdb_rss_mb=$(field duckdb_rss_mb "$d") check=$check" \
         "lt_cmp_per_rec=$(field lt_cmp_per_rec "$h") heap_cmp_per_rec=$(field heap_cmp_per_rec "$heap")"
    key=$(printf '%08d' $((lsm_rows / 2 + 7)))
    h=$("$lsm_bench" lookup "$hout" "$key" 5)
    d=$(duck run point_lookup "$hout" "$key")
    ht=$(awk "BEGIN{printf \"%.6f\", $(field hoodie_ms "$h") / 1000}") dt=$(field duckdb_s "$d")
    check=ok
    [ "$(field found "$h"),$(field ts "$h")" = "$(field check "$d")" ] || { check=MISMATCH status=1; echo "bench: point_lookup: hoodie=$h duckdb=$d" >&2; }
    echo "BENCH point_lookup hoodie_s=$ht duckdb_s=$dt ratio=$(awk "BEGIN{printf \"%.2f\", $ht / $dt}")" \
         "hoodie_rss_mb=$(field hoodie_rss_mb "$h") duckdb_rss_mb=$(field duckdb_rss_mb "$d") check=$check" \
         "hoodie_ms=$(field hoodie_ms "$h")"
    rm -f "$hout"
else
    echo "bench: no $lsm_bench: lsm_compaction and point_lookup skipped"
fi
exit $status
