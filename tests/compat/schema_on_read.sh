#!/usr/bin/env bash
# Schema on read (hoodie.schema.on.read.enable; table/evo.h): Spark SQL's ALTER TABLE ... RENAME COLUMN a TO c,
# DROP COLUMN b, ADD COLUMNS (b) on a table of version 6 or 8 leaves the files as written and records each schema
# version (an InternalSchema, columns by field id) in .hoodie/.schema/<instant>.schemacommit and in the commit's
# extraMetadata latest_schema. The ALTER is made here as Spark's AlterTableCommand makes it: an empty commit of
# operation ALTER_SCHEMA whose schema is the new one, the history file of both versions (the first of version 0).
# Then, COW and MOR (Avro and Parquet log blocks):
#  - snapshots read the old files' `a` as `c` and not the dropped `b` as the new `b` (a new field id);
#  - time travel before the ALTER reads the columns as they were (a, b);
#  - a hoodie upsert after it merges old base files (COW) with their renamed values, carries latest_schema on; a
#    write that adds a column makes a new version (a new field id); MOR compaction keeps the renamed values;
#  - a struct's field renamed, another dropped and added again (MOR v6: base files and Avro log blocks, compaction);
#  - the same inside the records of an array and of a map ("a.element.x", "m.value.u" in Hudi's full names);
#  - `hoodie alter --rename a.element.x:y`, `--drop a.element.z`, `--add m.value.w:string` (nested paths) on a table
#    of version 8; writes that add fields to an array's records and a map's values (JSON lines) or widen one
#    (Parquet), reconciled into a new version as Hudi's writers do;
#  - every write persists the history under its instant and drops those of archived instants;
#  - `hoodie alter --type` widens columns, nested fields, arrays' elements and maps' values, and changes columns to
#    text, decimals and dates (old files' values converted as Hudi converts them);
#  - a history where an array's element was dropped and added again (a new element id) is refused with a message.
set -u
HOODIE=${HOODIE:-build/hoodie}
SRC=${HOODIE_SRC:-.}
source "$(dirname "${BASH_SOURCE[0]}")/common/check.bash"

rows() { # TABLE COLUMNS [READ-OPTION...]
    "$HOODIE" read "$1" --columns "$2" --format csv "${@:3}" 2> "$tmp/err" | tail -n +2 | sort -n | tr '\n' ' '
}
write() {
    "$HOODIE" write "$1" --op "$2" --input "$3" "${@:4}" > /dev/null 2> "$tmp/err" || bad "write $1 $2 $3: $(cat "$tmp/err")"
}
last_instant() { "$HOODIE" timeline "$1" | tail -1 | awk '{ print $1 }'; }
# alter_refused TABLE CHANGES...: each CHANGES (its words: "--drop s.x --drop s.y") refused by hoodie alter
alter_refused() {
    local t=$1 spec
    shift
    for spec in "$@"; do
        if "$HOODIE" alter "$t" $spec > /dev/null 2> "$tmp/err"; then bad "alter $spec: done"; else ok; fi
    done
}

# alter TABLE ACTION INSTANT VERSION: the ALTER TABLE commit and history, as Spark writes them (commit metadata as
# JSON, which readers of version 8 also take)
alter() {
    python3 - "$1" "$2" "$3" "$4" <<'EOF'
import json, os, sys
t, action, instant, version = sys.argv[1:]
h = os.path.join(t, ".hoodie")
field = lambda n, ty: {"name": n, "type": ["null", ty], "default": None}
avro = {"type": "record", "name": "sor_record", "namespace": "hoodie.sor",
        "fields": [field("id", "long"), field("ts", "long"), field("c", "string"), field("p", "string"),
                   field("b", "string")]}
def internal(version_id, names):
    meta_cols = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path",
                 "_hoodie_file_name"]
    types = {"id": "long", "ts": "long"}
    cols = [(i, n) for i, n in enumerate(meta_cols)] + names
    return {"max_column_id": max(i for i, _ in cols), "version_id": version_id, "type": "record",
            "fields": [{"id": i, "name": n, "optional": True, "type": types.get(n, "string")} for i, n in cols]}
v0 = internal(0, [(5, "id"), (6, "ts"), (7, "a"), (8, "b"), (9, "p")])
v1 = internal(int(instant), [(5, "id"), (6, "ts"), (7, "c"), (9, "p"), (10, "b")])
os.makedirs(os.path.join(h, ".schema"), exist_ok=True)
with open(os.path.join(h, ".schema", instant + ".schemacommit"), "w") as f:
    f.write(json.dumps({"schemas": [v1, v0]}, separators=(",", ":")))
commit = {"partitionToWriteStats": {}, "compacted": False,
          "extraMetadata": {"schema": json.dumps(avro, separators=(",", ":")),
                            "latest_schema": json.dumps(v1, separators=(",", ":"))},
          "operationType": "ALTER_SCHEMA"}
tl = os.path.join(h, "timeline") if version == "8" else h
completed = instant + "." + action if version == "6" else "%s_%d.%s" % (instant, int(instant) + 1, action)
open(os.path.join(tl, instant + "." + action + ".requested"), "w").close()
open(os.path.join(tl, instant + ("." + action if action != "commit" else "") + ".inflight"), "w").close()
with open(os.path.join(tl, completed), "w") as f:
    json.dump(commit, f, indent=2)
EOF
}

printf 'id,ts,a,b,p\n1,10,a1,b1,x\n2,10,a2,b2,x\n3,10,a3,b3,x\n' > "$tmp/in1.csv"
printf 'id,ts,a,b,p\n2,20,a2u,b2u,x\n' > "$tmp/in2.csv"
printf 'id,ts,c,p,b\n3,30,c3,x,b3n\n4,30,c4,y,b4\n' > "$tmp/in3.csv"
printf 'id,ts,c,p,b,e\n5,40,c5,y,b5,e5\n' > "$tmp/in4.csv"
before="1,10,a1,b1 2,20,a2u,b2u 3,10,a3,b3 "
after="1,10,a1, 2,20,a2u, 3,10,a3, "
final="1,10,a1, 2,20,a2u, 3,30,c3,b3n 4,30,c4,b4 "

for case in cow_6 mor_6 mor_6_parquet cow_8 mor_8 mor_8_parquet; do
    ty=${case%%_*} v=${case#*_}
    v=${v%%_*}
    t=$tmp/$case
    action=commit; [ "$ty" = mor ] && action=deltacommit
    extra=(); [ "${case%_parquet}" != "$case" ] && extra=(--log-block-format parquet)
    "$HOODIE" create "$t" --type "$ty" --name sor --record-key id --partition-fields p --hive-style \
        --ordering-field ts --table-version "$v" > /dev/null || bad "create $t"
    write "$t" bulk_insert "$tmp/in1.csv"
    write "$t" upsert "$tmp/in2.csv" "${extra[@]}"
    t2=$(last_instant "$t")
    [ "$ty" = mor ] && check_eq "$case: the update went to a log file" 1 "$(find "$t" -name '.*.log.*' | wc -l)"
    check_eq "$case: before the ALTER" "$before" "$(rows "$t" id,ts,a,b)"
    sleep 1
    if [ "$v" = 6 ]; then
        alter "$t" "$action" "$(date -u +%Y%m%d%H%M%S)000" "$v"
    else # hoodie's own ALTER TABLE
        if [ "$ty" = mor ]; then # not while a compaction is pending
            "$HOODIE" compact "$t" --schedule > /dev/null 2> "$tmp/err" || bad "$case schedule: $(cat "$tmp/err")"
            if "$HOODIE" alter "$t" --rename a:c > /dev/null 2> "$tmp/err"; then bad "$case: alter with a pending compaction"
            else grep -q "is pending: run it or roll it back" "$tmp/err" && ok || bad "$case pending: $(cat "$tmp/err")"; fi
            "$HOODIE" compact "$t" --run > /dev/null 2> "$tmp/err" || bad "$case run: $(cat "$tmp/err")"
            write "$t" upsert "$tmp/in2.csv" "${extra[@]}" # a log file again
            t2=$(last_instant "$t")
        fi
        for bad_change in "--rename id:k" "--drop nope" "--add c:varchar" "--rename a:b"; do
            if "$HOODIE" alter "$t" $bad_change > /dev/null 2> "$tmp/err"; then bad "$case: alter $bad_change taken"
            else ok; fi
        done
        check_eq "$case: refused changes wrote nothing" "$t2" "$(last_instant "$t")"
        "$HOODIE" alter "$t" --rename a:c --drop b --add b:string > /dev/null 2> "$tmp/err" || bad "$case alter: $(cat "$tmp/err")"
        check_eq "$case: the history hoodie writes" "[(5, 'id'), (6, 'ts'), (7, 'c'), (9, 'p'), (10, 'b')] [(5, 'id'), (6, 'ts'), (7, 'a'), (8, 'b'), (9, 'p')] 10 0" \
            "$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["schemas"]; print(*[[(f["id"], f["name"]) for f in v["fields"][5:]] for v in h], h[0]["max_column_id"], h[1]["version_id"])' "$t"/.hoodie/.schema/*.schemacommit)"
    fi
    check_eq "$case: renamed a reads as c, dropped b is not the new b" "$after" "$(rows "$t" id,ts,c,b)"
    "$HOODIE" describe "$t" 2>&1 | grep -q "by field id (schema on read): 2 schema versions" && ok \
        || bad "$case describe: $("$HOODIE" describe "$t" 2>&1 | grep columns)"
    check_eq "$case: all columns" "_hoodie_commit_time,_hoodie_commit_seqno,_hoodie_record_key,_hoodie_partition_path,_hoodie_file_name,id,ts,c,p,b" \
        "$("$HOODIE" read "$t" --format csv 2> "$tmp/err" | head -1)"
    check_eq "$case: time travel before the ALTER" "$before" "$(rows "$t" id,ts,a,b --as-of "$t2")"
    check_eq "$case: point lookup" "2,20,a2u," "$("$HOODIE" get "$t" 2 --columns id,ts,c,b --format csv 2> "$tmp/err" | tail -n +2)"
    write "$t" upsert "$tmp/in3.csv" "${extra[@]}"
    check_eq "$case: upsert after the ALTER" "$final" "$(rows "$t" id,ts,c,b)"
    tl=$t/.hoodie; [ "$v" = 8 ] && tl=$t/.hoodie/timeline
    last=$(ls "$tl" | grep -E "^[0-9_]+\.$action\$" | sort | tail -1)
    tr '\n' ' ' < "$tl/$last" | LC_ALL=C grep -aqE 'latest_schema.*max_column_id\\?":10,\\?"version_id' && ok \
        || bad "$case: the upsert's commit carries latest_schema ($tl/$last)"
    # a write adding a column: a new version (its id after max_column_id), made by the write's commit
    t3=$(last_instant "$t")
    write "$t" upsert "$tmp/in4.csv" "${extra[@]}"
    t4=$(last_instant "$t")
    check_eq "$case: a write adding a column" "1,a1, 2,a2u, 3,c3, 4,c4, 5,c5,e5 " "$(rows "$t" id,c,e)"
    check_eq "$case: as of before it" "$final" "$(rows "$t" id,ts,c,b --as-of "$t3")"
    check_eq "$case: the version it made" "3 [(7, 'c'), (9, 'p'), (10, 'b'), (11, 'e')] $t4" \
        "$(python3 -c 'import json,sys; h=json.load(open(sys.argv[1]))["schemas"]; print(len(h), [(f["id"], f["name"]) for f in h[0]["fields"][7:]], h[0]["version_id"])' "$t/.hoodie/.schema/$t4.schemacommit")"
    if [ "$ty" = mor ]; then
        "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "$case compact: $(cat "$tmp/err")"
        check_eq "$case: after compaction" "${final}5,40,c5,b5 " "$(rows "$t" id,ts,c,b)"
        check_eq "$case: time travel after compaction" "$before" "$(rows "$t" id,ts,a,b --as-of "$t2")"
    fi
done

# a struct's field renamed (s.x to y), another dropped and added again (s.z), as Spark's ALTER TABLE does: by id
# inside records too, in base files (Parquet) and Avro log blocks, before and after compaction
# alter_struct KIND TABLE ACTION INSTANT: an ALTER of fields inside records, as Spark's ALTER TABLE makes it (v6 timeline,
# commit metadata as JSON): KIND nested: s.x renamed y, s.z dropped and added again; KIND collections: a.element.x
# renamed y, a.element.z dropped and added again, m.value.u renamed v
alter_struct() {
    python3 - "$1" "$2" "$3" "$4" <<'EOF'
import json, os, sys
kind, t, action, instant = sys.argv[1:]
h = os.path.join(t, ".hoodie")
nf = lambda n, ty: {"name": n, "type": ["null", ty], "default": None}
meta_cols = ["_hoodie_commit_time", "_hoodie_commit_seqno", "_hoodie_record_key", "_hoodie_partition_path", "_hoodie_file_name"]
def rec(fs):
    return {"type": "record", "fields": [{"id": i, "name": n, "optional": True, "type": "long"} for i, n in fs]}
def ver(vid, mid, maxid):
    fields = [{"id": i, "name": n, "optional": True, "type": "string"} for i, n in enumerate(meta_cols)]
    fields += [{"id": 5, "name": "id", "optional": True, "type": "long"}, {"id": 6, "name": "ts", "optional": True, "type": "long"}]
    fields += mid + [{"id": len(mid) + 7, "name": "p", "optional": True, "type": "string"}]
    return {"max_column_id": maxid, "version_id": vid, "type": "record", "fields": fields}
if kind == "nested":
    srec = {"type": "record", "name": "s", "namespace": "hoodie.nest.nest_record", "fields": [nf("y", "long"), nf("z", "long")]}
    avro = {"type": "record", "name": "nest_record", "namespace": "hoodie.nest",
            "fields": [nf("id", "long"), nf("ts", "long"), nf("s", srec), nf("p", "string")]}
    s_of = lambda fs: [{"id": 7, "name": "s", "optional": True, "type": rec(fs)}]
    v0 = ver(0, s_of([(9, "x"), (10, "z")]), 10)
    v1 = ver(int(instant), s_of([(9, "y"), (11, "z")]), 11)
else:
    arec = {"type": "record", "name": "a", "namespace": "hoodie.arr.arr_record", "fields": [nf("y", "long"), nf("z", "long")]}
    mrec = {"type": "record", "name": "m", "namespace": "hoodie.arr.arr_record", "fields": [nf("v", "long"), nf("w", "long")]}
    avro = {"type": "record", "name": "arr_record", "namespace": "hoodie.arr",
            "fields": [nf("id", "long"), nf("ts", "long"), nf("a", {"type": "array", "items": ["null", arec]}),
                       nf("m", {"type": "map", "values": ["null", mrec]}), nf("p", "string")]}
    am_of = lambda afs, mfs: [
        {"id": 7, "name": "a", "optional": True, "type": {"type": "array", "element-id": 10, "element_optional": True, "element": rec(afs)}},
        {"id": 8, "name": "m", "optional": True, "type": {"type": "map", "key-id": 13, "key": "string", "value-id": 14, "value_optional": True, "value": rec(mfs)}}]
    v0 = ver(0, am_of([(11, "x"), (12, "z")], [(15, "u"), (16, "w")]), 16)
    v1 = ver(int(instant), am_of([(11, "y"), (17, "z")], [(15, "v"), (16, "w")]), 17)
with open(os.path.join(h, ".schema", instant + ".schemacommit"), "w") as f:
    f.write(json.dumps({"schemas": [v1, v0]}, separators=(",", ":")))
commit = {"partitionToWriteStats": {}, "compacted": False,
          "extraMetadata": {"schema": json.dumps(avro, separators=(",", ":")), "latest_schema": json.dumps(v1, separators=(",", ":"))},
          "operationType": "ALTER_SCHEMA"}
open(os.path.join(h, instant + "." + action + ".requested"), "w").close()
open(os.path.join(h, instant + "." + action + ".inflight"), "w").close()
with open(os.path.join(h, instant + "." + action), "w") as f:
    json.dump(commit, f, indent=2)
EOF
}
# struct_case LABEL TABLE KIND COLUMNS ROWS1 ROWS2 BEFORE AFTER [UPSERT-OPTION...]: MOR table TABLE written with the
# JSON lines ROWS1 (bulk_insert) and ROWS2 (upsert: a log file), read (COLUMNS, sorted lines) before and after
# alter_struct KIND, and after compaction
jsonl_rows() { "$HOODIE" read "$1" --format jsonl --columns "$2" "${@:3}" 2> "$tmp/err" | sort | tr '\n' ' '; }
struct_case() {
    local label=$1 t=$2 kind=$3 cols=$4
    printf '%b' "$5" > "$tmp/s1.jsonl"
    printf '%b' "$6" > "$tmp/s2.jsonl"
    write "$t" bulk_insert "$tmp/s1.jsonl" --input-format jsonl
    write "$t" upsert "$tmp/s2.jsonl" --input-format jsonl "${@:9}"
    check_eq "$label: before" "$7" "$(jsonl_rows "$t" "$cols")"
    sleep 1
    alter_struct "$kind" "$t" deltacommit "$(date -u +%Y%m%d%H%M%S)000"
    check_eq "$label: after the ALTER" "$8" "$(jsonl_rows "$t" "$cols")"
    "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "$label compact: $(cat "$tmp/err")"
    check_eq "$label: after compaction" "$8" "$(jsonl_rows "$t" "$cols")"
}
t=$tmp/nest
"$HOODIE" create "$t" --type mor --name nest --record-key id --partition-fields p --hive-style --ordering-field ts \
    --table-version 6 > /dev/null || bad "create $t"
# s.x reads as s.y, the dropped s.z is not the new one
struct_case "struct fields" "$t" nested id,s \
    '{"id":1,"ts":10,"s":{"x":1,"z":2},"p":"x"}\n{"id":2,"ts":10,"s":{"x":3,"z":4},"p":"x"}\n' \
    '{"id":2,"ts":20,"s":{"x":5,"z":6},"p":"x"}\n' \
    '{"id":1,"s":{"x":1,"z":2}} {"id":2,"s":{"x":5,"z":6}} ' \
    '{"id":1,"s":{"y":1,"z":null}} {"id":2,"s":{"y":5,"z":null}} '

# inside the records of an array (a.element.x renamed y, a.element.z dropped and added again) and of a map's values
# (m.value.u renamed v): by id through "element" and "value", in base files (3-level lists, maps) and Avro log
# blocks, before and after compaction
cat > "$tmp/coll.avsc" <<'EOF'
{"type":"record","name":"arr_record","namespace":"hoodie.arr","fields":[
 {"name":"id","type":["null","long"],"default":null},{"name":"ts","type":["null","long"],"default":null},
 {"name":"a","type":["null",{"type":"array","items":["null",{"type":"record","name":"a","namespace":"hoodie.arr.arr_record","fields":[{"name":"x","type":["null","long"],"default":null},{"name":"z","type":["null","long"],"default":null}]}]}],"default":null},
 {"name":"m","type":["null",{"type":"map","values":["null",{"type":"record","name":"m","namespace":"hoodie.arr.arr_record","fields":[{"name":"u","type":["null","long"],"default":null},{"name":"w","type":["null","long"],"default":null}]}]}],"default":null},
 {"name":"p","type":["null","string"],"default":null}]}
EOF
for fmt in avro parquet; do
    t=$tmp/coll_$fmt
    "$HOODIE" create "$t" --type mor --name arr --record-key id --partition-fields p --hive-style --ordering-field ts \
        --table-version 6 --schema "$tmp/coll.avsc" > /dev/null || bad "create $t"
    # a.element.x reads as y, m.value.u as v, the dropped z is not the new one
    struct_case "array and map ($fmt blocks)" "$t" collections id,a,m \
        '{"id":1,"ts":10,"a":[{"x":1,"z":2},{"x":3,"z":4}],"m":{"k":{"u":5,"w":6}},"p":"x"}\n{"id":2,"ts":10,"a":[{"x":7,"z":8}],"m":{"k":{"u":9,"w":10}},"p":"x"}\n' \
        '{"id":2,"ts":20,"a":[{"x":11,"z":12}],"m":{"q":{"u":13,"w":14}},"p":"x"}\n' \
        '{"id":1,"a":[{"x":1,"z":2},{"x":3,"z":4}],"m":{"k":{"u":5,"w":6}}} {"id":2,"a":[{"x":11,"z":12}],"m":{"q":{"u":13,"w":14}}} ' \
        '{"id":1,"a":[{"y":1,"z":null},{"y":3,"z":null}],"m":{"k":{"v":5,"w":6}}} {"id":2,"a":[{"y":11,"z":null}],"m":{"q":{"v":13,"w":14}}} ' \
        --log-block-format "$fmt"
done

# hoodie alter renames nested fields by path (a.element.x, m.value.u) on a table of version 8: read by id after it,
# as before it by time travel, written by the new names after it, compacted; a path to no field or to a name taken,
# and dropping a nested field, are refused and change nothing
t=$tmp/alter_nested
"$HOODIE" create "$t" --type mor --name arr --record-key id --partition-fields p --hive-style --ordering-field ts \
    --schema "$tmp/coll.avsc" > /dev/null || bad "create $t"
printf '{"id":1,"ts":10,"a":[{"x":1,"z":2}],"m":{"k":{"u":5,"w":6}},"p":"x"}\n{"id":2,"ts":10,"a":[{"x":7,"z":8}],"m":{"k":{"u":9,"w":10}},"p":"x"}\n' > "$tmp/an1.jsonl"
printf '{"id":2,"ts":20,"a":[{"x":11,"z":12}],"m":{"q":{"u":13,"w":14}},"p":"x"}\n' > "$tmp/an2.jsonl"
write "$t" bulk_insert "$tmp/an1.jsonl" --input-format jsonl
write "$t" upsert "$tmp/an2.jsonl" --input-format jsonl
t1=$(last_instant "$t")
before='{"id":1,"a":[{"x":1,"z":2}],"m":{"k":{"u":5,"w":6}}} {"id":2,"a":[{"x":11,"z":12}],"m":{"q":{"u":13,"w":14}}} '
"$HOODIE" alter "$t" --rename a.element.x:y --rename m.value.u:v > /dev/null 2> "$tmp/err" || bad "alter nested: $(cat "$tmp/err")"
after='{"id":1,"a":[{"y":1,"z":2}],"m":{"k":{"v":5,"w":6}}} {"id":2,"a":[{"y":11,"z":12}],"m":{"q":{"v":13,"w":14}}} '
check_eq "hoodie alter nested: renamed" "$after" "$(jsonl_rows "$t" id,a,m)"
check_eq "hoodie alter nested: time travel before it" "$before" "$(jsonl_rows "$t" id,a,m --as-of "$t1")"
alter_refused "$t" "--rename a.element.nope:q" "--rename a.element.z:y" "--rename m.key.u:v" "--drop a.element.nope" \
    "--drop a.element.y.q" "--drop s.x"
printf '{"id":1,"ts":30,"a":[{"y":31,"z":32}],"m":{"k":{"v":35,"w":36}},"p":"x"}\n' > "$tmp/an3.jsonl"
write "$t" upsert "$tmp/an3.jsonl" --input-format jsonl
written='{"id":1,"a":[{"y":31,"z":32}],"m":{"k":{"v":35,"w":36}}} {"id":2,"a":[{"y":11,"z":12}],"m":{"q":{"v":13,"w":14}}} '
check_eq "hoodie alter nested: a write by the new names" "$written" "$(jsonl_rows "$t" id,a,m)"
"$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "alter nested compact: $(cat "$tmp/err")"
check_eq "hoodie alter nested: after compaction" "$written" "$(jsonl_rows "$t" id,a,m)"

# hoodie alter drops and adds nested fields (a.element.z dropped, a.element.n added; m.value.w dropped and added
# again as a string: a new id, so the old values stay hidden), in one commit; time travel reads as before; written
# by the new fields (Avro log blocks), compacted; the only field of a record is not dropped, a field there is not
# added, nothing changes when a change is refused
t2=$(last_instant "$t")
"$HOODIE" alter "$t" --drop a.element.z --drop m.value.w --add a.element.n:long --add m.value.w:string \
    > /dev/null 2> "$tmp/err" || bad "alter nested drop/add: $(cat "$tmp/err")"
dropped='{"id":1,"a":[{"y":31,"n":null}],"m":{"k":{"v":35,"w":null}}} {"id":2,"a":[{"y":11,"n":null}],"m":{"q":{"v":13,"w":null}}} '
check_eq "hoodie alter nested drop/add" "$dropped" "$(jsonl_rows "$t" id,a,m)"
check_eq "hoodie alter nested drop/add: time travel before it" "$written" "$(jsonl_rows "$t" id,a,m --as-of "$t2")"
alter_refused "$t" "--drop a.element.y --drop a.element.n" "--add m.value.v:int" "--add p.x:int" \
    "--add a.element.y.q:int" "--drop id.x" "--add a..b:int"
check_eq "hoodie alter nested: refused changes change nothing" "$dropped" "$(jsonl_rows "$t" id,a,m)"
printf '{"id":2,"ts":40,"a":[{"y":41,"n":42}],"m":{"q":{"v":43,"w":"w44"}},"p":"x"}\n' > "$tmp/an4.jsonl"
write "$t" upsert "$tmp/an4.jsonl" --input-format jsonl
added='{"id":1,"a":[{"y":31,"n":null}],"m":{"k":{"v":35,"w":null}}} {"id":2,"a":[{"y":41,"n":42}],"m":{"q":{"v":43,"w":"w44"}}} '
check_eq "hoodie alter nested drop/add: a write of the new fields" "$added" "$(jsonl_rows "$t" id,a,m)"
"$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "alter nested drop/add compact: $(cat "$tmp/err")"
check_eq "hoodie alter nested drop/add: after compaction" "$added" "$(jsonl_rows "$t" id,a,m)"
check_eq "hoodie alter nested drop/add: time travel after compaction" "$written" "$(jsonl_rows "$t" id,a,m --as-of "$t2")"

# writes reconcile nested fields as Hudi's writers do: new fields of an array's records and a map's values (JSON
# lines) take new ids, a nested field widened (a Parquet input's long for m.value.f, added as an int) keeps its id;
# older instants read as before; compacted
"$HOODIE" alter "$t" --add m.value.f:int > /dev/null 2> "$tmp/err" || bad "alter --add m.value.f: $(cat "$tmp/err")"
t3=$(last_instant "$t")
printf '{"id":1,"ts":50,"a":[{"y":51,"n":52,"g":"gee"}],"m":{"k":{"v":55,"w":"w56","f":57,"h":true}},"p":"x"}\n' > "$tmp/an5.jsonl"
write "$t" upsert "$tmp/an5.jsonl" --input-format jsonl
node "$SRC/tests/oracle/duck.mjs" --csv "COPY (SELECT 2::BIGINT AS id, 60::BIGINT AS ts,
    [{'y': 61::BIGINT, 'n': NULL::BIGINT, 'g': 'g62'}] AS a,
    MAP {'q': {'v': 63::BIGINT, 'w': NULL::VARCHAR, 'f': 5000000000::BIGINT, 'h': false}} AS m, 'x' AS p)
    TO '$tmp/an6.parquet' (FORMAT PARQUET)" > /dev/null 2> "$tmp/err" || bad "duckdb an6.parquet: $(cat "$tmp/err")"
write "$t" upsert "$tmp/an6.parquet" --input-format parquet
reconciled='{"id":1,"a":[{"y":51,"n":52,"g":"gee"}],"m":{"k":{"v":55,"w":"w56","f":57,"h":true}}} {"id":2,"a":[{"y":61,"n":null,"g":"g62"}],"m":{"q":{"v":63,"w":null,"f":5000000000,"h":false}}} '
check_eq "writes add and widen nested fields" "$reconciled" "$(jsonl_rows "$t" id,a,m)"
check_eq "writes add and widen nested fields: time travel before them" \
    '{"id":1,"a":[{"y":31,"n":null}],"m":{"k":{"v":35,"w":null,"f":null}}} {"id":2,"a":[{"y":41,"n":42}],"m":{"q":{"v":43,"w":"w44","f":null}}} ' \
    "$(jsonl_rows "$t" id,a,m --as-of "$t3")"
ids=$(python3 - "$t" <<'EOF2'
import glob, json, sys
v = json.load(open(sorted(glob.glob(sys.argv[1] + "/.hoodie/.schema/*.schemacommit"))[-1]))["schemas"][0]
def walk(t, path, out):
    if isinstance(t, dict) and t.get("type") == "record":
        for f in t["fields"]:
            out[path + f["name"]] = (f["id"], f["type"] if isinstance(f["type"], str) else f["type"]["type"])
            walk(f["type"], path + f["name"] + ".", out)
    elif isinstance(t, dict) and t.get("type") == "array": walk(t["element"], path + "element.", out)
    elif isinstance(t, dict) and t.get("type") == "map": walk(t["value"], path + "value.", out)
out = {}
walk(v, "", out)
f, g, h = out["m.value.f"], out["a.element.g"], out["m.value.h"]
print(f[1], g[1], h[1], "new" if min(g[0], h[0]) > f[0] and v["max_column_id"] == max(g[0], h[0]) else "old")
EOF2
)
check_eq "writes add and widen nested fields: ids" "long string boolean new" "$ids"
"$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "reconciled compact: $(cat "$tmp/err")"
check_eq "writes add and widen nested fields: after compaction" "$reconciled" "$(jsonl_rows "$t" id,a,m)"

# every write to a table read by field id persists the history under its own instant, as Hudi's writers do: once
# the ALTER's instant is archived, the newest history of a completed instant of the active timeline (the one Java
# readers take) still holds the rename, the histories of archived instants are gone, and the table reads by id
t=$tmp/hist
"$HOODIE" create "$t" --type cow --name hist --record-key id --ordering-field ts > /dev/null || bad "create $t"
printf '{"id":1,"ts":1,"a":"x","b":1}\n' > "$tmp/h0.jsonl"
write "$t" upsert "$tmp/h0.jsonl" --input-format jsonl
"$HOODIE" alter "$t" --rename a:c > /dev/null 2> "$tmp/err" || bad "alter hist: $(cat "$tmp/err")"
for i in 2 3 4 5; do
    printf '{"id":%d,"ts":1,"c":"v%d","b":%d}\n' "$i" "$i" "$i" > "$tmp/h$i.jsonl"
    write "$t" upsert "$tmp/h$i.jsonl" --input-format jsonl
done
"$HOODIE" archive "$t" --min-commits 2 --max-commits 3 > /dev/null 2> "$tmp/err" || bad "archive hist: $(cat "$tmp/err")"
printf '{"id":6,"ts":1,"c":"v6","b":6}\n' > "$tmp/h6.jsonl"
write "$t" upsert "$tmp/h6.jsonl" --input-format jsonl
"$HOODIE" timeline "$t" | awk 'NR > 1 && $3 == "completed" { print $1 }' > "$tmp/active"
java_view=$(python3 - "$t" "$tmp/active" <<'EOF2'
import glob, json, os, sys
active = set(open(sys.argv[2]).read().split())
files = sorted(os.path.basename(f).split(".")[0] for f in glob.glob(sys.argv[1] + "/.hoodie/.schema/*.schemacommit"))
valid = [f for f in files if f in active]
h = json.load(open(sys.argv[1] + "/.hoodie/.schema/" + valid[-1] + ".schemacommit"))["schemas"] if valid else []
names = [sorted(f["name"] for f in v["fields"] if not f["name"].startswith("_")) for v in h]
print(len(files) == len(valid), len(valid) == len(active), names)
EOF2
)
check_eq "histories persisted by every write, archived ones gone" "True True [['b', 'c', 'id', 'ts'], ['a', 'b', 'id', 'ts']]" "$java_view"
check_eq "after the ALTER's instant is archived: read by id" "1,x,1 2,v2,2 3,v3,3 4,v4,4 5,v5,5 6,v6,6 " "$(rows "$t" id,c,b)"

# a write that widens an array's element and a map's value (int to long, from Parquet) on a table read by field id:
# the new version keeps their ids, old files read widened; an element of another type is refused
t=$tmp/widen_items
cat > "$tmp/wi.avsc" <<'EOF2'
{"type":"record","name":"wi","fields":[{"name":"id","type":"long"},{"name":"ts","type":"long"},
 {"name":"l","type":["null",{"type":"array","items":["null","int"]}]},
 {"name":"m","type":["null",{"type":"map","values":["null","int"]}]}]}
EOF2
"$HOODIE" create "$t" --type mor --name wi --record-key id --ordering-field ts --schema "$tmp/wi.avsc" > /dev/null || bad "create $t"
printf '{"id":1,"ts":1,"l":[1,2],"m":{"a":3}}\n' > "$tmp/wi1.jsonl"
write "$t" upsert "$tmp/wi1.jsonl" --input-format jsonl
"$HOODIE" alter "$t" --add x:int > /dev/null 2> "$tmp/err" || bad "alter wi: $(cat "$tmp/err")"
node "$SRC/tests/oracle/duck.mjs" --csv "COPY (SELECT 2::BIGINT AS id, 2::BIGINT AS ts, [5000000000::BIGINT] AS l,
    MAP {'b': 6000000000::BIGINT} AS m, 7::INT AS x) TO '$tmp/wi2.parquet' (FORMAT PARQUET)" > /dev/null 2> "$tmp/err" ||
    bad "duckdb wi2.parquet: $(cat "$tmp/err")"
write "$t" upsert "$tmp/wi2.parquet" --input-format parquet
check_eq "array element and map value widened" '{"id":1,"l":[1,2],"m":{"a":3},"x":null} {"id":2,"l":[5000000000],"m":{"b":6000000000},"x":7} ' \
    "$(jsonl_rows "$t" id,l,m,x)"
ids=$(python3 -c "
import glob, json
v = json.load(open(sorted(glob.glob('$t/.hoodie/.schema/*.schemacommit'))[-1]))['schemas'][0]
f = {x['name']: x['type'] for x in v['fields']}
print(f['l']['element-id'], f['l']['element'], f['m']['value-id'], f['m']['value'])")
check_eq "array element and map value widened: same ids" "9 long 11 long" "$ids"
node "$SRC/tests/oracle/duck.mjs" --csv "COPY (SELECT 3::BIGINT AS id, 3::BIGINT AS ts, ['x'] AS l,
    MAP {'c': 1::BIGINT} AS m, 1::INT AS x) TO '$tmp/wi3.parquet' (FORMAT PARQUET)" > /dev/null 2> "$tmp/err" ||
    bad "duckdb wi3.parquet: $(cat "$tmp/err")"
if "$HOODIE" write "$t" --op upsert --input "$tmp/wi3.parquet" > /dev/null 2> "$tmp/err"; then bad "l.element long to string: written"
else grep -q "'l.element'" "$tmp/err" && ok || bad "l.element long to string: $(cat "$tmp/err")"; fi

# hoodie alter --type widens columns, nested fields, an array's element and a map's value (int to long, int to
# double) without rewriting a file: Parquet base files and Avro log blocks written before it read widened, time
# travel reads the old types, later writes take the new range, compaction keeps the values; narrowing, other types
# and key fields are refused
for fmt in avro parquet; do
    t=$tmp/retype_$fmt
    "$HOODIE" create "$t" --type mor --name rt --record-key id --ordering-field ts --schema "$tmp/wi.avsc" > /dev/null ||
        bad "create $t"
    printf '{"id":1,"ts":1,"l":[1,2],"m":{"a":3}}\n{"id":2,"ts":1,"l":[4],"m":{"b":5}}\n' > "$tmp/rt1.jsonl"
    printf '{"id":1,"ts":2,"l":[6],"m":{"c":7}}\n' > "$tmp/rt2.jsonl"
    write "$t" bulk_insert "$tmp/rt1.jsonl" --input-format jsonl
    "$HOODIE" alter "$t" --add n:int > /dev/null 2> "$tmp/err" || bad "alter rt add: $(cat "$tmp/err")"
    write "$t" upsert "$tmp/rt2.jsonl" --input-format jsonl --set-null-for-missing-columns --log-block-format "$fmt"
    t1=$(last_instant "$t")
    "$HOODIE" alter "$t" --type l.element:long --type m.value:double --type n:long > /dev/null 2> "$tmp/err" ||
        bad "alter --type ($fmt): $(cat "$tmp/err")"
    check_eq "alter --type ($fmt): read widened" '{"id":1,"l":[6],"m":{"c":7.0},"n":null} {"id":2,"l":[4],"m":{"b":5.0},"n":null} ' \
        "$(jsonl_rows "$t" id,l,m,n)"
    check_eq "alter --type ($fmt): time travel before it" '{"id":1,"l":[6],"m":{"c":7},"n":null} {"id":2,"l":[4],"m":{"b":5},"n":null} ' \
        "$(jsonl_rows "$t" id,l,m,n --as-of "$t1")"
    printf '{"id":2,"ts":3,"l":[5000000000],"m":{"d":2.5},"n":6000000000}\n' > "$tmp/rt3.jsonl"
    write "$t" upsert "$tmp/rt3.jsonl" --input-format jsonl --log-block-format "$fmt"
    widened='{"id":1,"l":[6],"m":{"c":7.0},"n":null} {"id":2,"l":[5000000000],"m":{"d":2.5},"n":6000000000} '
    check_eq "alter --type ($fmt): a write of the wider values" "$widened" "$(jsonl_rows "$t" id,l,m,n)"
    "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "alter --type ($fmt) compact: $(cat "$tmp/err")"
    check_eq "alter --type ($fmt): after compaction" "$widened" "$(jsonl_rows "$t" id,l,m,n)"
    alter_refused "$t" "--type n:int" "--type n:date" "--type l.element:int" "--type l:long" "--type id:long" \
        "--type ts:double" "--type nope:long"
done

# hoodie alter --type to text, decimals and dates (the rest of SchemaChangeUtils.isTypeUpdateAllow): files stay
# as written, readers convert old values as Hudi does (numbers as Java's String.valueOf writes them, 0.1f as "0.1";
# decimals rescaled; doubles and text to a decimal half up, a value that does not fit or does not parse a null, as
# Spark's cast; text to a date as Spark reads it). COW (old base files merged by a later write), MOR with Avro and
# Parquet log blocks (old log blocks converted, then compaction); statistics of old files do not prune the converted
# columns (10 < 9 as text); time travel reads the old types
cat > "$tmp/tc.avsc" <<'AVSC'
{"type":"record","name":"tc","namespace":"hoodie.tc","fields":[{"name":"id","type":"long"},{"name":"ts","type":"long"},
{"name":"i","type":["null","int"],"default":null},{"name":"l","type":["null","long"],"default":null},
{"name":"f","type":["null","float"],"default":null},{"name":"d","type":["null","double"],"default":null},
{"name":"dec","type":["null",{"type":"fixed","name":"fx","size":3,"logicalType":"decimal","precision":5,"scale":2}],"default":null},
{"name":"dt","type":["null",{"type":"int","logicalType":"date"}],"default":null},
{"name":"s","type":["null","string"],"default":null},{"name":"s2","type":["null","string"],"default":null}]}
AVSC
printf '%s\n' '{"id":1,"ts":1,"i":12,"l":123456789,"f":0.1,"d":1e10,"dec":"123.45","dt":"2024-02-29","s":" 1.005 ","s2":"2024-1-5"}' \
    '{"id":2,"ts":1,"i":9,"l":-5,"f":1e-5,"d":0.125,"dec":"-0.01","dt":"1969-12-31","s":"abc","s2":"2024-13-01"}' \
    '{"id":3,"ts":1}' > "$tmp/tc1.jsonl"
printf '%s\n' '{"id":2,"ts":2,"i":10,"l":99999999999999999,"f":3.5,"d":-2.5e-7,"dec":"0.50","dt":"2000-01-01","s":"1e2","s2":"2023-06-07T10:00"}' > "$tmp/tc2.jsonl"
printf '%s\n' '{"id":3,"ts":3,"i":"x3","l":"1.5","f":"f3","d":"2.25","dec":"9.999","dt":"d3","s":"7.5","s2":"2020-02-02"}' > "$tmp/tc3.jsonl"
tc_cols=id,i,l,f,d,dec,dt,s,s2
tc_old='{"id":1,"i":12,"l":123456789,"f":0.1,"d":10000000000.0,"dec":123.45,"dt":"2024-02-29","s":" 1.005 ","s2":"2024-1-5"} {"id":2,"i":10,"l":99999999999999999,"f":3.5,"d":-2.5e-07,"dec":0.50,"dt":"2000-01-01","s":"1e2","s2":"2023-06-07T10:00"} {"id":3,"i":null,"l":null,"f":null,"d":null,"dec":null,"dt":null,"s":null,"s2":null} '
tc_new='{"id":1,"i":"12","l":123456789.00,"f":"0.1","d":null,"dec":123.450,"dt":"2024-02-29","s":1.01,"s2":"2024-01-05"} {"id":2,"i":"10","l":99999999999999999.00,"f":"3.5","d":0.000,"dec":0.500,"dt":"2000-01-01","s":100.00,"s2":"2023-06-07"} {"id":3,"i":null,"l":null,"f":null,"d":null,"dec":null,"dt":null,"s":null,"s2":null} '
tc_after='{"id":1,"i":"12","l":123456789.00,"f":"0.1","d":null,"dec":123.450,"dt":"2024-02-29","s":1.01,"s2":"2024-01-05"} {"id":2,"i":"10","l":99999999999999999.00,"f":"3.5","d":0.000,"dec":0.500,"dt":"2000-01-01","s":100.00,"s2":"2023-06-07"} {"id":3,"i":"x3","l":1.50,"f":"f3","d":2.250,"dec":9.999,"dt":"d3","s":7.50,"s2":"2020-02-02"} '
for kind in cow avro parquet; do
    t=$tmp/tc_$kind
    [ "$kind" = cow ] && tt=cow || tt=mor
    "$HOODIE" create "$t" --type $tt --name tc --record-key id --ordering-field ts --schema "$tmp/tc.avsc" > /dev/null ||
        bad "create $t"
    lf=()
    [ "$kind" = cow ] || lf=(--log-block-format "$kind")
    write "$t" bulk_insert "$tmp/tc1.jsonl" --input-format jsonl
    write "$t" upsert "$tmp/tc2.jsonl" --input-format jsonl "${lf[@]}"
    t1=$(last_instant "$t")
    "$HOODIE" alter "$t" --type i:string --type "l:decimal(20,2)" --type f:string --type "d:decimal(10,3)" \
        --type "dec:decimal(8,3)" --type dt:string --type "s:decimal(6,2)" --type s2:date > /dev/null 2> "$tmp/err" ||
        bad "alter --type to text ($kind): $(cat "$tmp/err")"
    check_eq "alter --type to text ($kind): read converted" "$tc_new" "$(jsonl_rows "$t" $tc_cols)"
    check_eq "alter --type to text ($kind): time travel before it" "$tc_old" "$(jsonl_rows "$t" $tc_cols --as-of "$t1")"
    check_eq "alter --type to text ($kind): a text filter on old numbers" '{"id":2,"i":"10"} ' \
        "$(jsonl_rows "$t" id,i --filter "i = '10'")"
    check_eq "alter --type to text ($kind): text order, not numbers" '{"id":1,"i":"12"} ' \
        "$(jsonl_rows "$t" id,i --filter "i > '11'")"
    check_eq "alter --type to text ($kind): a date filter on old text" '{"id":1,"s2":"2024-01-05"} ' \
        "$(jsonl_rows "$t" id,s2 --filter "s2 > '2024-01-01'")"
    write "$t" upsert "$tmp/tc3.jsonl" --input-format jsonl "${lf[@]}"
    check_eq "alter --type to text ($kind): a write of the new types" "$tc_after" "$(jsonl_rows "$t" $tc_cols)"
    if [ "$kind" != cow ]; then
        "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "alter --type to text ($kind) compact: $(cat "$tmp/err")"
        check_eq "alter --type to text ($kind): after compaction" "$tc_after" "$(jsonl_rows "$t" $tc_cols)"
    fi
    # the newest base file holds every row in the new types, as DuckDB reads it
    newest=$(ls -t "$t"/*.parquet | head -1)
    check_eq "alter --type to text ($kind): the rewritten base file" \
        "1,12,123456789.00,0.1,,123.450,2024-02-29,1.01,2024-01-05 2,10,99999999999999999.00,3.5,0.000,0.500,2000-01-01,100.00,2023-06-07 3,x3,1.50,f3,2.250,9.999,d3,7.50,2020-02-02 " \
        "$(node "$SRC/tests/oracle/duck.mjs" --csv "SELECT id, i, l::VARCHAR, f, d::VARCHAR, dec::VARCHAR, dt, s::VARCHAR,
            s2::VARCHAR FROM read_parquet('$newest') ORDER BY id" 2> "$tmp/err" | tail -n +2 | tr '\n' ' ')"
    alter_refused "$t" "--type i:int" "--type l:long" "--type dec:decimal(9,2)" "--type dec:decimal(8,4)" \
        "--type s2:long" "--type f:boolean" "--type s:date"
done

# nested fields converted: an array's element to text, a map's value and a record's field to decimals (base file
# and Avro log block, then compaction)
cat > "$tmp/tn.avsc" <<'AVSC'
{"type":"record","name":"tn","namespace":"hoodie.tn","fields":[{"name":"id","type":"long"},{"name":"ts","type":"long"},
{"name":"l","type":["null",{"type":"array","items":["null","int"]}],"default":null},
{"name":"m","type":["null",{"type":"map","values":["null","double"]}],"default":null},
{"name":"s","type":["null",{"type":"record","name":"sr","fields":[{"name":"x","type":["null","long"],"default":null}]}],"default":null}]}
AVSC
t=$tmp/tc_nested
"$HOODIE" create "$t" --type mor --name tn --record-key id --ordering-field ts --schema "$tmp/tn.avsc" > /dev/null || bad "create $t"
printf '%s\n' '{"id":1,"ts":1,"l":[1,22],"m":{"a":0.125},"s":{"x":7}}' > "$tmp/tn1.jsonl"
printf '%s\n' '{"id":2,"ts":1,"l":[3],"m":{"b":1e10},"s":{"x":-8}}' > "$tmp/tn2.jsonl"
write "$t" bulk_insert "$tmp/tn1.jsonl" --input-format jsonl
write "$t" upsert "$tmp/tn2.jsonl" --input-format jsonl
"$HOODIE" alter "$t" --type l.element:string --type "m.value:decimal(5,2)" --type "s.x:decimal(4,1)" > /dev/null \
    2> "$tmp/err" || bad "alter nested --type: $(cat "$tmp/err")"
tn_rows='{"id":1,"l":["1","22"],"m":{"a":0.13},"s":{"x":7.0}} {"id":2,"l":["3"],"m":{"b":null},"s":{"x":-8.0}} '
check_eq "nested fields converted" "$tn_rows" "$(jsonl_rows "$t" id,l,m,s)"
"$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "nested --type compact: $(cat "$tmp/err")"
check_eq "nested fields converted: after compaction" "$tn_rows" "$(jsonl_rows "$t" id,l,m,s)"

# a base file no log changes: its statistics (text "2024-1-5" and "2024-1-7", doubles 0.125 and 0.126) would prune
# the rows the converted values match (2024-01-05, 0.13); they are not used for converted columns
t=$tmp/tc_stats
"$HOODIE" create "$t" --type cow --name tc --record-key id --ordering-field ts --schema "$tmp/tc.avsc" > /dev/null ||
    bad "create $t"
printf '%s\n' '{"id":1,"ts":1,"i":12,"s2":"2024-1-5","d":0.125}' '{"id":2,"ts":1,"i":9,"s2":"2024-1-7","d":0.126}' > "$tmp/tcs.jsonl"
write "$t" bulk_insert "$tmp/tcs.jsonl" --input-format jsonl
"$HOODIE" alter "$t" --type i:string --type s2:date --type "d:decimal(3,2)" > /dev/null 2> "$tmp/err" ||
    bad "alter tc_stats: $(cat "$tmp/err")"
check_eq "converted columns: a date filter over text statistics" '{"id":1,"s2":"2024-01-05"} ' \
    "$(jsonl_rows "$t" id,s2 --filter "s2 = '2024-01-05'")"
check_eq "converted columns: a decimal filter over double statistics" '{"id":1,"d":0.13} {"id":2,"d":0.13} ' \
    "$(jsonl_rows "$t" id,d --filter "d = 0.13")"
check_eq "converted columns: text order over integer statistics" '{"id":1,"i":"12"} {"id":2,"i":"9"} ' \
    "$(jsonl_rows "$t" id,i --filter "i > '10'")"

# a record that holds the record key field (s.k) is neither dropped nor renamed, nor is the key field; its other
# fields are
t=$tmp/nested_key
"$HOODIE" create "$t" --type cow --name nk --record-key s.k --ordering-field ts > /dev/null || bad "create $t"
printf '{"s":{"k":"a","v":1},"ts":1,"x":2}\n' > "$tmp/nk.jsonl"
write "$t" upsert "$tmp/nk.jsonl" --input-format jsonl
for spec in "--drop s" "--rename s:t" "--drop s.k" "--rename s.k:j" "--drop ts"; do
    if "$HOODIE" alter "$t" $spec > /dev/null 2> "$tmp/err"; then bad "alter $spec of a key's record: done"
    else grep -q "record key field\|ordering field" "$tmp/err" && ok || bad "alter $spec: $(cat "$tmp/err")"; fi
done
"$HOODIE" alter "$t" --drop s.v --add s.w:string > /dev/null 2> "$tmp/err" || bad "alter s.v of a key's record: $(cat "$tmp/err")"
check_eq "a key's record: other fields dropped and added" '{"s":{"k":"a","w":null},"x":2} ' "$(jsonl_rows "$t" s,x)"

# an array's element dropped and added again between versions (a new element id): refused, not read by name
t=$tmp/nested
"$HOODIE" create "$t" --type cow --name sor --record-key id --partition-fields p --hive-style --ordering-field ts \
    --table-version 6 > /dev/null || bad "create $t"
write "$t" bulk_insert "$tmp/in1.csv"
sleep 1
alter "$t" commit "$(date -u +%Y%m%d%H%M%S)000" 6
hist=$(ls "$t/.hoodie/.schema/"*.schemacommit | head -1)
arr='"type":{"type":"array","element-id":ELEM,"element_optional":true,"element":"string"}'
a1=${arr/ELEM/11} a2=${arr/ELEM/12}
sed -i "s/\"id\":9,\"name\":\"p\",\"optional\":true,\"type\":\"string\"/\"id\":9,\"name\":\"p\",\"optional\":true,${a1}/; s/\"id\":9,\"name\":\"p\",\"optional\":true,\"type\":\"string\"/\"id\":9,\"name\":\"p\",\"optional\":true,${a2}/" "$hist"
if "$HOODIE" read "$t" --format csv > /dev/null 2> "$tmp/err"; then
    bad "an array's element added again: read"
else
    grep -q "p.element was dropped and added again" "$tmp/err" && ok || bad "element added again message: $(cat "$tmp/err")"
fi
echo '{"schemas":[{"version_id":1,"type":"record","fields":[{"name":"x"}]}]}' > "$hist"
if "$HOODIE" read "$t" --format csv > /dev/null 2> "$tmp/err"; then
    bad "corrupt history: read"
else
    grep -q "schemacommit: InternalSchema field 0" "$tmp/err" && ok || bad "corrupt history message: $(cat "$tmp/err")"
fi
# ... but the timeline still lists and the last write still rolls back
"$HOODIE" timeline "$t" > /dev/null 2> "$tmp/err" && ok || bad "corrupt history: timeline: $(cat "$tmp/err")"
if "$HOODIE" write "$t" --op upsert --input "$tmp/in2.csv" > /dev/null 2> "$tmp/err"; then bad "corrupt history: write"
else grep -q "schemacommit: InternalSchema field 0" "$tmp/err" && ok || bad "corrupt history write: $(cat "$tmp/err")"; fi
"$HOODIE" rollback "$t" "$(last_instant "$t")" > /dev/null 2> "$tmp/err" && ok || bad "corrupt history: rollback: $(cat "$tmp/err")"
finish schema_on_read
