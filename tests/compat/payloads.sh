#!/usr/bin/env bash
# Delete markers and the AWS DMS payload (Hudi's AWSDmsAvroPayload; hoodie.payload.delete.field / .marker):
#  - tables made with --merge-mode aws_dms, COW and MOR, versions 8 and 6: rows whose Op is D delete their keys in
#    bulk inserts and upserts, the later write wins against the stored record (commit time), MOR log records fold
#    by ordering value first (preCombine), time travel and compaction agree;
#  - a MOR table whose logs hold Op = D rows as data (written before the table had the payload) reads them as
#    deletes once hoodie.properties names AWSDmsAvroPayload, as Hudi 0.x (v6) and 1.0 (v8: merge mode CUSTOM,
#    payload-based strategy) write it; point lookups and compaction agree;
#  - the form Hudi 1.1 stores (hoodie.record.merge.property.hoodie.payload.delete.field/.marker) on an event-time
#    table: a marked delete with an older ordering value loses;
#  - a half-configured marker is refused with a clear message (the Debezium payloads: debezium.sh);
#  - version 9's form of PartialUpdateAvroPayload (partial update mode IGNORE_DEFAULTS) merges nulls away;
#  - the legacy payloads of partial updates below version 9 (PartialUpdateAvroPayload,
#    OverwriteNonDefaultsWithLatestAvroPayload) merge as their classes do, in upserts (COW merges and
#    de-duplication too), snapshots, point lookups and compaction, in the LSM layout too;
#  - a payload hoodie does not merge by (a user's class): COW tables read, take inserts, deletes and clustering,
#    and refuse upserts; MOR tables refuse upserts, compaction (before any plan) and snapshots of slices with logs.
set -u
HOODIE=${HOODIE:-build/hoodie}
source "$(dirname "${BASH_SOURCE[0]}")/common/check.bash"

# rows TABLE [READ-OPTION...]: id,name,Op,ts of each row, by id, on one line
rows() {
    "$HOODIE" read "$1" --columns id,name,Op,ts --format csv "${@:2}" 2> "$tmp/err" | tail -n +2 | sort -n | tr '\n' ' '
}
write() {
    "$HOODIE" write "$1" --op "$2" --input "$3" > /dev/null 2> "$tmp/err" || bad "write $1 $2 $3: $(cat "$tmp/err")"
}
last_instant() { "$HOODIE" timeline "$1" | tail -1 | awk '{ print $1 }'; }

printf 'id,name,Op,ts,city\n1,a,I,10,paris\n2,b,I,10,paris\n3,c,I,10,rome\n4,d,I,10,rome\n5,e,I,10,oslo\n%s\n' \
    '9,z,D,10,oslo' > "$tmp/in1.csv"
# updates and deletes only: MOR tables append them to log files (a delete block for the D rows)
printf 'id,name,Op,ts,city\n1,a2,U,20,paris\n2,b2,D,20,paris\n3,c2,U,5,rome\n4,d2,D,1,rome\n' > "$tmp/in2.csv"
printf 'id,name,Op,ts,city\n6,f,I,30,oslo\n5,e2,U,30,oslo\n' > "$tmp/in3.csv"
printf 'id,name,Op,ts,city\n1,a5,U,50,paris\n' > "$tmp/in4.csv"
printf 'id,name,Op,ts,city\n1,a4,U,40,paris\n' > "$tmp/in5.csv"

for ty in cow mor; do
    for v in 8 6; do
        t=$tmp/dms_${ty}_v$v
        "$HOODIE" create "$t" --type "$ty" --name "dms_$ty" --record-key id --partition-fields city --hive-style \
            --ordering-field ts --merge-mode aws_dms --table-version "$v" > /dev/null || bad "create $t"
        write "$t" bulk_insert "$tmp/in1.csv"
        check_eq "$ty v$v bulk_insert (D row dropped)" "1,a,I,10 2,b,I,10 3,c,I,10 4,d,I,10 5,e,I,10 " "$(rows "$t")"
        write "$t" upsert "$tmp/in2.csv"
        t2=$(last_instant "$t")
        after2="1,a2,U,20 3,c2,U,5 5,e,I,10 "
        check_eq "$ty v$v upsert: D deletes, later write wins" "$after2" "$(rows "$t")"
        if [ "$ty" = mor ]; then
            check_eq "$ty v$v deletes went to log files" 2 "$(find "$t" -name '.*.log.*' | wc -l)"
        fi
        write "$t" upsert "$tmp/in3.csv"
        check_eq "$ty v$v upsert with an insert" "1,a2,U,20 3,c2,U,5 5,e2,U,30 6,f,I,30 " "$(rows "$t")"
        check_eq "$ty v$v time travel" "$after2" "$(rows "$t" --as-of "$t2")"
        write "$t" upsert "$tmp/in4.csv"
        write "$t" upsert "$tmp/in5.csv"
        # COW: each write merges against the stored record, commit time: the last write (ts 40) wins. MOR: the two
        # log records fold first by ordering value (OverwriteWithLatestAvroPayload.preCombine): ts 50 wins.
        if [ "$ty" = cow ]; then want1="1,a4,U,40"; else want1="1,a5,U,50"; fi
        check_eq "$ty v$v log fold" "$want1 3,c2,U,5 5,e2,U,30 6,f,I,30 " "$(rows "$t")"
        if [ "$ty" = mor ]; then
            "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "$ty v$v compact: $(cat "$tmp/err")"
            check_eq "$ty v$v after compaction" "$want1 3,c2,U,5 5,e2,U,30 6,f,I,30 " "$(rows "$t")"
        fi
        "$HOODIE" describe "$t" > "$tmp/desc" 2>&1
        grep -q "deletes       rows whose Op is 'D'" "$tmp/desc" && ok || bad "$ty v$v describe: $(cat "$tmp/desc")"
    done
done
check_eq "v8 properties as Hudi 1.0" "hoodie.record.merge.mode=CUSTOM
hoodie.record.merge.strategy.id=00000000-0000-0000-0000-000000000000" \
    "$(grep -E '^hoodie.record.merge.(mode|strategy.id)=' "$tmp/dms_mor_v8/.hoodie/hoodie.properties" | sort)"
check_eq "v8 payload" "hoodie.compaction.payload.class=org.apache.hudi.common.model.AWSDmsAvroPayload" \
    "$(grep '^hoodie.compaction.payload.class=' "$tmp/dms_mor_v8/.hoodie/hoodie.properties")"

# Op = D rows stored as data in log files, then the table switched to the payload: the reader deletes them
dms=org.apache.hudi.common.model.AWSDmsAvroPayload payload_strategy=00000000-0000-0000-0000-000000000000
printf 'id,name,Op,ts,city\n1,a2,U,20,paris\n2,b2,D,20,paris\n4,d2,D,1,rome\n' > "$tmp/legacy.csv"
for v in 8 6; do
    t=$tmp/legacy_v$v
    "$HOODIE" create "$t" --type mor --name legacy --record-key id --partition-fields city --hive-style \
        --ordering-field ts --merge-mode commit_time --table-version "$v" > /dev/null || bad "create $t"
    write "$t" bulk_insert "$tmp/in1.csv"
    write "$t" upsert "$tmp/legacy.csv"
    check_eq "legacy v$v: stored as data" "1,a2,U,20 2,b2,D,20 3,c,I,10 4,d2,D,1 5,e,I,10 9,z,D,10 " "$(rows "$t")"
    p=$t/.hoodie/hoodie.properties
    sed -i "s/^hoodie.compaction.payload.class=.*/hoodie.compaction.payload.class=$dms/" "$p"
    if [ "$v" = 8 ]; then
        sed -i "s/^hoodie.record.merge.mode=.*/hoodie.record.merge.mode=CUSTOM/;
                s/^hoodie.record.merge.strategy.id=.*/hoodie.record.merge.strategy.id=$payload_strategy/" "$p"
    fi
    # 9 (a D row of the base file, written before the payload) stays: base records are never deletes
    check_eq "legacy v$v: D log records delete" "1,a2,U,20 3,c,I,10 5,e,I,10 9,z,D,10 " "$(rows "$t")"
    check_eq "legacy v$v: narrow projection" "1 3 5 9 " \
        "$("$HOODIE" read "$t" --columns id --format csv | tail -n +2 | sort -n | tr '\n' ' ')"
    "$HOODIE" get "$t" 2 > "$tmp/get" 2>&1
    grep -q '"id":2\|^2,' "$tmp/get" && bad "legacy v$v: get 2 found it: $(cat "$tmp/get")" || ok
    "$HOODIE" get "$t" 1 --format csv > "$tmp/get" 2>&1
    grep -q 'a2' "$tmp/get" && ok || bad "legacy v$v: get 1: $(cat "$tmp/get")"
    "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "legacy v$v compact: $(cat "$tmp/err")"
    check_eq "legacy v$v: after compaction" "1,a2,U,20 3,c,I,10 5,e,I,10 9,z,D,10 " "$(rows "$t")"
    check_eq "legacy v$v: read-optimized after compaction" "1,a2,U,20 3,c,I,10 5,e,I,10 9,z,D,10 " \
        "$(rows "$t" --query read_optimized)"
done

# Hudi 1.1's stored form on an event-time table: a marked delete competes on its ordering value
t=$tmp/marker
"$HOODIE" create "$t" --type mor --name marker --record-key id --ordering-field ts --merge-mode event_time \
    --prop hoodie.record.merge.property.hoodie.payload.delete.field=Op \
    --prop hoodie.record.merge.property.hoodie.payload.delete.marker=D > /dev/null || bad "create $t"
write "$t" bulk_insert "$tmp/in1.csv"
printf 'id,name,Op,ts,city\n1,a2,D,5,paris\n2,b2,D,20,paris\n3,c2,U,5,rome\n' > "$tmp/ev.csv"
write "$t" upsert "$tmp/ev.csv"
check_eq "event time: stale delete and update lose" "1,a,I,10 3,c,I,10 4,d,I,10 5,e,I,10 " "$(rows "$t")"
"$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "marker compact: $(cat "$tmp/err")"
check_eq "event time: after compaction" "1,a,I,10 3,c,I,10 4,d,I,10 5,e,I,10 " "$(rows "$t")"

# refusals
t=$tmp/half
half_msg="hoodie.record.merge.property.hoodie.payload.delete.field: a custom delete marker needs both"
"$HOODIE" create "$t" --type cow --name half --record-key id \
    --prop hoodie.record.merge.property.hoodie.payload.delete.field=Op > /dev/null 2> "$tmp/err" &&
    bad "half marker: create succeeded" || ok
grep -q "hoodie.properties:[0-9]*: $half_msg" "$tmp/err" && ok || bad "half marker: create: $(cat "$tmp/err")"
[ -e "$t/.hoodie/hoodie.properties" ] && bad "half marker: a table was created" || ok
cp -r "$tmp/marker" "$t"
sed -i '/^hoodie.record.merge.property.hoodie.payload.delete.marker=/d' "$t/.hoodie/hoodie.properties"
"$HOODIE" read "$t" > /dev/null 2> "$tmp/err" && bad "half marker: read succeeded" || ok
grep -q "$t/.hoodie/hoodie.properties:[0-9]*: $half_msg" "$tmp/err" && ok || bad "half marker: $(cat "$tmp/err")"

# a payload hoodie does not merge by (a user's class): copy-on-write tables and read-optimized queries read; writes
# that would combine records by it are refused before they start; inserts and deletes go in
pu=com.example.hudi.PriorityPayload
printf 'id,name,Op,ts,city\n1,a2,U,20,paris\n' > "$tmp/pu.csv"
printf 'id,name,Op,ts,city\n7,g,I,10,paris\n' > "$tmp/pu7.csv"
for ty in cow mor; do
    for v in 8 6; do
        t=$tmp/pu_${ty}_v$v
        "$HOODIE" create "$t" --type "$ty" --name pu --record-key id --partition-fields city --hive-style \
            --ordering-field ts --table-version "$v" > /dev/null || bad "create $t"
        write "$t" bulk_insert "$tmp/in1.csv"
        t1=$(last_instant "$t")
        [ "$ty" = mor ] && write "$t" upsert "$tmp/pu.csv" # a log file in paris
        sed -i "s/^hoodie.compaction.payload.class=.*/hoodie.compaction.payload.class=$pu/;
                s/^hoodie.record.merge.mode=.*/hoodie.record.merge.mode=CUSTOM/" "$t/.hoodie/hoodie.properties"
        n=$("$HOODIE" timeline "$t" | wc -l)
        "$HOODIE" write "$t" --op upsert --input "$tmp/pu.csv" > /dev/null 2> "$tmp/err" &&
            bad "$ty v$v: an upsert by $pu succeeded" || ok
        grep -q "UPSERT combines records by the table's custom record merger (payload $pu)" "$tmp/err" && ok ||
            bad "$ty v$v: upsert refusal: $(cat "$tmp/err")"
        check_eq "$ty v$v: the refused upsert left no instant" "$n" "$("$HOODIE" timeline "$t" | wc -l)"
        base="1,a,I,10 2,b,I,10 3,c,I,10 4,d,I,10 5,e,I,10 9,z,D,10 "
        check_eq "$ty v$v: read-optimized" "$base" "$(rows "$t" --query read_optimized)"
        if [ "$ty" = cow ]; then
            check_eq "$ty v$v: snapshot" "$base" "$(rows "$t")"
            check_eq "$ty v$v: time travel" "$base" "$(rows "$t" --as-of "$t1")"
            write "$t" delete "$tmp/pu.csv"
            check_eq "$ty v$v: delete" "${base#1,a,I,10 }" "$(rows "$t")"
            # clustering rewrites base files, merging nothing: paris's two file groups become one, the rows the same
            write "$t" bulk_insert "$tmp/pu7.csv"
            "$HOODIE" cluster "$t" --sort-by name > "$tmp/out" 2> "$tmp/err" && ok ||
                bad "$ty v$v: cluster: $(cat "$tmp/err")"
            grep -q "2 file group(s), 1 file(s) written" "$tmp/out" && ok || bad "$ty v$v: cluster: $(cat "$tmp/out")"
            check_eq "$ty v$v: clustered" "2,b,I,10 3,c,I,10 4,d,I,10 5,e,I,10 7,g,I,10 9,z,D,10 " "$(rows "$t")"
        else
            n=$("$HOODIE" timeline "$t" | wc -l)
            "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" && bad "$ty v$v: compaction merged logs by $pu" || ok
            grep -q "merging log records by a custom record merger (payload $pu" "$tmp/err" && ok ||
                bad "$ty v$v: compaction refusal: $(cat "$tmp/err")"
            check_eq "$ty v$v: the refused compaction left no instant" "$n" "$("$HOODIE" timeline "$t" | wc -l)"
            "$HOODIE" read "$t" > /dev/null 2> "$tmp/err" && bad "$ty v$v: a snapshot merged logs by $pu" || ok
            grep -q "partition 'city=paris' has log files, and merging them needs the table's custom record merger" \
                "$tmp/err" && ok || bad "$ty v$v: snapshot refusal: $(cat "$tmp/err")"
        fi
    done
done

"$HOODIE" create "$tmp/bad" --type cow --name bad --record-key id --merge-mode dms > /dev/null 2> "$tmp/err" &&
    bad "create --merge-mode dms succeeded" || ok
grep -q "aws_dms" "$tmp/err" && ok || bad "create --merge-mode dms: message: $(cat "$tmp/err")"

# version 9's form of PartialUpdateAvroPayload (Hudi 1.1's upgrade: event-time ordering, partial update mode
# IGNORE_DEFAULTS): in every merge the winner takes the loser's values where its own are null. 1: the log record
# at 20 lacks the name, which the later-written, older record at 15 has, then wins over the base; 2: an older log
# record loses to the base whole; 3: the newer log record lacks both, the base gives them; 4: the base record wins
# over an older log record but lacks the name, which the log record gives.
pu() { printf '{"id":%s,"name":%s,"age":%s,"ts":%s,"city":"x"}\n' "$@"; }
{ pu 1 '"a"' 10 10; pu 2 '"b"' 20 10; pu 3 '"c"' 30 10; pu 4 null 40 10; } > "$tmp/pu0.jsonl"
{ pu 1 null 11 20; pu 2 '"B"' null 5; pu 3 null null 20; pu 4 '"D"' 41 5; } > "$tmp/pu1.jsonl"
pu 1 '"A2"' null 15 > "$tmp/pu2.jsonl"
t=$tmp/pu_v9
"$HOODIE" create "$t" --type mor --name pu --record-key id --partition-fields city --ordering-field ts \
    --merge-mode event_time > /dev/null || bad "create $t"
write "$t" bulk_insert "$tmp/pu0.jsonl"
write "$t" upsert "$tmp/pu1.jsonl"
write "$t" upsert "$tmp/pu2.jsonl"
check_eq "partial v9: records in log files" 2 "$(find "$t" -name '.*.log.*' | wc -l)"
pv() { "$HOODIE" read "$1" --columns id,name,age,ts --format csv "${@:2}" 2> "$tmp/err" | tail -n +2 | sort -n | tr '\n' ' '; }
check_eq "partial v9: whole records before" "1,,11,20 2,b,20,10 3,,,20 4,,40,10 " "$(pv "$t")"
p=$t/.hoodie/hoodie.properties
sed -i '/^hoodie.compaction.payload.class=/d; /^hoodie.table.precombine.field=/d
        s/^hoodie.table.version=.*/hoodie.table.version=9/' "$p"
printf '%s\n' "hoodie.legacy.payload.class=org.apache.hudi.common.model.PartialUpdateAvroPayload" \
    "hoodie.table.ordering.fields=ts" "hoodie.table.partial.update.mode=IGNORE_DEFAULTS" >> "$p"
check_eq "partial v9: IGNORE_DEFAULTS" "1,A2,11,20 2,b,20,10 3,c,30,20 4,D,40,10 " "$(pv "$t")"
"$HOODIE" get "$t" 3 --format csv > "$tmp/get" 2>&1
grep -q ',3,c,30,20,' "$tmp/get" && ok || bad "partial v9: get 3: $(cat "$tmp/get")"

# commit_of TABLE ID...: id,_hoodie_commit_time of the given ids, on one line
commit_of() {
    local t=$1; shift
    "$HOODIE" read "$t" --columns id,_hoodie_commit_time --format csv | tail -n +2 |
        awk -F, -v ids=" $* " 'index(ids, " " $1 " ") { print }' | sort -n | tr '\n' ' '
}

# The legacy payloads of partial updates, as hoodie.properties names them below version 9 (v8: merge mode CUSTOM).
# pu1 after pu0: 1 newer without a name, 2 older, 3 newer without name and age, 4 older where the stored record has
# no name; pu2: 1 again, older than pu1's, with a name; pu3: new keys twice in one batch, each row lacking a value.
# PartialUpdateAvroPayload (event time; in every merge the winner takes the loser's values where its own are null):
# COW merges each write against the stored record, so 1 keeps the name 'a' it took from the base; MOR folds the two
# log records of 1 first (20 wins, takes 'A2'). OverwriteNonDefaultsWithLatestAvroPayload (the later record replaces
# the stored one, keeping stored values where it has nulls; preCombine keeps the larger ordering value whole): COW
# takes pu2's record for 1; MOR folds 1's log records to pu1's (ts 20), which takes the base's name.
{ pu 5 '"e"' null 10; pu 5 null 55 12; pu 6 null 66 30; pu 6 '"f"' null 20; } > "$tmp/pu3.jsonl"
for pay in PartialUpdateAvroPayload OverwriteNonDefaultsWithLatestAvroPayload; do
    for ty in cow mor; do
        case $pay/$ty in
        Partial*/cow) want="1,a,11,20 2,b,20,10 3,c,30,20 4,D,40,10 5,e,55,12 6,f,66,30 " ;;
        Partial*/mor) want="1,A2,11,20 2,b,20,10 3,c,30,20 4,D,40,10 5,e,55,12 6,f,66,30 " ;;
        Overwrite*/cow) want="1,A2,11,15 2,B,20,5 3,c,30,20 4,D,41,5 5,,55,12 6,,66,30 " ;;
        Overwrite*/mor) want="1,a,11,20 2,B,20,5 3,c,30,20 4,D,41,5 5,,55,12 6,,66,30 " ;;
        esac
        for v in 8 6; do
            t=$tmp/legacy_${pay}_${ty}_v$v
            "$HOODIE" create "$t" --type "$ty" --name lp --record-key id --partition-fields city --ordering-field ts \
                --table-version "$v" > /dev/null || bad "create $t"
            write "$t" bulk_insert "$tmp/pu0.jsonl"
            t0=$(last_instant "$t")
            sed -i "s/^hoodie.compaction.payload.class=.*/hoodie.compaction.payload.class=org.apache.hudi.common.model.$pay/;
                    s/^hoodie.record.merge.mode=.*/hoodie.record.merge.mode=CUSTOM/" "$t/.hoodie/hoodie.properties"
            for f in pu1 pu2 pu3; do write "$t" upsert "$tmp/$f.jsonl"; [ $f = pu1 ] && t1=$(last_instant "$t"); done
            [ "$ty" = mor ] && check_eq "$pay $ty v$v: updates in log files" 2 "$(find "$t" -name '.*.log.*' | wc -l)"
            check_eq "$pay $ty v$v: snapshot" "$want" "$(pv "$t")"
            # 2 and 4: pu1's records lose to the stored ones on ordering value (PartialUpdateAvroPayload) or win on
            # commit time: the merged records are of pu1's commit either way (mergeDisorderRecordsWithMetadata
            # takes the later record's meta fields), so an incremental query after the bulk insert sees them
            check_eq "$pay $ty v$v: commit time of merged records" "2,$t1 4,$t1 " "$(commit_of "$t" 2 4)"
            from=$t0 # version 8 windows are of completion times
            [ "$v" = 8 ] && from=$("$HOODIE" timeline "$t" | awk -v i="$t0" '$1 == i { print $4 }')
            check_eq "$pay $ty v$v: incremental" "1 2 3 4 5 6 " \
                "$("$HOODIE" read "$t" --query incremental --from "$from" --columns id --format csv | tail -n +2 | sort -n | tr '\n' ' ')"
            "$HOODIE" describe "$t" > "$tmp/desc" 2>&1
            grep -q "^partial       IGNORE_DEFAULTS" "$tmp/desc" && ok || bad "$pay $ty v$v: describe: $(cat "$tmp/desc")"
            check_eq "$pay $ty v$v: time travel" "1,a,10,10 2,b,20,10 3,c,30,10 4,,40,10 " "$(pv "$t" --as-of "$t0")"
            want1=${want%% *}
            "$HOODIE" get "$t" 1 --format csv > "$tmp/get" 2>&1
            grep -q ",1,${want1#1,},x\$" "$tmp/get" && ok || bad "$pay $ty v$v: get 1: $(cat "$tmp/get")"
            if [ "$ty" = mor ]; then
                "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "$pay $ty v$v: compact: $(cat "$tmp/err")"
                check_eq "$pay $ty v$v: compacted" "$want" "$(pv "$t" --query read_optimized)"
            fi
        done
    done
done
# the LSM layout merges them the same way: sorted native log files, filled in the sorted merge, before and after
# its compaction
for pay in PartialUpdateAvroPayload OverwriteNonDefaultsWithLatestAvroPayload; do
    case $pay in
    Partial*) want="1,A2,11,20 2,b,20,10 3,c,30,20 4,D,40,10 5,e,55,12 6,f,66,30 " ;;
    Overwrite*) want="1,a,11,20 2,B,20,5 3,c,30,20 4,D,41,5 5,,55,12 6,,66,30 " ;;
    esac
    t=$tmp/legacy_lsm_$pay
    "$HOODIE" create "$t" --type mor --name lp --record-key id --partition-fields city --ordering-field ts \
        --layout lsm_tree > /dev/null || bad "create $t"
    write "$t" bulk_insert "$tmp/pu0.jsonl"
    sed -i "s/^hoodie.compaction.payload.class=.*/hoodie.compaction.payload.class=org.apache.hudi.common.model.$pay/;
            s/^hoodie.record.merge.mode=.*/hoodie.record.merge.mode=CUSTOM/" "$t/.hoodie/hoodie.properties"
    for f in pu1 pu2 pu3; do write "$t" upsert "$tmp/$f.jsonl"; [ $f = pu1 ] && t1=$(last_instant "$t"); done
    [ "$(find "$t" -name '*.log.parquet' | wc -l)" -ge 2 ] && ok || bad "$pay lsm: no native log files"
    check_eq "$pay lsm: snapshot" "$want" "$(pv "$t")"
    check_eq "$pay lsm: commit time of merged records" "2,$t1 4,$t1 " "$(commit_of "$t" 2 4)"
    want1=${want%% *}
    "$HOODIE" get "$t" 1 --format csv > "$tmp/get" 2>&1
    grep -q ",1,${want1#1,},x\$" "$tmp/get" && ok || bad "$pay lsm: get 1: $(cat "$tmp/get")"
    "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "$pay lsm: compact: $(cat "$tmp/err")"
    check_eq "$pay lsm: compacted" "$want" "$(pv "$t")"
done

# A delete that wins over the stored record removes it: a later record of the key is new and takes no values from
# it, in a COW merge (the record is gone), the hash merge and the sorted merge alike (7: deleted at 15, written
# again at 20 without a name; 8: the same with a delete without an ordering value). The key that is not deleted
# (9) still takes the stored name.
{ pu 7 '"g"' 70 10; pu 8 '"h"' 80 10; pu 9 '"i"' 90 10; } > "$tmp/pd0.jsonl"
printf '{"id":7,"ts":15,"city":"x"}\n' > "$tmp/pd1.jsonl"
printf '{"id":8,"city":"x"}\n' > "$tmp/pd2.jsonl"
{ pu 7 null 77 20; pu 8 null 88 20; pu 9 null 99 20; } > "$tmp/pd3.jsonl"
for lay in cow mor lsm_tree; do
    t=$tmp/pdel_$lay
    if [ "$lay" = cow ]; then o=(--type cow); elif [ "$lay" = mor ]; then o=(--type mor); else o=(--type mor --layout lsm_tree); fi
    "$HOODIE" create "$t" "${o[@]}" --name pd --record-key id --partition-fields city --ordering-field ts \
        > /dev/null || bad "create $t"
    write "$t" bulk_insert "$tmp/pd0.jsonl"
    sed -i "s/^hoodie.compaction.payload.class=.*/hoodie.compaction.payload.class=org.apache.hudi.common.model.PartialUpdateAvroPayload/;
            s/^hoodie.record.merge.mode=.*/hoodie.record.merge.mode=CUSTOM/" "$t/.hoodie/hoodie.properties"
    write "$t" delete "$tmp/pd1.jsonl"
    write "$t" delete "$tmp/pd2.jsonl"
    write "$t" upsert "$tmp/pd3.jsonl"
    check_eq "partial after delete ($lay): snapshot" "7,,77,20 8,,88,20 9,i,99,20 " "$(pv "$t")"
    "$HOODIE" get "$t" 7 --format csv > "$tmp/get" 2>&1
    grep -q ',7,,77,20,x$' "$tmp/get" && ok || bad "partial after delete ($lay): get 7: $(cat "$tmp/get")"
    if [ "$lay" = mor ]; then # log compaction carries the deletes in front of the records that follow them
        "$HOODIE" logcompact "$t" --blocks-threshold 2 > /dev/null 2> "$tmp/err" ||
            bad "partial after delete ($lay): logcompact: $(cat "$tmp/err")"
        check_eq "partial after delete ($lay): log-compacted" "7,,77,20 8,,88,20 9,i,99,20 " "$(pv "$t")"
    fi
    if [ "$lay" != cow ]; then
        "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "partial after delete ($lay): compact: $(cat "$tmp/err")"
        check_eq "partial after delete ($lay): compacted" "7,,77,20 8,,88,20 9,i,99,20 " "$(pv "$t")"
    fi
done

# Change logs of partial updates (hoodie.table.cdc.enabled, PartialUpdateAvroPayload): the CDC log's after image is
# the record as written -- 1 wins and is filled from the stored record (name 'a'), 2 loses on ordering value and
# the stored record is filled from it (age 22: a change of this commit, once refused) -- so the CDC query, which
# reads the logs, gives what it infers from the file versions without them.
for v in 8 6; do
    t=$tmp/pcdc_v$v
    "$HOODIE" create "$t" --type cow --name pcdc --record-key id --partition-fields city --ordering-field ts \
        --table-version "$v" --prop hoodie.table.cdc.enabled=true > /dev/null || bad "create $t"
    { pu 1 '"a"' 10 10; pu 2 '"b"' null 30; } > "$tmp/pc0.jsonl"
    pu 1 null 11 20 > "$tmp/pc1.jsonl"
    pu 2 '"B"' 22 5 > "$tmp/pc2.jsonl"
    write "$t" insert "$tmp/pc0.jsonl"
    sed -i "s/^hoodie.compaction.payload.class=.*/hoodie.compaction.payload.class=org.apache.hudi.common.model.PartialUpdateAvroPayload/;
            s/^hoodie.record.merge.mode=.*/hoodie.record.merge.mode=CUSTOM/" "$t/.hoodie/hoodie.properties"
    write "$t" upsert "$tmp/pc1.jsonl"
    write "$t" upsert "$tmp/pc2.jsonl"
    check_eq "partial cdc v$v: snapshot" "1,a,11,20 2,b,22,30 " "$(pv "$t")"
    check_eq "partial cdc v$v: CDC logs" 2 "$(find "$t" -name '*.cdc' | wc -l)"
    cp -r "$t" "$t.inferred" && find "$t.inferred" -name '*.cdc' -delete
    "$HOODIE" read "$t" --query cdc --format jsonl 2> "$tmp/err" | sort > "$tmp/pcdc.logged" || bad "cdc: $(cat "$tmp/err")"
    "$HOODIE" read "$t.inferred" --query cdc --format jsonl 2> "$tmp/err" | sort > "$tmp/pcdc.inferred"
    check_eq "partial cdc v$v: logged = inferred" "$(cat "$tmp/pcdc.inferred")" "$(cat "$tmp/pcdc.logged")"
    check_eq "partial cdc v$v: after images" '{"id":1,"name":"a","age":11,"ts":20,"city":"x"} {"id":2,"name":"b","age":22,"ts":30,"city":"x"} ' \
        "$(grep '"op":"u"' "$tmp/pcdc.logged" | sed 's/.*"after":"\(.*\)"}$/\1/; s/\\"/"/g' | sort | tr '\n' ' ')"
done

finish payloads
