#!/usr/bin/env bash
# make bench: hoodie next to DuckDB (single-threaded), one line per case:
#   BENCH <case> hoodie_s=<s> duckdb_s=<s> ratio=<hoodie/duckdb> hoodie_rss_mb=<mb> duckdb_rss_mb=<mb>
# A case the hoodie side does not have yet (no bench_parquet in BUILD_DIR/bench, or it reports no such case)
# prints hoodie_s=NA. Both sides' results are checked against DuckDB's aggregates of the dataset (count, string
# lengths, sums); a mismatch is reported on the line (check=MISMATCH) and makes the exit status 1.
# Environment: BENCH_ROWS (default 10000000), BENCH_REPEAT (default 1: best of N runs per side and case; the Hudi
# write cases' upserts go each into a fresh copy of the bulk-inserted table; the LSM cases run once),
# BENCH_CASES (default: all; e.g. "parquet_scan bulk_insert": the write cases run together).
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
cases=${BENCH_CASES:-parquet_write parquet_scan bulk_insert cow_upsert mor_upsert lsm_compaction point_lookup mor_snapshot_read sql_aggregate csv_export jsonl_export compaction}
for case in parquet_write parquet_scan; do
    [[ " $cases " == *" $case "* ]] || continue
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

# ---- writing Hudi tables (hoodie write) next to DuckDB writing partitioned Parquet ----
#   bulk_insert  the dataset as CSV into a new COW table / DuckDB: CSV to Parquet partitioned by partition_path
#   cow_upsert   every 10th row updated plus ROWS/50 new rows (CSV) into the COW table / DuckDB: anti-join rewrite
#   mor_upsert   the same batch into a MOR table made by bulk_insert; ratio = hoodie mor / hoodie cow upsert time
#                (then mor_upsert_parquet_blocks: the same with Parquet data blocks in the log files)
# Checks: DuckDB's aggregates of the base files after bulk_insert, of `hoodie read` after the upserts.
hoodie=$build/hoodie
if ! [[ " $cases " == *" bulk_insert "* || " $cases " == *"_upsert "* ]]; then
    :
elif [ -x "$hoodie" ]; then
    mapfile -t csvs < <(duck csv "$data" "$rows")
    people=${csvs[0]} upsert=${csvs[1]} upsert_ref=${csvs[2]#upsert_check=}
    w=$data_dir/write_$$
    rm -rf "$w"; mkdir -p "$w"
    timed() { # OUT_VAR CMD...: runs CMD, sets OUT_VAR to "seconds rss_mb"
        local var=$1; shift
        /usr/bin/time -f "%e %M" -o "$w/time" "$@" > "$w/out" 2> "$w/err" || { cat "$w/err" >&2; return 1; }
        printf -v "$var" '%s %s' "$(cut -d' ' -f1 "$w/time")" "$(awk '{printf "%.1f", $2 / 1024}' "$w/time")"
    }
    keep_best() { # BEST_VAR RES: BEST_VAR becomes RES when it is empty or slower
        local -n b=$1
        if [ -z "$b" ] || awk "BEGIN{exit !(${2% *} < ${b% *})}"; then b=$2; fi
    }
    # upsert_best OUT_VAR TABLE INPUT [WRITE-OPTION...]: best of BENCH_REPEAT upserts, each into a fresh copy of
    # TABLE (the last copy is left as TABLE.run for the check)
    upsert_best() {
        local -n out=$1
        local r best=""
        out=""
        local t=$2 in=$3
        shift 3 # the rest: more write options
        for _ in $(seq "$repeat"); do
            rm -rf "$t.run"; cp -r "$t" "$t.run"
            sync # the copy's writeback is setup: not inside the timed upsert
            timed r "$hoodie" write "$t.run" --op upsert --input "$in" "$@" || return 1
            keep_best best "$r"
        done
        out=$best
    }
    mk() { "$hoodie" create "$1" --type "$2" --name "bench_$2" --record-key id --partition-fields partition_path \
             --hive-style --ordering-field ts > /dev/null; }
    hoodie_check() { "$hoodie" read "$1" --columns id,name,age,address,partition_path,ts --format parquet -o "$w/check.parquet" &&
                     field check "$(duck checksum "$w/check.parquet")"; rm -f "$w/check.parquet"; }
    line() { # CASE HOODIE_RES DUCK_LINE HCHECK REF [RATIO_BASE]
        local hs=${2% *} hr=${2#* } ds ratio check=ok
        ds=$(field duckdb_s "$3")
        if [ -n "${6:-}" ]; then ratio=$(awk "BEGIN{printf \"%.2f\", $hs / $6}"); else ratio=$(awk "BEGIN{printf \"%.2f\", $hs / $ds}"); fi
        if [ "$4" != "$5" ] || { [ -n "$3" ] && [ "$(field check "$3")" != "$5" ]; }; then
            check=MISMATCH status=1
            echo "bench: $1: expected check=$5, hoodie=$4 duckdb=$(field check "$3")" >&2
        fi
        echo "BENCH $1 hoodie_s=$hs duckdb_s=${ds:-NA} ratio=$ratio hoodie_rss_mb=$hr duckdb_rss_mb=$(field duckdb_rss_mb "$3")${6:+ ratio_of=hoodie_cow_upsert} check=$check"
    }
    # bulk_insert
    duck_best() { # CASE ARGS...: of BENCH_REPEAT DuckDB runs, the line with the smallest duckdb_s
        local b="" l
        for _ in $(seq "$repeat"); do
            l=$(duck run "$@") || return 1
            if [ -z "$b" ] || awk "BEGIN{exit !($(field duckdb_s "$l") < $(field duckdb_s "$b"))}"; then b=$l; fi
        done
        printf '%s\n' "$b"
    }
    d_line=$(duck_best bulk_insert "$people" "$w/duck_table")
    h_res="" ok=1
    for _ in $(seq "$repeat"); do # best of BENCH_REPEAT, each into a new table (the last one is kept)
        rm -rf "$w/cow"; mk "$w/cow" cow
        timed r "$hoodie" write "$w/cow" --op bulk_insert --input "$people" || { ok=0; break; }
        keep_best h_res "$r"
    done
    if [ "$ok" = 1 ]; then
        h_check=$(field check "$(duck checksum-dir "$w/cow")")
        line bulk_insert "$h_res" "$d_line" "$h_check" "$ref"
    else status=1; fi
    # cow_upsert
    d_line=$(duck_best cow_upsert "$w/duck_table" "$upsert" "$w/duck_up")
    rm -rf "$w/duck_table"
    if [ "$ok" = 1 ] && upsert_best cow_res "$w/cow" "$upsert"; then
        line cow_upsert "$cow_res" "$d_line" "$(hoodie_check "$w/cow.run")" "$upsert_ref"
    else status=1; fi
    rm -rf "$w/cow" "$w/cow.run"
    # mor_upsert (the MOR table's bulk_insert is not timed)
    mk "$w/mor" mor
    "$hoodie" write "$w/mor" --op bulk_insert --input "$people" > /dev/null
    if [ -n "${cow_res:-}" ] && upsert_best mor_res "$w/mor" "$upsert"; then
        line mor_upsert "$mor_res" "$d_line" "$(hoodie_check "$w/mor.run")" "$upsert_ref" "${cow_res% *}"
    else status=1; fi
    # mor_upsert_parquet_blocks: the same, log records as Parquet data blocks (--log-block-format parquet)
    if [ -n "${cow_res:-}" ] && upsert_best morp_res "$w/mor" "$upsert" --log-block-format parquet; then
        line mor_upsert_parquet_blocks "$morp_res" "$d_line" "$(hoodie_check "$w/mor.run")" "$upsert_ref" "${cow_res% *}"
    else status=1; fi
    rm -rf "$w"
else
    echo "bench: no $hoodie: bulk_insert, cow_upsert, mor_upsert hoodie_s=NA"
fi

# LSM cases (bench_lsm.c): one file group, a base of LSM_ROWS rows and 10 sorted logs of LSM_ROWS/10 rows.
#   lsm_compaction  FULL compaction (loser-tree sorted merge + streaming base-file writer) next to DuckDB's
#                   UNION ALL + row_number() + ORDER BY + COPY; also loser-tree vs binary-heap comparisons per record
#   point_lookup    one key in the compacted file (LSM_ROWS rows), time inside the process, best of 5 both sides
lsm_bench=$build/bench/bench_lsm
lsm_rows=${BENCH_LSM_ROWS:-$rows}
lsm_logs=10
lsm_dir=$data_dir/lsm_v2_${lsm_rows}   # v2: files with a page index (pages of <= ~20,000 rows)
if ! [[ " $cases " == *" lsm_compaction "* || " $cases " == *" point_lookup "* ]]; then
    :
elif [ -x "$lsm_bench" ]; then
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
# MOR cases (default layout): one file group of a non-partitioned MOR table (record key id, ordering field ts),
# cached as bench/data/mor_v1_<rows>/table: a bulk_insert of the dataset (one base file), then 5 upserts of
# about ROWS/10 updated rows each (duck_bench.mjs mor-data: upd_<j>.parquet; some keys in several batches, ts
# offsets such that event-time ordering matters), each an Avro data block in a log file.
#   mor_snapshot_read  snapshot query (bench_parquet table_scan) / DuckDB: base + updates, newest per key, aggregated
#   sql_aggregate      the same aggregate as SQL over the table through the SQLite virtual table (hoodie sql, the
#                      whole process) / DuckDB's mor_snapshot_read: SQLite executes row at a time
#   csv_export         hoodie read of the table to CSV (the whole process; checked through DuckDB's read_csv) /
#                      DuckDB: the same merge COPY'd to CSV
#   jsonl_export       the same to JSON lines (checked through DuckDB's read_json) / DuckDB: COPY ... (FORMAT json)
#   compaction         schedule + run on a copy of the table (bench_parquet compaction) / DuckDB: the same merge
#                      written to Parquet; the new base file is checked through DuckDB
mor_dir=$data_dir/mor_v1_$rows
if ! [[ " $cases " == *" mor_snapshot_read "* || " $cases " == *" compaction "* || " $cases " == *" sql_aggregate "* ||
        " $cases " == *" csv_export "* || " $cases " == *" jsonl_export "* ]]; then
    :
elif [ -x "$hoodie" ] && [ -x "$hoodie_bench" ]; then
    if [ ! -f "$mor_dir/built" ]; then
        duck mor-data "$data" "$mor_dir" > /dev/null
        rm -rf "$mor_dir/table" "$mor_dir/table.tmp"
        "$hoodie" create "$mor_dir/table.tmp" --type mor --name bench_mor --record-key id --ordering-field ts > /dev/null
        "$hoodie" write "$mor_dir/table.tmp" --op bulk_insert --input "$data" --max-file-size 1000000000000 > /dev/null
        for j in 1 2 3 4 5; do "$hoodie" write "$mor_dir/table.tmp" --op upsert --input "$mor_dir/upd_$j.parquet" > /dev/null; done
        mv "$mor_dir/table.tmp" "$mor_dir/table"
        touch "$mor_dir/built"
    fi
    mor_line() { # CASE HOODIE_LINE HOODIE_CHECK DUCK_LINE
        local ht dt check=ok
        ht=$(field hoodie_s "$2") dt=$(field duckdb_s "$4")
        [ -n "$3" ] && [ "$3" = "$(field check "$4")" ] || { check=MISMATCH status=1; echo "bench: $1: hoodie=$3 duckdb=$(field check "$4")" >&2; }
        [ -n "$ht" ] || ht=NA
        echo "BENCH $1 hoodie_s=$ht duckdb_s=$dt ratio=$( [ "$ht" = NA ] && echo NA || awk "BEGIN{printf \"%.2f\", $ht / $dt}")" \
             "hoodie_rss_mb=$(field hoodie_rss_mb "$2") duckdb_rss_mb=$(field duckdb_rss_mb "$4") check=$check"
    }
    best() { # FIELD CMD...: of BENCH_REPEAT runs of CMD, the output line with the smallest FIELD
        local f=$1 b="" l; shift
        for _ in $(seq "$repeat"); do
            l=$("$@") || return 1
            if [ -z "$b" ] || awk "BEGIN{exit !($(field "$f" "$l") < $(field "$f" "$b"))}"; then b=$l; fi
        done
        printf '%s\n' "$b"
    }
    compact_once() { # on a fresh copy of the table; the line gets the check of the new base file (DuckDB's reading)
        local w=$data_dir/compaction_$$ l
        rm -rf "$w"; cp -r "$mor_dir/table" "$w"
        l=$("$hoodie_bench" compaction "$w") || { rm -rf "$w"; return 1; }
        echo "$l fcheck=$(field check "$(duck checksum "$(ls "$w"/*_"$(field instant "$l")".parquet)")")"
        rm -rf "$w"
    }
    if [[ " $cases " == *" mor_snapshot_read "* ]]; then
        h=$(best hoodie_s "$hoodie_bench" table_scan "$mor_dir/table") || { h=""; status=1; }
        d=$(best duckdb_s duck run mor_snapshot_read "$mor_dir")
        mor_line mor_snapshot_read "$h" "$(field check "$h")" "$d"
    fi
    if [[ " $cases " == *" sql_aggregate "* ]]; then
        sql_once() { # hoodie sql over the table: the process's wall time and peak RSS
            # sum(ts) passes 2^63 (SQLite's sum() fails with 'integer overflow'; DuckDB sums into 128 bits): the
            # billions and the rest are summed apart and put together as text (ts >= 0)
            local q="SELECT count(*) || ',' || sum(length(id)) || ',' || sum(length(name)) || ',' || sum(age) || ',' ||
                     sum(length(address)) || ',' || sum(length(partition_path)) || ',' ||
                     (sum(ts / 1000000000) + sum(ts % 1000000000) / 1000000000) ||
                     printf('%09d', sum(ts % 1000000000) % 1000000000) AS c FROM t"
            local t0 t1 out rss=NA
            t0=$(date +%s.%N)
            if [ -x /usr/bin/time ]; then
                out=$(/usr/bin/time -f 'rss_kb=%M' -o "$data_dir/sql_time_$$" "$hoodie" sql t="$mor_dir/table" "$q") ||
                    return 1
                rss=$(awk -F= '/rss_kb/ { printf "%.1f", $2 / 1024 }' "$data_dir/sql_time_$$")
                rm -f "$data_dir/sql_time_$$"
            else
                out=$("$hoodie" sql t="$mor_dir/table" "$q") || return 1
            fi
            t1=$(date +%s.%N)
            echo "hoodie_s=$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") hoodie_rss_mb=$rss check=$(tail -1 <<<"$out" | tr -d '"')"
        }
        h=$(best hoodie_s sql_once) || { h=""; status=1; }
        d=$(best duckdb_s duck run mor_snapshot_read "$mor_dir")
        mor_line sql_aggregate "$h" "$(field check "$h")" "$d"
    fi
    export_once() { # FORMAT: hoodie read of the table (the MOR merge) to csv or jsonl: wall time, peak RSS, DuckDB's checksum of it
        local out=$data_dir/hoodie_export_$$.$1 t0 t1 rss=NA
        t0=$(date +%s.%N)
        /usr/bin/time -f 'rss_kb=%M' -o "$data_dir/export_time_$$" "$hoodie" read "$mor_dir/table" \
            --columns id,name,age,address,partition_path,ts --format "$1" -o "$out" || return 1
        t1=$(date +%s.%N)
        rss=$(awk -F= '/rss_kb/ { printf "%.1f", $2 / 1024 }' "$data_dir/export_time_$$")
        echo "hoodie_s=$(awk "BEGIN{printf \"%.3f\", $t1 - $t0}") hoodie_rss_mb=$rss $(duck "checksum-$1" "$out")"
        rm -f "$out" "$data_dir/export_time_$$"
    }
    for fmt in csv jsonl; do
        if [[ " $cases " == *" ${fmt}_export "* ]]; then
            h=$(best hoodie_s export_once "$fmt") || { h=""; status=1; }
            d=$(best duckdb_s duck run "${fmt}_export" "$mor_dir")
            mor_line "${fmt}_export" "$h" "$(field check "$h")" "$d"
        fi
    done
    if [[ " $cases " == *" compaction "* ]]; then
        d=$(best duckdb_s duck run compaction "$mor_dir")
        h=$(best hoodie_s compact_once) || { h=""; status=1; }
        mor_line compaction "$h" "$(field fcheck "$h")" "$d"
    fi
else
    echo "bench: no $hoodie or $hoodie_bench: mor_snapshot_read and compaction skipped"
fi
exit $status
