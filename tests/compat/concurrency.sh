#!/usr/bin/env bash
# Several hoodie processes on one table (COW and MOR, table versions 8 and 6):
#   - a writer stopped (SIGSTOP) in the middle of a long bulk insert is alive: a second writer meanwhile neither
#     rolls it back nor waits for it, and commits; resumed, the first commits too; the table then holds both
#     writes, exactly as the same writes one after the other give;
#   - a writer killed (SIGKILL) in the middle of its write is dead at once: the next writer rolls it back without
#     waiting for its heartbeat to expire, and the table reads as before it;
#   - while the stopped writer lives, a rollback of its instant and a restore over it are refused (exit 4);
#   - a table lock left by a killed process is broken by the next writer.
set -u
HOODIE=${HOODIE:-build/hoodie}
tmp=$(mktemp -d)
trap 'kill -9 $(jobs -p) 2>/dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0
ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }

# rows: id,name,city,ts for ids $1..$2, cities of the ids (3 partitions), ts $3
gen() { awk -v a="$1" -v b="$2" -v ts="$3" 'BEGIN { split("sf la ny", c, " "); print "id,name,city,ts";
        for (i = a; i <= b; i++) printf "%d,n%d_%d,%s,%d\n", i, i, ts, c[i % 3 + 1], ts }'; }
# the data columns (no meta columns), sorted
data() { "$HOODIE" read "$1" --columns id,name,city,ts --format csv | sort; }
mk() { "$HOODIE" create "$1" --type "$2" --table-version "$3" --name c --record-key id --partition-fields city \
         --ordering-field ts > /dev/null; }
# wait (up to 60 s) until the write's heartbeat and inflight instant exist
wait_inflight() { # TABLE PID: until the write of PID is inflight (its heartbeat's instant has an inflight file;
    # earlier instants keep theirs, and the heartbeat starts before the requested file exists)
    local hb
    for _ in $(seq 6000); do
        for hb in $(ls "$1/.hoodie/.heartbeat" 2>/dev/null); do
            if [ -n "$(find "$1/.hoodie" -maxdepth 2 -name "$hb*.inflight" 2>/dev/null)" ]; then return 0; fi
        done
        kill -0 "$2" 2>/dev/null || return 1
        sleep 0.01
    done
    return 1
}

gen 1 3000 1 > "$tmp/base.csv"
gen 100000 1100000 2 > "$tmp/big.csv"       # a bulk insert that takes a while
gen 1 3000 3 | awk -F, 'NR == 1 || $3 == "la"' > "$tmp/upd.csv"

for spec in "cow 8" "mor 8" "cow 6" "mor 6"; do
    set -- $spec
    t="$tmp/t_$1_$2" ref="$tmp/r_$1_$2"
    mk "$t" "$1" "$2"; mk "$ref" "$1" "$2"
    "$HOODIE" write "$t" --op bulk_insert --input "$tmp/base.csv" > /dev/null
    "$HOODIE" write "$ref" --op bulk_insert --input "$tmp/base.csv" > /dev/null
    "$HOODIE" write "$ref" --op upsert --input "$tmp/upd.csv" > /dev/null
    "$HOODIE" write "$ref" --op bulk_insert --input "$tmp/big.csv" > /dev/null

    # a live writer, stopped mid-write, and a second one meanwhile
    "$HOODIE" write "$t" --op bulk_insert --input "$tmp/big.csv" > "$tmp/a.out" 2>&1 &
    a=$!
    if ! wait_inflight "$t" "$a"; then bad "$spec: the first write never went inflight"; wait "$a"; continue; fi
    kill -STOP "$a"
    if "$HOODIE" write "$t" --op upsert --input "$tmp/upd.csv" > "$tmp/b.out" 2>&1; then ok
    else bad "$spec: the second write failed: $(cat "$tmp/b.out")"; fi
    if grep -q "rolled back" "$tmp/b.out"; then bad "$spec: the second write rolled back a live writer"; else ok; fi
    # neither a rollback of its instant nor a restore over it while it lives (exit 4), nothing changed
    inst=$(ls "$t/.hoodie/.heartbeat" | head -1)
    mid=$(data "$t" | md5sum)
    "$HOODIE" rollback "$t" "$inst" > "$tmp/rb.out" 2>&1
    rc=$?
    [ "$rc" = 4 ] && grep -q "live writer" "$tmp/rb.out" && ok ||
        bad "$spec: rollback of a live write: exit $rc: $(cat "$tmp/rb.out")"
    sp=$("$HOODIE" timeline "$t" | awk '$3 == "completed" && $2 ~ /commit/ { print $1; exit }')
    "$HOODIE" savepoint "$t" create "$sp" > /dev/null || bad "$spec: savepoint $sp"
    "$HOODIE" restore "$t" "$sp" > "$tmp/rs.out" 2>&1
    rc=$?
    [ "$rc" = 4 ] && grep -q "live writer" "$tmp/rs.out" && ok ||
        bad "$spec: restore over a live write: exit $rc: $(cat "$tmp/rs.out")"
    "$HOODIE" savepoint "$t" delete "$sp" > /dev/null || bad "$spec: savepoint delete $sp"
    [ "$(data "$t" | md5sum)" = "$mid" ] && ok || bad "$spec: the refused rollback or restore changed the table"
    kill -CONT "$a"
    if wait "$a"; then ok; else bad "$spec: the first write failed after resuming: $(cat "$tmp/a.out")"; fi
    if [ "$(data "$t" | md5sum)" = "$(data "$ref" | md5sum)" ]; then ok
    else bad "$spec: the table is not both writes"; fi

    # a writer killed mid-write: the next one rolls it back at once
    before=$(data "$t" | md5sum)
    "$HOODIE" write "$t" --op bulk_insert --input "$tmp/big.csv" > /dev/null 2>&1 &
    k=$!
    if ! wait_inflight "$t" "$k"; then bad "$spec: the killed write never went inflight"; continue; fi
    kill -9 "$k"; wait "$k" 2>/dev/null
    if [ "$(data "$t" | md5sum)" = "$before" ]; then ok; else bad "$spec: a killed write is visible"; fi
    start=$(date +%s)
    if "$HOODIE" write "$t" --op upsert --input "$tmp/upd.csv" > "$tmp/c.out" 2>&1 && grep -q "rolled back 1" "$tmp/c.out"
    then ok; else bad "$spec: the next write did not roll the killed one back: $(cat "$tmp/c.out")"; fi
    [ $(( $(date +%s) - start )) -lt 60 ] && ok || bad "$spec: the rollback waited for the heartbeat to expire"
    [ -z "$(ls "$t/.hoodie/.heartbeat" 2>/dev/null)" ] && ok || bad "$spec: heartbeats left: $(ls "$t/.hoodie/.heartbeat")"
    # the killed writer's unfinished files (hidden temporaries) went with the rollback
    left=$(find "$t" -name '.hoodie_tmp_*')
    [ -z "$left" ] && ok || bad "$spec: temporaries of the killed writer left: $left"
    if [ "$(data "$t" | md5sum)" = "$before" ]; then ok; else bad "$spec: the table changed by the rolled-back write"; fi
done

# a table lock left by a killed process
t="$tmp/t_cow_8"
sh -c 'echo "hoodie-writer boot=$(cat /proc/sys/kernel/random/boot_id) pid=$$ start=$(cut -d" " -f22 /proc/$$/stat)"' \
    > "$t/.hoodie/lock"
if HOODIE_LOCK_WAIT_MS=2000 "$HOODIE" write "$t" --op upsert --input "$tmp/upd.csv" > "$tmp/l.out" 2>&1; then ok
else bad "a dead process's lock was not broken: $(cat "$tmp/l.out")"; fi
[ ! -e "$t/.hoodie/lock" ] && ok || bad "the lock file stayed"
# a lock of a running process is waited for, then refused with its holder named
sleep 30 & holder=$!
echo "hoodie-writer boot=$(cat /proc/sys/kernel/random/boot_id) pid=$holder start=$(cut -d' ' -f22 /proc/$holder/stat)" \
    > "$t/.hoodie/lock"
if HOODIE_LOCK_WAIT_MS=300 "$HOODIE" write "$t" --op upsert --input "$tmp/upd.csv" > "$tmp/l.out" 2>&1; then
    bad "a live writer's lock was ignored"
else
    grep -q "is held by another writer (hoodie-writer boot=.* pid=$holder" "$tmp/l.out" && ok ||
        bad "the refusal does not name the holder: $(cat "$tmp/l.out")"
fi
kill "$holder"; rm -f "$t/.hoodie/lock"

echo "concurrency: $pass passed, $fail failed"
[ "$fail" = 0 ]
