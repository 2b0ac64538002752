#!/usr/bin/env bash
# The demo: a student dataset of 100,000 rows (id, name, age, address, partition_path = weekday) bulk-inserted into a
# copy-on-write and a merge-on-read Hudi table, then upserted and deleted; prints the timeline, the file groups and
# queries. Everything is written by hoodie; DuckDB (npm, the test oracle) only generates the input CSVs.
set -euo pipefail
HOODIE=${1:-build/hoodie}
here=$(cd "$(dirname "$0")/.." && pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
duck() { node "$here/tests/oracle/duck.mjs" "$@"; }
say() { printf '\n== %s\n' "$*"; }

say "generating 100,000 students (and an update batch: 10,000 changed, 2,000 new; and 500 to delete)"
days="['Monday','Tuesday','Wednesday','Thursday','Friday','Saturday','Sunday']"
duck "COPY (SELECT lpad(i::varchar, 8, '0') AS id, 'student_' || i AS name, (18 + i % 12)::int AS age,
        (i % 997) || ' Campus Road, Block ' || (i % 31) AS address, ${days}[(i % 7) + 1] AS partition_path,
        1700000000000 + i AS ts FROM range(100000) t(i)) TO '$work/students.csv' (HEADER)"
duck "COPY (SELECT lpad(i::varchar, 8, '0') AS id, 'student_' || i || ' (updated)' AS name, (19 + i % 12)::int AS age,
        (i % 997) || ' Campus Road, Block ' || (i % 31) AS address, ${days}[(i % 7) + 1] AS partition_path,
        1800000000000 + i AS ts FROM range(0, 100000, 10) t(i)
        UNION ALL SELECT lpad(i::varchar, 8, '0'), 'new_student_' || i, 18, 'Main Gate', ${days}[(i % 7) + 1],
        1800000000000 + i FROM range(100000, 102000) t(i)) TO '$work/updates.csv' (HEADER)"
duck "COPY (SELECT lpad(i::varchar, 8, '0') AS id, ${days}[(i % 7) + 1] AS partition_path
        FROM range(5, 100000, 200) t(i)) TO '$work/deletes.csv' (HEADER)"

for type in cow mor; do
    t=$work/students_$type
    say "hoodie create ($type): record key id, partitioned by partition_path (hive style), ordering field ts"
    "$HOODIE" create "$t" --type "$type" --name "students_$type" --record-key id --partition-fields partition_path \
        --hive-style --ordering-field ts
    say "hoodie write --op bulk_insert (100,000 rows)"
    "$HOODIE" write "$t" --op bulk_insert --input "$work/students.csv"
    say "hoodie write --op upsert (10,000 updates, 2,000 inserts)"
    "$HOODIE" write "$t" --op upsert --input "$work/updates.csv"
    say "hoodie write --op delete (500 keys)"
    "$HOODIE" write "$t" --op delete --input "$work/deletes.csv"
    say "hoodie timeline"
    "$HOODIE" timeline "$t"
    say "hoodie fsview (file groups and slices)"
    "$HOODIE" fsview "$t" | head -24
    say "hoodie read --filter \"partition_path = 'Monday' AND age > 28\" (first rows)"
    "$HOODIE" read "$t" --filter "partition_path = 'Monday' AND age > 28" \
        --columns _hoodie_commit_time,id,name,age,partition_path --format table --limit 5
    say "row count now, and as of the first commit (time travel)"
    first=$("$HOODIE" timeline "$t" --json | node -e 'let s="";process.stdin.on("data",d=>s+=d).on("end",()=>console.log(JSON.parse(s)[0].requested_time))')
    now=$("$HOODIE" read "$t" --columns id --format csv | tail -n +2 | wc -l)
    then_=$("$HOODIE" read "$t" --as-of "$first" --columns id --format csv | tail -n +2 | wc -l)
    echo "rows now: $now (100,000 + 2,000 - 500); rows as of $first: $then_"
    [ "$now" -eq 101500 ] && [ "$then_" -eq 100000 ] || { echo "demo: unexpected row counts" >&2; exit 1; }
done
if "$HOODIE" compact --help > /dev/null 2>&1; then
    say "hoodie compact (MOR: merges the log files into new base files)"
    "$HOODIE" compact "$work/students_mor"
    echo "rows after compaction: $("$HOODIE" read "$work/students_mor" --columns id --format csv | tail -n +2 | wc -l)"
fi
