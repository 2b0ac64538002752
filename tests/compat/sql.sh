#!/usr/bin/env bash
# SQL over the fixture tables: `hoodie sql` (the module linked in) and the loadable extension in the sqlite3 shell
# (.load libhoodie_sqlite). For every fixture table and every instant of its timeline, the record keys and commit
# times a SELECT returns are exactly those `hoodie read` returns (snapshot, time travel, read-optimized,
# incremental); output formats; errors give a message and a non-zero exit.
set -u
HOODIE=${HOODIE:-build/hoodie}
BUILD=${HOODIE_BUILD:-$(dirname "$HOODIE")}
FIX=${HOODIE_FIXTURES:-../shared/fixtures}/hudi/tables
source "$(dirname "${BASH_SOURCE[0]}")/common/check.bash"

keys_read() { "$HOODIE" read "$@" --columns _hoodie_record_key,_hoodie_commit_time --format csv | tail -n +2 | sort; }
keys_sql() {
    local t=$1 from=$2
    "$HOODIE" sql t="$t" "SELECT _hoodie_record_key, _hoodie_commit_time FROM $from" | tail -n +2 | sort
}

tables=0
for t in "$FIX"/*/; do
    t=${t%/}
    [ -f "$t/.hoodie/hoodie.properties" ] || continue
    name=$(basename "$t")
    tables=$((tables + 1))
    check_eq "$name snapshot" "$(keys_read "$t")" "$(keys_sql "$t" t)"
    check_eq "$name read-optimized" "$(keys_read "$t" --query read_optimized)" \
        "$("$HOODIE" sql "CREATE VIRTUAL TABLE ro USING hoodie('$t', 'query=read_optimized');
                          SELECT _hoodie_record_key, _hoodie_commit_time FROM ro" | tail -n +2 | sort)"
    n=$("$HOODIE" sql t="$t" "SELECT count(*) FROM t" | tail -1)
    check_eq "$name count" "$(keys_read "$t" | grep -c .)" "$n"
    # every completed instant: time travel, and the incremental window after it
    for inst in $("$HOODIE" timeline "$t" | awk '$3 == "completed" && $2 ~ /commit/ { print $1 }'); do
        check_eq "$name as of $inst" "$(keys_read "$t" --as-of "$inst")" "$(keys_sql "$t" "t('$inst')")"
    done
    for inst in $("$HOODIE" timeline "$t" | awk '$3 == "completed" && $2 ~ /commit/ { print ($4 != "" ? $4 : $1) }'); do
        check_eq "$name incremental from $inst" "$(keys_read "$t" --query incremental --from "$inst" 2> /dev/null)" \
            "$(keys_sql "$t" "t(NULL, '$inst')" 2> /dev/null)"
    done
    # CDC: the same changes through the virtual table ('query=cdc') as through hoodie read --query cdc
    if [ "$(grep -c 'populate.meta.fields=false' "$t/.hoodie/hoodie.properties")" = 0 ]; then
        want=$("$HOODIE" read "$t" --query cdc --format jsonl 2>&1 | sort)
        check_eq "$name cdc" "$want" \
            "$("$HOODIE" sql "CREATE VIRTUAL TABLE c USING hoodie('$t', 'query=cdc');
                              SELECT op, ts_ms, before, after FROM c" --format jsonl 2>&1 | sort)"
        if "$HOODIE" timeline "$t" | grep -q 'commit .*completed'; then
            [ -n "$want" ] && ok || bad "$name cdc: no change"
        fi
    fi
done
[ "$tables" -ge 20 ] && ok || bad "only $tables fixture tables found"

# pushed-down filters agree with hoodie read's filters
t=$FIX/trips_mor_avro_v8_trips_8i1u
check_eq "filter" "$("$HOODIE" read "$t" --filter "fare > 30 AND city = 'sao_paulo'" --columns rider --format csv |
                    tail -n +2 | sort)" \
    "$("$HOODIE" sql t="$t" "SELECT rider FROM t WHERE fare > 30 AND city = 'sao_paulo' ORDER BY 1" | tail -n +2)"
check_eq "aggregate" "city,n
chennai,2
san_francisco,4
sao_paulo,2" "$("$HOODIE" sql trips="$t" "SELECT city, count(*) AS n FROM trips GROUP BY city ORDER BY city")"

# the default name is hoodie.table.name; two tables and a join
tn=$(grep '^hoodie.table.name=' "$t/.hoodie/hoodie.properties" | cut -d= -f2)
check_eq "default name" 8 "$("$HOODIE" sql "$t" "SELECT count(*) FROM $tn" | tail -1)"
t2=$FIX/trips_mor_avro_v8_trips_8i3d
both=$(comm -12 <(keys_read "$t" | cut -d, -f1) <(keys_read "$t2" | cut -d, -f1) | grep -c .)
check_eq "join" "$both" "$("$HOODIE" sql a="$t" b="$t2" "SELECT count(*) FROM a JOIN b USING (_hoodie_record_key)" |
                          tail -1)"

# formats
check_eq "jsonl" '{"city":"chennai","n":2,"f":0.5,"z":null}' \
    "$("$HOODIE" sql t="$t" "SELECT city, count(*) AS n, 0.5 AS f, NULL AS z FROM t GROUP BY city ORDER BY city LIMIT 1" --format jsonl)"
check_eq "table" "n
-
8
(1 row)" "$("$HOODIE" sql t="$t" "SELECT count(*) AS n FROM t" --format table)"
check_eq "csv quoting" 'a,b
"x,y","q""q"' "$("$HOODIE" sql "SELECT 'x,y' AS a, 'q\"q' AS b")"

# --db: a SQLite database file next to the Hudi tables
"$HOODIE" sql --db "$tmp/side.db" "CREATE TABLE fares(city TEXT, cap REAL); INSERT INTO fares VALUES ('chennai', 40)" \
    > /dev/null && ok || bad "--db create"
check_eq "--db join" 1 "$("$HOODIE" sql --db "$tmp/side.db" t="$t" \
    "SELECT count(*) FROM t JOIN fares USING (city) WHERE t.fare > fares.cap" | tail -1)"

# errors: message, exit code, no crash
"$HOODIE" sql t="$tmp/none" "SELECT 1" > /dev/null 2> "$tmp/err"; rc=$?
check_eq "missing table exit" 1 "$rc"
grep -q "$tmp/none" "$tmp/err" && ok || bad "missing table message: $(cat "$tmp/err")"
"$HOODIE" sql t="$t" "SELEC * FROM t" > /dev/null 2> "$tmp/err"; rc=$?
check_eq "syntax error exit" 2 "$rc"
grep -q 'syntax error' "$tmp/err" && ok || bad "syntax message: $(cat "$tmp/err")"
"$HOODIE" sql t="$t" "SELECT * FROM t('nope')" > /dev/null 2> "$tmp/err"; rc=$?
check_eq "bad instant exit" 1 "$rc"
grep -q "not an instant time" "$tmp/err" && ok || bad "bad instant message: $(cat "$tmp/err")"
"$HOODIE" sql "CREATE VIRTUAL TABLE old USING hoodie('$t', 'as_of=20250713011913147'); DELETE FROM old" \
    > /dev/null 2> "$tmp/err"; rc=$?
check_eq "read-only exit" 1 "$rc"
grep -q 'read-only' "$tmp/err" && ok || bad "read-only message: $(cat "$tmp/err")"

# writes through SQL on a copy: Hudi commits that hoodie read reads back
cp -r "$t" "$tmp/w" && chmod -R u+w "$tmp/w"
"$HOODIE" sql t="$tmp/w" "INSERT INTO t(ts, uuid, rider, driver, fare, city) VALUES (1, 'u-1', 'r', 'd', 5.5, 'chennai');
                          UPDATE t SET fare = fare * 2 WHERE city = 'san_francisco';
                          DELETE FROM t WHERE rider = 'rider-F'" > /dev/null && ok || bad "sql writes"
check_eq "sql writes: commits" 5 "$("$HOODIE" timeline "$tmp/w" | grep -c completed)"
check_eq "sql writes: rows" "$("$HOODIE" sql t="$t" "SELECT count(*) + 1 - sum(rider = 'rider-F') FROM t" | tail -1)" \
    "$("$HOODIE" read "$tmp/w" --format csv | tail -n +2 | grep -c .)"
check_eq "sql writes: update" "$("$HOODIE" read "$t" --filter "city = 'san_francisco'" --columns fare --format csv |
    tail -n +2 | awk '{ s += $1 * 2 } END { print s }')" \
    "$("$HOODIE" read "$tmp/w" --filter "city = 'san_francisco'" --columns fare --format csv | tail -n +2 |
    awk '{ s += $1 } END { print s }')"
check_eq "sql writes: insert" "u-1,5.5" "$("$HOODIE" get "$tmp/w" u-1 --columns uuid,fare --format csv | tail -1)"
"$HOODIE" sql --format xml "SELECT 1" > /dev/null 2>&1; check_eq "bad format exit" 2 "$?"
"$HOODIE" sql > /dev/null 2>&1; check_eq "no query exit" 2 "$?"
# a damaged table: a truncated base file gives an error naming it
cp -r "$FIX/cow_v8_nonpartitioned" "$tmp/dmg"
chmod -R u+w "$tmp/dmg"
f=$tmp/dmg/$("$HOODIE" read "$tmp/dmg" --columns _hoodie_file_name --format csv | sed -n 2p)
head -c 100 "$f" > "$f.x" && mv "$f.x" "$f"
"$HOODIE" sql t="$tmp/dmg" "SELECT * FROM t" > /dev/null 2> "$tmp/err"; rc=$?
[ "$rc" -ne 0 ] && [ "$rc" -lt 128 ] && ok || bad "damaged table exit $rc"
grep -q "$(basename "$f")" "$tmp/err" && ok || bad "damaged table message: $(cat "$tmp/err")"

# the loadable extension in the sqlite3 shell
if command -v sqlite3 > /dev/null; then
    out=$(sqlite3 :memory: ".load $BUILD/libhoodie_sqlite" \
        "CREATE VIRTUAL TABLE t USING hoodie('$t'); SELECT count(*), count(DISTINCT city) FROM t;" 2>&1)
    check_eq "sqlite3 .load" "8|3" "$out"
    out=$(sqlite3 :memory: ".load $BUILD/libhoodie_sqlite" \
        "CREATE VIRTUAL TABLE t USING hoodie('$t'); SELECT rider FROM t WHERE _hoodie_record_key =
         '9909a8b1-2d15-4d3d-8ec9-efc48c536a00';" 2>&1)
    check_eq "sqlite3 key lookup" "rider-D" "$out"
else
    bad "the sqlite3 shell is not installed"
fi

finish sql
