#!/usr/bin/env bash
# Property test of the LSM tree layout: random sequences of upserts (inserts and updates with random ordering
# values) and deletes, spread over 1 to 64 files per file group, must read back identically from
#   (a) an LSM table with the bucket index (sorted merge of native log files),
#   (b) a default-layout MOR table (bloom index, framed Avro logs, hash merge),
#   (c) a copy of (a) whose layout property is flipped to default (hash merge reading the native logs),
# and (d) a model of the operations: per key the version with the largest ordering value wins, ties to the later
# write, a winning delete removes the key. Deletes carry an ordering value >= 1 here: a natural-order delete (0)
# makes Hudi's merge depend on whether an older version sits in a base or a log file (hash merge: logs are folded
# first, then compared with the base), so layouts with different file placement could legitimately differ.
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
FULL_OPS=0 LOG_OPS=0

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
      echo "id,ts" > "$W/in.csv"
      declare -A seen=()
      for ((i = 0; i < n; i++)); do
        local k="key$((RANDOM % keys))" ts=$((1 + RANDOM % 4))
        [[ -n ${seen[$k]:-} ]] && continue
        # only keys that exist: the bloom index drops deletes of unknown keys, the bucket index keeps them as
        # tombstones (both as Hudi does), which a later lower-ordered upsert would then see differently
        [[ ${M_DEL[$k]:-1} == 0 ]] || continue
        seen[$k]=1
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
  local live=$(wc -l < "$W/a")
  # every LSM file is sorted by key and unique (DuckDB reads them)
  local files=$(find "$W/lsm" -name '*.parquet' | wc -l)
  local maxgroup=$(find "$W/lsm" -name '*.parquet' | sed 's|.*/||' | cut -c1-8 | sort | uniq -c | sort -rn | head -1 | awk '{print $1}')
  echo "seed $seed: $commits commits, $buckets buckets, $live live keys, $files files, up to $maxgroup per group, $ncompact compactions: ok"
}

[[ -n ${ONLY:-} && $ONLY != "1 1 1 10" ]] || run_case 1 1 1 10
[[ -n ${ONLY:-} && $ONLY != "2 5 1 8" ]] || run_case 2 5 1 8
[[ -n ${ONLY:-} && $ONLY != "3 20 2 30" ]] || run_case 3 20 2 30
[[ -n ${ONLY:-} && $ONLY != "4 40 1 50" ]] || run_case 4 40 1 50
[[ -n ${ONLY:-} && $ONLY != "5 64 1 40" ]] || run_case 5 64 1 40
[[ -n ${ONLY:-} && $ONLY != "6 30 3 100" ]] || run_case 6 30 3 100
echo "compaction plans with FULL operations: $FULL_OPS, with LOG operations: $LOG_OPS "
((FULL_OPS > 0 && LOG_OPS > 0)) || fail "the cases did not exercise both FULL and LOG compaction operations"
