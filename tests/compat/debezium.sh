#!/usr/bin/env bash
# The Debezium payloads (Hudi's MySqlDebeziumAvroPayload and PostgresDebeziumAvroPayload), read and compacted:
#  - merge-on-read tables whose log files hold change events as data (written while the table had event-time
#    ordering), then switched to the payload as Hudi 0.x (v6: the payload class) and 1.0 (v8: merge mode CUSTOM,
#    payload-based strategy, the payload class) write it;
#  - MySQL: _event_seq "<binlog file>.<position>" orders as two numbers ("1.99" is older than "1.100"), a tie goes
#    to the incoming record, _change_operation_type 'd' (any case) deletes when newer, the log records fold by the
#    same order (preCombine);
#  - Postgres: _event_lsn orders; a newer record's string columns holding "__debezium_unavailable_value" (TOASTed
#    values Debezium did not send) keep the stored values; an older record loses whole;
#  - snapshot, narrow projections, point lookups and compaction agree;
#  - hoodie's own upserts into such tables combine records the same way, in the LSM layout too (its sorted merge
#    fills TOASTed values);
#  - version 9's form of them (Hudi 1.1's upgrade): MySQL ordered by _event_bin_file then _event_pos with the delete
#    marker as merge properties; Postgres's partial updates (FILL_UNAVAILABLE) in every merge, log records folded
#    too; a partial update mode hoodie does not know refused.
set -u
HOODIE=${HOODIE:-build/hoodie}
source "$(dirname "${BASH_SOURCE[0]}")/common/check.bash"

write() {
    "$HOODIE" write "$1" --op "$2" --input "$3" > /dev/null 2> "$tmp/err" || bad "write $1 $2 $3: $(cat "$tmp/err")"
}
# rows TABLE COLUMNS [READ-OPTION...]: the columns of each row, by id, on one line
rows() {
    "$HOODIE" read "$1" --columns "$2" --format csv "${@:3}" 2> "$tmp/err" | tail -n +2 | sort -n | tr '\n' ' '
}
# switch TABLE VERSION PAYLOAD: hoodie.properties names the payload as Hudi writes it for that version
switch() {
    local p=$1/.hoodie/hoodie.properties
    sed -i "s/^hoodie.compaction.payload.class=.*/hoodie.compaction.payload.class=$3/" "$p"
    if [ "$2" = 8 ]; then
        sed -i "s/^hoodie.record.merge.mode=.*/hoodie.record.merge.mode=CUSTOM/;
                s/^hoodie.record.merge.strategy.id=.*/hoodie.record.merge.strategy.id=$payload_strategy/" "$p"
    fi
}
payload_strategy=00000000-0000-0000-0000-000000000000
mysql=org.apache.hudi.common.model.debezium.MySqlDebeziumAvroPayload
pg=org.apache.hudi.common.model.debezium.PostgresDebeziumAvroPayload

# ---- MySQL ----
ev() { printf '{"id":%s,"name":"%s","_change_operation_type":"%s","_event_seq":"%s","city":"x"}\n' "$@"; }
{ ev 1 a c 1.100; ev 2 b c 1.200; ev 3 c c 2.5; ev 4 d c 1.9; ev 5 e c 3.1; ev 6 f c 1.5; } > "$tmp/my0.jsonl"
# 1: "1.99" is older than "1.100" (as text it would be newer); 2: newer; 3: a tie, the incoming wins; 4: a newer
# delete; 5: an older delete (upper case) loses; 6: a delete (lower case "d" in any case counts)
{ ev 1 A1 u 1.99; ev 2 B1 u 1.300; ev 3 C1 u 2.5; ev 4 D1 d 2.1; ev 5 E1 D 2.9; ev 6 F1 D 1.6; } > "$tmp/my1.jsonl"
# log against log: 2 at 1.250 is older than the log record at 1.300
{ ev 2 B2 u 1.250; } > "$tmp/my2.jsonl"
want="1,a,1.100 2,B1,1.300 3,C1,2.5 5,e,3.1 "
for v in 8 6; do
    t=$tmp/mysql_v$v
    "$HOODIE" create "$t" --type mor --name mysql --record-key id --partition-fields city \
        --ordering-field _event_seq --merge-mode event_time --table-version "$v" > /dev/null || bad "create $t"
    write "$t" bulk_insert "$tmp/my0.jsonl"
    write "$t" upsert "$tmp/my1.jsonl"
    write "$t" upsert "$tmp/my2.jsonl"
    check_eq "mysql v$v: events are in log files" 2 "$(find "$t" -name '.*.log.*' | wc -l)"
    switch "$t" "$v" "$mysql"
    check_eq "mysql v$v: snapshot" "$want" "$(rows "$t" id,name,_event_seq)"
    check_eq "mysql v$v: one column" "1 2 3 5 " \
        "$("$HOODIE" read "$t" --columns id --format csv | tail -n +2 | sort -n | tr '\n' ' ')"
    "$HOODIE" get "$t" 4 > "$tmp/get" 2>&1
    grep -q 'D1' "$tmp/get" && bad "mysql v$v: get 4 found the deleted row: $(cat "$tmp/get")" || ok
    "$HOODIE" get "$t" 1 --format csv > "$tmp/get" 2>&1
    grep -q '1.100' "$tmp/get" && ok || bad "mysql v$v: get 1: $(cat "$tmp/get")"
    "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "mysql v$v compact: $(cat "$tmp/err")"
    check_eq "mysql v$v: after compaction" "$want" "$(rows "$t" id,name,_event_seq)"
    check_eq "mysql v$v: read-optimized after compaction" "$want" \
        "$(rows "$t" id,name,_event_seq --query read_optimized)"
done

# upserts into tables of the payload, combined by hoodie as the payload combines them: against the stored records
# (copy-on-write rewrites; merge-on-read small-file merges) and within the batch (7: "1.100" beats "1.99"); on
# merge-on-read the deletes go to delete blocks with their binlog positions as ordering values
ev 7 G1 c 1.100 > "$tmp/my3.jsonl"; ev 7 G2 c 1.99 >> "$tmp/my3.jsonl"; ev 8 H1 c 1.1 >> "$tmp/my3.jsonl"
for ty in cow mor; do
    for v in 8 6; do
        t=$tmp/mysql_up_${ty}_v$v
        "$HOODIE" create "$t" --type $ty --name mysql --record-key id --partition-fields city \
            --ordering-field _event_seq --merge-mode event_time --table-version "$v" > /dev/null || bad "create $t"
        switch "$t" "$v" "$mysql"
        write "$t" bulk_insert "$tmp/my0.jsonl"
        write "$t" upsert "$tmp/my1.jsonl"
        write "$t" upsert "$tmp/my2.jsonl"
        write "$t" upsert "$tmp/my3.jsonl"
        check_eq "mysql $ty v$v: upserts" "${want}7,G1,1.100 8,H1,1.1 " "$(rows "$t" id,name,_event_seq)"
        if [ $ty = mor ]; then
            "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "mysql $ty v$v compact: $(cat "$tmp/err")"
            check_eq "mysql $ty v$v: upserts compacted" "${want}7,G1,1.100 8,H1,1.1 " \
                "$(rows "$t" id,name,_event_seq --query read_optimized)"
        fi
    done
done

# the LSM layout takes them too: sorted native log files of the events (deletes in delete files with their binlog
# positions), merged by the payload's order when read, looked up and compacted (the sorted merge, L0 into L1)
t=$tmp/mysql_lsm
"$HOODIE" create "$t" --type mor --name mysql --record-key id --partition-fields city --ordering-field _event_seq \
    --merge-mode event_time --layout lsm_tree > /dev/null || bad "create $t"
switch "$t" 8 "$mysql"
for f in my0 my1 my2 my3; do write "$t" upsert "$tmp/$f.jsonl"; done
lsm_want="${want}7,G1,1.100 8,H1,1.1 "
check_eq "mysql lsm: upserts" "$lsm_want" "$(rows "$t" id,name,_event_seq)"
[ "$(find "$t" -name '*.deletes.parquet' | wc -l)" -gt 0 ] && ok || bad "mysql lsm: no delete file"
"$HOODIE" get "$t" 2 --format csv > "$tmp/get" 2>&1
grep -q ',2,B1,u,1.300,x$' "$tmp/get" && ok || bad "mysql lsm: get 2: $(cat "$tmp/get")"
"$HOODIE" get "$t" 4 > "$tmp/get" 2>&1
grep -q 'D1' "$tmp/get" && bad "mysql lsm: get 4 found the deleted row: $(cat "$tmp/get")" || ok
"$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "mysql lsm compact: $(cat "$tmp/err")"
check_eq "mysql lsm: compacted" "$lsm_want" "$(rows "$t" id,name,_event_seq)"

# hoodie ingest of MySQL change events fills _event_seq as Hudi's MysqlDebeziumSource does ("<binlog file
# number>.<pos>"); positions 99 and 100 of one file order as numbers, within a batch and across commits
cat > "$tmp/my.avsc" << 'EOF2'
{"type":"record","name":"r","fields":[{"name":"id","type":"long"},{"name":"name","type":["null","string"],"default":null},
 {"name":"city","type":"string"},{"name":"_change_operation_type","type":["null","string"],"default":null},
 {"name":"_event_seq","type":["null","string"],"default":null},{"name":"_event_bin_file","type":["null","string"],"default":null},
 {"name":"_event_pos","type":["null","long"],"default":null}]}
EOF2
dbz() { # op id name file pos
    local img="{\"id\":$2,\"name\":\"$3\",\"city\":\"x\"}" b=null a=null
    if [ "$1" = d ]; then b=$img; else a=$img; fi
    printf '{"op":"%s","ts_ms":1,"source":{"file":"%s","pos":%s},"before":%s,"after":%s}\n' "$1" "$4" "$5" "$b" "$a"
}
{ dbz c 1 one mysql-bin.000003 10; dbz c 2 two mysql-bin.000003 11; dbz c 3 three mysql-bin.000003 12
  dbz u 1 new mysql-bin.000003 100; dbz u 1 old mysql-bin.000003 99; dbz d 2 two mysql-bin.000004 5
  dbz u 3 late mysql-bin.000002 500; } > "$tmp/dbz.json"
for ty in cow mor; do
    for rows in 100 1; do
        t=$tmp/mysql_ingest_${ty}_$rows
        "$HOODIE" create "$t" --type $ty --name mi --record-key id --partition-fields city --schema "$tmp/my.avsc" \
            --ordering-field _event_seq --merge-mode event_time > /dev/null || bad "create $t"
        switch "$t" 8 "$mysql"
        "$HOODIE" ingest "$t" --input "$tmp/dbz.json" --format debezium --batch-rows $rows > /dev/null 2> "$tmp/err" ||
            bad "ingest $ty $rows: $(cat "$tmp/err")"
        check_eq "mysql ingest $ty, batches of $rows" "1,new,000003.100 3,three,000003.12 " \
            "$(rows "$t" id,name,_event_seq)"
    done
done

# ---- Postgres ----
toast=__debezium_unavailable_value
printf 'id,name,note,_change_operation_type,_event_lsn,city\n1,a,n1,c,100,x\n2,b,n2,c,100,x\n3,c,n3,c,100,x\n%s\n' \
    '4,d,n4,c,100,x' > "$tmp/pg0.csv"
# 1: newer, its note TOASTed: the stored note stays; 2: older, TOASTed name: loses whole; 3: a newer delete;
# 4: newer, both TOASTed
printf 'id,name,note,_change_operation_type,_event_lsn,city\n1,A1,%s,u,200,x\n2,%s,N2,u,50,x\n3,C1,N3,d,300,x\n%s\n' \
    "$toast" "$toast" "4,$toast,$toast,u,400,x" > "$tmp/pg1.csv"
want="1,A1,n1,200 2,b,n2,100 4,d,n4,400 "
for v in 8 6; do
    t=$tmp/pg_v$v
    "$HOODIE" create "$t" --type mor --name pg --record-key id --partition-fields city \
        --ordering-field _event_lsn --merge-mode event_time --table-version "$v" > /dev/null || bad "create $t"
    write "$t" bulk_insert "$tmp/pg0.csv"
    write "$t" upsert "$tmp/pg1.csv"
    switch "$t" "$v" "$pg"
    check_eq "postgres v$v: snapshot" "$want" "$(rows "$t" id,name,note,_event_lsn)"
    check_eq "postgres v$v: two columns" "1,n1 2,n2 4,n4 " "$(rows "$t" id,note)"
    "$HOODIE" get "$t" 1 --format csv > "$tmp/get" 2>&1
    grep -q 'A1,n1' "$tmp/get" && ok || bad "postgres v$v: get 1: $(cat "$tmp/get")"
    "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "postgres v$v compact: $(cat "$tmp/err")"
    check_eq "postgres v$v: after compaction" "$want" "$(rows "$t" id,name,note,_event_lsn)"
done
# upserts by hoodie: a copy-on-write rewrite, and a merge-on-read small-file merge (5 is an insert), keep the
# stored values of TOASTed columns as the reader does; merge-on-read log records are filled when read
cp "$tmp/pg1.csv" "$tmp/pg1i.csv"
echo "5,e,n5,c,100,x" >> "$tmp/pg1i.csv"
for ty in cow mor; do
    for f in pg1 pg1i; do
        t=$tmp/pg_up_${ty}_$f
        "$HOODIE" create "$t" --type $ty --name pg --record-key id --partition-fields city \
            --ordering-field _event_lsn --merge-mode event_time > /dev/null || bad "create $t"
        switch "$t" 8 "$pg"
        write "$t" bulk_insert "$tmp/pg0.csv"
        write "$t" upsert "$tmp/$f.csv"
        w=$want; [ $f = pg1i ] && w="${want}5,e,n5,100 "
        check_eq "postgres $ty $f: upsert" "$w" "$(rows "$t" id,name,note,_event_lsn)"
        logs=$(find "$t" -name '.*.log.*' | wc -l)
        [ $ty = mor ] && [ $f = pg1 ] && { [ "$logs" -gt 0 ] && ok || bad "postgres $ty $f: no log file"; }
        [ $f = pg1i ] && check_eq "postgres $ty $f: merged into the base file" 0 "$logs"
    done
done

# the same events read with event-time ordering alone keep the TOASTed values (the check above is not vacuous)
t=$tmp/pg_plain
"$HOODIE" create "$t" --type mor --name pg --record-key id --partition-fields city \
    --ordering-field _event_lsn --merge-mode event_time > /dev/null || bad "create $t"
write "$t" bulk_insert "$tmp/pg0.csv"
write "$t" upsert "$tmp/pg1.csv"
check_eq "postgres without the payload" "1,A1,$toast 2,b,n2 3,C1,N3 4,$toast,$toast " "$(rows "$t" id,name,note)"

# the sorted (LSM) layout fills TOASTed values in its sorted merge: upserts as sorted native log files, read, looked
# up and compacted as above
t=$tmp/pg_lsm
"$HOODIE" create "$t" --type mor --name pg --record-key id --partition-fields city --ordering-field _event_lsn \
    --merge-mode event_time --layout lsm_tree > /dev/null || bad "create $t"
switch "$t" 8 "$pg"
write "$t" bulk_insert "$tmp/pg0.csv"
write "$t" upsert "$tmp/pg1.csv"
[ "$(find "$t" -name '*.log.parquet' | wc -l)" -gt 0 ] && ok || bad "postgres lsm: no native log file"
check_eq "postgres lsm: snapshot" "$want" "$(rows "$t" id,name,note,_event_lsn)"
"$HOODIE" get "$t" 1 --format csv > "$tmp/get" 2>&1
grep -q 'A1,n1' "$tmp/get" && ok || bad "postgres lsm: get 1: $(cat "$tmp/get")"
"$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "postgres lsm compact: $(cat "$tmp/err")"
check_eq "postgres lsm: compacted" "$want" "$(rows "$t" id,name,note,_event_lsn)"

# ---- table version 9 (Hudi 1.1 upgrades the payloads away) ----
# to_v9 TABLE PAYLOAD: hoodie.properties as Hudi 1.1's upgrade leaves a Debezium table: event-time ordering, the
# payload kept as hoodie.legacy.payload.class only, the delete marker as merge properties; MySQL orders by
# _event_bin_file then _event_pos; Postgres by _event_lsn, with partial updates filling unavailable values
to_v9() {
    local p=$1/.hoodie/hoodie.properties
    sed -i '/^hoodie.compaction.payload.class=/d; /^hoodie.table.precombine.field=/d; /^hoodie.record.merge.strategy.id=/d
            s/^hoodie.table.version=.*/hoodie.table.version=9/
            s/^hoodie.record.merge.mode=.*/hoodie.record.merge.mode=EVENT_TIME_ORDERING/' "$p"
    { echo "hoodie.record.merge.strategy.id=eeb8d96f-b1e4-49fd-bbf8-28ac514178e5"
      echo "hoodie.legacy.payload.class=$2"
      echo "hoodie.record.merge.property.hoodie.payload.delete.field=_change_operation_type"
      echo "hoodie.record.merge.property.hoodie.payload.delete.marker=d"
      if [ "$2" = "$mysql" ]; then echo "hoodie.table.ordering.fields=_event_bin_file,_event_pos"
      else echo "hoodie.table.ordering.fields=_event_lsn"; echo "hoodie.table.partial.update.mode=FILL_UNAVAILABLE"
           echo "hoodie.record.merge.property.partial.update.unavailable.value=$toast"; fi; } >> "$p"
}
m9() { printf '{"id":%s,"name":"%s","city":"x","_change_operation_type":"%s","_event_bin_file":"mysql-bin.%s","_event_pos":%s}\n' "$@"; }
{ m9 1 a c 000001 100; m9 2 b c 000001 100; m9 3 c c 000001 100; m9 4 d c 000001 100; m9 5 e c 000002 1; } > "$tmp/m90.jsonl"
# 1: same file, an older position; 2: a later file at a lower position; 3: a tie on both, the incoming wins;
# 4: a newer delete; 5: an older delete (an earlier file at a higher position) loses; then 2 again, older than B1
{ m9 1 A1 u 000001 99; m9 2 B1 u 000002 5; m9 3 C1 u 000001 100; m9 4 D1 d 000001 101; m9 5 E1 d 000001 900; } > "$tmp/m91.jsonl"
m9 2 B2 u 000002 4 > "$tmp/m92.jsonl"
t=$tmp/mysql_v9
"$HOODIE" create "$t" --type mor --name m9 --record-key id --partition-fields city --schema "$tmp/my.avsc" \
    --ordering-field _event_pos --merge-mode event_time > /dev/null || bad "create $t"
write "$t" bulk_insert "$tmp/m90.jsonl"
write "$t" upsert "$tmp/m91.jsonl"
write "$t" upsert "$tmp/m92.jsonl"
check_eq "mysql v9: events are in log files" 2 "$(find "$t" -name '.*.log.*' | wc -l)"
to_v9 "$t" "$mysql"
check_eq "mysql v9: snapshot" "1,a,100 2,B1,5 3,C1,100 5,e,1 " "$(rows "$t" id,name,_event_pos)"
check_eq "mysql v9: one column" "1 2 3 5 " "$(rows "$t" id)"
"$HOODIE" get "$t" 2 --format csv > "$tmp/get" 2>&1
grep -q 'B1' "$tmp/get" && ok || bad "mysql v9: get 2: $(cat "$tmp/get")"
# Postgres: partial updates (FILL_UNAVAILABLE) in every merge, whichever record wins: log records folded too,
# where the payload filled only from the base record. 1 at 250 (name TOASTed) beats 1 at 200 (note TOASTed): the
# fold takes A1 from it, the base nothing more; 2 at 60 (note TOASTed) beats 2 at 50 and loses to the base.
t=$tmp/pg_v9
"$HOODIE" create "$t" --type mor --name pg --record-key id --partition-fields city \
    --ordering-field _event_lsn --merge-mode event_time > /dev/null || bad "create $t"
write "$t" bulk_insert "$tmp/pg0.csv"
write "$t" upsert "$tmp/pg1.csv"
printf 'id,name,note,_change_operation_type,_event_lsn,city\n1,%s,N1b,u,250,x\n2,B2,%s,u,60,x\n' "$toast" "$toast" \
    > "$tmp/pg2.csv"
write "$t" upsert "$tmp/pg2.csv"
cp -r "$t" "$tmp/pg_v8b"
to_v9 "$t" "$pg"
check_eq "postgres v9: snapshot" "1,A1,N1b,250 2,b,n2,100 4,d,n4,400 " "$(rows "$t" id,name,note,_event_lsn)"
check_eq "postgres v9: two columns" "1,N1b 2,n2 4,n4 " "$(rows "$t" id,note)"
check_eq "postgres v9: read-optimized" "1,a 2,b 3,c 4,d " "$(rows "$t" id,name --query read_optimized)"
switch "$tmp/pg_v8b" 8 "$pg" # the v8 payload fills the winning log record from the base record alone
check_eq "postgres v8 (the same logs)" "1,a,N1b,250 2,b,n2,100 4,d,n4,400 " "$(rows "$tmp/pg_v8b" id,name,note,_event_lsn)"
# KEEP_VALUES keeps only what a record's log block leaves out (partial blocks): whole records fill nothing, the
# marker is a value
sed -i 's/^hoodie.table.partial.update.mode=.*/hoodie.table.partial.update.mode=KEEP_VALUES/' "$t/.hoodie/hoodie.properties"
check_eq "postgres v9 KEEP_VALUES" "1,$toast,N1b,250 2,b,n2,100 4,$toast,$toast,400 " "$(rows "$t" id,name,note,_event_lsn)"
sed -i 's/^hoodie.table.partial.update.mode=.*/hoodie.table.partial.update.mode=SOME_LATER_MODE/' "$t/.hoodie/hoodie.properties"
"$HOODIE" read "$t" > /dev/null 2> "$tmp/err" && bad "postgres v9 an unknown mode: read succeeded" || ok
grep -q "partial updates (hoodie.table.partial.update.mode=SOME_LATER_MODE)" "$tmp/err" && ok ||
    bad "postgres v9 an unknown mode: message: $(cat "$tmp/err")"

finish debezium
