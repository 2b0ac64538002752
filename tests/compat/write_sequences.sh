#!/usr/bin/env bash
# Write sequences read back at every instant as DuckDB computes them from the input CSVs alone.
# For COW and MOR, table versions 8 and 6, and the simple, complex, nonpartitioned and timestamp key generators,
# from CSV, JSON lines or Parquet inputs:
# bulk_insert, upsert (newer, stale and tied ordering values, duplicates within the batch, new keys), delete
# (with keys that do not exist), insert_overwrite of one partition, upsert again; after each step the table is
# read as of every instant so far (time travel), each compared with tests/oracle/write_seq.mjs's expected state.
# COW tables without meta fields (hoodie.populate.meta.fields=false: keys from the key fields, SIMPLE index) run
# the same sequences, and so do COW and MOR tables with the bucket index (each row in its bucket's file group).
# Each step's changes, as `hoodie read --query cdc` gives them, are checked against DuckDB's difference of the
# states before and after it (tables with meta fields); tables with CDC logs (hoodie.table.cdc.enabled) too,
# whose rewrites the query reads from their logs.
set -u
HOODIE=${HOODIE:-build/hoodie}
SRC=${HOODIE_SRC:-.}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
ORACLE="$SRC/tests/oracle/write_seq.mjs"

if ! node "$ORACLE" gen "$tmp" 2> "$tmp/err"; then
  echo "FAIL generating the inputs: $(head -c 400 "$tmp/err")"
  echo "0 passed, 1 failed"
  exit 1
fi

run_config() { # type version keygen [nometa]
  local type=$1 ver=$2 kg=$3 flavor=${4:-} name="$1_v$2_$3${4:+_$4}" hive=0
  local t="$tmp/$name" cargs=()
  case "$kg" in
    simple) cargs=(--record-key id --partition-fields city --hive-style); hive=1 ;;
    complex) cargs=(--record-key id,region --partition-fields city,region --keygen complex) ;;
    nonpartitioned) cargs=(--record-key id --keygen nonpartitioned) ;;
    timestamp) cargs=(--record-key id --partition-fields event_ms --keygen timestamp --hive-style
                      --prop hoodie.keygen.timebased.timestamp.type=EPOCHMILLISECONDS
                      --prop hoodie.keygen.timebased.output.dateformat=yyyy/MM/dd
                      --prop hoodie.keygen.timebased.timezone=UTC); hive=1 ;;
  esac
  [ "$flavor" = nometa ] && cargs+=(--no-meta-fields)
  [ "$flavor" = bucket ] && cargs+=(--index bucket --buckets 3)
  [ "$flavor" = cdc ] && cargs+=(--prop hoodie.table.cdc.enabled=true)
  [ "$flavor" = cdcbefore ] && cargs+=(--prop hoodie.table.cdc.enabled=true
                                       --prop hoodie.table.cdc.supplemental.logging.mode=DATA_BEFORE)
  if ! "$HOODIE" create "$t" --type "$type" --table-version "$ver" --name "$name" --ordering-field ts \
       "${cargs[@]}" > /dev/null 2> "$tmp/err"; then
    echo "FAIL $name: create: $(cat "$tmp/err")"; fail=$((fail + 1)); return
  fi
  local manifest="$tmp/$name.manifest" op csv instants=() fmt
  # the inputs' format varies with the configuration: CSV (typed by inference, then by the table), JSON lines, Parquet
  case "$type$ver$flavor" in cow8) fmt=csv ;; cow6) fmt=jsonl ;; mor8|cow6nometa) fmt=parquet ;; *) fmt=csv ;; esac
  : > "$manifest"
  while read -r op csv; do
    if ! "$HOODIE" write "$t" --op "$op" --input "$tmp/$csv.$fmt" > "$tmp/out" 2> "$tmp/err"; then
      echo "FAIL $name: write $op $csv: $(cat "$tmp/err")"; fail=$((fail + 1)); return
    fi
    local inst
    inst=$(sed -n 's/^[a-z]* \([0-9]\{17\}\):.*/\1/p' "$tmp/out")
    if [ -z "$inst" ]; then echo "FAIL $name: no instant in: $(cat "$tmp/out")"; fail=$((fail + 1)); return; fi
    instants+=("$inst")
    echo "$op $csv $inst $tmp/$name.$inst.parquet" >> "$manifest"
  done < "$tmp/steps"
  for inst in "${instants[@]}"; do
    if ! "$HOODIE" read "$t" --as-of "$inst" --format parquet -o "$tmp/$name.$inst.parquet" 2> "$tmp/err"; then
      echo "FAIL $name: read --as-of $inst: $(cat "$tmp/err")"; fail=$((fail + 1)); return
    fi
  done
  # the snapshot equals the last instant's state
  if ! "$HOODIE" read "$t" --format parquet -o "$tmp/$name.snap.parquet" 2> "$tmp/err"; then
    echo "FAIL $name: read: $(cat "$tmp/err")"; fail=$((fail + 1)); return
  fi
  sed '$ s/[^ ]*$/'"$(printf '%s' "$tmp/$name.snap.parquet" | sed 's/[\/&]/\\&/g')"'/' "$manifest" > "$manifest.snap"
  # a filter on the partition field prunes partitions only as the rows compare: it keeps the snapshot's rows of
  # that value (DuckDB's count), for the value of a row of the snapshot (the timestamp key generator's partition
  # is a date formatted from event_ms: pruning on event_ms must keep its rows)
  local pf="" lit want got
  case "$kg" in simple|complex) pf=city ;; timestamp) pf=event_ms ;; esac
  if [ -n "$pf" ]; then
    lit=$(node "$SRC/tests/oracle/duck.mjs" --csv "SELECT max($pf) FROM '$tmp/$name.snap.parquet'" | sed -n 2p)
    [ "$pf" = city ] && lit="'$lit'"
    want=$(node "$SRC/tests/oracle/duck.mjs" --csv \
           "SELECT count(*) FROM '$tmp/$name.snap.parquet' WHERE $pf = $lit" | sed -n 2p)
    got=$("$HOODIE" read "$t" --filter "$pf = $lit" --format jsonl 2> "$tmp/err" | wc -l)
    if [ -n "$want" ] && [ "$want" -gt 0 ] && [ "$got" = "$want" ]; then pass=$((pass + 1))
    else echo "FAIL $name: --filter \"$pf = $lit\": $got rows, DuckDB counts ${want:-none} $(cat "$tmp/err")"
         fail=$((fail + 1)); fi
  fi
  if [ "$flavor" = bucket ]; then # every row in its bucket's file group, one group per bucket and partition
    local hf=""
    [ "$kg" = complex ] && hf=id,region
    while read -r line; do
      case "$line" in
        ok*) pass=$((pass + 1)) ;;
        *) echo "FAIL $name: buckets: $line"; fail=$((fail + 1)) ;;
      esac
    done < <(node "$SRC/tests/oracle/bucket_check.mjs" "$tmp/$name.snap.parquet" 3 $hf 2>&1)
    if "$HOODIE" describe "$t" --json 2> "$tmp/err" | tr -d ' \n' | grep -q '"index_type":"BUCKET","bucket_count":3,'; then
      pass=$((pass + 1))
    else echo "FAIL $name: describe --json: no bucket index: $(cat "$tmp/err")"; fail=$((fail + 1)); fi
    # bulk_insert into a bucket table that has file groups: the same rows again go to the same groups (merged, or
    # appended to their logs), no key twice
    local bi="$t.bi" n1 n2
    "$HOODIE" create "$bi" --type "$type" --table-version "$ver" --name "${name}_bi" --ordering-field ts \
        "${cargs[@]}" > /dev/null 2> "$tmp/err" || echo "FAIL $name: create $bi: $(cat "$tmp/err")"
    for i in 1 2; do
      "$HOODIE" write "$bi" --op bulk_insert --input "$tmp/s1.$fmt" > /dev/null 2> "$tmp/err" ||
        echo "FAIL $name: bulk_insert $i into $bi: $(cat "$tmp/err")"
      "$HOODIE" read "$bi" --format parquet -o "$tmp/$name.bi$i.parquet" 2> "$tmp/err" ||
        echo "FAIL $name: read $bi: $(cat "$tmp/err")"
    done
    n1=$(node "$SRC/tests/oracle/duck.mjs" --csv "SELECT count(*), count(DISTINCT _hoodie_record_key) FROM '$tmp/$name.bi1.parquet'" | sed -n 2p)
    n2=$(node "$SRC/tests/oracle/duck.mjs" --csv "SELECT count(*), count(DISTINCT _hoodie_record_key) FROM '$tmp/$name.bi2.parquet'" | sed -n 2p)
    if [ -n "$n1" ] && [ "$n1" = "$n2" ] && [ "${n1%,*}" = "${n1#*,}" ] && [ "${n1%,*}" -gt 0 ]; then pass=$((pass + 1))
    else echo "FAIL $name: bulk_insert twice: rows,keys $n1 then $n2"; fail=$((fail + 1)); fi
    while read -r line; do
      case "$line" in
        ok*) pass=$((pass + 1)) ;;
        *) echo "FAIL $name: buckets after two bulk_inserts: $line"; fail=$((fail + 1)) ;;
      esac
    done < <(node "$SRC/tests/oracle/bucket_check.mjs" "$tmp/$name.bi2.parquet" 3 $hf 2>&1)
    # clustering would write new file groups: refused, the timeline unchanged
    local before after
    before=$(ls -R "$t/.hoodie" | sort | md5sum)
    if "$HOODIE" cluster "$t" --sort-by id > /dev/null 2> "$tmp/err"; then
      echo "FAIL $name: clustering a bucket index table succeeded"; fail=$((fail + 1))
    else
      after=$(ls -R "$t/.hoodie" | sort | md5sum)
      if grep -q "bucket index" "$tmp/err" && [ "$before" = "$after" ]; then pass=$((pass + 1))
      else echo "FAIL $name: cluster: $(cat "$tmp/err") (timeline changed: $([ "$before" = "$after" ] && echo no || echo yes))"
           fail=$((fail + 1)); fi
    fi
  fi
  local cdc=""
  if [ "$flavor" != nometa ]; then
    cdc="$tmp/$name.cdc.jsonl"
    if ! "$HOODIE" read "$t" --query cdc --format jsonl > "$cdc" 2> "$tmp/err"; then
      echo "FAIL $name: read --query cdc: $(cat "$tmp/err")"; fail=$((fail + 1)); return
    fi
  fi
  local line
  while read -r line; do
    case "$line" in
      ok*) pass=$((pass + 1)) ;;
      FAIL*) echo "FAIL $name: ${line#FAIL }"; fail=$((fail + 1)) ;;
      *) echo "$name: $line" ;;
    esac
  done < <(CDC_JSONL=$cdc node "$ORACLE" check "$kg" "$hive" "$manifest" $flavor 2>&1
           node "$ORACLE" check "$kg" "$hive" "$manifest.snap" $flavor 2>&1 | tail -1)
}

for type in cow mor; do
  for ver in 8 6; do
    for kg in simple complex nonpartitioned timestamp; do
      run_config "$type" "$ver" "$kg"
    done
  done
done
for ver in 8 6; do
  for kg in simple complex nonpartitioned timestamp; do
    run_config cow "$ver" "$kg" nometa
  done
done
# change logs (hoodie.table.cdc.enabled, both images; or before images, the after images from the new files):
# the CDC query reads each rewrite's changes from its CDC log, as Hudi's reader does, and must give what DuckDB
# derives from the states
for type in cow mor; do
  for ver in 8 6; do
    run_config "$type" "$ver" simple cdc
  done
  run_config "$type" 8 complex cdcbefore
done
# the bucket index (hoodie.index.type=BUCKET, 3 buckets): every step routes rows to their buckets' file groups
for type in cow mor; do
  for ver in 8 6; do
    for kg in simple complex; do
      run_config "$type" "$ver" "$kg" bucket
    done
  done
done
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
