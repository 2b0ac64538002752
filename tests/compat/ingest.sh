#!/usr/bin/env bash
# hoodie ingest: Debezium change events and JSON lines streamed into MOR tables (v8, v6), exactly once.
#   - a stream of 3000 events (creates, updates, deletes of 300 keys; a fifth delivered out of order) ingested in
#     batches of 20 by runs killed with SIGKILL at random moments, then run to the end: the table holds, for every key,
#     its event with the highest LSN unless that is a delete, as DuckDB computes from the events; the commits'
#     checkpoints are contiguous (each batch begins where the previous commit ended: nothing twice, nothing lost);
#   - a run with nothing new commits nothing; events appended later are picked up from the checkpoint; a last line
#     without its newline waits; --follow picks up appended events, SIGTERM stops it cleanly; envelopes with a schema, Kafka tombstones, t/m events; the meta columns Hudi's
#     Debezium sources fill; JSON lines; errors (bad JSON names the file, line and byte; deletes need
#     _hoodie_is_deleted).
set -u
HOODIE=${HOODIE:-build/hoodie}
SRC=${HOODIE_SRC:-.}
source "$(dirname "${BASH_SOURCE[0]}")/common/check.bash"
duck() { node "$SRC/tests/oracle/duck.mjs" --csv "$@"; }

cat > "$tmp/s.avsc" <<'EOF'
{"type":"record","name":"r","fields":[{"name":"id","type":"int"},{"name":"name","type":["null","string"],"default":null},
{"name":"amount","type":["null","double"],"default":null},{"name":"_hoodie_is_deleted","type":["null","boolean"],"default":null},
{"name":"_event_lsn","type":["null","long"],"default":null},{"name":"_change_operation_type","type":["null","string"],"default":null},
{"name":"_upstream_event_processed_ts_ms","type":["null","long"],"default":null}]}
EOF

# 3000 events: LSNs increase with the event number; one event in five swaps places with the one before it
awk 'BEGIN {
    srand(7); n = 3000; prev = "";
    for (i = 1; i <= n; i++) {
        id = 1 + int(rand() * 300); lsn = i * 10;
        if (!(id in alive)) { op = "c" } else { op = rand() < 0.25 ? "d" : "u" }
        amount = sprintf("%.2f", rand() * 1000); name = "n" i;
        row = sprintf("{\"id\":%d,\"name\":\"%s\",\"amount\":%s}", id, name, amount);
        if (op == "d") { ev = sprintf("{\"before\":%s,\"after\":null,\"op\":\"d\",\"ts_ms\":%d,\"source\":{\"lsn\":%d}}", row, i, lsn); delete alive[id] }
        else { ev = sprintf("{\"before\":null,\"after\":%s,\"op\":\"%s\",\"ts_ms\":%d,\"source\":{\"lsn\":%d}}", row, op, i, lsn); alive[id] = 1 }
        if (prev != "" && rand() < 0.2) { print ev; print prev; prev = "" }
        else { if (prev != "") print prev; prev = ev }
    }
    if (prev != "") print prev
}' > "$tmp/events.json"
head -n 1800 "$tmp/events.json" > "$tmp/e1.json"
tail -n +1801 "$tmp/events.json" > "$tmp/e2.json"
expected=$(duck "SELECT id, name, amount FROM (SELECT op, coalesce(after.id, before.id) AS id, after.name AS name,
    after.amount AS amount FROM read_json_auto('$tmp/events.json', format='newline_delimited')
    QUALIFY row_number() OVER (PARTITION BY coalesce(after.id, before.id) ORDER BY source.lsn DESC) = 1)
    WHERE op <> 'd' ORDER BY id" | tail -n +2 | awk -F, '{ print $1 "," $2 "," $3 + 0 }')
[ "$(echo "$expected" | grep -c .)" -gt 50 ] && ok || bad "the oracle gave $(echo "$expected" | grep -c .) rows"

rows_of() { "$HOODIE" read "$1" --columns id,name,amount --format csv | tail -n +2 | sort -t, -k1,1n; }

for v in 8 6; do
    t=$tmp/mor_v$v
    "$HOODIE" create "$t" --type mor --name cdc --record-key id --ordering-field _event_lsn --table-version "$v" \
        --schema "$tmp/s.avsc" > /dev/null || bad "v$v: create"
    # runs killed at random moments, then one to the end
    for k in 1 2 3 4 5; do
        "$HOODIE" ingest "$t" --input "$tmp/e1.json" --input "$tmp/e2.json" --format debezium --batch-rows 20 \
            > "$tmp/run_$k.out" 2>&1 &
        pid=$!
        sleep "0.$(( RANDOM % 3 + 1 ))"
        kill -9 "$pid" 2> /dev/null
        wait "$pid" 2> /dev/null
    done
    "$HOODIE" ingest "$t" --input "$tmp/e1.json" --input "$tmp/e2.json" --format debezium --batch-rows 20 \
        > "$tmp/final.out" 2>&1 || bad "v$v: the last run failed: $(tail -3 "$tmp/final.out")"
    grep -q "up to date" "$tmp/final.out" && ok || bad "v$v: last run: $(tail -3 "$tmp/final.out")"
    # the killed runs stopped part way: the last one still had events to ingest
    left=$(sed -n 's/^ingest: \([0-9]*\) events.*/\1/p' "$tmp/final.out")
    [ "${left:-0}" -gt 0 ] && ok || bad "v$v: the killed runs had ingested everything (no crash tested)"
    echo "v$v: $((3000 - ${left:-0})) events ingested by killed runs; $("$HOODIE" timeline "$t" | grep -c rollback) rollbacks"
    check_eq "v$v: rows as DuckDB computes them" "$expected" "$(rows_of "$t" | awk -F, '{ print $1 "," $2 "," $3 + 0 }')"
    # checkpoints: contiguous from the start of e1 to the end of e2
    "$HOODIE" ingest "$t" --checkpoints > "$tmp/cp"
    e1=$(realpath "$tmp/e1.json") e2=$(realpath "$tmp/e2.json")
    gaps=$(awk -v first="0:$e1" 'NR == 1 && $2 != first { print "first " $2 } NR > 1 && $2 != prev { print "gap " prev " " $2 }
        { prev = $3; n += $4 } END { print "events " n }' "$tmp/cp")
    check_eq "v$v: contiguous checkpoints" "events 3000" "$gaps"
    check_eq "v$v: last checkpoint" "$(stat -c %s "$tmp/e2.json"):$e2" "$(tail -1 "$tmp/cp" | cut -d' ' -f3)"
    [ "$(grep -c . "$tmp/cp")" -ge 150 ] && ok || bad "v$v: $(grep -c . "$tmp/cp") commits for 3000 events in 20s"
    # nothing new: no commit
    n0=$("$HOODIE" timeline "$t" | grep -c completed)
    "$HOODIE" ingest "$t" --input "$tmp/e1.json" --input "$tmp/e2.json" --format debezium > /dev/null || bad "v$v: rerun"
    check_eq "v$v: a run with nothing new" "$n0" "$("$HOODIE" timeline "$t" | grep -c completed)"
    # dead writers' instants were rolled back: nothing pending
    check_eq "v$v: nothing pending" 0 "$("$HOODIE" timeline "$t" | awk 'NR > 1 && $3 != "completed"' | grep -c .)"
done

# appended events are picked up from the checkpoint; a line without its newline waits
t=$tmp/small
"$HOODIE" create "$t" --type mor --name cdc --record-key id --ordering-field _event_lsn --schema "$tmp/s.avsc" > /dev/null
cat > "$tmp/s.json" <<'EOF'
{"before":null,"after":{"id":1,"name":"a","amount":1.5},"op":"r","ts_ms":100,"source":{"lsn":10}}
{"schema":{"type":"struct"},"payload":{"before":null,"after":{"id":2,"name":"b","amount":2.5},"op":"c","ts_ms":101,"source":{"lsn":20}}}
{"schema":{"type":"struct"},"payload":null}
{"before":null,"after":null,"op":"t","ts_ms":102,"source":{"lsn":21}}
{"before":{"id":1},"after":{"id":1,"name":"a2","amount":3.0},"op":"u","ts_ms":103,"source":{"lsn":30}}
EOF
printf '%s' '{"before":null,"after":{"id":3,"name":"c","amount":4.0},"op":"c","ts_ms":104,"source":{"lsn":40}}' >> "$tmp/s.json"
"$HOODIE" ingest "$t" --input "$tmp/s.json" --format debezium > "$tmp/o" 2>&1 || bad "small: $(cat "$tmp/o")"
check_eq "small: skipped tombstone and truncate" "ingest: 5 events, 2 skipped; up to date" "$(tail -1 "$tmp/o")"
check_eq "small: rows and meta columns" "id,name,amount,_change_operation_type,_upstream_event_processed_ts_ms
1,a2,3.0,u,103
2,b,2.5,c,101" "$("$HOODIE" sql t="$t" "SELECT id, name, amount, _change_operation_type,
    _upstream_event_processed_ts_ms FROM t ORDER BY id")"
echo >> "$tmp/s.json"   # the last line is complete now
echo '{"before":{"id":2,"name":"b","amount":2.5},"after":null,"op":"d","ts_ms":105,"source":{"lsn":50}}' >> "$tmp/s.json"
echo '{"before":{"id":1,"name":"a","amount":1.5},"after":null,"op":"d","ts_ms":106,"source":{"lsn":15}}' >> "$tmp/s.json"
"$HOODIE" ingest "$t" --input "$tmp/s.json" --format debezium > "$tmp/o" 2>&1 || bad "small 2: $(cat "$tmp/o")"
check_eq "small: appended events only" "ingest: 3 events, 0 skipped; up to date" "$(tail -1 "$tmp/o")"
check_eq "small: a stale delete loses, a newer one wins" "1,a2
3,c" "$("$HOODIE" sql t="$t" "SELECT id, name FROM t ORDER BY id" | tail -n +2)"

# JSON lines
t=$tmp/jl
"$HOODIE" create "$t" --type cow --name jl --record-key id --ordering-field _event_lsn --schema "$tmp/s.avsc" > /dev/null
printf '%s\n' '{"id":1,"name":"x","_event_lsn":5}' '{"id":1,"name":"old","_event_lsn":3}' '{"id":2,"name":"y","_event_lsn":1}' \
    > "$tmp/j.json"
"$HOODIE" ingest "$t" --input "$tmp/j.json" --batch-rows 1 > /dev/null || bad "jsonl ingest"
check_eq "jsonl: the newest version per key" "1,x
2,y" "$("$HOODIE" sql t="$t" "SELECT id, name FROM t ORDER BY id" | tail -n +2)"

# --follow: events appended later are committed after a pause; SIGTERM commits what was read and stops
t=$tmp/follow
"$HOODIE" create "$t" --type mor --name cdc --record-key id --ordering-field _event_lsn --schema "$tmp/s.avsc" > /dev/null
head -n 100 "$tmp/events.json" > "$tmp/f.json"
"$HOODIE" ingest "$t" --input "$tmp/f.json" --format debezium --follow 0.1 > "$tmp/follow.out" 2>&1 &
pid=$!
wait_for() { # SECONDS CONDITION...
    local end=$((SECONDS + $1)); shift
    until "$@"; do [ $SECONDS -lt $end ] || return 1; sleep 0.1; done
}
at_end() { [ "$("$HOODIE" ingest "$t" --checkpoints 2> /dev/null | tail -1 | cut -d' ' -f3 | cut -d: -f1)" = \
             "$(stat -c %s "$tmp/f.json")" ]; }
wait_for 20 at_end && ok || bad "follow: the first 100 events were not committed"
sed -n '101,400p' "$tmp/events.json" >> "$tmp/f.json"
wait_for 20 at_end && ok || bad "follow: the appended events were not committed"
kill -TERM "$pid"; wait "$pid"; rc=$?
check_eq "follow: SIGTERM exit" 0 "$rc"
check_eq "follow: stopped" "ingest: 400 events, 0 skipped; stopped" "$(tail -1 "$tmp/follow.out")"
check_eq "follow: rows" "$(duck "SELECT id, name, amount FROM (SELECT op, coalesce(after.id, before.id) AS id,
    after.name AS name, after.amount AS amount FROM read_json_auto('$tmp/f.json', format='newline_delimited')
    QUALIFY row_number() OVER (PARTITION BY coalesce(after.id, before.id) ORDER BY source.lsn DESC) = 1)
    WHERE op <> 'd' ORDER BY id" | tail -n +2 | awk -F, '{ print $1 "," $2 "," $3 + 0 }')" \
    "$(rows_of "$t" | awk -F, '{ print $1 "," $2 "," $3 + 0 }')"

# errors
printf '%s\n' '{"op":"c","after":{"id":1}}' '{"op":"c", "after": {' > "$tmp/bad.json"
"$HOODIE" ingest "$tmp/small" --input "$tmp/bad.json" --format debezium > /dev/null 2> "$tmp/err"; rc=$?
check_eq "bad JSON exit" 3 "$rc"
grep -q "bad.json:2 (byte 28): bad JSON" "$tmp/err" && ok || bad "bad JSON message: $(cat "$tmp/err")"
# a table without a _hoodie_is_deleted column: deletes are marked by a column hoodie does not store
echo '{"before":{"id":1},"after":null,"op":"d","source":{"lsn":1}}' > "$tmp/d.json"
printf '%s\n' '{"id":1,"name":"x"}' '{"id":2,"name":"y"}' > "$tmp/nd.json"
for type in mor cow; do
    "$HOODIE" create "$tmp/nodel_$type" --type $type --name nd --record-key id --ordering-field id > /dev/null
    "$HOODIE" write "$tmp/nodel_$type" --op insert --input "$tmp/nd.json" > /dev/null
    "$HOODIE" ingest "$tmp/nodel_$type" --input "$tmp/d.json" --format debezium > "$tmp/out" 2> "$tmp/err"; rc=$?
    check_eq "$type: delete without _hoodie_is_deleted: exit" "0 " "$rc $(cat "$tmp/err")"
    grep -q "(0 inserted, 0 updated, 1 deleted)" "$tmp/out" && ok || bad "$type: delete counted: $(cat "$tmp/out")"
    check_eq "$type: delete without _hoodie_is_deleted: rows" "2,y" \
        "$("$HOODIE" sql t="$tmp/nodel_$type" "SELECT id, name FROM t ORDER BY id" | tail -n +2)"
    "$HOODIE" describe "$tmp/nodel_$type" | grep -q "_hoodie_ingest_delete" && bad "$type: the mark was stored" || ok
done
"$HOODIE" ingest "$tmp/small" --input "$tmp/none.json" > /dev/null 2>&1; check_eq "missing input exit" 1 "$?"
"$HOODIE" ingest "$tmp/small" --input "$tmp/s.json" --batch-rows 0 > /dev/null 2>&1; check_eq "bad batch exit" 2 "$?"

# a global index: a customer whose partition field changes stays one record, moved (global_bloom's default) or
# updated where it is (--update-partition-path false); a delete naming another region deletes it where it is
for upp in true false; do
    t=$tmp/global_$upp
    "$HOODIE" create "$t" --type mor --name g --record-key id --partition-fields region --ordering-field ts > /dev/null
    cat > "$tmp/g.json" <<'EOF'
{"before":null,"after":{"id":1,"name":"a","region":"eu","ts":1},"op":"c","ts_ms":1,"source":{}}
{"before":null,"after":{"id":2,"name":"b","region":"eu","ts":1},"op":"c","ts_ms":1,"source":{}}
EOF
    "$HOODIE" ingest "$t" --input "$tmp/g.json" --format debezium > /dev/null || bad "global $upp: first batch"
    cat >> "$tmp/g.json" <<'EOF'
{"before":{"id":1,"name":"a","region":"eu","ts":1},"after":{"id":1,"name":"a2","region":"us","ts":2},"op":"u","ts_ms":2,"source":{}}
{"before":{"id":2,"name":"b","region":"us","ts":3},"after":null,"op":"d","ts_ms":3,"source":{}}
EOF
    "$HOODIE" ingest "$t" --input "$tmp/g.json" --format debezium --index global_bloom --update-partition-path $upp \
        > "$tmp/o" 2>&1 || bad "global $upp: $(cat "$tmp/o")"
    want="1,us,a2,us"
    [ $upp = false ] && want="1,eu,a2,us"
    check_eq "global $upp: rows" "$want" \
        "$("$HOODIE" read "$t" --columns id,_hoodie_partition_path,name,region --format csv | tail -n +2)"
done
"$HOODIE" ingest "$tmp/small" --input "$tmp/s.json" --index hash > /dev/null 2>&1; check_eq "bad index exit" 2 "$?"

finish ingest
