#!/usr/bin/env bash
# Parquet conformance against DuckDB: every file of the DuckDB-written matrix (tests/oracle/gen_matrix.mjs: every
# type, nulls, nested types, every codec, page v1/v2, dictionary/plain, row-group sizes, 0/1/10000 rows) goes through
#   hoodie parquet schema F                          succeeds, mentions every column
#   hoodie parquet meta F --json                     valid JSON, num_rows (and row groups) as DuckDB reads them
#   hoodie parquet cat F --format parquet -o OUT     DuckDB reads the same schema and rows from OUT as from F
#   hoodie parquet cat F --columns ... --format parquet -o OUT   = DuckDB's SELECT of those columns
#   hoodie parquet cat F --format csv | jsonl        one record per row
# and, on a subset, `--codec snappy|zstd|gzip|none` (OUT uses that codec, same rows) and hoodie reading
# its own output back. Ends with `N passed, M failed`; exit status non-zero on any failure.
set -uo pipefail
. "$(dirname "$0")/common/pq.bash"

pq_need_node
pq_tmpdir matrix
pq_preflight_probe
in=$PQ_TMP/in out=$PQ_TMP/out manifest=$PQ_TMP/manifest.tsv
mkdir -p "$out"
: >"$manifest"

if ! node "$ORACLE/gen_matrix.mjs" "$in" >"$PQ_TMP/files.txt" 2>"$PQ_TMP/gen.err"; then
    pq_fail "gen_matrix" "$(cat "$PQ_TMP/gen.err")"
    pq_finish
fi
mapfile -t files <"$PQ_TMP/files.txt"
echo "matrix: ${#files[@]} files from DuckDB in $in"

# Projection per table shape: top-level columns out of file order, dotted paths into structs.
columns_for() {
    case "$(basename "$1")" in
        types_big*) echo "c_varchar,row_id" ;;
        types_*) echo "c_varchar,row_id,c_dec38_10,c_timestamp_ns,c_uuid" ;;
        nested_*) echo "row_id,l_st,st.b,deep.inner.w,m_st" ;;
    esac
}

# cli LABEL STDOUT_FILE ARGS...: run hoodie; on success return 0, else record the failure and return 1.
cli() {
    local label=$1 stdout=$2
    shift 2
    pq_run "$stdout" "$PQ_TMP/last.err" "$HOODIE" "$@"
    if [ "$PQ_RC" -eq 0 ] && ! pq_crashed 0 "$PQ_TMP/last.err"; then return 0; fi
    pq_fail "$label" "hoodie $*" "$(pq_why "$PQ_RC" "$PQ_TMP/last.err")"
    return 1
}
add() { local IFS=$'\t'; echo "$*" >>"$manifest"; }

for f in "${files[@]}"; do
    b=$(basename "$f" .parquet)
    cli "$b schema" "$out/$b.schema.txt" parquet schema "$f" && add "$b schema" schema "$f" "$out/$b.schema.txt"
    cli "$b meta --json" "$out/$b.meta.json" parquet meta "$f" --json && add "$b meta --json" meta "$f" "$out/$b.meta.json"
    cli "$b cat --format parquet" /dev/null parquet cat "$f" --format parquet -o "$out/$b.rt.parquet" &&
        add "$b cat --format parquet" roundtrip "$f" "$out/$b.rt.parquet"
    cols=$(columns_for "$f")
    cli "$b cat --columns $cols" /dev/null parquet cat "$f" --columns "$cols" --format parquet -o "$out/$b.proj.parquet" &&
        add "$b cat --columns $cols" project "$f" "$out/$b.proj.parquet" "$cols"
    cli "$b cat --format csv" "$out/$b.csv" parquet cat "$f" --format csv && add "$b cat --format csv" csv "$f" "$out/$b.csv"
    cli "$b cat --format jsonl" "$out/$b.jsonl" parquet cat "$f" --format jsonl && add "$b cat --format jsonl" jsonl "$f" "$out/$b.jsonl"
done

# Every output codec on a subset; then hoodie reads its own output again.
for b in types_snappy_v1 nested_zstd_v2 types_rg1000_v2 nested_dict_v1 types_rows0; do
    f=$in/$b.parquet
    for c in snappy zstd gzip none; do
        o=$out/$b.codec_$c.parquet
        if cli "$b cat --codec $c" /dev/null parquet cat "$f" --format parquet --codec "$c" -o "$o"; then
            add "$b cat --codec $c: rows" roundtrip "$f" "$o"
            add "$b cat --codec $c: codec" codec "$o" "$c"
            cli "$b hoodie re-reads its $c output" /dev/null parquet cat "$o" --format parquet -o "$o.again.parquet" &&
                add "$b hoodie re-reads its $c output" roundtrip "$f" "$o.again.parquet"
        fi
    done
done

pq_checks "$manifest"
pq_finish
