#!/usr/bin/env bash
# Query types and error handling of `hoodie read` on copies of the fixture tables:
#   read-optimized returns base-file rows only; incremental returns exactly the records whose latest version was
#   committed in the window, checked against what the timeline says; filters and projection; and clear errors
#   (naming the file) for a missing base file, a truncated log file, a corrupt properties file and an unknown
#   table version, never a crash.
set -u
HOODIE=${HOODIE:-build/hoodie}
FIX=${HOODIE_FIXTURES:-../shared/fixtures}/hudi/tables
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()   { pass=$((pass + 1)); }
bad()  { echo "FAIL: $*"; fail=$((fail + 1)); }
check_eq() { if [ "$2" == "$3" ]; then ok; else bad "$1: expected [$2], got [$3]"; fi; }
crashed() { [ "$1" -ge 128 ]; }

t=$FIX/trips_mor_avro_v8_trips_8i1u
# read-optimized: the base files only (8 rows, the update in the log is not applied)
ro=$("$HOODIE" read "$t" --query read_optimized --columns _hoodie_record_key,rider --format csv | sort)
check_eq "ro rows" 9 "$(echo "$ro" | wc -l)"
check_eq "ro has the base version of the updated row" 1 "$(echo "$ro" | grep -c '^9909a8b1-2d15-4d3d-8ec9-efc48c536a00,rider-D')"
snap=$("$HOODIE" read "$t" --columns _hoodie_record_key,_hoodie_commit_time --format csv)
check_eq "snapshot sees the update" 1 "$(echo "$snap" | grep -c '9909a8b1-2d15-4d3d-8ec9-efc48c536a00,20250713011914363')"

# incremental on v8: windows on completion time; the second deltacommit (requested 20250713011914363,
# completed 20250713011914662) wrote exactly one record
inc=$("$HOODIE" read "$t" --query incremental --from 20250713011913490 --columns _hoodie_record_key --format csv)
check_eq "incremental after the first commit" "_hoodie_record_key
9909a8b1-2d15-4d3d-8ec9-efc48c536a00" "$inc"
inc_all=$("$HOODIE" read "$t" --query incremental --columns _hoodie_record_key --format csv | tail -n +2 | wc -l)
check_eq "incremental from the beginning" 8 "$inc_all"
inc_first=$("$HOODIE" read "$t" --query incremental --to 20250713011913490 --columns _hoodie_commit_time --format csv | tail -n +2 | sort -u)
check_eq "incremental up to the first commit" 20250713011913147 "$inc_first"
inc_none=$("$HOODIE" read "$t" --query incremental --from 20250713011914662 --format csv | tail -n +2 | wc -l)
check_eq "incremental after the last commit" 0 "$inc_none"

# incremental on v6: requested-time axis
t6=$FIX/cow_v6_simplekeygen_nonhivestyle
inc6=$("$HOODIE" read "$t6" --query incremental --from 20240418172802262 --columns _hoodie_commit_time --format csv | tail -n +2 | sort -u)
check_eq "v6 incremental" 20240418172804498 "$inc6"

# filters: partition pruning and row filters agree with a full scan filtered by hand
f1=$("$HOODIE" read "$t" --filter "city = 'sao_paulo'" --columns _hoodie_record_key --format csv | tail -n +2 | sort)
f2=$("$HOODIE" read "$t" --columns _hoodie_record_key,city --format csv | grep ',sao_paulo$' | cut -d, -f1 | sort)
check_eq "partition filter" "$f2" "$f1"
f3=$("$HOODIE" read "$t" --filter "fare > 30 AND rider IN ('rider-F', 'rider-G', 'rider-Z')" --columns rider --format csv | tail -n +2 | sort | tr '\n' ' ')
check_eq "row filter" "rider-F rider-G " "$f3"
f4=$("$HOODIE" read "$t" --filter "driver IS NULL" --format csv | tail -n +2 | wc -l)
check_eq "is null" 0 "$f4"
"$HOODIE" read "$t" --filter "fare >" > /dev/null 2> "$tmp/err"; rc=$?
check_eq "bad filter exit" 2 "$rc"
grep -q "position" "$tmp/err" && ok || bad "bad filter message: $(cat "$tmp/err")"

# table version 9 orders records by several fields (hoodie.table.ordering.fields "a,b"), compared in turn; on a copy
# of the v9 MOR fixture made event-time ordered. Record 6 ties on ts (100) between the base and the log: with the
# file name second, the base record's longer name wins; with id second (equal too), the later record wins. The
# second field counts even when the query does not project it. More than four fields are refused.
v9o="$tmp/v9o"
cp -r "$FIX/trips_mor_avro_v9_mor_nonpart_3commits" "$v9o" && chmod -R u+w "$v9o"
sed -i 's/^hoodie.record.merge.mode=.*/hoodie.record.merge.mode=EVENT_TIME_ORDERING/' "$v9o/.hoodie/hoodie.properties"
set_ord() { sed -i "s/^hoodie.table.ordering.fields=.*/hoodie.table.ordering.fields=$1/" "$v9o/.hoodie/hoodie.properties"; }
set_ord ts
one=$("$HOODIE" read "$v9o" --columns id,name,price,ts --format csv | tail -n +2 | sort | tr '\n' ' ')
check_eq "v9 one ordering field" "2,B,20.0,100 3,C,30.0,100 4,D2,45.0,101 5,E,50.0,100 6,F2,65.0,100 " "$one"
set_ord ts,_hoodie_file_name
two=$("$HOODIE" read "$v9o" --columns id,name,price,ts --format csv | tail -n +2 | sort | tr '\n' ' ')
check_eq "v9 second ordering field breaks the tie" "2,B,20.0,100 3,C,30.0,100 4,D2,45.0,101 5,E,50.0,100 6,F,60.0,100 " "$two"
set_ord ts,id
tie=$("$HOODIE" read "$v9o" --columns id,name --format csv | tail -n +2 | sort | tr '\n' ' ')
check_eq "v9 tie on every ordering field: the later record" "2,B 3,C 4,D2 5,E 6,F2 " "$tie"
set_ord ts,a,b,c,d
"$HOODIE" read "$v9o" --format csv > /dev/null 2> "$tmp/err"; rc=$?
check_eq "v9 five ordering fields exit" 1 "$rc"
grep -q "5 ordering fields" "$tmp/err" && ok || bad "five ordering fields message: $(cat "$tmp/err")"

# errors on damaged copies
cp -r "$FIX/mor_parquet_v6_nonpartitioned" "$tmp/t1" && chmod -R u+w "$tmp/t1"
rm "$tmp/t1"/d5c0b12d-*.parquet
cp -r "$FIX/cow_v8_nonpartitioned" "$tmp/t2" && chmod -R u+w "$tmp/t2"
base=$(ls "$tmp/t2"/*.parquet | tail -1)
# a missing base file that the timeline and listing expect: simulate by making the file unreadable
rm "$base" && mkdir "$base"
"$HOODIE" read "$tmp/t2" > /dev/null 2> "$tmp/err"; rc=$?
crashed $rc && bad "missing base file crashed ($rc)"
[ $rc -ne 0 ] && grep -q "$(basename "$base")" "$tmp/err" && ok || bad "missing base file: rc=$rc $(cat "$tmp/err")"

cp -r "$FIX/trips_mor_avro_v8_trips_8i1u" "$tmp/t3" && chmod -R u+w "$tmp/t3"
log=$(ls "$tmp"/t3/city=san_francisco/.*.log.* | head -1)
size=$(stat -c %s "$log")
head -c $((size - 40)) "$log" > "$log.tmp" && mv "$log.tmp" "$log"
"$HOODIE" read "$tmp/t3" --columns _hoodie_record_key > "$tmp/out" 2> "$tmp/err"; rc=$?
crashed $rc && bad "truncated log crashed ($rc)"
check_eq "truncated log: rows still read" 0 "$rc"
grep -q "warning.*corrupt log block" "$tmp/err" && ok || bad "truncated log: no warning: $(cat "$tmp/err")"

cp -r "$FIX/cow_v8_nonpartitioned" "$tmp/t4" && chmod -R u+w "$tmp/t4"
printf 'hoodie.table.name=x\nhoodie.table.version=\\u12\n' > "$tmp/t4/.hoodie/hoodie.properties"
"$HOODIE" read "$tmp/t4" > /dev/null 2> "$tmp/err"; rc=$?
crashed $rc && bad "corrupt properties crashed ($rc)"
[ $rc -ne 0 ] && grep -q "hoodie.properties" "$tmp/err" && ok || bad "corrupt properties: rc=$rc $(cat "$tmp/err")"

cp -r "$FIX/cow_v8_nonpartitioned" "$tmp/t5" && chmod -R u+w "$tmp/t5"
sed -i 's/^hoodie.table.version=8/hoodie.table.version=42/' "$tmp/t5/.hoodie/hoodie.properties"
"$HOODIE" read "$tmp/t5" > /dev/null 2> "$tmp/err"; rc=$?
crashed $rc && bad "unknown version crashed ($rc)"
[ $rc -ne 0 ] && grep -q "42" "$tmp/err" && ok || bad "unknown version: rc=$rc $(cat "$tmp/err")"

"$HOODIE" read "$FIX/cow_v8_nonpartitioned" --as-of notatime > /dev/null 2> "$tmp/err"; rc=$?
check_eq "bad as-of exit" 2 "$rc"

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
