#!/usr/bin/env bash
# hoodie metadata over the Spark-written table whose metadata table is on (mdt_basic_mor_avro_v8_nonpartitioned):
# its partitions and files (with sizes) equal a listing of storage; validate finds nothing, then finds each kind of
# difference in a copy (a file storage has and the metadata table does not, one it lists that storage lost, a size
# that differs); record index lookups; the reads and lookups that take the metadata table (--metadata-table) return
# what listing returns, filters through its column statistics too (a slice they rule out is not read); archival
# stops at the metadata table's latest compaction; its secondary index (lookups, validate, filters pruned by it);
# writes keep its files partition in step, a rollback takes its
# deltacommit back (or disables it when compacted since), a restore disables it; init on a table hoodie wrote;
# usage errors.
set -u
HOODIE=${HOODIE:-build/hoodie}
FIX=${HOODIE_FIXTURES:-../shared/fixtures}/hudi/tables
source "$(dirname "${BASH_SOURCE[0]}")/common/check.bash"

T=$FIX/mdt_basic_mor_avro_v8_nonpartitioned

run "partitions" 0 "$HOODIE" metadata "$T" partitions
check_eq "partitions: the base path" "." "$(cat "$tmp/out")"
run "files" 0 "$HOODIE" metadata "$T" files
# the data files in the base path (base files and logs), with their sizes, as storage has them
want=$(cd "$T" && for f in * .??*; do [ -f "$f" ] && [ "$f" != .hoodie_partition_metadata ] && printf '.\t%s\t%s\n' "$f" "$(stat -c %s "$f")"; done | sort)
check_eq "files: the listing of storage, with sizes" "$want" "$(sort "$tmp/out")"
check_eq "files: 2 base files and 5 log files" "7" "$(wc -l < "$tmp/out")"
run "files --partition ." 0 "$HOODIE" metadata "$T" files --partition .
check_eq "files --partition ." "$want" "$(sort "$tmp/out")"
run "validate" 0 "$HOODIE" metadata "$T" validate
grep -q "1 partition(s), 7 file(s) in the metadata table; 0 difference(s) from storage" "$tmp/out" && ok ||
    bad "validate: $(cat "$tmp/out")"

# record index: keys 1, 4 and 5 are in the one file group (added by the first commit); 2 and 3 were deleted
run "lookup" 0 "$HOODIE" metadata "$T" lookup 1 2 3 4 5 6
check_eq "lookup" "$(printf '1\t.\tccfdc9b6-b2d0-438f-a236-40b797bf07ea-0\t1767246196354\n2\t-\n3\t-\n4\t.\tccfdc9b6-b2d0-438f-a236-40b797bf07ea-0\t1767246196354\n5\t.\tccfdc9b6-b2d0-438f-a236-40b797bf07ea-0\t1767246196354\n6\t-')" "$(cat "$tmp/out")"

# reads through the metadata table return what listing returns
for q in "" "--as-of 20260101054332333" "--query read_optimized"; do
    # shellcheck disable=SC2086
    check_eq "read $q" "$("$HOODIE" read "$T" $q --format csv 2>&1)" "$("$HOODIE" read "$T" $q --format csv --metadata-table 2>&1)"
done
check_eq "get" "$("$HOODIE" get "$T" 1 2 3 4 5 6 2>&1)" "$("$HOODIE" get "$T" 1 2 3 4 5 6 --metadata-table 2>&1)"
check_eq "get finds 1, 4, 5" "3" "$("$HOODIE" get "$T" 1 2 3 4 5 6 --metadata-table --format csv | tail -n +2 | wc -l)"

# filters: the same rows through the metadata table's column statistics (file slices skipped by them)
for f in "id = 3" "id = 99" "id IN (1, 5, 7)" "name = 'Alice'" "name > 'D'" "intField > 100000" "isActive = true" \
         "dateField >= '2023-04-01'" "doubleField < 0" "longField IS NULL" "longField IS NOT NULL" "floatField > 2.5" \
         "_hoodie_record_key = '4'" "byteField <= 1 AND shortField > 100"; do
    check_eq "filter $f" "$("$HOODIE" read "$T" --filter "$f" --format csv 2>&1)" \
        "$("$HOODIE" read "$T" --filter "$f" --format csv --metadata-table 2>&1)"
    check_eq "filter $f (read-optimized)" "$("$HOODIE" read "$T" --query read_optimized --filter "$f" --format csv 2>&1)" \
        "$("$HOODIE" read "$T" --query read_optimized --filter "$f" --format csv --metadata-table 2>&1)"
done
# a slice the statistics rule out is not read: its base file cut short fails a read by listing (the footer) and
# one whose filter may match, not one they rule out
p=$tmp/pruned
cp -r "$T" "$p" && chmod -R u+w "$p"
truncate -s 1000 "$p/ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_0-149-448_20260101054335805.parquet"
run "cut base file, listing" 1 "$HOODIE" read "$p" --filter "id = 99" --format csv
run "cut base file, statistics rule the slice out" 0 "$HOODIE" read "$p" --filter "id = 99" --format csv --metadata-table
check_eq "no rows" "1" "$(wc -l < "$tmp/out")"
run "cut base file, statistics rule it in" 1 "$HOODIE" read "$p" --filter "id = 1" --format csv --metadata-table
grep -q "no PAR1 magic" "$tmp/err" && ok || bad "cut base file: $(cat "$tmp/err")"
# the same through SQL (the vtab pushes the comparison into the scan): metadata=on / hoodie sql --metadata-table
run "sql, listing" 1 "$HOODIE" sql t="$p" "SELECT count(*) FROM t WHERE id = 99"
run "sql, statistics rule the slice out" 0 "$HOODIE" sql t="$p" "SELECT count(*) FROM t WHERE id = 99" --metadata-table
check_eq "sql count" "$(printf 'count(*)\n0')" "$(cat "$tmp/out")"
check_eq "sql key lookup" "$("$HOODIE" sql t="$T" "SELECT id, name FROM t WHERE _hoodie_record_key IN ('4', '2', '5') ORDER BY id" 2>&1)" \
    "$("$HOODIE" sql t="$T" "SELECT id, name FROM t WHERE _hoodie_record_key IN ('4', '2', '5') ORDER BY id" --metadata-table 2>&1)"

# secondary index (Spark's secondary_index_name_idx on name): validate checks it against the snapshot; lookups give
# the record keys of a value (Bob's and Carol's entries deleted with their records, Diana's moved to her new name);
# a filter on name through the metadata table reads only the file groups of the keys the index gives (none for a
# name it does not hold: the cut files are not read, as listing and the statistics would read them)
grep -q "secondary indexes: 1 checked, 3 (record key, value) pair(s) of the snapshot; 0 difference(s)" \
    <("$HOODIE" metadata "$T" validate) && ok || bad "validate: the secondary index"
run "secondary lookup" 0 "$HOODIE" metadata "$T" lookup --secondary-index secondary_index_name_idx Alice Bob Carol Diana "Diana Updated" Eve x
check_eq "secondary lookup" "$(printf 'Alice\t1\nBob\t-\nCarol\t-\nDiana\t-\nDiana Updated\t4\nEve\t5\nx\t-')" "$(cat "$tmp/out")"
run "secondary lookup, unknown index" 1 "$HOODIE" metadata "$T" lookup --secondary-index secondary_index_nope Alice
run "secondary lookup, another index" 1 "$HOODIE" metadata "$T" lookup --secondary-index record_index Alice
run "--secondary-index with files" 2 "$HOODIE" metadata "$T" files --secondary-index secondary_index_name_idx
for f in "name = 'Bob'" "name = 'Diana'" "name IN ('Eve', 'Diana Updated', 'Zed')" "name = 'Alice' AND id > 0" "name != 'Alice'"; do
    check_eq "secondary filter $f" "$("$HOODIE" read "$T" --filter "$f" --format csv 2>&1)" \
        "$("$HOODIE" read "$T" --filter "$f" --format csv --metadata-table 2>&1)"
done
si=$tmp/si
cp -r "$T" "$si" && chmod -R u+w "$si"
for f in "$si"/*.parquet "$si"/.ccfdc9b6*; do truncate -s 100 "$f"; done
run "secondary: a listing read reads the cut files" 1 "$HOODIE" read "$si" --filter "name = 'Bob'" --format csv
run "secondary: Bob's name is no one's, nothing read" 0 "$HOODIE" read "$si" --filter "name = 'Bob'" --format csv --metadata-table
check_eq "secondary: no rows" "1" "$(wc -l < "$tmp/out")"
run "secondary: Alice's group is read" 1 "$HOODIE" read "$si" --filter "name = 'Alice'" --format csv --metadata-table
run "secondary: sql" 0 "$HOODIE" sql t="$si" "SELECT count(*) FROM t WHERE name IN ('Bob', 'Carol')" --metadata-table
check_eq "secondary: sql count" "$(printf 'count(*)\n0')" "$(cat "$tmp/out")"
sed -i 's/^hoodie.table.metadata.partitions=.*/hoodie.table.metadata.partitions=column_stats,files,record_index/' "$si/.hoodie/hoodie.properties"
run "secondary: not listed, not used" 1 "$HOODIE" read "$si" --filter "name = 'Bob'" --format csv --metadata-table
run "vtab metadata=maybe" 1 "$HOODIE" sql "CREATE VIRTUAL TABLE x USING hoodie('$T', 'metadata=maybe')"
grep -q "metadata=maybe: on or off" "$tmp/err" && ok || bad "vtab metadata=maybe: $(cat "$tmp/err")"

# validate finds each kind of difference
c=$tmp/copy
cp -r "$T" "$c" && chmod -R u+w "$c"
cp "$c/ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_0-61-225_20260101054316354.parquet" \
   "$c/0ddba11c-0000-4000-8000-000000000000-0_0-61-225_20260101054316354.parquet"
rm "$c/.ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_20260101054333805.log.1_0-120-380"
printf 'x' >> "$c/.ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_20260101054337037.log.1_0-167-518"
run "validate a changed copy" 1 "$HOODIE" metadata "$c" validate
grep -q "^only in storage: ./0ddba11c-0000-4000-8000-000000000000-0_0-61-225_20260101054316354.parquet (437945 bytes)" "$tmp/out" && ok || bad "stray file: $(cat "$tmp/out")"
grep -q "^only in the metadata table: ./.ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_20260101054333805.log.1_0-120-380 (1765 bytes)" "$tmp/out" && ok || bad "lost file: $(cat "$tmp/out")"
grep -q "^size differs: ./.ccfdc9b6-b2d0-438f-a236-40b797bf07ea-0_20260101054337037.log.1_0-167-518: 1768 bytes in storage, 1767 in the metadata table" "$tmp/out" && ok || bad "size: $(cat "$tmp/out")"
grep -q "3 difference(s) from storage" "$tmp/out" && ok || bad "count: $(cat "$tmp/out")"
# the stray file group (the 5 rows of the first commit): listing reads it, the metadata table does not
check_eq "stray group read by listing only" "8 3" \
    "$("$HOODIE" read "$c" --format csv 2>/dev/null | tail -n +2 | wc -l) $("$HOODIE" read "$c" --format csv --metadata-table 2>/dev/null | tail -n +2 | wc -l)"

# a failed append's bytes after the last block of a log of the metadata table: skipped with a warning, as Hudi's
# log reader skips them
w=$tmp/torn
cp -r "$T" "$w" && chmod -R u+w "$w"
printf '#HUDI#garbage' >> "$w/.hoodie/metadata/files/.files-0000-0_20260101054337037.log.1_4-175-537"
run "torn log" 0 "$HOODIE" metadata "$w" validate
grep -q "0 difference(s) from storage" "$tmp/out" && ok || bad "torn log: $(cat "$tmp/out")"
grep -q "corrupt log block at offset 14343 skipped" "$tmp/err" && ok || bad "torn log warning: $(cat "$tmp/err")"

# archival stops at the metadata table's latest compaction, as Hudi's does (its log blocks of later instants count
# only while the instant is active): with it, down to one write; without one, nothing; with an earlier one, only
# the instants before it
timeline_first() { "$HOODIE" timeline "$1" | sed -n 2p | awk '{print $1}'; }
a=$tmp/arch
cp -r "$T" "$a" && chmod -R u+w "$a"
run "archive" 0 "$HOODIE" archive "$a" --min-commits 1 --max-commits 2
check_eq "archive: 7 instants" "1" "$(grep -c ' 7 instant(s)' "$tmp/out")"
check_eq "archive: the last write stays" "20260101054337037" "$(timeline_first "$a")"
run "archive, reads" 0 "$HOODIE" read "$a" --format csv --metadata-table
check_eq "archive: reads through the metadata table" "$("$HOODIE" read "$T" --format csv)" "$(cat "$tmp/out")"
a=$tmp/arch2
cp -r "$T" "$a" && chmod -R u+w "$a"
rm "$a"/.hoodie/metadata/.hoodie/timeline/20260101054337083*
run "archive, no compaction" 0 "$HOODIE" archive "$a" --min-commits 1 --max-commits 2
check_eq "archive, no compaction: nothing" "archive: nothing to do" "$(cat "$tmp/out")"
a=$tmp/arch3
cp -r "$T" "$a" && chmod -R u+w "$a"
for f in "$a"/.hoodie/metadata/.hoodie/timeline/20260101054337083*; do mv "$f" "${f/20260101054337083/20260101054330000}"; done
run "archive, earlier compaction" 0 "$HOODIE" archive "$a" --min-commits 1 --max-commits 2
check_eq "archive, earlier compaction: 2 instants" "1" "$(grep -c ' 2 instant(s)' "$tmp/out")"
check_eq "archive, earlier compaction: from it on" "20260101054330718" "$(timeline_first "$a")"

# writes keep the metadata table in step (files, column_stats, record_index and the secondary index): after an
# upsert, a delete, a rollback of the last write, validate finds nothing and reads through it equal listing's
wr=$tmp/write
cp -r "$T" "$wr" && chmod -R u+w "$wr"
printf '%s\n%s\n%s\n' 'id,name,isActive,byteField,shortField,intField,longField,floatField,doubleField,decimalField,dateField,timestampField,binaryField' \
    '4,Diana Again,true,1,500,45000,987654399,4.0,2.468,65432.12345,2023-04-04,2023-04-04 15:04:00+00,' \
    '7,Grace,true,1,2,3,4,5.0,6.0,7.00000,2023-05-05,2023-05-05 10:00:00+00,' > "$tmp/up.csv"
in_step() {
    run "$1: validate" 0 "$HOODIE" metadata "$wr" validate
    grep -q " 0 difference(s) from storage" "$tmp/out" && ok || bad "$1: $(cat "$tmp/out")"
    if grep -q '^hoodie.table.metadata.partitions=column_stats,files' "$wr/.hoodie/hoodie.properties"; then
        grep -q "^column_stats: [1-9][0-9]* statistics of base files checked against their footers; 0 difference(s)$" "$tmp/out" &&
            ok || bad "$1: column_stats: $(cat "$tmp/out")"
    fi
    if grep -q '^hoodie.table.metadata.partitions=.*record_index' "$wr/.hoodie/hoodie.properties"; then
        grep -q "^record_index: [1-9][0-9]* key(s) of the snapshot checked; 0 difference(s)$" "$tmp/out" &&
            ok || bad "$1: record_index: $(cat "$tmp/out")"
    fi
    if grep -q '^hoodie.table.metadata.partitions=.*secondary_index_name_idx' "$wr/.hoodie/hoodie.properties"; then
        grep -q "^secondary indexes: [1-9] checked, [0-9]* (record key, value) pair(s) of the snapshot; 0 difference(s)$" "$tmp/out" &&
            ok || bad "$1: secondary index: $(cat "$tmp/out")"
    fi
    check_eq "$1: reads through it" "$("$HOODIE" read "$wr" --format csv 2>&1)" "$("$HOODIE" read "$wr" --format csv --metadata-table 2>&1)"
}
run "write: upsert" 0 "$HOODIE" write "$wr" --op upsert --input "$tmp/up.csv"
in_step "write: upsert"
check_eq "write: files, column_stats, record_index and the secondary index listed" "hoodie.table.metadata.partitions=column_stats,files,record_index,secondary_index_name_idx" "$(grep '^hoodie.table.metadata.partitions=' "$wr/.hoodie/hoodie.properties")"
check_eq "write: no partition removed" "column_stats files record_index secondary_index_name_idx" "$(ls "$wr/.hoodie/metadata" | tr '\n' ' ' | sed 's/ $//')"
last=$("$HOODIE" timeline "$wr" | tail -1 | awk '{print $1}')
check_eq "write: a deltacommit of the same instant" "1" "$(ls "$wr/.hoodie/metadata/.hoodie/timeline" | grep -c "^${last}_.*\.deltacommit$")"
check_eq "write: its log file" "1" "$(ls -a "$wr/.hoodie/metadata/files" | grep -c "^\.files-0000-0_${last}\.log\.1_0-1-0$")"
# the small-file merge wrote a base file: its statistics in a log of column_stats (one per file group it reaches)
n_cs=$(ls -a "$wr/.hoodie/metadata/column_stats" | grep -c "^\.col-stats-000[01]-0_${last}\.log\.1_0-1-0$")
[ "$n_cs" -ge 1 ] && ok || bad "write: column_stats logs of $last: $n_cs"
grep -q "^column_stats: 48 statistics" "$tmp/out" && ok || bad "write: 3 base files' statistics: $(cat "$tmp/out")"
# the inserted key 7 in the record index (its file group: "7" hashes to group 5 of 10), in a log of that group
run "write: lookup" 0 "$HOODIE" metadata "$wr" lookup 7 4
fg7=$("$HOODIE" read "$wr" --columns _hoodie_record_key,_hoodie_file_name --format csv | grep '^7,' | cut -d, -f2 | sed 's/_.*//')
check_eq "write: key 7 indexed where it went" "$(printf '7\t.\t%s' "$fg7")" "$(grep '^7' "$tmp/out" | cut -f1-3)"
check_eq "write: key 4 where Spark indexed it" "$(printf '4\t.\tccfdc9b6-b2d0-438f-a236-40b797bf07ea-0\t1767246196354')" "$(grep '^4' "$tmp/out")"
check_eq "write: record_index log of group 5" "1" "$(ls -a "$wr/.hoodie/metadata/record_index" | grep -c "^\.record-index-0005-0_${last}\.log\.1_0-1-0$")"
# the secondary index: Diana's entry moved to her new name (removed from group 0, where Spark put it), Grace's
# added; logs of this instant as Spark writes them (a delete block of the old key, a data block of the new)
run "write: secondary lookup" 0 "$HOODIE" metadata "$wr" lookup --secondary-index secondary_index_name_idx "Diana Updated" "Diana Again" Grace Alice
check_eq "write: secondary lookup" "$(printf 'Diana Updated\t-\nDiana Again\t4\nGrace\t7\nAlice\t1')" "$(cat "$tmp/out")"
check_eq "write: secondary index log of group 0" "1" "$(ls -a "$wr/.hoodie/metadata/secondary_index_name_idx" | grep -c "^\.secondary-index-name-idx-0000-0_${last}\.log\.1_0-1-0$")"
check_eq "write: secondary index: filtered reads" "$(printf 'id,name\n4,Diana Again')" "$("$HOODIE" read "$wr" --columns id,name --filter "name = 'Diana Again'" --format csv --metadata-table)"
# an update that loses to the stored record by the ordering field (longField) changes nothing
printf '%s\n%s\n' 'id,name,isActive,byteField,shortField,intField,longField,floatField,doubleField,decimalField,dateField,timestampField,binaryField' \
    '4,Diana Stale,true,1,500,45000,1,4.0,2.468,65432.12345,2023-04-04,2023-04-04 15:04:00+00,' > "$tmp/stale.csv"
run "write: stale update" 0 "$HOODIE" write "$wr" --op upsert --input "$tmp/stale.csv"
in_step "write: stale update"
run "write: secondary lookup after the stale update" 0 "$HOODIE" metadata "$wr" lookup --secondary-index secondary_index_name_idx "Diana Stale" "Diana Again"
check_eq "write: secondary index unchanged" "$(printf 'Diana Stale\t-\nDiana Again\t4')" "$(cat "$tmp/out")"
# a filter pruned by them (--metadata-table) reads what a full scan reads
check_eq "write: pruned by column_stats" "$("$HOODIE" read "$wr" --format csv --filter 'intField>=45000' 2>&1)" \
    "$("$HOODIE" read "$wr" --format csv --filter 'intField>=45000' --metadata-table 2>&1)"
run "write: delete" 0 "$HOODIE" write "$wr" --op delete --input "$tmp/up.csv"
in_step "write: delete"
last=$("$HOODIE" timeline "$wr" | tail -1 | awk '{print $1}')
run "write: rollback" 0 "$HOODIE" rollback "$wr" "$last"
in_step "write: rollback"
check_eq "write: rollback took the deltacommit" "0" "$(ls "$wr/.hoodie/metadata/.hoodie/timeline" | grep -c "^${last}")"
check_eq "write: rollback, rows" "$(printf '1,Alice\n4,Diana Again\n5,Eve\n7,Grace')" \
    "$("$HOODIE" read "$wr" --format csv --columns id,name --metadata-table | tail -n +2 | sort)"
# a delete whose ordering value (longField) is below the stored record's loses: the snapshot keeps Diana, and so
# do the record index and the secondary index (Hudi's index would lose her); one above it wins, and both lose her
wr=$tmp/contested
cp -r "$T" "$wr" && chmod -R u+w "$wr"
printf 'id,longField\n4,5\n' > "$tmp/del_lose.csv"
printf 'id,longField\n4,999999999999\n' > "$tmp/del_win.csv"
run "contested delete: loses" 0 "$HOODIE" write "$wr" --op delete --input "$tmp/del_lose.csv"
in_step "contested delete: loses"
check_eq "contested delete: loses, Diana read" "$(printf '1,Alice\n4,Diana Updated\n5,Eve')" "$("$HOODIE" read "$wr" --columns id,name --format csv | tail -n +2 | sort)"
run "contested delete: loses, lookup" 0 "$HOODIE" metadata "$wr" lookup 4
check_eq "contested delete: loses, still indexed" "$(printf '4\t.\tccfdc9b6-b2d0-438f-a236-40b797bf07ea-0')" "$(cut -f1-3 "$tmp/out")"
run "contested delete: wins" 0 "$HOODIE" write "$wr" --op delete --input "$tmp/del_win.csv"
in_step "contested delete: wins"
run "contested delete: wins, lookup" 0 "$HOODIE" metadata "$wr" lookup 4
check_eq "contested delete: wins, not indexed" "$(printf '4\t-')" "$(cat "$tmp/out")"
run "contested delete: wins, secondary lookup" 0 "$HOODIE" metadata "$wr" lookup --secondary-index secondary_index_name_idx "Diana Updated"
check_eq "contested delete: wins, not in the secondary index" "$(printf 'Diana Updated\t-')" "$(cat "$tmp/out")"
# id 4 deleted (a delete block in a log), then updated back through a Parquet log block: the bloom index finds it
# in the base file still, and the record index has it again
wr=$tmp/readd
cp -r "$T" "$wr" && chmod -R u+w "$wr"
printf 'id\n4\n' > "$tmp/del4.csv"
run "re-add: delete" 0 "$HOODIE" write "$wr" --op delete --input "$tmp/del4.csv"
in_step "re-add: delete"
run "re-add: lookup after the delete" 0 "$HOODIE" metadata "$wr" lookup 4
check_eq "re-add: not indexed after the delete" "$(printf '4\t-')" "$(cat "$tmp/out")"
run "re-add: update" 0 "$HOODIE" write "$wr" --op upsert --input "$tmp/up.csv" --log-block-format parquet
in_step "re-add: update"
run "re-add: lookup after the update" 0 "$HOODIE" metadata "$wr" lookup 4
check_eq "re-add: indexed in its file group again" "$(printf '4\t.\tccfdc9b6-b2d0-438f-a236-40b797bf07ea-0')" "$(cut -f1-3 "$tmp/out")"
# an insert_overwrite_table replaces every file group: the record index loses the keys Spark wrote (1, 5; 4 is
# written again) and has the new ones where they went; every partition stays in step
wr=$tmp/overwrite
cp -r "$T" "$wr" && chmod -R u+w "$wr"
run "insert_overwrite_table" 0 "$HOODIE" write "$wr" --op insert_overwrite_table --input "$tmp/up.csv"
check_eq "insert_overwrite_table: record_index kept" "hoodie.table.metadata.partitions=column_stats,files,record_index,secondary_index_name_idx" "$(grep '^hoodie.table.metadata.partitions=' "$wr/.hoodie/hoodie.properties")"
in_step "insert_overwrite_table"
run "insert_overwrite_table: lookup" 0 "$HOODIE" metadata "$wr" lookup 1 4 5 7
fg=$("$HOODIE" read "$wr" --columns _hoodie_record_key,_hoodie_file_name --format csv | grep '^4,' | cut -d, -f2 | sed 's/_.*//')
check_eq "insert_overwrite_table: old keys gone, new ones in the new file group" \
    "$(printf '1\t-\n4\t.\t%s\n5\t-\n7\t.\t%s' "$fg" "$fg")" "$(cut -f1-3 "$tmp/out")"
# ten writes: the eleventh compacts the files partition first (a base file of a new instant), and archival
# can then go up to that compaction, the metadata table's own timeline with it; reads and validate stay right
wr=$tmp/compact
cp -r "$T" "$wr" && chmod -R u+w "$wr"
for i in 1 2 3 4 5 6 7 8 9 10 11; do "$HOODIE" write "$wr" --op upsert --input "$tmp/up.csv" > /dev/null 2>&1 || bad "write $i"; done
last=$("$HOODIE" timeline "$wr" | tail -1 | awk '{print $1}')
comp=$(ls "$wr/.hoodie/metadata/.hoodie/timeline" | grep '^[0-9]*_[0-9]*\.commit$' | sed 's/_.*//' | sort | tail -1)
[[ "$comp" > "$last" && ${#comp} -eq 17 ]] && ok || bad "compaction: of the eleventh write, after it: [$comp] [$last]"
check_eq "compaction: its base file" "1" "$(ls "$wr/.hoodie/metadata/files" | grep -c "^files-0000-0_0-1-0_${comp}\.hfile$")"
check_eq "compaction: slices before the one it compacted cleaned" "files-0000-0_0-1-0_${comp}.hfile files-0000-0_22-161-506_20260101054337083.hfile" \
    "$(ls "$wr/.hoodie/metadata/files" | grep 'hfile$' | sort | tr '\n' ' ' | sed 's/ $//')"
check_eq "compaction: their logs too" "0" "$(ls -a "$wr/.hoodie/metadata/files" | grep -c '^\.files-0000-0_2026010105431[0-9]*\.log')"
in_step "compaction"
# record_index compacted too: a base file for each group that ever held a key (0, 1: Spark's deleted ids 2, 3),
# none for the groups that never did
check_eq "compaction: record_index base files" "0 1 2 3 5 9" \
    "$(ls "$wr/.hoodie/metadata/record_index" | grep "_0-1-0_${comp}\.hfile$" | sed 's/^record-index-000\([0-9]\)-0_.*/\1/' | tr '\n' ' ' | sed 's/ $//')"
run "compaction: archive" 0 "$HOODIE" archive "$wr" --min-commits 2 --max-commits 3
grep -q " instant(s)" "$tmp/out" && ok || bad "compaction: archive: $(cat "$tmp/out")"
in_step "compaction: archived"
n=$(ls "$wr/.hoodie/metadata/.hoodie/timeline" | grep -c '\.')
[ "$n" -le 8 ] && ok || bad "compaction: the metadata table's timeline archived too: $n instant files left"
check_eq "compaction: its latest compaction stays" "1" "$(ls "$wr/.hoodie/metadata/.hoodie/timeline" | grep -c "^${comp}_.*\.commit$")"
run "compaction: a write after archiving" 0 "$HOODIE" write "$wr" --op upsert --input "$tmp/up.csv"
in_step "compaction: a write after archiving"

# a table hoodie wrote gets a metadata table (hoodie metadata TABLE init): every file listed, then kept in step by
# writes and services; Spark's properties for it; a second init, a version 6 table and a pending instant refused
it=$tmp/init
"$HOODIE" create "$it" --type mor --name it --record-key id --partition-fields city --hive-style --ordering-field ts > /dev/null
printf 'id,name,city,ts\n1,a,paris,1\n2,b,lyon,1\n3,c,nice,1\n4,d,paris,1\n' > "$tmp/i1.csv"
printf 'id,name,city,ts\n1,a2,paris,2\n5,e,lyon,2\n' > "$tmp/i2.csv"
"$HOODIE" write "$it" --op bulk_insert --input "$tmp/i1.csv" > /dev/null
"$HOODIE" write "$it" --op upsert --input "$tmp/i2.csv" > /dev/null
run "init" 0 "$HOODIE" metadata "$it" init
check_eq "init: files listed" "metadata table created: 5 file(s) listed" "$(cat "$tmp/out")"
wr=$it
in_step "init"
check_eq "init: files and column_stats listed" "hoodie.table.metadata.partitions=column_stats,files" "$(grep '^hoodie.table.metadata.partitions=' "$it/.hoodie/hoodie.properties")"
check_eq "init: the index definitions named" "hoodie.table.index.defs.path=.hoodie/.index_defs/index.json" "$(grep '^hoodie.table.index.defs.path=' "$it/.hoodie/hoodie.properties")"
check_eq "init: column_stats defined as Hudi 1.0 writes it" "$(printf '%s\n' '{' '  "indexDefinitions" : {' '    "column_stats" : {' \
    '      "indexName" : "column_stats",' '      "indexType" : "column_stats",' '      "indexFunction" : "column_stats",' \
    '      "sourceFields" : [ "_hoodie_commit_time", "_hoodie_partition_path", "_hoodie_record_key", "id", "name", "city", "ts" ],' \
    '      "indexOptions" : { }' '    }' '  }' '}')" "$(cat "$it/.hoodie/.index_defs/index.json")"
grep -q "^column_stats: 28 statistics" "$tmp/out" && ok || bad "init: 4 base files x 7 columns: $(cat "$tmp/out")"
check_eq "init: pruned reads" "$("$HOODIE" read "$it" --format csv --columns id,name --filter "city = 'lyon'" | sort)" \
    "$("$HOODIE" read "$it" --format csv --columns id,name --filter "city = 'lyon'" --metadata-table | sort)"
check_eq "init: the metadata table's properties" "$(grep -v '^#' "$T/.hoodie/metadata/.hoodie/hoodie.properties" | sed 's/=.*//')" \
    "$(grep -v '^#' "$it/.hoodie/metadata/.hoodie/hoodie.properties" | sed 's/=.*//')"
"$HOODIE" write "$it" --op upsert --input "$tmp/i2.csv" > /dev/null
"$HOODIE" compact "$it" > /dev/null
"$HOODIE" clean "$it" --policy KEEP_LATEST_FILE_VERSIONS --retain 1 > /dev/null
in_step "init: writes and services after it"
# init --record-index: the record index too, every live key of the snapshot (not a key a log deleted); writes and
# services keep it in step
itr=$tmp/initri
"$HOODIE" create "$itr" --type mor --name itr --record-key id --partition-fields city --hive-style --ordering-field ts > /dev/null
"$HOODIE" write "$itr" --op bulk_insert --input "$tmp/i1.csv" > /dev/null
"$HOODIE" write "$itr" --op upsert --input "$tmp/i2.csv" > /dev/null
printf 'id,city\n3,nice\n' > "$tmp/d3.csv"
"$HOODIE" write "$itr" --op delete --input "$tmp/d3.csv" > /dev/null
run "init --record-index" 0 "$HOODIE" metadata "$itr" init --record-index
check_eq "init --record-index: keys" "record index: 4 key(s)" "$(tail -1 "$tmp/out")"
check_eq "init --record-index: listed" "hoodie.table.metadata.partitions=column_stats,files,record_index" "$(grep '^hoodie.table.metadata.partitions=' "$itr/.hoodie/hoodie.properties")"
check_eq "init --record-index: a base file per file group, instant 2" "10" "$(ls "$itr/.hoodie/metadata/record_index" | grep -c '^record-index-000[0-9]-0_0-1-0_00000000000000002\.hfile$')"
wr=$itr
in_step "init --record-index"
run "init --record-index: lookup" 0 "$HOODIE" metadata "$itr" lookup 3 5
check_eq "init --record-index: the deleted key is not indexed" "$(printf '3\t-')" "$(grep '^3' "$tmp/out")"
grep -q "^5	city=lyon	" "$tmp/out" && ok || bad "init --record-index: key 5: $(cat "$tmp/out")"
printf 'id,name,city,ts\n6,f,nice,3\n2,b2,lyon,3\n' > "$tmp/i3.csv"
run "init --record-index: upsert" 0 "$HOODIE" write "$itr" --op upsert --input "$tmp/i3.csv"
in_step "init --record-index: upsert"
run "init --record-index: compact" 0 "$HOODIE" compact "$itr"
in_step "init --record-index: compact"
run "init --record-index: cluster" 0 "$HOODIE" cluster "$itr"
in_step "init --record-index: cluster"
# init --secondary-index: a secondary index of name (and of ts, named by_ts) with the record index; every record
# with a name in it, kept in step by writes (a rename, a delete, a move through the global record index) and services
its=$tmp/initsi
"$HOODIE" create "$its" --type mor --name its --record-key id --partition-fields city --hive-style --ordering-field ts > /dev/null
"$HOODIE" write "$its" --op bulk_insert --input "$tmp/i1.csv" > /dev/null
"$HOODIE" write "$its" --op upsert --input "$tmp/i2.csv" > /dev/null
run "init --secondary-index without the record index" 2 "$HOODIE" metadata "$its" init --secondary-index name
run "init --secondary-index of no column" 2 "$HOODIE" metadata "$its" init --record-index --secondary-index nope
[ ! -e "$its/.hoodie/metadata" ] && grep -q '^hoodie.table.metadata.partitions=$\|^$' <(grep '^hoodie.table.metadata.partitions=' "$its/.hoodie/hoodie.properties"; echo) && ok ||
    bad "init --secondary-index of no column: left $(ls "$its/.hoodie")"
run "init --secondary-index" 0 "$HOODIE" metadata "$its" init --record-index --secondary-index name --secondary-index ts=by_ts
grep -q "^secondary_index_name_idx on name: [1-9][0-9]* entries$" "$tmp/out" && ok || bad "init --secondary-index: $(cat "$tmp/out")"
check_eq "init --secondary-index: listed" "hoodie.table.metadata.partitions=column_stats,files,record_index,secondary_index_by_ts,secondary_index_name_idx" "$(grep '^hoodie.table.metadata.partitions=' "$its/.hoodie/hoodie.properties")"
check_eq "init --secondary-index: a base file per file group, instants 3 and 4" "10 10" \
    "$(ls "$its/.hoodie/metadata/secondary_index_name_idx" | grep -c '^secondary-index-name-idx-000[0-9]-0_0-1-0_00000000000000003\.hfile$') $(ls "$its/.hoodie/metadata/secondary_index_by_ts" | grep -c '^secondary-index-by-ts-000[0-9]-0_0-1-0_00000000000000004\.hfile$')"
grep -q '"sourceFields" : \[ "name" \]' "$its/.hoodie/.index_defs/index.json" && ok || bad "init --secondary-index: definition"
wr=$its
in_step "init --secondary-index"
grep -q "^secondary indexes: 2 checked" "$tmp/out" && ok || bad "init --secondary-index: both checked: $(cat "$tmp/out")"
printf 'id,name,city,ts\n1,renamed,paris,9\n7,g,nice,9\n' > "$tmp/si1.csv"
run "init --secondary-index: upsert" 0 "$HOODIE" write "$its" --op upsert --input "$tmp/si1.csv"
in_step "init --secondary-index: upsert"
run "init --secondary-index: lookup" 0 "$HOODIE" metadata "$its" lookup --secondary-index secondary_index_name_idx renamed g
check_eq "init --secondary-index: lookup" "$(printf 'renamed\t1\ng\t7')" "$(cat "$tmp/out")"
run "init --secondary-index: delete" 0 "$HOODIE" write "$its" --op delete --input "$tmp/d3.csv"
in_step "init --secondary-index: delete"
printf 'id,name,city,ts\n7,g2,lyon,10\n' > "$tmp/si2.csv"
run "init --secondary-index: a key moved by the record index" 0 "$HOODIE" write "$its" --op upsert --input "$tmp/si2.csv" --index record_index
in_step "init --secondary-index: a key moved by the record index"
run "init --secondary-index: compact" 0 "$HOODIE" compact "$its"
in_step "init --secondary-index: compact"
run "init --secondary-index: cluster" 0 "$HOODIE" cluster "$its"
in_step "init --secondary-index: cluster"
check_eq "init --secondary-index: filtered reads" "$("$HOODIE" read "$its" --columns id,name --filter "name IN ('g2', 'renamed')" --format csv | sort)" \
    "$("$HOODIE" read "$its" --columns id,name --filter "name IN ('g2', 'renamed')" --format csv --metadata-table | sort)"
# --index record_index: upserts and deletes placed by the record index write what the bloom index's do
itb=$tmp/initri_bloom
cp -r "$itr" "$itb"
printf 'id,name,city,ts\n1,a4,paris,4\n5,e4,lyon,4\n8,h,lyon,4\n' > "$tmp/i4.csv"
run "--index record_index: upsert" 0 "$HOODIE" write "$itr" --op upsert --input "$tmp/i4.csv" --index record_index
"$HOODIE" write "$itb" --op upsert --input "$tmp/i4.csv" > /dev/null
run "--index record_index: delete" 0 "$HOODIE" write "$itr" --op delete --input "$tmp/d3.csv" --index record_index
"$HOODIE" write "$itb" --op delete --input "$tmp/d3.csv" > /dev/null
check_eq "--index record_index: the rows the bloom index's writes give" \
    "$("$HOODIE" read "$itb" --columns id,name,city --format csv | sort)" "$("$HOODIE" read "$itr" --columns id,name,city --format csv | sort)"
wr=$itr
in_step "--index record_index"
# a global index: a key the input puts in another partition is updated where the index holds it (Hudi's
# hoodie.record.index.update.partition.path=false); a delete naming another partition deletes it there
printf 'id,name,city,ts\n5,e5,paris,5\n5,e4,nice,4\n' > "$tmp/move.csv"
run "--index record_index: a key moved" 0 "$HOODIE" write "$itr" --op upsert --input "$tmp/move.csv" --index record_index
check_eq "--index record_index: updated in its partition" "5,city=lyon,e5,paris" \
    "$("$HOODIE" read "$itr" --columns id,_hoodie_partition_path,name,city --format csv | grep '^5,')"
printf 'id,name,city,ts\n8,x,paris,9\n' > "$tmp/dmove.csv"
check_eq "--index record_index: key 8 before its delete" "8,city=lyon" \
    "$("$HOODIE" read "$itr" --columns id,_hoodie_partition_path --format csv | grep '^8,')"
run "--index record_index: a delete in another partition" 0 "$HOODIE" write "$itr" --op delete --input "$tmp/dmove.csv" --index record_index
check_eq "--index record_index: deleted in its partition" "" "$("$HOODIE" read "$itr" --columns id --format csv | grep '^8$')"
in_step "--index record_index: moves"
# --update-partition-path (hoodie.record.index.update.partition.path=true): a newer version moves the record, an
# older one leaves it where it is
printf 'id,name,city,ts\n5,e6,paris,6\n1,a0,lyon,0\n' > "$tmp/move2.csv"
run "--update-partition-path without the record index" 2 "$HOODIE" write "$itr" --op upsert --input "$tmp/move2.csv" --update-partition-path true
grep -q "goes with a global index" "$tmp/err" && ok || bad "--update-partition-path alone: $(cat "$tmp/err")"
printf 'hoodie.index.type=RECORD_INDEX\nhoodie.record.index.update.partition.path=true\n' > "$tmp/move.props"
run "--update-partition-path: upsert" 0 "$HOODIE" write "$itr" --op upsert --input "$tmp/move2.csv" --props "$tmp/move.props"
check_eq "--update-partition-path: moved, and not moved" "$(printf '1,city=paris,a4,paris\n5,city=paris,e6,paris')" \
    "$("$HOODIE" read "$itr" --columns id,_hoodie_partition_path,name,city --format csv | grep '^[15],' | sort)"
in_step "--update-partition-path"
# insert_overwrite of a partition: the keys its replaced file groups held leave the index (those written again
# stay, in the new file group); delete_partition: every key of the partition leaves it; an upsert placed by the
# index then inserts a key the overwrite removed (not an update of a replaced file group)
iow=$tmp/initri_overwrite
cp -r "$itr" "$iow"
wr=$iow
before=$("$HOODIE" read "$iow" --columns id,city --format csv | tail -n +2 | sort)
printf 'id,name,city,ts\n1,a9,paris,9\n9,i,paris,9\n' > "$tmp/ow.csv"
run "insert_overwrite with the record index" 0 "$HOODIE" write "$iow" --op insert_overwrite --input "$tmp/ow.csv"
in_step "insert_overwrite with the record index"
gone=$(printf '%s\n' "$before" | grep ',paris$' | cut -d, -f1 | grep -v '^1$' | tr '\n' ' ')
[ -n "$gone" ] && ok || bad "insert_overwrite: no key of paris left out: [$before]"
# shellcheck disable=SC2086
run "insert_overwrite: lookup" 0 "$HOODIE" metadata "$iow" lookup $gone 1 9
check_eq "insert_overwrite: the keys overwritten away not indexed" "$(for k in $gone; do printf '%s\t-\n' "$k"; done)" "$(grep -v '^[19]	' "$tmp/out")"
check_eq "insert_overwrite: 1 and 9 in paris" "2" "$(grep -c '^[19]	city=paris	' "$tmp/out")"
lyon=$("$HOODIE" read "$iow" --columns id,city --format csv | grep ',lyon$' | cut -d, -f1 | sort | tr '\n' ' ')
[ -n "$lyon" ] && ok || bad "delete_partition: no key in lyon"
printf 'id,name,city,ts\n0,x,lyon,9\n' > "$tmp/dp.csv"
run "delete_partition with the record index" 0 "$HOODIE" write "$iow" --op delete_partition --input "$tmp/dp.csv"
in_step "delete_partition with the record index"
# shellcheck disable=SC2086
run "delete_partition: lookup" 0 "$HOODIE" metadata "$iow" lookup $lyon
check_eq "delete_partition: lyon's keys not indexed" "$(for k in $lyon; do printf '%s\t-\n' "$k"; done)" "$(cat "$tmp/out")"
k=$(printf '%s' "$gone" | cut -d' ' -f1)
printf 'id,name,city,ts\n%s,back,nice,10\n' "$k" > "$tmp/back.csv"
run "after insert_overwrite: upsert by the index" 0 "$HOODIE" write "$iow" --op upsert --input "$tmp/back.csv" --index record_index
check_eq "after insert_overwrite: inserted in nice" "$k,city=nice,back" \
    "$("$HOODIE" read "$iow" --columns id,_hoodie_partition_path,name --format csv | grep "^$k,")"
in_step "after insert_overwrite: upsert by the index"
run "--index record_index without one" 1 "$HOODIE" write "$it" --op upsert --input "$tmp/i4.csv" --index record_index
grep -q "init --record-index" "$tmp/err" && ok || bad "--index record_index without one: $(cat "$tmp/err")"
run "--record-index without init" 2 "$HOODIE" metadata "$itr" validate --record-index
grep -q "goes with init" "$tmp/err" && ok || bad "--record-index without init: $(cat "$tmp/err")"
run "init again" 1 "$HOODIE" metadata "$it" init
grep -q "the table has a metadata table" "$tmp/err" && ok || bad "init again: $(cat "$tmp/err")"
v6=$tmp/init6
"$HOODIE" create "$v6" --type cow --name v6 --record-key id --table-version 6 > /dev/null
run "init version 6" 1 "$HOODIE" metadata "$v6" init
grep -q "version 8 tables" "$tmp/err" && ok || bad "init version 6: $(cat "$tmp/err")"
p8=$tmp/initp
"$HOODIE" create "$p8" --type cow --name p8 --record-key id > /dev/null
: > "$p8/.hoodie/timeline/20990101000000000.commit.requested"
run "init with a pending instant" 1 "$HOODIE" metadata "$p8" init
grep -q "instant 20990101000000000 is pending" "$tmp/err" && ok || bad "init pending: $(cat "$tmp/err")"

# rolling back the fixture's last write: its deltacommit completed after the metadata table's compaction was
# requested (in the new slice), so it goes and the metadata table stays
rb=$tmp/rbc
cp -r "$T" "$rb" && chmod -R u+w "$rb"
run "rollback after the compaction" 0 "$HOODIE" rollback "$rb" 20260101054337037
check_eq "rollback after the compaction: kept" "hoodie.table.metadata.partitions=column_stats,files,record_index,secondary_index_name_idx" "$(grep '^hoodie.table.metadata.partitions=' "$rb/.hoodie/hoodie.properties")"
run "rollback after the compaction: validate" 0 "$HOODIE" metadata "$rb" validate
grep -q " 0 difference(s) from storage" "$tmp/out" && ok || bad "rollback after the compaction: $(cat "$tmp/out")"
# one the metadata table compacted since (the compaction moved after it): it can only be disabled
rb=$tmp/rbc2
cp -r "$T" "$rb" && chmod -R u+w "$rb"
for f in "$rb"/.hoodie/metadata/.hoodie/timeline/20260101054337083*; do mv "$f" "${f/20260101054337083/20260101054338000}"; done
run "rollback before its compaction" 0 "$HOODIE" rollback "$rb" 20260101054337037
check_eq "rollback before its compaction: disabled" "hoodie.table.metadata.partitions=" "$(grep '^hoodie.table.metadata.partitions=' "$rb/.hoodie/hoodie.properties")"
[ ! -e "$rb/.hoodie/metadata" ] && ok || bad "rollback before its compaction: folder left"
check_eq "rollback before its compaction: rows" "$("$HOODIE" read "$T" --as-of 20260101054335805 --format csv --columns id,name | sort)" \
    "$("$HOODIE" read "$rb" --format csv --columns id,name | sort)"
# a restore disables it
rs=$tmp/rst
cp -r "$T" "$rs" && chmod -R u+w "$rs"
run "savepoint" 0 "$HOODIE" savepoint "$rs" create 20260101054332333
run "restore" 0 "$HOODIE" restore "$rs" 20260101054332333
check_eq "restore: disabled" "hoodie.table.metadata.partitions=" "$(grep '^hoodie.table.metadata.partitions=' "$rs/.hoodie/hoodie.properties")"
check_eq "restore: rows" "$("$HOODIE" read "$T" --as-of 20260101054332333 --format csv --columns id,name | sort)" \
    "$("$HOODIE" read "$rs" --format csv --columns id,name | sort)"

# column statistics prune what hoodie wrote, log files included: a new file group (Grace, intField 3) whose base
# file and update log (intField 4) both lie below the filter is skipped by a read through the metadata table, so
# that read succeeds with both files unreadable, while a listing read fails on them
pr=$tmp/prune
cp -r "$T" "$pr" && chmod -R u+w "$pr"
head -1 "$tmp/up.csv" > "$tmp/grace.csv"
tail -1 "$tmp/up.csv" >> "$tmp/grace.csv"
run "prune: insert" 0 "$HOODIE" write "$pr" --op upsert --input "$tmp/grace.csv"
sed 's/^7,Grace,true,1,2,3,/7,Grace,true,1,2,4,/' "$tmp/grace.csv" > "$tmp/grace2.csv"
run "prune: update" 0 "$HOODIE" write "$pr" --op upsert --input "$tmp/grace2.csv"
run "prune: validate" 0 "$HOODIE" metadata "$pr" validate
grep -q "^column_stats: .* 0 difference(s)$" "$tmp/out" && ok || bad "prune: validate: $(cat "$tmp/out")"
want=$("$HOODIE" read "$pr" --format csv --columns id,name --filter 'intField >= 45000' | sort)
fg=$("$HOODIE" read "$pr" --format csv --columns _hoodie_file_name,id | awk -F, '$2 == 7 {print $1}' | sed 's/_.*//')
n_g=0
for f in "$pr"/"$fg"* "$pr"/."$fg"*; do [ -f "$f" ] && printf 'garbage' > "$f" && n_g=$((n_g + 1)); done
check_eq "prune: the group's base and log file" "2" "$n_g"
run "prune: a listing read fails on them" 1 "$HOODIE" read "$pr" --format csv --columns id,name --filter 'intField >= 45000'
run "prune: through the metadata table, skipped" 0 "$HOODIE" read "$pr" --format csv --columns id,name --filter 'intField >= 45000' --metadata-table
check_eq "prune: the rows" "$want" "$(sort "$tmp/out")"

# a corrupt metadata table is an error that names the file; a table without one is refused by the command
printf 'garbage' | dd of="$c/.hoodie/metadata/files/files-0000-0_22-161-506_20260101054337083.hfile" bs=1 seek=300 conv=notrunc 2> /dev/null
run "corrupt" 3 "$HOODIE" metadata "$c" files
grep -q "files-0000-0_22-161-506_20260101054337083.hfile: HFile block at offset 0: checksum mismatch" "$tmp/err" && ok || bad "corrupt: $(cat "$tmp/err")"
run "without one" 1 "$HOODIE" metadata "$FIX/cow_v8_nonpartitioned" files
grep -q "does not list files" "$tmp/err" && ok || bad "without one: $(cat "$tmp/err")"
run "unknown request" 2 "$HOODIE" metadata "$T" bogus
run "lookup without keys" 2 "$HOODIE" metadata "$T" lookup
run "--partition with validate" 2 "$HOODIE" metadata "$T" validate --partition .
run "no such partition" 2 "$HOODIE" metadata "$T" files --partition nope
finish metadata_table
