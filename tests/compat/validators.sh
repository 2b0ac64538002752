#!/usr/bin/env bash
# Pre-commit validators (Hudi's hoodie.precommit.validators) on hoodie write: for COW and MOR tables of versions 8
# and 6, a write whose check holds commits; one whose check fails exits 5 with the query and the values, is rolled
# back (a completed rollback, no pending instant, no file of it left) and the table reads as before; the queries
# see the table after the write (MOR log files merged) and before it, restricted to the partitions it touched;
# --props reads Hudi's keys; bad configurations are usage errors. Then a Spark-written fixture table (a copy).
set -u
HOODIE=${HOODIE:-build/hoodie}
FIX=${HOODIE_FIXTURES:-../shared/fixtures}/hudi/tables
source "$(dirname "${BASH_SOURCE[0]}")/common/check.bash"

rows() { "$HOODIE" read "$1" --columns id,name,age,city,ts --format csv 2> /dev/null | tail -n +2 | sort; }
# refused NAME TABLE WRITE-ARGS...: exit 5, the table reads as before, a completed rollback, nothing pending or left
refused() {
    local name=$1 t=$2
    shift 2
    local before inst
    before=$(rows "$t")
    run "$name" 5 "$HOODIE" write "$t" "$@"
    grep -q "pre-commit check refused" "$tmp/err" && ok || bad "$name: message: $(cat "$tmp/err")"
    grep -q "(rolled back)" "$tmp/err" && ok || bad "$name: not rolled back: $(cat "$tmp/err")"
    check_eq "$name: rows unchanged" "$before" "$(rows "$t")"
    check_eq "$name: last instant" "rollback completed" "$("$HOODIE" timeline "$t" | tail -1 | awk '{ print $2, $3 }')"
    check_eq "$name: nothing pending" 0 "$("$HOODIE" timeline "$t" | tail -n +2 | grep -vc completed)"
    inst=$(sed -n 's/.*refused [A-Z_]* \([0-9]*\):.*/\1/p' "$tmp/err")
    [ -n "$inst" ] && check_eq "$name: files of $inst" "" "$(find "$t" -name "*$inst*")"
}

printf 'id,name,age,city,ts\n1,a,10,paris,1\n2,b,20,rome,1\n3,c,30,paris,1\n4,,40,oslo,1\n' > "$tmp/base.csv"
printf 'id,name,age,city,ts\n1,a2,11,paris,2\n5,e,50,paris,2\n' > "$tmp/up.csv"           # paris only
printf 'id,name,age,city,ts\n3,,31,paris,3\n' > "$tmp/nullname.csv"                       # a null name in paris
printf 'id,name,age,city,ts\n2,b,-1,rome,4\n' > "$tmp/negative.csv"

for ty in cow mor; do
    for v in 8 6; do
        t=$tmp/${ty}_v$v
        "$HOODIE" create "$t" --type "$ty" --name "v_$ty" --record-key id --partition-fields city --hive-style \
            --ordering-field ts --table-version "$v" > /dev/null || bad "create $t"
        # a bulk insert is validated too (Hudi skips it): oslo's null name fails a whole-table check
        refused "$ty v$v bulk_insert" "$t" --op bulk_insert --input "$tmp/base.csv" \
            --validate-single-value "select count(*) from <TABLE_NAME> where name is null#0"
        run "$ty v$v bulk_insert ok" 0 "$HOODIE" write "$t" --op bulk_insert --input "$tmp/base.csv" \
            --validate-single-value "select count(*) from <TABLE_NAME>#4"
        # passes: the upsert touches paris only, so oslo's null name is not in <TABLE_NAME>; the count is after
        run "$ty v$v single value" 0 "$HOODIE" write "$t" --op upsert --input "$tmp/up.csv" \
            --validate-single-value "select count(*) from <TABLE_NAME> where name is null#0;
                                     select count(*) from <TABLE_NAME>#3" \
            --validate-equality "select count(*) from <TABLE_NAME> where city = 'rome'" \
            --validate-inequality "select name from <TABLE_NAME> where id = 1"
        check_eq "$ty v$v committed" "a2" "$("$HOODIE" read "$t" --filter "id = 1" --columns name --format csv |
                                             tail -1)"
        # fails after the merge: id 3's new version has no name (a MOR update lives in a log file)
        refused "$ty v$v null after" "$t" --op upsert --input "$tmp/nullname.csv" \
            --validate-single-value "select count(*) from <TABLE_NAME> where name is null#0"
        grep -q "expected 0, got 1" "$tmp/err" && ok || bad "$ty v$v null after: values: $(cat "$tmp/err")"
        # equality: the same rows before and after (a changed age is another row)
        refused "$ty v$v equality" "$t" --op upsert --input "$tmp/negative.csv" \
            --validate-equality "select id, age from <TABLE_NAME> order by id"
        grep -q "before 1 row: (2, 20); after 1 row: (2, -1)" "$tmp/err" && ok ||
            bad "$ty v$v equality: rows: $(cat "$tmp/err")"
        # inequality: the write must change the result
        refused "$ty v$v inequality" "$t" --op upsert --input "$tmp/up.csv" \
            --validate-inequality "select count(*) from <TABLE_NAME>"
        # a query SQLite cannot run refuses the commit, with SQLite's message
        refused "$ty v$v sql error" "$t" --op upsert --input "$tmp/negative.csv" \
            --validate-single-value "select count(nope) from <TABLE_NAME>#0"
        grep -q "no such column: nope" "$tmp/err" && ok || bad "$ty v$v sql error: $(cat "$tmp/err")"
        # --props with Hudi's keys (a continued line, a comment, a key hoodie does not read: a warning)
        cat > "$tmp/v.props" <<'EOF'
# Hudi write config
hoodie.precommit.validators=org.apache.hudi.client.validator.SqlQuerySingleResultPreCommitValidator,\
  org.apache.hudi.client.validator.SqlQueryEqualityPreCommitValidator
hoodie.precommit.validators.single.value.sql.queries=select min(age) >= 0 from <TABLE_NAME>#1
hoodie.precommit.validators.equality.sql.queries = select count(*) from <TABLE_NAME>
hoodie.upsert.shuffle.parallelism=4
EOF
        refused "$ty v$v props" "$t" --op upsert --input "$tmp/negative.csv" --props "$tmp/v.props"
        grep -q "hoodie.upsert.shuffle.parallelism is not a setting" "$tmp/err" && ok ||
            bad "$ty v$v props warning: $(cat "$tmp/err")"
        run "$ty v$v props pass" 0 "$HOODIE" write "$t" --op upsert --input "$tmp/up.csv" --props "$tmp/v.props"
        # delete: the deleted key is gone after
        printf 'id,city\n5,paris\n' > "$tmp/del.csv"
        run "$ty v$v delete" 0 "$HOODIE" write "$t" --op delete --input "$tmp/del.csv" \
            --validate-single-value "select count(*) from <TABLE_NAME> where id = 5#0"
        check_eq "$ty v$v final rows" "1,a2,11,paris,2
2,b,20,rome,1
3,c,30,paris,1
4,,40,oslo,1" "$(rows "$t")"
        # the next write after all those refusals works without validators
        run "$ty v$v plain write" 0 "$HOODIE" write "$t" --op upsert --input "$tmp/negative.csv"
    done
done

# failure policy WARN_LOG (Hudi 1.2's hoodie.precommit.validators.failure.policy): a warning, and the commit
t=$tmp/warn
"$HOODIE" create "$t" --type mor --name w --record-key id --partition-fields city --ordering-field ts > /dev/null
"$HOODIE" write "$t" --op bulk_insert --input "$tmp/base.csv" > /dev/null
run "warn_log" 0 "$HOODIE" write "$t" --op upsert --input "$tmp/negative.csv" --validate-policy warn_log \
    --validate-single-value "select count(*) from <TABLE_NAME> where age < 0#0"
grep -q "warning: .*pre-commit validation failed, committed all the same (failure policy WARN_LOG): single value" \
    "$tmp/err" && ok || bad "warn_log message: $(cat "$tmp/err")"
check_eq "warn_log committed" "2,b,-1,rome,4" "$(rows "$t" | grep '^2,')"
printf 'hoodie.precommit.validators=org.apache.hudi.client.validator.SqlQuerySingleResultPreCommitValidator
hoodie.precommit.validators.single.value.sql.queries=select count(*) from <TABLE_NAME> where age < 0#0
hoodie.precommit.validators.failure.policy=WARN_LOG\n' > "$tmp/warn.props"
run "warn_log from props" 0 "$HOODIE" write "$t" --op upsert --input "$tmp/negative.csv" --props "$tmp/warn.props"
grep -q "failure policy WARN_LOG" "$tmp/err" && ok || bad "warn_log props message: $(cat "$tmp/err")"
run "policy fail after warn_log" 5 "$HOODIE" write "$t" --op upsert --input "$tmp/negative.csv" \
    --props "$tmp/warn.props" --validate-policy fail
run "bad policy" 2 "$HOODIE" write "$t" --op upsert --input "$tmp/negative.csv" --validate-policy maybe
# an empty write has nothing to check (Hudi 1.2 skips it)
printf 'id,name,age,city,ts\n' > "$tmp/empty.csv"
run "empty write" 0 "$HOODIE" write "$t" --op upsert --input "$tmp/empty.csv" \
    --validate-inequality "select count(*) from <TABLE_NAME>"

# configuration errors: usage errors (exit 2) before anything is written
t=$tmp/cow_v8
n=$("$HOODIE" timeline "$t" | wc -l)
run "single value without #" 2 "$HOODIE" write "$t" --op upsert --input "$tmp/up.csv" \
    --validate-single-value "select 1 from <TABLE_NAME>"
grep -q "QUERY#EXPECTED" "$tmp/err" && ok || bad "single value without #: $(cat "$tmp/err")"
run "empty query" 2 "$HOODIE" write "$t" --op upsert --input "$tmp/up.csv" --validate-equality " ; "
printf 'hoodie.precommit.validators=org.example.MyValidator\n' > "$tmp/bad.props"
run "unknown validator class" 2 "$HOODIE" write "$t" --op upsert --input "$tmp/up.csv" --props "$tmp/bad.props"
grep -q "unknown validator 'org.example.MyValidator'" "$tmp/err" && ok || bad "unknown class: $(cat "$tmp/err")"
printf 'hoodie.precommit.validators=org.apache.hudi.client.validator.SqlQueryEqualityPreCommitValidator\n' \
    > "$tmp/noq.props"
run "listed without queries" 2 "$HOODIE" write "$t" --op upsert --input "$tmp/up.csv" --props "$tmp/noq.props"
grep -q "has no query" "$tmp/err" && ok || bad "listed without queries: $(cat "$tmp/err")"
printf 'hoodie.precommit.validators.equality.sql.queries=select 1 from <TABLE_NAME>\n' > "$tmp/unlisted.props"
run "queries of an unlisted validator" 0 "$HOODIE" write "$t" --op upsert --input "$tmp/up.csv" \
    --props "$tmp/unlisted.props"
grep -q "do not run" "$tmp/err" && ok || bad "unlisted warning: $(cat "$tmp/err")"
run "missing props file" 2 "$HOODIE" write "$t" --op upsert --input "$tmp/up.csv" --props "$tmp/none.props"
printf 'a=1\nhoodie.precommit.validators.equality.sql.queries=select \\u00ZZ\n' > "$tmp/esc.props"
run "broken escape in props" 3 "$HOODIE" write "$t" --op upsert --input "$tmp/up.csv" --props "$tmp/esc.props"
grep -q "esc.props:2: malformed" "$tmp/err" && ok || bad "broken escape: $(cat "$tmp/err")"
check_eq "nothing written by usage errors" "$((n + 1))" "$("$HOODIE" timeline "$t" | wc -l)"

# --props also carries Hudi's write settings: the operation, the codec, small-file handling; later options win
t=$tmp/props_t
"$HOODIE" create "$t" --type cow --name p --record-key id --partition-fields city --ordering-field ts > /dev/null
printf 'hoodie.datasource.write.operation=bulk_insert\nhoodie.parquet.compression.codec=zstd\n' > "$tmp/w.props"
run "props: operation and codec" 0 "$HOODIE" write "$t" --input "$tmp/base.csv" --props "$tmp/w.props"
check_eq "props: zstd" 0 "$(find "$t" -name '*.parquet' -exec "$HOODIE" parquet meta {} \; | grep ': BYTE_ARRAY ' |
                             grep -vc ' ZSTD ')"
[ "$(find "$t" -name '*.parquet' -exec "$HOODIE" parquet meta {} \; | grep -c ': BYTE_ARRAY ZSTD ')" -gt 0 ] && ok ||
    bad "props: no ZSTD chunk"
check_eq "props: rows" "$(tail -n +2 "$tmp/base.csv" | sort)" "$(rows "$t")"
n=$(find "$t" -name '*.parquet' | wc -l)
printf 'hoodie.datasource.write.operation=insert\nhoodie.parquet.small.file.limit=0\n' > "$tmp/i.props"
printf 'id,name,age,city,ts\n9,i,9,paris,1\n' > "$tmp/ins.csv"
run "props: no small files" 0 "$HOODIE" write "$t" --input "$tmp/ins.csv" --props "$tmp/i.props"
check_eq "props: a new file group" "$((n + 1))" "$(find "$t" -name '*.parquet' | wc -l)"
printf 'hoodie.datasource.write.operation=delete\n' > "$tmp/d.props"
printf 'id,city\n9,paris\n' > "$tmp/del9.csv"
run "props: delete" 0 "$HOODIE" write "$t" --input "$tmp/del9.csv" --props "$tmp/d.props"
check_eq "props: deleted" "" "$(rows "$t" | grep '^9,')"
run "props: the option after wins" 0 "$HOODIE" write "$t" --input "$tmp/ins.csv" --props "$tmp/d.props" --op upsert
check_eq "props: upserted" "9,i,9,paris,1" "$(rows "$t" | grep '^9,')"
printf 'hoodie.parquet.compression.codec=lzo\n' > "$tmp/bad.props"
run "props: bad codec" 2 "$HOODIE" write "$t" --op upsert --input "$tmp/ins.csv" --props "$tmp/bad.props"
grep -q "bad.props:1: hoodie.parquet.compression.codec: codec 'lzo'" "$tmp/err" && ok || bad "bad codec: $(cat "$tmp/err")"

# a Spark-written table (a copy): validators over its own columns, through the meta columns too
src=$FIX/trips_mor_avro_v8_trips_8i1u
if [ -d "$src" ]; then
    cp -r "$src" "$tmp/spark" && chmod -R u+w "$tmp/spark"
    before=$("$HOODIE" read "$tmp/spark" --format csv | sort)
    printf '{"ts":1,"uuid":"v-1","rider":"r","driver":"d","fare":-5.0,"city":"chennai"}\n' > "$tmp/neg.jsonl"
    run "spark table refused" 5 "$HOODIE" write "$tmp/spark" --op upsert --input "$tmp/neg.jsonl" \
        --validate-single-value "select count(*) from <TABLE_NAME> where fare < 0#0"
    check_eq "spark table unchanged" "$before" "$("$HOODIE" read "$tmp/spark" --format csv | sort)"
    run "spark table passes" 0 "$HOODIE" write "$tmp/spark" --op upsert --input "$tmp/neg.jsonl" \
        --validate-single-value $'select count(distinct _hoodie_partition_path) from <TABLE_NAME> -- a comment\n#1' \
        --validate-inequality "select count(*) from <TABLE_NAME>"
    check_eq "spark table row" "v-1,-5.0" "$("$HOODIE" get "$tmp/spark" v-1 --columns uuid,fare --format csv | tail -1)"
else
    bad "fixture $src missing"
fi

# a table without partitions (Spark's): its one partition path is "", and <TABLE_NAME> holds all its rows
src=$FIX/cow_v8_nonpartitioned
if [ -d "$src" ]; then
    cp -r "$src" "$tmp/np" && chmod -R u+w "$tmp/np"
    printf '{"id":9,"name":"Zed","longField":1}\n' > "$tmp/z.jsonl"
    run "nonpartitioned refused" 5 "$HOODIE" write "$tmp/np" --op upsert --input "$tmp/z.jsonl" \
        --validate-single-value "select count(*) from <TABLE_NAME>#4"
    grep -q "expected 4, got 5" "$tmp/err" && ok || bad "nonpartitioned refused: $(cat "$tmp/err")"
    run "nonpartitioned" 0 "$HOODIE" write "$tmp/np" --op upsert --input "$tmp/z.jsonl" \
        --validate-single-value "select count(*) from <TABLE_NAME>#5"
else
    bad "fixture $src missing"
fi

# hoodie cluster: validated as Hudi validates clustering; a refused one is rolled back and the groups stay as they
# were; then one that holds (the same rows, other files) completes
for v in 8 6; do
    t=$tmp/cl_v$v
    "$HOODIE" create "$t" --type cow --table-version "$v" --name cl --record-key id --partition-fields city \
        --ordering-field ts > /dev/null
    "$HOODIE" write "$t" --op insert --input "$tmp/base.csv" > /dev/null
    "$HOODIE" write "$t" --op insert --input "$tmp/ins.csv" --small-file-limit 0 > /dev/null
    files=$("$HOODIE" read "$t" --columns _hoodie_file_name --format csv | sort -u)
    before=$(rows "$t")
    run "cluster v$v refused" 5 "$HOODIE" cluster "$t" --sort-by id \
        --validate-single-value "select count(distinct _hoodie_file_name) from <TABLE_NAME>#2"
    grep -q "refused CLUSTER .*(rolled back)" "$tmp/err" && ok || bad "cluster v$v refused: $(cat "$tmp/err")"
    check_eq "cluster v$v: the same files" "$files" \
        "$("$HOODIE" read "$t" --columns _hoodie_file_name --format csv | sort -u)"
    check_eq "cluster v$v: nothing pending" 0 "$("$HOODIE" timeline "$t" | tail -n +2 | grep -vc completed)"
    run "cluster v$v" 0 "$HOODIE" cluster "$t" --sort-by id \
        --validate-equality "select id, name, age, city, ts from <TABLE_NAME>" \
        --validate-inequality "select distinct _hoodie_file_name from <TABLE_NAME>"
    check_eq "cluster v$v: replacecommit" "replacecommit completed" \
        "$("$HOODIE" timeline "$t" | tail -1 | awk '{ print $2, $3 }')"
    check_eq "cluster v$v: rows" "$before" "$(rows "$t")"
done

# hoodie ingest: every batch's commit is validated; a refused batch stops the run (exit 5) before its checkpoint,
# so the next run reads it again: nothing is skipped
t=$tmp/ingest
"$HOODIE" create "$t" --type mor --name ing --record-key id --partition-fields city --ordering-field ts > /dev/null
for i in 1 2 3 4; do printf '{"id":%d,"name":"n%d","age":%d,"city":"paris","ts":1}\n' "$i" "$i" "$i"; done > "$tmp/ev.jsonl"
printf '{"id":5,"name":"n5","age":-5,"city":"paris","ts":1}\n{"id":6,"name":"n6","age":6,"city":"paris","ts":1}\n' \
    >> "$tmp/ev.jsonl"
check="select count(*) from <TABLE_NAME> where age < 0#0"
run "ingest refused" 5 "$HOODIE" ingest "$t" --input "$tmp/ev.jsonl" --batch-rows 2 --validate-single-value "$check"
check_eq "ingest: committed batches" "1 2 3 4" "$("$HOODIE" read "$t" --columns id --format csv | tail -n +2 | sort -n |
                                                 xargs)"
run "ingest refused again" 5 "$HOODIE" ingest "$t" --input "$tmp/ev.jsonl" --batch-rows 2 --validate-single-value "$check"
run "ingest without the check" 0 "$HOODIE" ingest "$t" --input "$tmp/ev.jsonl" --batch-rows 2
check_eq "ingest: every event once" "1 2 3 4 5 6" "$("$HOODIE" read "$t" --columns id --format csv | tail -n +2 |
                                                   sort -n | xargs)"

finish validators
