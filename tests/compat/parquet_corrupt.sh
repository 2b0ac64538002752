#!/usr/bin/env bash
# Corrupt input: truncated, spliced and bit-flipped copies of a few matrix files (tests/oracle/corrupt.mjs) go
# through `hoodie parquet cat --format jsonl` (which decodes every page) and `hoodie parquet meta --json`.
#   - never a crash: exit status >= 128 (a signal), a time-out or a sanitizer report is a failure;
#   - truncated and spliced copies must be rejected (non-zero exit) with a message that names the file and says
#     "offset";
#   - a flipped byte may leave the file valid (exit 0 is fine), and so may a spliced copy for `meta`, which need
#     not look past the footer; if rejected, the message must name the file.
# Ends with `N passed, M failed`.
set -uo pipefail
. "$(dirname "$0")/common/pq.bash"

pq_need_node
pq_tmpdir corrupt
pq_preflight_probe
if ! node "$ORACLE/gen_matrix.mjs" "$PQ_TMP/in" >/dev/null 2>"$PQ_TMP/gen.err"; then
    pq_fail "gen_matrix" "$(cat "$PQ_TMP/gen.err")"
    pq_finish
fi
sources=()
for b in types_snappy_v1 nested_zstd_v2 types_rows1 types_rg1 nested_plain_v1; do sources+=("$PQ_TMP/in/$b.parquet"); done
if ! node "$ORACLE/corrupt.mjs" "$PQ_TMP/bad" "${sources[@]}" >"$PQ_TMP/bad.tsv" 2>"$PQ_TMP/corrupt.err"; then
    pq_fail "corrupt.mjs" "$(cat "$PQ_TMP/corrupt.err")"
    pq_finish
fi
echo "corrupt: $(wc -l <"$PQ_TMP/bad.tsv") damaged copies of ${#sources[@]} files"

while IFS=$'\t' read -r path kind off what; do
    name=$(basename "$path")
    for cmd in "cat --format jsonl" "meta --json"; do
        # shellcheck disable=SC2086
        pq_run /dev/null "$PQ_TMP/err" "$HOODIE" parquet ${cmd%% *} "$path" ${cmd#* }
        label="$name ($kind at $off: $what) parquet $cmd"
        if [ "$PQ_RC" -eq 124 ]; then
            pq_fail "$label" "hang: $(pq_why "$PQ_RC" "$PQ_TMP/err")"
        elif pq_crashed "$PQ_RC" "$PQ_TMP/err"; then
            pq_fail "$label" "crash: $(pq_why "$PQ_RC" "$PQ_TMP/err")"
        elif [ "$PQ_RC" -eq 0 ]; then
            if [ "$kind" = flip ] || { [ "$kind" = splice ] && [ "${cmd%% *}" = meta ]; }; then pq_pass "$label: accepted"
            else pq_fail "$label" "accepted a damaged file (exit 0)"; fi
        elif ! grep -qF "$name" "$PQ_TMP/err"; then
            pq_fail "$label" "the error message does not name the file: $(head -c 300 "$PQ_TMP/err")"
        elif [ "$kind" != flip ] && ! grep -qi offset "$PQ_TMP/err"; then
            pq_fail "$label" "the error message does not give an offset: $(head -c 300 "$PQ_TMP/err")"
        else
            pq_pass "$label: rejected"
        fi
    done
done <"$PQ_TMP/bad.tsv"
pq_finish
