#!/usr/bin/env bash
# The demo: 100,000 students (id, name, age, address, partition_path = weekday) generated with DuckDB,
# bulk-inserted into a copy-on-write and a merge-on-read Hudi table, then an upsert (updates), an insert (new
# students) and a delete; prints each table's timeline, its file groups, and queries, with DuckDB's count of the inputs
# next to hoodie's for comparison.
set -euo pipefail
HOODIE=${1:-build/hoodie}
here=$(cd "$(dirname "$0")/.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
duck() { node "$here/tests/oracle/duck.mjs" "$@"; }
t0=$(date +%s.%N)

students="SELECT lpad(i::VARCHAR, 6, '0') AS id,
    ['Alice','Bob','Carla','Dmitri','Elena','Farid','Grace','Hiro','Ines','Jonas','Kofi','Lena'][h % 12 + 1] || ' ' ||
    ['Smith','Moreau','Tanaka','Okafor','Silva','Novak','Haddad','Larsen','Rossi','Nguyen'][(h >> 8) % 10 + 1] AS name,
    ((h >> 16) % 10 + 17)::INTEGER AS age,
    ((h >> 4) % 900 + 100)::VARCHAR || ' ' || ['Maple','Oak','Cedar','Elm','Willow','Birch'][(h >> 12) % 6 + 1] || ' Street' AS address,
    ['Monday','Tuesday','Wednesday','Thursday','Friday','Saturday','Sunday'][(h >> 20) % 7 + 1] AS partition_path,
    TS::BIGINT AS ts
  FROM (SELECT i, (i * 2654435761 + 1013904223) % 4294967296 AS h FROM range(START, END) t(i))"
gen() { # START END TS [WHERE]
  local q=${students//START/$1}; q=${q//END/$2}; q=${q//TS/$3}
  echo "SELECT * FROM ($q) ${4:-}"
}
echo "== generating 100,000 students with DuckDB"
duck "COPY ($(gen 0 100000 1)) TO '$tmp/students.csv' (HEADER);
      COPY (SELECT id, name, age + 1 AS age, address, partition_path, ts FROM ($(gen 0 100000 2 'WHERE id::INT % 50 = 0')))
        TO '$tmp/updates.csv' (HEADER);
      COPY ($(gen 100000 102000 2)) TO '$tmp/new.csv' (HEADER);
      COPY (SELECT id, partition_path FROM ($(gen 0 100000 0 'WHERE id::INT % 97 = 1'))) TO '$tmp/deletes.csv' (HEADER)" > /dev/null
lines() { echo $(($(wc -l < "$1") - 1)); }
echo "   students.csv: $(lines "$tmp/students.csv") rows; updates.csv: $(lines "$tmp/updates.csv") (every 50th student" \
     "a year older); new.csv: $(lines "$tmp/new.csv") new students; deletes.csv: $(lines "$tmp/deletes.csv") keys"
expected=$(duck --csv "SELECT count(*) FROM (SELECT id FROM read_csv('$tmp/students.csv') UNION SELECT id FROM read_csv('$tmp/new.csv'))
                       WHERE id NOT IN (SELECT id FROM read_csv('$tmp/deletes.csv'))" | tail -1)

for type in cow mor; do
  t="$tmp/students_$type"
  echo
  echo "=================== $type table ==================="
  "$HOODIE" create "$t" --type "$type" --name "students_$type" --record-key id --partition-fields partition_path \
    --hive-style --ordering-field ts
  echo "-- bulk_insert";  "$HOODIE" write "$t" --op bulk_insert --input "$tmp/students.csv"
  echo "-- upsert (updates: on MOR into log files)"; "$HOODIE" write "$t" --op upsert --input "$tmp/updates.csv"
  echo "-- insert";       "$HOODIE" write "$t" --op insert --input "$tmp/new.csv"
  echo "-- delete";       "$HOODIE" write "$t" --op delete --input "$tmp/deletes.csv"
  echo "-- timeline";     "$HOODIE" timeline "$t"
  echo "-- file groups";  "$HOODIE" fsview "$t" | head -20
  echo "-- query: 000050 and 000100 were updated, 000001 deleted, 000051 untouched, 100001 is new"
  "$HOODIE" read "$t" --columns _hoodie_commit_time,id,name,age,address,partition_path,ts \
    --filter "id IN ('000050', '000100', '000001', '000051', '100001')" --format table
  echo "-- query: students per weekday"
  "$HOODIE" read "$t" --columns partition_path --format csv | tail -n +2 | sort | uniq -c
  n=$("$HOODIE" read "$t" --columns id --format csv | tail -n +2 | wc -l)
  echo "-- rows: hoodie reads $n, DuckDB computes $expected from the input files"
  [ "$n" = "$expected" ] || { echo "demo: row counts differ" >&2; exit 1; }
done
echo
echo "demo done in $(awk "BEGIN{printf \"%.1f\", $(date +%s.%N) - $t0}") s"
