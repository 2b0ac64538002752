#!/usr/bin/env bash
# Table services end to end, on tables hoodie writes (COW and MOR, table versions 8 and 6) and on copies of the
# fixture tables written by Spark:
#   - after compaction, clean, clustering, archival: snapshot and time-travel reads (within what retention keeps)
#     return what they returned before (the _hoodie_file_name column aside: rewritten files have new names);
#   - compaction leaves no log files in the latest slices;
#   - log compaction (pending, completed, repeated) leaves every read unchanged;
#   - clean deletes exactly the files its policy allows, computed here from the file-system view before it;
#   - rollback of the latest write, savepoint + restore give back the earlier reads;
#   - fixture copies compacted, cleaned and clustered still read as their expected CSVs.
set -u
HOODIE=${HOODIE:-build/hoodie}
SRC=${HOODIE_SRC:-.}
FIX=${HOODIE_FIXTURES:-../shared/fixtures}/hudi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0

ok() { pass=$((pass + 1)); }
bad() { echo "FAIL $*"; fail=$((fail + 1)); }
check() { local name=$1; shift; if "$@"; then ok; else bad "$name"; fi; }

# Rows without _hoodie_file_name (column 5), sorted.
snap() { "$HOODIE" read "$@" --format csv 2>"$tmp/read.err" | cut -d, -f1-4,6- | sort; }
same() { diff -q "$1" "$2" > /dev/null; }
completed_writes() { "$HOODIE" timeline "$1" | awk '($2=="commit"||$2=="deltacommit"||$2=="replacecommit") && $3=="completed" {print $1}'; }
data_files() { (cd "$1" && find . -path ./.hoodie -prune -o -type f \( -name '*.parquet' -o -name '.*.log.*' \) -print | sed 's|^\./||' | sort); }
no_latest_logs() { ! latest_has_logs "$1"; }
latest_has_logs() { "$HOODIE" fsview "$1" | awk '/^    slice/ {latest = /\(latest\)/} /^      log/ && latest {found=1} END {exit !found}'; }

# Files that cleaning must delete, from `hoodie fsview` before it: mode commits E | versions N.
expected_clean() {
  "$HOODIE" fsview "$1" | awk -v mode="$2" -v arg="$3" '
    function flush(   s, k, cut) {
      if (ns == 0) return
      if (mode == "versions") cut = ns - arg
      else { cut = ns - 1; while (cut > 0 && key[cut] >= arg) cut--; }
      for (s = 0; s < cut; s++) for (k = 0; k < nf[s]; k++) print f[s, k]
      ns = 0
    }
    /^partition / { flush(); part = $2; if (part == "(root)") part = "" }
    /^  file group / { flush() }
    /^    slice / { key[ns] = $2; nf[ns] = 0; ns++ }
    /^      (base|log) / { s = ns - 1; f[s, nf[s]++] = (part == "" ? "" : part "/") $2 }
    END { flush() }' | sort
}

# Every base file of the table passes tests/oracle/basefile_check.mjs (bloom filter rebuilt from its keys, min/max).
basefiles_ok() {
  local out
  mapfile -t files < <(find "$1" -name '*.parquet' -not -path '*/.hoodie/*')
  out=$(node "$SRC/tests/oracle/basefile_check.mjs" "${files[@]}" 2>&1) || { echo "$out" | grep -v '^ok' | head -3; return 1; }
}

completed_writes_n() { "$HOODIE" timeline "$1" | awk '($2=="commit"||$2=="deltacommit"||$2=="replacecommit") && $3=="completed"' | wc -l; }
export -f completed_writes_n
export HOODIE
csv() { printf 'id,p,ts,v\n'; printf '%s\n' "$@"; }

# ---- tables written by hoodie ----
for variant in mor8 mor6 cow8 cow6; do
  type=${variant:0:3}; ver=${variant:3}
  t="$tmp/$variant"
  "$HOODIE" create "$t" --type "$type" --name "$variant" --record-key id --partition-fields p --ordering-field ts \
    --table-version "$ver" > /dev/null || { bad "$variant create"; continue; }
  csv 1,a,1,x1 2,a,1,x2 3,b,1,x3 4,b,1,x4 5,c,1,x5 > "$tmp/w1.csv"
  csv 1,a,2,y1 3,b,2,y3 6,c,2,y6 > "$tmp/w2.csv"
  csv 2,a,3,z2 4,b,3,z4 6,c,3,z6 > "$tmp/w3.csv"
  csv 5,c,4,d5 > "$tmp/d4.csv"
  csv 1,a,5,q1 7,a,5,q7 > "$tmp/w5.csv"
  ok_writes=1
  for w in w1 w2 w3 d4 w5; do
    op=upsert; [ "$w" = d4 ] && op=delete
    "$HOODIE" write "$t" --op $op --input "$tmp/$w.csv" > /dev/null 2> "$tmp/err" || { ok_writes=0; bad "$variant write $w: $(cat "$tmp/err")"; }
  done
  [ $ok_writes = 1 ] || continue
  mapfile -t commits < <(completed_writes "$t")
  snap "$t" > "$tmp/$variant.s0"
  for c in "${commits[@]}"; do snap "$t" --as-of "$c" > "$tmp/$variant.asof.$c"; done
  same_as_before() { # every as-of from index $1 on, and the snapshot
    local from=$1 i
    same "$tmp/$variant.s0" <(snap "$t") || return 1
    for ((i = from; i < ${#commits[@]}; i++)); do
      [ -e "$tmp/$variant.asof.${commits[$i]}.cleaned" ] && continue
      same "$tmp/$variant.asof.${commits[$i]}" <(snap "$t" --as-of "${commits[$i]}") || { echo "  as of ${commits[$i]} differs"; diff "$tmp/$variant.asof.${commits[$i]}" <(snap "$t" --as-of "${commits[$i]}") | head -5; return 1; }
    done
  }

  if [ "$type" = mor ]; then
    # log compaction: pending, then completed (as a deltacommit LOG_COMPACT), then again over its own output
    lc=$("$HOODIE" logcompact "$t" --schedule --blocks-threshold 2 | awk '/scheduled log compaction/ {print $4}' | tr -d :)
    check "$variant: log compaction scheduled" test -n "$lc"
    check "$variant: reads unchanged with a pending log compaction" same_as_before 0
    check "$variant: log compaction run by instant" "$HOODIE" logcompact "$t" --run "$lc"
    check "$variant: log compaction completed as a deltacommit" bash -c "'$HOODIE' timeline '$t' | grep -q '^$lc *deltacommit *completed'"
    check "$variant: reads unchanged after log compaction" same_as_before 0
    check "$variant: as of the log compaction = the snapshot" same "$tmp/$variant.s0" <(snap "$t" --as-of "$lc")
    check "$variant: compacted log file carries COMPACTED_BLOCK_TIMES" \
      bash -c "grep -l -a -r '$lc' '$t' --include='.*.log.*' | xargs grep -l -a ',20' | grep -q ."
    csv 2,a,6,l2 6,c,6,l6 > "$tmp/w5b.csv"
    "$HOODIE" write "$t" --op upsert --input "$tmp/w5b.csv" > /dev/null
    mapfile -t commits < <(completed_writes "$t")
    snap "$t" > "$tmp/$variant.s0"
    for c in "${commits[@]}"; do snap "$t" --as-of "$c" > "$tmp/$variant.asof.$c"; done
    check "$variant: second log compaction" "$HOODIE" logcompact "$t" --blocks-threshold 2
    check "$variant: reads unchanged after the second log compaction" same_as_before 0
    check "$variant: latest slices have logs before compaction" latest_has_logs "$t"
    # on a terminal (script gives it one) a long run shows its progress
    check "$variant: compact" bash -c "script -qec \"'$HOODIE' compact '$t'\" /dev/null < /dev/null > '$tmp/tty.out' 2>&1"
    check "$variant: compaction progress on a terminal" grep -q "compaction: file groups [0-9]*/[0-9]* (100%)" "$tmp/tty.out"
    grep -q "(100%)" "$tmp/tty.out" || echo "  (what the terminal showed: $(head -c 400 "$tmp/tty.out" | cat -A))"
    check "$variant: reads unchanged after compaction" same_as_before 0
    check "$variant: no logs in latest slices after compaction" no_latest_logs "$t"
    # compacted files continue the base file's bloom filter where no record was dropped: still Java's, byte for byte
    check "$variant: compacted base files index their keys as Java would" basefiles_ok "$t"
    # schedule and run apart, with a write in between
    csv 3,b,6,r3 > "$tmp/w6.csv"
    "$HOODIE" write "$t" --op upsert --input "$tmp/w6.csv" > /dev/null
    inst=$("$HOODIE" compact "$t" --schedule | awk '/scheduled compaction/ {print $3}' | tr -d :)
    check "$variant: compaction scheduled" test -n "$inst"
    check "$variant: pending compaction on the timeline" bash -c "'$HOODIE' timeline '$t' | grep -q '$inst.*compaction'"
    check "$variant: compaction run by instant" "$HOODIE" compact "$t" --run "$inst"
    mapfile -t commits < <(completed_writes "$t")
    snap "$t" > "$tmp/$variant.s0"
    for c in "${commits[@]}"; do snap "$t" --as-of "$c" > "$tmp/$variant.asof.$c"; done
  fi

  # clean: KEEP_LATEST_COMMITS keeping 3 commits
  n=${#commits[@]}
  E=${commits[$((n - 3))]}
  expected_clean "$t" commits "$E" > "$tmp/exp"
  data_files "$t" > "$tmp/before"
  "$HOODIE" clean "$t" --policy KEEP_LATEST_COMMITS --retain 3 > /dev/null 2> "$tmp/err" || bad "$variant clean: $(cat "$tmp/err")"
  data_files "$t" > "$tmp/after"
  comm -23 "$tmp/before" "$tmp/after" > "$tmp/got"
  check "$variant: KEEP_LATEST_COMMITS deletes exactly $(wc -l < "$tmp/exp") file(s)" same "$tmp/exp" "$tmp/got"
  [ "$type" = cow ] || check "$variant: KEEP_LATEST_COMMITS deleted something" test -s "$tmp/got"
  check "$variant: reads kept by retention unchanged after clean" same_as_before $((n - 3))

  # clustering: two more file groups by bulk insert, then everything regrouped sorted by v
  csv 10,a,1,m10 11,b,1,m11 12,c,1,a12 > "$tmp/b1.csv"
  csv 13,a,1,k13 14,b,1,c14 > "$tmp/b2.csv"
  "$HOODIE" write "$t" --op bulk_insert --input "$tmp/b1.csv" > /dev/null
  "$HOODIE" write "$t" --op bulk_insert --input "$tmp/b2.csv" > /dev/null
  mapfile -t commits < <(completed_writes "$t")
  snap "$t" > "$tmp/$variant.s0"
  for c in "${commits[@]}"; do snap "$t" --as-of "$c" > "$tmp/$variant.asof.$c"; done
  "$HOODIE" cluster "$t" --sort-by v > "$tmp/out" 2> "$tmp/err" || bad "$variant cluster: $(cat "$tmp/err")"
  cl=$(awk '/^clustering/ {print $2}' "$tmp/out" | tr -d :)
  check "$variant: clustering ran" test -n "$cl"
  check "$variant: reads unchanged after clustering" same_as_before 0
  if [ "$ver" = 8 ]; then pend=clustering; else pend=replacecommit; fi
  check "$variant: clustering requested as $pend" test -e "$t/$( [ "$ver" = 8 ] && echo .hoodie/timeline || echo .hoodie)/$cl.$pend.requested"
  # each new file's rows (in file order) are sorted by v
  "$HOODIE" read "$t" --format csv | awk -F, -v c="$cl" 'index($5, c) {if (($5 in last) && $9 < last[$5]) bad=1; last[$5]=$9} END {exit bad}'
  check "$variant: clustered files sorted by v" test $? -eq 0
  check "$variant: replaced groups gone from the view" bash -c "[ \$('$HOODIE' fsview '$t' | grep -c '^  file group') -le 4 ]"
  mapfile -t commits < <(completed_writes "$t")
  snap "$t" > "$tmp/$variant.s0"

  # savepoint, more writes, KEEP_LATEST_FILE_VERSIONS 1 keeps the savepointed files, restore
  sp=$("$HOODIE" savepoint "$t" create | awk '{print $2}')
  check "$variant: savepoint listed" bash -c "'$HOODIE' savepoint '$t' list | grep -qx '$sp'"
  snap "$t" > "$tmp/$variant.sp"
  csv 2,a,7,s2 8,b,7,s8 > "$tmp/w7.csv"
  csv 4,b,8,t4 > "$tmp/w8.csv"
  "$HOODIE" write "$t" --op upsert --input "$tmp/w7.csv" > /dev/null
  snap "$t" > "$tmp/$variant.w7"
  "$HOODIE" write "$t" --op upsert --input "$tmp/w8.csv" > /dev/null
  # rollback of the latest write
  last=$(completed_writes "$t" | tail -1)
  "$HOODIE" rollback "$t" "$last" > /dev/null 2> "$tmp/err" || bad "$variant rollback: $(cat "$tmp/err")"
  check "$variant: rollback of the latest write gives the read before it" same "$tmp/$variant.w7" <(snap "$t")
  "$HOODIE" write "$t" --op upsert --input "$tmp/w8.csv" > /dev/null
  if [ "$type" = mor ]; then
    "$HOODIE" compact "$t" > /dev/null
    snap "$t" > "$tmp/$variant.c"
    last=$(completed_writes "$t" | tail -1)
    "$HOODIE" rollback "$t" "$last" > /dev/null 2> "$tmp/err" || bad "$variant rollback of compaction: $(cat "$tmp/err")"
    check "$variant: rollback of a compaction keeps the reads" same "$tmp/$variant.c" <(snap "$t")
    check "$variant: logs back in the latest slices" latest_has_logs "$t"
    "$HOODIE" compact "$t" > /dev/null
  fi
  "$HOODIE" fsview "$t" --as-of "$sp" | awk '/^partition / {part = ($2 == "(root)" ? "" : $2 "/")} /^    slice/ {latest = /\(latest\)/} /^      (base|log) / && latest {print part $2}' | sort > "$tmp/spfiles"
  # plus every file of the groups a replacecommit dropped (KEEP_LATEST_FILE_VERSIONS cleans them whole)
  "$HOODIE" fsview "$t" | awk '/^  file group / {print $3}' | sort > "$tmp/fgs"
  data_files "$t" | awk -v fgs="$tmp/fgs" 'BEGIN {while ((getline l < fgs) > 0) live[l]=1}
    {n=$0; sub(/.*\//, "", n); sub(/^\./, "", n); split(n, a, "_"); if (!(a[1] in live)) print $0}' > "$tmp/replaced"
  { expected_clean "$t" versions 1; cat "$tmp/replaced"; } | sort | comm -23 - "$tmp/spfiles" > "$tmp/exp"
  data_files "$t" > "$tmp/before"
  "$HOODIE" clean "$t" --policy KEEP_LATEST_FILE_VERSIONS --retain 1 > /dev/null 2> "$tmp/err" || bad "$variant clean versions: $(cat "$tmp/err")"
  data_files "$t" > "$tmp/after"
  comm -23 "$tmp/before" "$tmp/after" > "$tmp/got"
  check "$variant: KEEP_LATEST_FILE_VERSIONS (savepoint kept) deletes exactly $(wc -l < "$tmp/exp") file(s)" same "$tmp/exp" "$tmp/got"
  check "$variant: KEEP_LATEST_FILE_VERSIONS deleted something" test -s "$tmp/got"
  check "$variant: savepointed files survive the clean" bash -c "comm -12 '$tmp/spfiles' '$tmp/got' | grep -q . && exit 1 || exit 0"
  check "$variant: as of the savepoint still reads" same "$tmp/$variant.sp" <(snap "$t" --as-of "$sp")
  "$HOODIE" restore "$t" "$sp" > /dev/null 2> "$tmp/err" || bad "$variant restore: $(cat "$tmp/err")"
  check "$variant: restore gives the savepoint's read" same "$tmp/$variant.sp" <(snap "$t")
  "$HOODIE" savepoint "$t" delete "$sp" > /dev/null || bad "$variant savepoint delete"
  check "$variant: savepoint deleted" bash -c "! '$HOODIE' savepoint '$t' list | grep -q ."
  # the table is still writable
  check "$variant: write after restore" "$HOODIE" write "$t" --op upsert --input "$tmp/w7.csv"
  check "$variant: read after restore + write" same <(cut -d, -f5- "$tmp/$variant.w7" | sort) <(snap "$t" | cut -d, -f5- | sort)
  # archival: more writes, then archive down to 3 completed writes; every read returns what it did before
  for i in 20 21 22 23 24 25; do
    csv "$i,a,$i,n$i" "1,a,$i,u$i" > "$tmp/wa.csv"
    "$HOODIE" write "$t" --op upsert --input "$tmp/wa.csv" > /dev/null
  done
  mapfile -t commits < <(completed_writes "$t")
  snap "$t" > "$tmp/$variant.s0"
  # as-of reads that cleaning already made impossible (outside retention) are not compared
  for c in "${commits[@]}"; do snap "$t" --as-of "$c" > "$tmp/$variant.asof.$c"; [ -s "$tmp/read.err" ] && touch "$tmp/$variant.asof.$c.cleaned"; done
  "$HOODIE" read "$t" --query incremental --format csv | sort > "$tmp/$variant.incr"
  "$HOODIE" archive "$t" --min-commits 3 --max-commits 5 > "$tmp/out" 2> "$tmp/err" || bad "$variant archive: $(cat "$tmp/err")"
  check "$variant: archive moved instants" bash -c "[ \$(completed_writes_n '$t') -lt ${#commits[@]} ]"
  if [ "$ver" = 8 ]; then check "$variant: LSM history written" test -s "$t/.hoodie/timeline/history/_version_"
  else check "$variant: archive log written" bash -c "ls -a '$t/.hoodie/archived' | grep -q '^.commits_.archive.1_'"; fi
  check "$variant: reads unchanged after archival (snapshot, every as-of)" same_as_before 0
  check "$variant: incremental read unchanged after archival" same "$tmp/$variant.incr" <("$HOODIE" read "$t" --query incremental --format csv | sort)
  check "$variant: write after archival" "$HOODIE" write "$t" --op upsert --input "$tmp/wa.csv"
done

# ---- inline services on writes ----
t="$tmp/inline"
"$HOODIE" create "$t" --type mor --name inline --record-key id --ordering-field ts > /dev/null
# the first write inserts five keys; the next ones only update (so they go to log files: a MOR write that also
# packs inserts into a small file group rewrites that group's base file instead, as Hudi's small-file handling does)
for i in 1 2 3 4 5; do
  if [ "$i" -eq 1 ]; then csv "1,a,1,v1" "2,a,1,w1" "3,a,1,x" "4,a,1,y" "5,a,1,z" > "$tmp/wi.csv"
  else csv "1,a,$i,v$i" "2,a,$i,w$i" > "$tmp/wi.csv"; fi
  "$HOODIE" write "$t" --op upsert --input "$tmp/wi.csv" --compact-every 2 --clean --archive > /dev/null 2> "$tmp/err" || bad "inline write $i: $(cat "$tmp/err")"
done
check "inline: --compact-every 2 compacted twice in 5 delta commits" test "$("$HOODIE" timeline "$t" | awk '$2=="commit"' | wc -l)" -eq 2
check "inline: reads after inline services" test "$("$HOODIE" read "$t" --format csv | tail -n +2 | wc -l)" -eq 5

# ---- a write between scheduling and running a compaction is not lost (v6 names the log after the pending
#      compaction, v8 by its completion time) ----
for ver in 6 8; do
  t="$tmp/pending$ver"
  "$HOODIE" create "$t" --type mor --name pending$ver --record-key id --ordering-field ts --table-version $ver > /dev/null
  csv "1,a,1,x" "2,a,1,y" > "$tmp/p1.csv"; csv "2,a,2,y2" > "$tmp/p2.csv"; csv "2,a,3,y3" > "$tmp/p3.csv"
  "$HOODIE" write "$t" --op upsert --input "$tmp/p1.csv" > /dev/null
  "$HOODIE" write "$t" --op upsert --input "$tmp/p2.csv" > /dev/null
  "$HOODIE" compact "$t" --schedule > /dev/null
  "$HOODIE" write "$t" --op upsert --input "$tmp/p3.csv" > /dev/null
  check "v$ver: a write while a compaction is pending reads back" test "$("$HOODIE" read "$t" --columns id,v --format csv | grep '^2,')" = "2,y3"
  "$HOODIE" compact "$t" --run > /dev/null
  check "v$ver: ... and after the compaction runs" test "$("$HOODIE" read "$t" --columns id,v --format csv | grep '^2,')" = "2,y3"
done

# ---- fixture copies ----
# Services run on every fixture table hoodie writes (table versions 6 and 8). Version 9 tables are read-only for
# hoodie: every service refuses them, clearly, and leaves them untouched.
svc_on_fixture() { # table service args...
  local t=$1 svc=$2; shift 2
  if grep -q '^hoodie.table.version=9' "$t/.hoodie/hoodie.properties"; then
    local before after
    before=$(cd "$t" && find . -type f | sort | xargs md5sum)
    if "$HOODIE" "$svc" "$t" "$@" > "$tmp/out" 2>&1; then bad "$(basename "$t") $svc: a version 9 table was not refused"
    elif ! grep -q "table services write table versions 6 and 8, not 9" "$tmp/out"; then bad "$(basename "$t") $svc: $(cat "$tmp/out")"
    else ok; fi
    after=$(cd "$t" && find . -type f | sort | xargs md5sum)
    check "$(basename "$t") $svc: a refused service changes nothing" test "$before" = "$after"
    return
  fi
  if "$HOODIE" "$svc" "$t" "$@" > "$tmp/out" 2>&1; then ok; else bad "$(basename "$t") $svc: $(cat "$tmp/out")"; fi
}
for exp in "$FIX"/expected/*.csv; do
  base=$(basename "$exp" .csv)
  table=${base%%.*}
  kind=${base#*.}
  [ -d "$tmp/fx/$table" ] && continue
  mkdir -p "$tmp/fx"
  cp -r "$FIX/tables/$table" "$tmp/fx/$table"
  chmod -R u+w "$tmp/fx/$table"
  t="$tmp/fx/$table"
  if grep -q 'hoodie.table.type=MERGE_ON_READ' "$t/.hoodie/hoodie.properties"; then
    # every other MOR fixture compacted in key-hash partitions (a merge budget of ~200 bytes: several passes)
    mor_fx=$(( ${mor_fx:-0} + 1 ))
    if [ $((mor_fx % 2)) -eq 0 ]; then svc_on_fixture "$t" compact --merge-memory 0.0002; else svc_on_fixture "$t" compact; fi
  fi
  svc_on_fixture "$t" cluster --sort-by _hoodie_record_key
  svc_on_fixture "$t" clean --retain 3
done

# A table with a metadata table (Spark's, version 8): its services keep its files, column_stats and record_index
# partitions and its secondary index in step (a deltacommit of each instant; the services change no secondary
# value).
md="$tmp/fx/mdt_basic_mor_avro_v8_nonpartitioned"
if [ -d "$md" ]; then
  check "metadata table: files, column_stats, record_index and the secondary index listed" grep -qx 'hoodie.table.metadata.partitions=column_stats,files,record_index,secondary_index_name_idx' "$md/.hoodie/hoodie.properties"
  check "metadata table: its partitions kept" test -e "$md/.hoodie/metadata/column_stats" -a -e "$md/.hoodie/metadata/record_index" -a -e "$md/.hoodie/metadata/secondary_index_name_idx"
  check "metadata table: its secondary index equals the snapshot's values" bash -c "'$HOODIE' metadata '$md' validate | grep -q '^secondary indexes: 1 checked, [1-9][0-9]* (record key, value) pair(s) of the snapshot; 0 difference(s)'"
  check "metadata table: no backup left" test ! -e "$md/.hoodie/hoodie.properties.backup"
  check "metadata table: the other keys unchanged" diff <(grep -v '^#\|^hoodie.table.metadata.partitions' "$FIX/tables/mdt_basic_mor_avro_v8_nonpartitioned/.hoodie/hoodie.properties") \
    <(grep -v '^#\|^hoodie.table.metadata.partitions' "$md/.hoodie/hoodie.properties")
  check "metadata table: its files equal storage's after compaction, clustering and clean" bash -c "'$HOODIE' metadata '$md' validate | grep -q ' 0 difference(s) from storage'"
  check "metadata table: its column statistics equal the base files' footers" bash -c "'$HOODIE' metadata '$md' validate | grep -q '^column_stats: [1-9][0-9]* statistics of base files checked against their footers; 0 difference(s)'"
  check "metadata table: its record index puts every key where it is after clustering" bash -c "'$HOODIE' metadata '$md' validate | grep -q '^record_index: [1-9][0-9]* key(s) of the snapshot checked; 0 difference(s)'"
  check "metadata table: reads through it equal listing's" bash -c "diff <('$HOODIE' read '$md' --format csv) <('$HOODIE' read '$md' --format csv --metadata-table)"
else
  bad "metadata table: fixture mdt_basic_mor_avro_v8_nonpartitioned has no expected CSV any more"
fi

# A write to a version 9 table (which lists metadata partitions) is refused and changes nothing, MDT included.
v9="$tmp/v9w"
cp -r "$FIX/tables/trips_mor_avro_v9_mor_nonpart_3commits" "$v9"
chmod -R u+w "$v9"
v9sum=$(cd "$v9" && find . -type f | sort | xargs md5sum)
printf 'id,name,price,ts\n1,z,1.0,999\n' > "$tmp/v9.csv"
check "version 9: a write is refused" bash -c "! '$HOODIE' write '$v9' --op upsert --input '$tmp/v9.csv' 2> '$tmp/v9.err'"
check "version 9: ... clearly" grep -q "writes table versions 6 and 8" "$tmp/v9.err"
check "version 9: ... and changes nothing" test "$v9sum" = "$(cd "$v9" && find . -type f | sort | xargs md5sum)"

# Partition pruning never drops rows: a value holding '/' (written as nested folders, no URL encoding) is not
# taken for its first segment.
sl="$tmp/slash"
"$HOODIE" create "$sl" --type cow --name slash --record-key id --partition-fields city > /dev/null
printf 'id,city,v\n1,a/b,x\n2,c,y\n' > "$tmp/slash.csv"
"$HOODIE" write "$sl" --op insert --input "$tmp/slash.csv" > /dev/null
check "partition pruning: a value with '/'" test "$("$HOODIE" read "$sl" --columns id --filter "city = 'a/b'" \
  --format csv | sed 1d)" = "1"
check "partition pruning: ... and the other partition" test "$("$HOODIE" read "$sl" --columns id \
  --filter "city = 'c'" --format csv | sed 1d)" = "2"

# A table without meta fields (Spark's, virtual keys): clustering rewrites it with the meta columns left null but the
# file name (as Spark writes them) and no key index in the footers; writes are refused rather than duplicating keys.
nm="$tmp/nometa"
cp -r "$FIX/tables/cow_v6_simplekeygen_hivestyle_no_metafields" "$nm"
chmod -R u+w "$nm"
# the meta columns of its files are null: lookups and filters by them use the values the scan computes
check "no meta fields: a point lookup by the computed record key" \
  test "$("$HOODIE" get "$nm" 3 --columns id,name --format csv | sed 1d)" = "3,Carol"
check "no meta fields: a filter on _hoodie_record_key" test "$("$HOODIE" read "$nm" --columns id,name \
  --filter "_hoodie_record_key IN ('3', '4') AND _hoodie_partition_path = 'byteField=10'" --format csv | sed 1d)" = "3,Carol"
f10=$(ls "$nm"/byteField=10/*.parquet)
cp "$f10" "$nm/byteField=10/00000000-aaaa-bbbb-cccc-000000000000-0_0-35-78_20240426205419518.parquet" # a second group
snap "$nm" > "$tmp/nm.before"
check "no meta fields: the copied group adds rows" test "$(wc -l < "$tmp/nm.before")" -eq 7
check "no meta fields: cluster" bash -c "'$HOODIE' cluster '$nm' --sort-by name | grep -q '2 file group(s), 1 file(s) written'"
snap "$nm" > "$tmp/nm.after"
check "no meta fields: rows unchanged by clustering" same "$tmp/nm.before" "$tmp/nm.after"
nf=$(find "$nm/byteField=10" -name '*.parquet' -newer "$f10" ! -name '00000000-aaaa-*' | head -1) # the clustered file, not the copy
check "no meta fields: clustered file's footer has no key index" bash -c \
  "'$HOODIE' parquet meta '$nf' | grep -q parquet.avro.schema && ! '$HOODIE' parquet meta '$nf' | grep -q 'bloomfilter\|min_record_key'"
check "no meta fields: meta columns null, file name set" test "$("$HOODIE" parquet cat "$nf" --columns \
  _hoodie_commit_time,_hoodie_record_key,_hoodie_partition_path,_hoodie_file_name --format csv | sed 1d | sort -u)" = ",,,$(basename "$nf")"
check "no meta fields: clustered file read by DuckDB" node "$SRC/tests/oracle/pqdump.mjs" "$nf" > /dev/null
check "no meta fields: clean" "$HOODIE" clean "$nm" --retain 1
printf 'id,name,longField,byteField\n1,Zed,9999999999,10\n' > "$tmp/nm.csv"
check "no meta fields: an upsert (keys from the key fields)" "$HOODIE" write "$nm" --op upsert --input "$tmp/nm.csv" \
  --set-null-for-missing-columns # (the other columns null, as the CSV has them)
snap "$nm" > "$tmp/nm.after2"
# id 1 is in the clustered group twice (the copied file's rows): both records replaced, every other row unchanged
check "no meta fields: the upserted key reads as the new row" test "$(grep -c ',1,Zed,' "$tmp/nm.after2")" -eq 2 -a \
  "$(grep -c ',1,Alice,' "$tmp/nm.after2")" -eq 0
check "no meta fields: the other rows unchanged by the upsert" same <(grep -v ',1,Alice,' "$tmp/nm.before") \
  <(grep -v ',1,Zed,' "$tmp/nm.after2")
"$HOODIE" compact "$nm" > "$tmp/out" 2>&1
check "no meta fields: compaction refused" grep -q "compaction needs a merge-on-read table\|without meta fields" "$tmp/out"
for exp in "$FIX"/expected/*.csv; do
  base=$(basename "$exp" .csv)
  table=${base%%.*}
  kind=${base#*.}
  args=()
  case "$kind" in
    snapshot) ;;
    asof_*) args=(--as-of "${kind#asof_}") ;;
    *) continue ;;
  esac
  out="$tmp/$base.parquet"
  if ! "$HOODIE" read "$tmp/fx/$table" "${args[@]}" --format parquet -o "$out" 2> "$tmp/err"; then
    bad "fixture $base after services: $(cat "$tmp/err")"
    continue
  fi
  node "$SRC/tests/oracle/render_expected.mjs" "$out" "$exp" > "$tmp/got.csv" 2> "$tmp/err" || { bad "fixture $base render"; continue; }
  if [ ! -s "$exp" ]; then
    if [ -s "$tmp/got.csv" ]; then bad "fixture $base: rows where none expected"; else ok; fi
    continue
  fi
  if same "$exp" "$tmp/got.csv"; then ok; else bad "fixture $base after services"; diff "$exp" "$tmp/got.csv" | head -5; fi
done

# --merge-memory takes a positive number of MB: anything else is a usage error (exit 2) that changes nothing
for cmd in read compact logcompact; do
  for v in abc 0 -1 ""; do
    "$HOODIE" "$cmd" "$tmp/fx/trips_mor_avro_v8_trips_8i1u" --merge-memory "$v" > /dev/null 2> "$tmp/mm.err"
    rc=$?
    check "$cmd --merge-memory '$v': exit 2" test "$rc" -eq 2
    check "$cmd --merge-memory '$v': says why" grep -q "merge-memory needs a positive number of MB" "$tmp/mm.err"
  done
done

echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
