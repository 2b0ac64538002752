#!/usr/bin/env bash
# Property test of the LSM tree layout: random sequences of upserts (inserts and updates with random ordering
# values) and deletes, spread over 1 to 64 files per file group, must read back identically from
#   (a) an LSM table with the bucket index (sorted merge of native log files),
#   (b) a default-layout MOR table (bloom index, framed Avro logs, hash merge),
#   (c) a copy of (a) whose layout property is flipped to default (hash merge reading the native logs),
# and (d) a model of the operations: per key the version with the largest ordering value wins, ties to the later
# write, a winning delete removes the key. Deletes carry an ordering value >= 1, or none (a third of the delete
# commits): a delete without an ordering value removes every earlier version of its key, in a base file or a log
# file alike, and a later upsert of the key wins whatever its ordering value (HUDI-7610; both merges).
set -euo pipefail
H=${HOODIE:?}
# The default-layout table packs inserts into small files (extra write options can be given in DEF_OPTS).
DEF_OPTS=${DEF_OPTS-}
W=$(mktemp -d)
trap 'rm -rf "$W"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# Hybrid compaction of the LSM table (FULL and LOG operations, services/lsm_compact.h): the snapshot read (every
# column but _hoodie_file_name) is the same before and after.
compact_check() {
  local seed=$1 when=$2
  "$H" read "$W/lsm" | tail -n +2 | cut -d, -f1-4,6- | sort > "$W/pre"
  "$H" compact "$W/lsm" > "$W/compact.out" || fail "seed $seed: compaction $when"
  "$H" read "$W/lsm" | tail -n +2 | cut -d, -f1-4,6- | sort > "$W/post"
  cmp -s "$W/pre" "$W/post" || { cat "$W/compact.out"; diff "$W/pre" "$W/post" | head || true; fail "seed $seed: compaction $when changed the snapshot"; }
  # A FULL operation drops deletes (as Hudi's compaction does): a later upsert with a lower ordering value than a
  # dropped delete would then win where the uncompacted default-layout table keeps the key deleted. Keys deleted
  # now are not written again.
  local k
  for k in "${!M_DEL[@]}"; do if [[ ${M_DEL[$k]} == 1 ]]; then DEAD[$k]=1; fi; done
  local inst plan
  inst=$(sed -n 's/^scheduled compaction \([0-9]*\).*/\1/p' "$W/compact.out")
  [[ -n $inst ]] || return 0
  plan="$W/lsm/.hoodie/timeline/$inst.compaction.requested"
  [[ -e $plan ]] || fail "seed $seed: no plan $plan"
  FULL_OPS=$((FULL_OPS + $(grep -ac 'lsm.op.FULL' "$plan" || true)))
  LOG_OPS=$((LOG_OPS + $(grep -ac 'lsm.op.LOG' "$plan" || true)))
  return 0
}
FULL_OPS=0 LOG_OPS=0 NATURAL=0

run_case() {
  local seed=$1 commits=$2 buckets=$3 keys=$4
  RANDOM=$seed
  rm -rf "$W/lsm" "$W/def" "$W/flip" "$W/model"
  "$H" create "$W/lsm" --type mor --name t --record-key id --ordering-field ts --layout lsm_tree \
    --index bucket --buckets "$buckets" >/dev/null
  "$H" create "$W/def" --type mor --name t --record-key id --ordering-field ts >/dev/null
  declare -A M_TS M_V M_DEL DEAD
  for ((c = 0; c < commits; c++)); do
    local op=upsert n=$((1 + RANDOM % 12))
    ((c > 0 && RANDOM % 4 == 0)) && op=delete
    if [[ $op == upsert ]]; then
      echo "id,ts,v" > "$W/in.csv"
      declare -A seen=()
      for ((i = 0; i < n; i++)); do
        local k="key$((RANDOM % keys))" ts=$((RANDOM % 5)) v="v${c}_$i"
        [[ -n ${seen[$k]:-} ]] && continue   # one row per key per commit (precombine is tested elsewhere)
        [[ -n ${DEAD[$k]:-} ]] && continue   # see compact_check
        seen[$k]=1
        echo "$k,$ts,$v" >> "$W/in.csv"
        if [[ -z ${M_TS[$k]:-} ]] || ((ts >= M_TS[$k])); then M_TS[$k]=$ts; M_V[$k]=$v; M_DEL[$k]=0; fi
      done
      unset seen
    else
      local natural=$((RANDOM % 3 == 0))
      if ((natural)); then echo "id" > "$W/in.csv"; else echo "id,ts" > "$W/in.csv"; fi
      declare -A seen=()
      for ((i = 0; i < n; i++)); do
        local k="key$((RANDOM % keys))" ts=$((1 + RANDOM % 4))
        [[ -n ${seen[$k]:-} ]] && continue
        # only keys that exist: the bloom index drops deletes of unknown keys, the bucket index keeps them as
        # tombstones (both as Hudi does), which a later lower-ordered upsert would then see differently
        [[ ${M_DEL[$k]:-1} == 0 ]] || continue
        seen[$k]=1
        if ((natural)); then
          echo "$k" >> "$W/in.csv"
          unset "M_TS[$k]"; M_DEL[$k]=1; NATURAL=$((NATURAL + 1))
          continue
        fi
        echo "$k,$ts" >> "$W/in.csv"
        if [[ -z ${M_TS[$k]:-} ]] || ((ts >= M_TS[$k])); then M_TS[$k]=$ts; M_DEL[$k]=1; fi
      done
      unset seen
    fi
    "$H" write "$W/lsm" --op "$op" --input "$W/in.csv" >/dev/null || fail "seed $seed: lsm write $c"
    "$H" write "$W/def" --op "$op" --input "$W/in.csv" $DEF_OPTS >/dev/null || fail "seed $seed: default write $c"
    if ((RANDOM % 5 == 0)); then compact_check "$seed" "after write $c"; fi
  done
  compact_check "$seed" "at the end"
  ncompact=$(find "$W/lsm/.hoodie" -name '*.compaction.requested' | wc -l)
  cp -r "$W/lsm" "$W/flip"
  sed -i 's/^hoodie.table.storage.layout=lsm_tree$/hoodie.table.storage.layout=default/' "$W/flip/.hoodie/hoodie.properties"
  for k in "${!M_TS[@]}"; do if [[ ${M_DEL[$k]} == 0 ]]; then echo "$k,${M_TS[$k]},${M_V[$k]}"; fi; done | sort > "$W/model"
  "$H" read "$W/lsm" --columns id,ts,v | tail -n +2 | sort > "$W/a"
  "$H" read "$W/def" --columns id,ts,v | tail -n +2 | sort > "$W/b"
  "$H" read "$W/flip" --columns id,ts,v | tail -n +2 | sort > "$W/c"
  cmp -s "$W/a" "$W/b" || { diff "$W/a" "$W/b" | head || true; fail "seed $seed: lsm != default layout"; }
  cmp -s "$W/c" "$W/b" || { diff "$W/c" "$W/b" | head || true; fail "seed $seed: hash merge of native logs != default layout"; }
  cmp -s "$W/a" "$W/model" || { diff "$W/a" "$W/model" | head || true; fail "seed $seed: lsm != model"; }
  # point lookups (hoodie get) == the snapshot read filtered by key, on every table: live, deleted, unknown keys
  local lk=() q=""
  for ((i = 0; i < 6; i++)); do lk+=("key$((RANDOM % keys))"); done
  lk+=("nokey" "key'q")
  for k in "${lk[@]}"; do q+="${q:+,}'${k//\'/\'\'}'"; done
  for t in lsm def flip; do
    "$H" get "$W/$t" "${lk[@]}" | tail -n +2 | sort > "$W/g" || fail "seed $seed: get on $t"
    "$H" read "$W/$t" --filter "_hoodie_record_key IN ($q)" | tail -n +2 | sort > "$W/r"
    cmp -s "$W/g" "$W/r" || { diff "$W/g" "$W/r" | head || true; fail "seed $seed: get != filtered read on $t"; }
    for k in "${lk[@]:0:2}"; do
      "$H" get "$W/$t" "$k" | tail -n +2 > "$W/g"
      "$H" read "$W/$t" --filter "_hoodie_record_key = '$k'" | tail -n +2 > "$W/r"
      cmp -s "$W/g" "$W/r" || { diff "$W/g" "$W/r" | head || true; fail "seed $seed: get $k != filtered read on $t"; }
    done
  done
  # cleaning (replaced slices and logs replaced by log compactions) leaves the snapshot as it is
  "$H" clean "$W/lsm" --retain 2 > "$W/clean.out" || fail "seed $seed: clean: $(cat "$W/clean.out")"
  "$H" read "$W/lsm" --columns id,ts,v | tail -n +2 | sort | cmp -s - "$W/a" || fail "seed $seed: clean changed the snapshot"
  local live=$(wc -l < "$W/a")
  # every LSM file is sorted by key and unique (DuckDB reads them)
  local files=$(find "$W/lsm" -name '*.parquet' | wc -l)
  local maxgroup=$(find "$W/lsm" -name '*.parquet' | sed 's|.*/||' | cut -c1-8 | sort | uniq -c | sort -rn | head -1 | awk '{print $1}')
  echo "seed $seed: $commits commits, $buckets buckets, $live live keys, $files files, up to $maxgroup per group, $ncompact compactions: ok"
}

# Cleaning after log compactions (L0 -> L0): a log file that a log compaction replaced is deleted once the log
# compaction's file applies as of the earliest retained commit, unless a savepoint or a pending compaction needs
# it; the snapshot read and the as-of reads of the retained commits do not change.
upsert_rows() { # TABLE FIRST LAST TS
  { echo "id,ts,v"; for ((i = $2; i <= $3; i++)); do echo "k$i,$4,v$4_$i"; done; } > "$W/in.csv"
  "$H" write "$1" --op upsert --input "$W/in.csv" >/dev/null || fail "clean case: write ts $4"
}
logs_of() { find "$1" -name '*.log.parquet' | sed 's|.*/||' | sort; }
clean_case() {
  local variant=$1 t="$W/clean_$1"
  rm -rf "$t"
  "$H" create "$t" --type mor --name t --record-key id --ordering-field ts --layout lsm_tree --index bucket \
    --buckets 1 >/dev/null
  upsert_rows "$t" 1 50 1; upsert_rows "$t" 1 20 2; upsert_rows "$t" 10 30 3
  "$H" compact "$t" > "$W/c1" || fail "clean $variant: compaction 1"
  grep -q "lsm.op.LOG" "$t"/.hoodie/timeline/*.compaction.requested || fail "clean $variant: no LOG compaction"
  logs_of "$t" > "$W/logs1"              # c2, c3 and the log compaction's file L1 (instant c3, version 2)
  [ "$variant" = savepoint ] && { "$H" savepoint "$t" create >/dev/null || fail "clean $variant: savepoint"; }
  upsert_rows "$t" 5 7 4; upsert_rows "$t" 40 45 5
  "$H" compact "$t" > "$W/c2" || fail "clean $variant: compaction 2"
  logs_of "$t" > "$W/logs2"
  local l2 replaced
  l2=$(comm -13 "$W/logs1" "$W/logs2" | grep '_2\.log\.parquet$') || fail "clean $variant: no second log compaction file"
  # L2 replaces every log before it: L1, c2, c3 (through L1), c4, c5
  replaced=$(grep -v -x "$l2" "$W/logs2")
  [ "$(echo "$replaced" | wc -l)" = 5 ] || fail "clean $variant: expected 5 replaced logs, got: $replaced"
  upsert_rows "$t" 3 4 6; upsert_rows "$t" 8 9 7; upsert_rows "$t" 1 1 8
  [ "$variant" = pending ] && { "$H" compact "$t" --schedule >/dev/null || fail "clean $variant: schedule"; }
  local commits=($(ls "$t/.hoodie/timeline" | sed -n 's/^\([0-9]*\)_[0-9]*\.\(deltacommit\|commit\)$/\1/p' | sort))
  "$H" read "$t" | sort > "$W/snap.before"
  for c in "${commits[@]: -3}"; do "$H" read "$t" --as-of "$c" | sort > "$W/asof.$c"; done
  find "$t" -name '*.parquet' | sed 's|.*/||' | sort > "$W/files.before"
  "$H" clean "$t" --policy KEEP_LATEST_COMMITS --retain 3 > "$W/clean.out" || fail "clean $variant: $(cat "$W/clean.out")"
  find "$t" -name '*.parquet' | sed 's|.*/||' | sort > "$W/files.after"
  comm -23 "$W/files.before" "$W/files.after" > "$W/deleted"
  case $variant in
    plain) echo "$replaced" > "$W/expected" ;;
    savepoint) comm -23 <(echo "$replaced") "$W/logs1" > "$W/expected" ;;   # c4, c5: the savepoint keeps L1, c2, c3
    pending) : > "$W/expected" ;;                                          # the group has a pending compaction
  esac
  cmp -s "$W/expected" "$W/deleted" || { diff "$W/expected" "$W/deleted" || true; fail "clean $variant: wrong files deleted"; }
  "$H" read "$t" | sort | cmp -s - "$W/snap.before" || fail "clean $variant: the snapshot changed"
  for c in "${commits[@]: -3}"; do
    "$H" read "$t" --as-of "$c" | sort | cmp -s - "$W/asof.$c" || fail "clean $variant: the read as of $c changed"
  done
  "$H" get "$t" k1 k9 k44 | tail -n +2 | sort > "$W/g"
  "$H" read "$t" --filter "_hoodie_record_key IN ('k1','k9','k44')" | tail -n +2 | sort > "$W/r"
  cmp -s "$W/g" "$W/r" || fail "clean $variant: get != filtered read"
  echo "clean after log compaction ($variant): $(wc -l < "$W/deleted") replaced log(s) deleted: ok"
}
[[ -n ${ONLY:-} && $ONLY != clean ]] || { clean_case plain; clean_case savepoint; clean_case pending; }

[[ -n ${ONLY:-} && $ONLY != "1 1 1 10" ]] || run_case 1 1 1 10
[[ -n ${ONLY:-} && $ONLY != "2 5 1 8" ]] || run_case 2 5 1 8
[[ -n ${ONLY:-} && $ONLY != "3 20 2 30" ]] || run_case 3 20 2 30
[[ -n ${ONLY:-} && $ONLY != "4 40 1 50" ]] || run_case 4 40 1 50
[[ -n ${ONLY:-} && $ONLY != "5 64 1 40" ]] || run_case 5 64 1 40
[[ -n ${ONLY:-} && $ONLY != "6 30 3 100" ]] || run_case 6 30 3 100
echo "compaction plans with FULL operations: $FULL_OPS, with LOG operations: $LOG_OPS; deletes without an ordering value: $NATURAL"
[[ -n ${ONLY:-} ]] || ((NATURAL > 0)) || fail "the cases wrote no delete without an ordering value"
[[ -n ${ONLY:-} ]] || ((FULL_OPS > 0 && LOG_OPS > 0)) || fail "the cases did not exercise both FULL and LOG compaction operations"
