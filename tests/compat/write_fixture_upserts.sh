#!/usr/bin/env bash
# Upserts into copies of the Spark-written copy-on-write fixtures (table versions 6 and 8, simple, complex and
# non-partitioned key generators, and a table without meta fields, whose keys come from the key fields). The rewrite keeps the column chunks no update changes (write/rgcopy.h): in the
# codec Spark used (gzip) those chunks are Spark's own pages, copied; in snappy every column is encoded again.
# Each case checks:
#   - hoodie reads the table as the rows before with every other id updated (intField + 1000, longField + 1);
#   - DuckDB reads the table's latest base files (their meta columns included; without meta fields, the data
#     columns) as hoodie reads the table;
#   - with gzip, the rewritten files share column chunks with the files they replace (hoodie parquet meta: the
#     unchanged columns keep their compressed size and encodings; intField and longField do not).
# Then upserts into the MOR fixtures with Parquet data blocks, written as Parquet blocks too (see below).
source "$(dirname "${BASH_SOURCE[0]}")/common/pq.bash"
pq_tmpdir write-fixture-upserts
T=$PQ_TMP
FIX=$HOODIE_FIXTURES/hudi/tables
duck() { node "$ORACLE/duck.mjs" --csv "$1"; }
META="_hoodie_commit_time, _hoodie_commit_seqno, _hoodie_record_key, _hoodie_partition_path, _hoodie_file_name"

# latest base files of a table, full paths (from `hoodie fsview --json`)
latest_files() {
    "$HOODIE" fsview "$1" --json | node -e '
        let s = ""; process.stdin.on("data", d => s += d).on("end", () => {
            const v = JSON.parse(s), out = [];
            for (const g of v.file_groups) {
                const sl = g.slices[g.slices.length - 1];
                if (sl.base_file) out.push(process.argv[1] + "/" + (g.partition ? g.partition + "/" : "") + sl.base_file);
            }
            console.log(out.map(p => "\x27" + p + "\x27").join(","));
        });' "$1"
}

# one line per chunk of a base file: "column compressed-size encodings"
chunks() { "$HOODIE" parquet meta "$1" | awk '/^  [A-Za-z_]+: [A-Z0-9_()]+ / { print $1, $6, $4 }'; }

# upsert_checked NAME TABLE WRITE-ARGS...: every other id updated (intField + 1000, longField + 1; the update rows
# left in $T/upd.parquet, the table read before and after in $T/before.parquet and $T/after.parquet), then the
# check that hoodie reads the upserted rows. Fails (reported) when a step fails.
upsert_checked() {
    local name=$1 t=$2
    shift 2
    "$HOODIE" read "$t" --format parquet -o "$T/before.parquet" 2> "$T/err" ||
        { pq_fail "$name: read before" "$(head -c 300 "$T/err")"; return 1; }
    duck "COPY (SELECT * EXCLUDE ($META) REPLACE (intField + 1000 AS intField, longField + 1 AS longField)
          FROM read_parquet('$T/before.parquet') WHERE id % 2 = 0) TO '$T/upd.parquet' (FORMAT parquet)" \
        > /dev/null 2> "$T/err" || { pq_fail "$name: DuckDB update file" "$(head -c 300 "$T/err")"; return 1; }
    pq_run "$T/out" "$T/err" "$HOODIE" write "$t" --op upsert --input "$T/upd.parquet" "$@"
    if [ "$PQ_RC" -ne 0 ]; then pq_fail "$name: upsert" "$(pq_why "$PQ_RC" "$T/err")"; return 1; fi
    "$HOODIE" read "$t" --format parquet -o "$T/after.parquet" 2> "$T/err" ||
        { pq_fail "$name: read after" "$(head -c 300 "$T/err")"; return 1; }
    local want got
    want=$(duck "SELECT * FROM (SELECT * EXCLUDE ($META) FROM read_parquet('$T/before.parquet') WHERE id % 2 <> 0
                 UNION ALL SELECT * FROM read_parquet('$T/upd.parquet')) ORDER BY id, name" 2>&1)
    got=$(duck "SELECT * EXCLUDE ($META) FROM read_parquet('$T/after.parquet') ORDER BY id, name" 2>&1)
    if [ -n "$want" ] && [ "$want" = "$got" ]; then pq_pass "$name: hoodie reads the upserted rows"
    else pq_fail "$name: hoodie reads the upserted rows" "want: $(echo "$want" | head -c 300)" "got: $(echo "$got" | head -c 300)"; fi
}

for f in cow_v6_complexkeygen_hivestyle cow_v6_nonpartitioned cow_v6_simplekeygen_nonhivestyle \
         cow_v8_complexkeygen_hivestyle cow_v8_nonpartitioned cow_v8_simplekeygen_nonhivestyle \
         cow_v6_simplekeygen_hivestyle_no_metafields; do
    cols='*'; case $f in *no_metafields) cols="* EXCLUDE ($META)" ;; esac
    for codec in gzip snappy; do
        name="$f ($codec)"
        t=$T/$f.$codec
        cp -r "$FIX/$f" "$t"
        before_files=$(latest_files "$t")
        upsert_checked "$name" "$t" --codec "$codec" || continue
        files=$(latest_files "$t")
        direct=$(duck "SELECT $cols FROM read_parquet([$files]) ORDER BY id, name" 2>&1)
        viaread=$(duck "SELECT $cols FROM read_parquet('$T/after.parquet') ORDER BY id, name" 2>&1)
        if [ -n "$direct" ] && [ "$direct" = "$viaread" ]; then pq_pass "$name: DuckDB reads the base files alike"
        else pq_fail "$name: DuckDB reads the base files alike" "direct: $(echo "$direct" | head -c 300)" "read: $(echo "$viaread" | head -c 300)"; fi
        [ "$codec" = gzip ] || continue
        # a rewritten file against the file it replaces: unchanged columns kept as they were stored
        new=$(echo "$files" | tr ',' '\n' | tr -d "'" | grep -v -F -f <(echo "$before_files" | tr ',' '\n' | tr -d "'") | head -1)
        if [ -z "$new" ]; then pq_fail "$name: a rewritten file" "no new base file"; continue; fi
        fid=$(basename "$new" | cut -d_ -f1)
        old=$(echo "$before_files" | tr ',' '\n' | tr -d "'" | grep -F "/$fid" | head -1)
        kept=$(join <(chunks "$old" | sort) <(chunks "$new" | sort) | awk '$2 == $4 && $3 == $5 { print $1 }' | tr -d ':' | sort | tr '\n' ' ')
        # with meta fields, every commit time changes (without, they stay null and their chunk is kept)
        if [[ " $kept " == *" intField "* || " $kept " == *" longField "* ]] ||
           { [ "$cols" = '*' ] && [[ " $kept " == *" _hoodie_commit_time "* ]]; }; then
            pq_fail "$name: kept chunks" "changed columns kept: $kept"
        elif [[ " $kept " == *" isActive "*" timestampField "* ]]; then pq_pass "$name: unchanged chunks kept:$kept"
        else pq_fail "$name: kept chunks" "kept only: $kept"; fi
    done
done

# The Spark-written MOR fixtures with Parquet data blocks: hoodie upserts into them with
# --log-block-format parquet --codec gzip (what Spark used). hoodie reads the upserted rows; the new log files hold
# Parquet data blocks (type 5) whose embedded files DuckDB reads as exactly the update rows, gzip-compressed.
blocks() { # LOGFILE OUTPREFIX: the PARQUET_DATA_BLOCKs' embedded files as OUTPREFIX.N.parquet; prints N
    node -e '
        const fs = require("fs"), d = fs.readFileSync(process.argv[1]);
        let pos = 0, n = 0;
        while (pos + 14 <= d.length && d.toString("latin1", pos, pos + 6) === "#HUDI#") {
            const size = Number(d.readBigInt64BE(pos + 6));
            let q = pos + 14;
            const type = d.readInt32BE(q + 4); q += 8;
            const count = d.readInt32BE(q); q += 4;
            for (let i = 0; i < count; i++) { const len = d.readInt32BE(q + 4); q += 8 + len; }
            const clen = Number(d.readBigInt64BE(q)); q += 8;
            if (type === 5) fs.writeFileSync(process.argv[2] + "." + (n++) + ".parquet", d.subarray(q, q + clen));
            pos += 14 + size;
        }
        console.log(n);' "$1" "$2"
}
for f in mor_parquet_v6_complexkeygen_hivestyle mor_parquet_v6_nonpartitioned mor_parquet_v6_simplekeygen_nonhivestyle; do
    name="$f (parquet log blocks)"
    t=$T/$f.mor
    cp -r "$FIX/$f" "$t"
    find "$t" -name '.*.log.*' | sort > "$T/logs.before"
    upsert_checked "$name" "$t" --log-block-format parquet --codec gzip || continue
    rm -f "$T"/blk.*.parquet
    k=0
    while read -r log; do
        n=$(blocks "$log" "$T/blk.$k") || n=0
        k=$((k + 1))
        [ "$n" -gt 0 ] || pq_fail "$name: a Parquet data block in $(basename "$log")" "none"
    done < <(find "$t" -name '.*.log.*' | sort | comm -13 "$T/logs.before" -)
    if [ "$k" -eq 0 ]; then pq_fail "$name: new log files" "none"; continue; fi
    inblocks=$(duck "SELECT * EXCLUDE ($META) FROM read_parquet('$T/blk.*.parquet') ORDER BY id, name" 2>&1)
    updates=$(duck "SELECT * FROM read_parquet('$T/upd.parquet') ORDER BY id, name" 2>&1)
    if [ -n "$updates" ] && [ "$inblocks" = "$updates" ]; then pq_pass "$name: DuckDB reads the blocks as the updates"
    else pq_fail "$name: DuckDB reads the blocks as the updates" "blocks: $(echo "$inblocks" | head -c 300)" "updates: $(echo "$updates" | head -c 300)"; fi
    nongzip=$(for b in "$T"/blk.*.parquet; do "$HOODIE" parquet meta "$b"; done | awk '/^  [A-Za-z_.]+: [A-Z0-9_()]+ / && $3 != "GZIP"' | head -3)
    if [ -z "$nongzip" ]; then pq_pass "$name: blocks compressed with gzip"
    else pq_fail "$name: blocks compressed with gzip" "$nongzip"; fi
done

# GLOBAL_BLOOM on a Spark-written table: Carol (id 3, partition 10) moved to partition 30 by a newer version
# (hoodie.bloom.index.update.partition.path=true, Hudi's default): deleted from 10's base file, inserted in 30's;
# with update.partition.path=false a partition value is ignored
t=$T/global_bloom
cp -r "$FIX/cow_v8_simplekeygen_nonhivestyle" "$t" && chmod -R u+w "$t"
"$HOODIE" read "$t" --format parquet -o "$T/gb_before.parquet"
duck "COPY (SELECT * EXCLUDE ($META) REPLACE (30 AS byteField, longField + 1 AS longField)
      FROM read_parquet('$T/gb_before.parquet') WHERE id = 3) TO '$T/gb.parquet' (FORMAT parquet)" > /dev/null
pq_run "$T/out" "$T/err" "$HOODIE" write "$t" --op upsert --input "$T/gb.parquet" --index global_bloom
if [ "$PQ_RC" -ne 0 ]; then pq_fail "global_bloom: upsert" "$(pq_why "$PQ_RC" "$T/err")"
else
    got=$("$HOODIE" read "$t" --columns id,_hoodie_partition_path,byteField --format csv | grep -c '^3,30,30$')
    all=$("$HOODIE" read "$t" --columns id --format csv | grep -c '^3$')
    if [ "$got" = 1 ] && [ "$all" = 1 ]; then pq_pass "global_bloom: the record moved"
    else pq_fail "global_bloom: the record moved" "$("$HOODIE" read "$t" --format csv 2>&1 | head -c 300)"; fi
    base=$(duck "SELECT _hoodie_partition_path, byteField FROM read_parquet([$(latest_files "$t")]) WHERE id = 3" 2>&1)
    [ "$base" = "$(printf '_hoodie_partition_path,byteField\n30,30')" ] && pq_pass "global_bloom: DuckDB reads it in 30 alone" ||
        pq_fail "global_bloom: DuckDB reads it in 30 alone" "$base"
fi
duck "COPY (SELECT * EXCLUDE ($META) REPLACE (20 AS byteField, longField + 1 AS longField)
      FROM read_parquet('$T/gb_before.parquet') WHERE id = 3) TO '$T/gb2.parquet' (FORMAT parquet)" > /dev/null
# (as GLOBAL_SIMPLE, whose own setting counts: the bloom index's is ignored)
printf 'hoodie.index.type=GLOBAL_SIMPLE\nhoodie.simple.index.update.partition.path=false\nhoodie.bloom.index.update.partition.path=true\n' > "$T/gs.props"
pq_run "$T/out" "$T/err" "$HOODIE" write "$t" --op upsert --input "$T/gb2.parquet" --props "$T/gs.props"
if [ "$PQ_RC" -ne 0 ]; then pq_fail "global_simple, update.partition.path=false: upsert" "$(pq_why "$PQ_RC" "$T/err")"
else
    got=$("$HOODIE" read "$t" --columns id,_hoodie_partition_path,byteField --format csv | grep '^3,')
    [ "$got" = "3,30,20" ] && pq_pass "global_simple, update.partition.path=false: updated where it is" ||
        pq_fail "global_simple, update.partition.path=false: updated where it is" "$got"
fi
pq_finish
