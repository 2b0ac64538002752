#!/usr/bin/env bash
# The benchmark dataset is generated twice, in C (bench/bench_gen.c, for hoodie's side) and in SQL
# (bench/duck_bench.mjs, for DuckDB's side); both must give the same rows. Checks a slice at the start and one at
# the end of the 10M rows. Ends with `N passed, M failed`.
set -uo pipefail
. "$(dirname "$0")/common/pq.bash"
pq_need_node
pq_tmpdir benchgen
gen=$HOODIE_BUILD/bench/bench_gen
if [ ! -x "$gen" ]; then
    pq_fail "setup" "no $gen (configure with -DHOODIE_BUILD_BENCH=ON)"
    pq_finish
fi
for slice in "0 20000" "9980000 20000"; do
    set -- $slice
    if "$gen" "$1" "$2" >"$PQ_TMP/rows.tsv" && out=$(node "$HOODIE_SRC/bench/duck_bench.mjs" verify-gen "$PQ_TMP/rows.tsv" "$1" "$2"); then
        pq_pass "bench_gen rows $1.. (+$2) = DuckDB's"
    else
        pq_fail "bench_gen rows $1.. (+$2) = DuckDB's" "$out"
    fi
done
pq_finish
