#!/usr/bin/env bash
# Tables on S3: a local S3 server (tests/oracle/s3server.mjs: s3rver behind a proxy that checks every request's
# Signature V4 with the aws4 package and implements conditional PUTs) holds copies of the fixture tables, put there
# by an independent client (tests/oracle/s3sync.mjs). hoodie must read each one at s3://... exactly as it reads the
# local copy: snapshot, read-optimized, every instant by time travel, incremental windows, CDC, SQL, the timeline.
# A write keeps the files and column_stats partitions of the table whose metadata table Spark keeps in step on S3,
# and a table hoodie wrote there gets one (init). Then hoodie writes
# tables on S3 (COW and MOR: bulk_insert, upsert, delete, compaction, clean) next to the same
# writes on local disk: both read back the same rows at every step, and the S3 table, copied down by the
# independent client, is a table hoodie reads the same locally. Errors: a wrong secret, a missing table, a server
# that is not there, an existing table, each a clear message and a non-zero exit. Then temporary credentials from
# each source the AWS SDKs know, renewed as they expire, and https with a private CA. Data files go up in the
# background, several at once, and a commit whose data file failed to go up never appears.
set -u
HOODIE=${HOODIE:-build/hoodie}
SRC=${HOODIE_SRC:-.}
FIX=${HOODIE_FIXTURES:-../shared/fixtures}/hudi/tables
ORACLE=$SRC/tests/oracle
source "$(dirname "${BASH_SOURCE[0]}")/common/check.bash"

cleanup() {
    exec 9>&- 2>/dev/null
    for p in ${srv_pid:-} ${more_pids:-}; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
check_contains() { case "$2" in *"$3"*) ok ;; *) bad "$1: [$3] not in [$2]" ;; esac; }

# the oracle checks itself first: ranges, listings, conditional PUTs, and that it refuses a wrong signature
if node "$ORACLE/s3server_selftest.mjs" > "$tmp/selftest.out" 2>&1; then ok; else bad "s3server self-test: $(tail -5 "$tmp/selftest.out")"; fi

# the server: it exits when fd 9 (its stdin) closes, so a test that dies does not leave it behind
mkfifo "$tmp/srv_in"
node "$ORACLE/s3server.mjs" --dir "$tmp/s3data" --port 0 --bucket hudi --access-key hoodie-test-ak \
    --secret-key hoodie-test-secret/xyz --region eu-west-3 --parent-pid $$ < "$tmp/srv_in" > "$tmp/srv_out" 2> "$tmp/srv_err" &
srv_pid=$!
exec 9> "$tmp/srv_in"
port=""
for _ in $(seq 100); do
    port=$(sed -n 's/^S3SERVER port=\([0-9]*\).*/\1/p' "$tmp/srv_out")
    [ -n "$port" ] && break
    sleep 0.1
done
if [ -z "$port" ]; then
    bad "the S3 test server did not start: $(cat "$tmp/srv_err")"
    finish s3
    exit
fi
export AWS_ENDPOINT_URL=http://127.0.0.1:$port AWS_ACCESS_KEY_ID=hoodie-test-ak
export AWS_SECRET_ACCESS_KEY=hoodie-test-secret/xyz AWS_REGION=eu-west-3
unset AWS_ENDPOINT_URL_S3 AWS_SESSION_TOKEN AWS_DEFAULT_REGION HOODIE_S3_PATH_STYLE AWS_PROFILE AWS_ROLE_ARN
unset AWS_WEB_IDENTITY_TOKEN_FILE AWS_CONTAINER_CREDENTIALS_RELATIVE_URI AWS_CONTAINER_CREDENTIALS_FULL_URI
unset AWS_CONTAINER_AUTHORIZATION_TOKEN AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE AWS_ENDPOINT_URL_STS AWS_CA_BUNDLE
# no instance metadata service is asked unless a test points at one (a CI machine on EC2 has one)
export AWS_EC2_METADATA_DISABLED=true
sync_() { node "$ORACLE/s3sync.mjs" "$@"; }

rows() { "$HOODIE" read "$@" --format csv 2>&1 | sort; }
keys() { "$HOODIE" read "$@" --columns _hoodie_record_key,_hoodie_commit_time --format csv 2>&1 | sort; }

# ---- reading the fixture tables from S3 ----
tables=0
for t in "$FIX"/*/; do
    t=${t%/}
    [ -f "$t/.hoodie/hoodie.properties" ] || continue
    name=$(basename "$t")
    s3t=s3://hudi/fixtures/$name
    sync_ up "$t" "$s3t" || { bad "$name: upload failed"; continue; }
    tables=$((tables + 1))
    check_eq "$name timeline" "$("$HOODIE" timeline "$t" 2>&1)" "$("$HOODIE" timeline "$s3t" 2>&1)"
    check_eq "$name snapshot" "$(rows "$t")" "$(rows "$s3t")"
    check_eq "$name read-optimized" "$(rows "$t" --query read_optimized)" "$(rows "$s3t" --query read_optimized)"
    # s3a:// names the same objects (Hadoop's scheme, which tables written through S3A carry)
    check_eq "$name s3a" "$(keys "$t")" "$(keys "s3a://hudi/fixtures/$name")"
    for inst in $("$HOODIE" timeline "$t" | awk '$3 == "completed" && $2 ~ /commit/ { print $1 }'); do
        check_eq "$name as of $inst" "$(keys "$t" --as-of "$inst")" "$(keys "$s3t" --as-of "$inst")"
    done
    for inst in $("$HOODIE" timeline "$t" | awk '$3 == "completed" && $2 ~ /commit/ { print ($4 != "" ? $4 : $1) }'); do
        check_eq "$name incremental from $inst" "$(keys "$t" --query incremental --from "$inst")" \
            "$(keys "$s3t" --query incremental --from "$inst")"
    done
    if ! grep -q 'populate.meta.fields=false' "$t/.hoodie/hoodie.properties"; then
        check_eq "$name cdc" "$("$HOODIE" read "$t" --query cdc --format jsonl 2>&1 | sort)" \
            "$("$HOODIE" read "$s3t" --query cdc --format jsonl 2>&1 | sort)"
    fi
    check_eq "$name sql count" "$("$HOODIE" sql t="$t" "SELECT count(*) FROM t" 2>&1)" \
        "$("$HOODIE" sql t="$s3t" "SELECT count(*) FROM t" 2>&1)"
    # file groups: the same, under the other base path
    check_eq "$name fsview" "$("$HOODIE" fsview "$t" 2>&1 | sed "s#$t#BASE#g")" \
        "$("$HOODIE" fsview "$s3t" 2>&1 | sed "s#$s3t#BASE#g")"
    # the files from the metadata table (mdt_basic_*: its HFiles and logs read from S3; the others listed)
    check_eq "$name fsview from the metadata table" "$("$HOODIE" fsview "$t" 2>&1 | sed "s#$t#BASE#g")" \
        "$("$HOODIE" fsview "$s3t" --metadata-table 2>&1 | sed "s#$s3t#BASE#g")"
    check_eq "$name snapshot from the metadata table" "$(rows "$t")" "$(rows "$s3t" --metadata-table)"
done
[ "$tables" -ge 20 ] && ok || bad "only $tables fixture tables were read from S3"
# a write to the table whose metadata table Spark keeps: hoodie keeps its files partition in step on S3 too
s3m=s3://hudi/fixtures/mdt_basic_mor_avro_v8_nonpartitioned
printf '%s\n%s\n' 'id,name,isActive,byteField,shortField,intField,longField,floatField,doubleField,decimalField,dateField,timestampField,binaryField' \
    '7,Grace,true,1,2,3,4,5.0,6.0,7.00000,2023-05-05,2023-05-05 10:00:00+00,' > "$tmp/mdt_up.csv"
"$HOODIE" write "$s3m" --op upsert --input "$tmp/mdt_up.csv" > /dev/null 2> "$tmp/err" && ok || bad "metadata table write on S3: $(cat "$tmp/err")"
"$HOODIE" metadata "$s3m" validate 2>&1 | grep -q " 0 difference(s) from storage" && ok || bad "metadata table on S3: $("$HOODIE" metadata "$s3m" validate 2>&1)"
check_eq "metadata table on S3: reads through it" "$(rows "$s3m")" "$(rows "$s3m" --metadata-table)"
"$HOODIE" metadata "$s3m" validate 2>&1 | grep -q "^record_index: 4 key(s) of the snapshot checked; 0 difference(s)$" && ok ||
    bad "record_index on S3: $("$HOODIE" metadata "$s3m" validate 2>&1)"
# a table hoodie wrote on S3 gets one (hoodie metadata init), and the next write keeps it in step
s3i=s3://hudi/initmdt
printf 'id,name,city,ts\n1,a,paris,1\n2,b,lyon,1\n3,c,nice,1\n' > "$tmp/init1.csv"
printf 'id,name,city,ts\n1,a2,paris,2\n4,d,lyon,2\n' > "$tmp/init2.csv"
"$HOODIE" create "$s3i" --type mor --name initmdt --record-key id --partition-fields city --hive-style --ordering-field ts > /dev/null 2> "$tmp/err" &&
    "$HOODIE" write "$s3i" --op bulk_insert --input "$tmp/init1.csv" > /dev/null 2>> "$tmp/err" &&
    "$HOODIE" metadata "$s3i" init > /dev/null 2>> "$tmp/err" &&
    "$HOODIE" write "$s3i" --op upsert --input "$tmp/init2.csv" > /dev/null 2>> "$tmp/err" && ok || bad "metadata init on S3: $(cat "$tmp/err")"
"$HOODIE" metadata "$s3i" validate 2>&1 | grep -q "3 partition(s), 5 file(s) in the metadata table; 0 difference(s) from storage" && ok ||
    bad "metadata init on S3: $("$HOODIE" metadata "$s3i" validate 2>&1)"
check_eq "metadata init on S3: reads through it" "$(rows "$s3i")" "$(rows "$s3i" --metadata-table)"
# both keep column_stats in step: every base file's statistics equal its footer's, read from S3
for t in "$s3m" "$s3i"; do
    "$HOODIE" metadata "$t" validate 2>&1 | grep -q "^column_stats: [1-9][0-9]* statistics of base files checked against their footers; 0 difference(s)$" &&
        ok || bad "column_stats on S3 ($t): $("$HOODIE" metadata "$t" validate 2>&1)"
done

# ---- writing tables on S3, next to the same writes on local disk ----
python3 - "$tmp" <<'EOF'
import sys
d = sys.argv[1]
with open(f"{d}/b1.csv", "w") as f:
    f.write("id,name,age,city,ts\n")
    for i in range(3000):
        f.write(f"k{i:05d},name {i},{20 + i % 50},{['paris', 'lyon', 'nice'][i % 3]},{1000 + i}\n")
with open(f"{d}/u1.csv", "w") as f:
    f.write("id,name,age,city,ts\n")
    for i in range(0, 3000, 7):
        f.write(f"k{i:05d},renamed {i},{30 + i % 40},{['paris', 'lyon', 'nice'][i % 3]},{5000 + i}\n")
    for i in range(3000, 3200):
        f.write(f"k{i:05d},new {i},{20 + i % 50},{['paris', 'lyon', 'nice'][i % 3]},{5000 + i}\n")
    for i in range(1, 3000, 11):  # stale: an older ordering value does not win
        f.write(f"k{i:05d},stale {i},1,{['paris', 'lyon', 'nice'][i % 3]},1\n")
with open(f"{d}/d1.csv", "w") as f:
    f.write("id,city\n")
    for i in range(2, 3000, 13):
        f.write(f"k{i:05d},{['paris', 'lyon', 'nice'][i % 3]}\n")
EOF
data() { "$HOODIE" read "$@" --columns id,name,age,city,ts --format csv 2>&1 | sort; }
for type in cow mor; do
    for v in 8 6; do
        loc=$tmp/local_${type}_$v s3w=s3://hudi/written/${type}_$v
        for t in "$loc" "$s3w"; do
            "$HOODIE" create "$t" --type "$type" --name "w_${type}_$v" --record-key id --partition-fields city \
                --hive-style --ordering-field ts --table-version "$v" > /dev/null 2> "$tmp/err" ||
                bad "create $t: $(cat "$tmp/err")"
        done
        step=0
        for op in "bulk_insert b1.csv" "upsert u1.csv" "delete d1.csv"; do
            set -- $op
            step=$((step + 1))
            for t in "$loc" "$s3w"; do
                "$HOODIE" write "$t" --op "$1" --input "$tmp/$2" > /dev/null 2> "$tmp/err" ||
                    bad "$t step $step ($1): $(cat "$tmp/err")"
            done
            check_eq "$type v$v step $step ($1) on S3" "$(data "$loc")" "$(data "$s3w")"
        done
        if [ "$type" = mor ]; then
            for t in "$loc" "$s3w"; do
                "$HOODIE" compact "$t" > /dev/null 2> "$tmp/err" || bad "compact $t: $(cat "$tmp/err")"
            done
            check_eq "$type v$v compacted on S3" "$(data "$loc")" "$(data "$s3w" --query read_optimized)"
        fi
        for t in "$loc" "$s3w"; do
            "$HOODIE" clean "$t" > /dev/null 2> "$tmp/err" || bad "clean $t: $(cat "$tmp/err")"
        done
        check_eq "$type v$v cleaned on S3" "$(data "$loc")" "$(data "$s3w")"
        # every instant of the S3 table by time travel reads as it does after copying the table down
        sync_ down "$s3w" "$tmp/down_${type}_$v" || bad "download of $s3w failed"
        down=$tmp/down_${type}_$v
        check_eq "$type v$v copied down" "$(data "$s3w")" "$(data "$down")"
        for inst in $("$HOODIE" timeline "$down" | awk '$3 == "completed" { print $1 }'); do
            check_eq "$type v$v as of $inst" "$(data "$s3w" --as-of "$inst")" "$(data "$down" --as-of "$inst")"
        done
        # the same files and folders as the local table's (instant times aside), markers of finished writes gone
        shape() { find "$1" -type f | sed "s#^$1/##; s/[0-9]\{17\}/T/g; s/[0-9a-f]\{8\}-[0-9a-f-]\{27\}-[0-9]*/F/g; s/_[0-9]*-[0-9]*-[0-9]*/_W/g" | sort | uniq -c; }
        check_eq "$type v$v same layout as on disk" "$(shape "$loc" | grep -v '\.hoodie_partition_metadata\|/\.temp')" \
            "$(shape "$down" | grep -v '\.hoodie_partition_metadata\|/\.temp')"
    done
done

# ---- large log files on S3 are read a block at a time (ranged GETs: headers, then each block's content) ----
# a MOR table with one bucket: 150,000 inserts (a 24 MB log file), updates of half of them (10 MB), then a log
# compaction in passes (one log file of 22 MB in several blocks); read whole and in key-hash passes
awk 'BEGIN { print "id,name,age,city,ts"; for (i = 0; i < 150000; i++)
     printf "g%07d,name %d with some padding text,%d,lyon,%d\n", i, i, i % 90, 1000 + i }' > "$tmp/logs1.csv"
awk 'BEGIN { print "id,name,age,city,ts"; for (i = 0; i < 150000; i += 2)
     printf "g%07d,renamed %d,%d,lyon,%d\n", i, i, i % 90, 900000 + i }' > "$tmp/logs2.csv"
loc=$tmp/local_logs s3b=s3://hudi/written/large_logs
for t in "$loc" "$s3b"; do
    "$HOODIE" create "$t" --type mor --name large_logs --record-key id --keygen nonpartitioned --ordering-field ts \
        --index bucket --buckets 1 > /dev/null 2> "$tmp/err" || bad "create $t: $(cat "$tmp/err")"
    for f in logs1 logs2; do
        "$HOODIE" write "$t" --op upsert --input "$tmp/$f.csv" > /dev/null 2> "$tmp/err" || bad "$t $f: $(cat "$tmp/err")"
    done
done
check_eq "large logs on S3" "$(data "$loc")" "$(data "$s3b")"
check_eq "large logs on S3, in passes" "$(data "$loc")" "$(data "$s3b" --merge-memory 2)"
for t in "$loc" "$s3b"; do
    "$HOODIE" logcompact "$t" --blocks-threshold 2 --merge-memory 8 > /dev/null 2> "$tmp/err" ||
        bad "logcompact $t: $(cat "$tmp/err")"
done
check_eq "a log-compacted log file in blocks on S3" "$(data "$loc")" "$(data "$s3b")"
check_eq "a log-compacted log file in blocks on S3, in passes" "$(data "$loc")" "$(data "$s3b" --merge-memory 2)"
check_eq "rows after the log compaction (and the header)" "150001" "$(data "$s3b" | wc -l)"
sync_ down "$s3b" "$tmp/down_logs" || bad "download of $s3b failed"
lcf="" # the log-compacted file: 16 MB or more (read in ranges), in several blocks
for lf in "$tmp"/down_logs/.*.log.*; do
    [ "$(stat -c %s "$lf")" -ge $((16 << 20)) ] && [ "$(grep -a -o '#HUDI#' "$lf" | wc -l)" -gt 2 ] && lcf=$lf
done
if [ -n "$lcf" ]; then
    ok
    # its blocks come in ranged GETs, none of the whole file; little is fetched twice (each block's first 64 KB)
    HOODIE_S3_TRACE=1 "$HOODIE" read "$s3b" --format csv -o /dev/null 2> "$tmp/lg.trace" || bad "traced read failed"
    lcs=$(stat -c %s "$lcf") lcn=$(basename "$lcf")
    gets=$(grep -c "GET [^ ]*/$lcn " "$tmp/lg.trace")
    most=$(grep "GET [^ ]*/$lcn " "$tmp/lg.trace" | awk '{ if ($(NF-1) > m) m = $(NF-1) } END { print m + 0 }')
    fetched=$(grep "GET [^ ]*/$lcn " "$tmp/lg.trace" | awk '{ s += $(NF-1) } END { print s + 0 }')
    [ "$gets" -gt 3 ] && [ "$most" -lt $((lcs / 2)) ] && ok ||
        bad "log file of $lcs bytes: $gets GETs, the largest $most bytes: $(grep "$lcn" "$tmp/lg.trace" | head)"
    [ "$fetched" -ge "$lcs" ] && [ "$fetched" -le $((lcs + lcs / 4)) ] && ok ||
        bad "log file of $lcs bytes: $fetched bytes fetched: $(grep "$lcn" "$tmp/lg.trace")"
else
    bad "no log file of 16 MB or more in several blocks: $(ls -l "$tmp"/down_logs/)"
fi
# in key-hash passes, the slice's files come from S3 once (copied locally for the passes), not once per pass
HOODIE_S3_TRACE=1 "$HOODIE" read "$s3b" --format csv --merge-memory 2 -o /dev/null 2> "$tmp/lgp.trace" ||
    bad "traced read in passes failed: $(grep -v 'hoodie: s3:' "$tmp/lgp.trace")"
logs_size=$(cat "$tmp"/down_logs/.*.log.* | wc -c)
fetched=$(grep "GET [^ ]*/\.[^ ]*\.log\.[^ ]* " "$tmp/lgp.trace" | awk '{ s += $(NF-1) } END { print s + 0 }')
[ "$fetched" -ge "$logs_size" ] && [ "$fetched" -le $((logs_size + logs_size / 4)) ] && ok ||
    bad "a read in passes fetched $fetched bytes of log files of $logs_size bytes"
# a GET that fails in the middle of a large read (the 24 MB log block, fetched in parallel pieces) fails the read,
# naming the file, and leaves nothing half-read behind
bigl=$(ls -S "$tmp"/down_logs/.*.log.* | head -1)
bign=$(basename "$bigl")
curl -s -X POST "$AWS_ENDPOINT_URL/__hoodie_test/fail-gets?match=$(printf '%s' "$bign" | sed 's/\./%5C./g')%24&from=8388608" > /dev/null
out=$("$HOODIE" read "$s3b" --format csv 2>&1 > /dev/null)
rc=$?
curl -s -X POST "$AWS_ENDPOINT_URL/__hoodie_test/fail-gets?match=" > /dev/null
[ "$rc" != 0 ] && ok || bad "a read whose GET failed succeeded"
check_contains "failed GET in a large read" "$out" "$bign"
check_contains "failed GET in a large read: why" "$out" "AccessDenied"
check_contains "failed GET in a large read: where" "$out" "bytes at offset "
check_eq "read again after the failure" "$(data "$loc")" "$(data "$s3b")"

# ---- several writers on one S3 table (the table lock and instant files are conditional PUTs) ----
gen() { awk -v a="$1" -v b="$2" -v city="$3" 'BEGIN { print "id,name,age,city,ts";
        for (i = a; i <= b; i++) printf "c%06d,w%d,%d,%s,%d\n", i, i, i % 90, city, 7000 + i }'; }
gen 0 1999 lyon > "$tmp/c1.csv"
gen 2000 3999 nice > "$tmp/c2.csv"
gen 4000 5999 paris > "$tmp/c3.csv"
gen 0 299999 lyon > "$tmp/kill.csv" # a write long enough to be killed in its middle, not after it
for type in cow mor; do
    s3c=s3://hudi/written/concurrent_$type loc=$tmp/concurrent_$type
    for t in "$loc" "$s3c"; do
        "$HOODIE" create "$t" --type "$type" --name "c_$type" --record-key id --partition-fields city --hive-style \
            --ordering-field ts > /dev/null
        "$HOODIE" write "$t" --op bulk_insert --input "$tmp/b1.csv" > /dev/null
    done
    for c in c1 c2 c3; do "$HOODIE" write "$loc" --op upsert --input "$tmp/$c.csv" > /dev/null; done
    pids=()
    for c in c1 c2 c3; do
        "$HOODIE" write "$s3c" --op upsert --input "$tmp/$c.csv" > "$tmp/$c.out" 2>&1 &
        pids+=($!)
    done
    for i in 0 1 2; do
        wait "${pids[$i]}" && ok || bad "$type concurrent writer $i: $(cat "$tmp/c$((i + 1)).out")"
    done
    check_eq "$type three writers at once on S3" "$(data "$loc")" "$(data "$s3c")"
    check_eq "$type three writers: three commits" 4 \
        "$("$HOODIE" timeline "$s3c" | awk '$3 == "completed" && $2 ~ /commit/' | wc -l)"
    # a writer killed in the middle of its write: the next one rolls it back, the table reads as before
    before=$(data "$s3c")
    "$HOODIE" write "$s3c" --op upsert --input "$tmp/kill.csv" > /dev/null 2>&1 &
    kpid=$!
    for _ in $(seq 400); do
        "$HOODIE" timeline "$s3c" 2> /dev/null | grep -q inflight && break
        sleep 0.02
    done
    kill -9 "$kpid" 2> /dev/null
    wait "$kpid" 2> /dev/null
    check_eq "$type killed writer: the table reads as before" "$before" "$(data "$s3c")"
    "$HOODIE" write "$s3c" --op delete --input "$tmp/d1.csv" > /dev/null 2> "$tmp/err" || bad "$type after the kill: $(cat "$tmp/err")"
    "$HOODIE" write "$loc" --op delete --input "$tmp/d1.csv" > /dev/null
    check_eq "$type the next write after a kill" "$(data "$loc")" "$(data "$s3c")"
    [ -z "$("$HOODIE" timeline "$s3c" | tail -n +2 | grep -v completed)" ] && ok || bad "$type: pending instants left: $("$HOODIE" timeline "$s3c")"
done

# ---- a base file past two parts goes up as a multipart upload (parts of 5 MiB here) ----
python3 - "$tmp" <<'EOF'
import sys, random
random.seed(7)
with open(f"{sys.argv[1]}/big.csv", "w") as f:
    f.write("id,payload,ts\n")
    for i in range(240000):  # random hex: about 15 MB that compression cannot shrink
        f.write(f"b{i:07d},{random.getrandbits(256):064x},{i}\n")
EOF
big=s3://hudi/written/big
"$HOODIE" create "$big" --type cow --name big --record-key id --keygen nonpartitioned --ordering-field ts > /dev/null
HOODIE_S3_PART_MB=5 HOODIE_S3_TRACE=1 "$HOODIE" write "$big" --op bulk_insert --input "$tmp/big.csv" > /dev/null \
    2> "$tmp/big.trace" || bad "multipart write: $(grep -v 'hoodie: s3:' "$tmp/big.trace")"
check_contains "multipart upload started" "$(cat "$tmp/big.trace")" "?uploads= -> 200"
parts=$(grep -c 'partNumber=.* -> 200' "$tmp/big.trace")
[ "$parts" -ge 2 ] && ok || bad "multipart: $parts parts uploaded"
check_contains "multipart upload completed" "$(grep 'POST' "$tmp/big.trace")" "?uploadId="
check_eq "multipart file reads back" "$(sort "$tmp/big.csv" | grep -v '^id,')" \
    "$("$HOODIE" read "$big" --columns id,payload,ts --format csv | tail -n +2 | sort)"
sync_ down "$big" "$tmp/big_down" || bad "download of $big failed"
check_eq "multipart file copied down" "$(sort "$tmp/big.csv" | grep -v '^id,')" \
    "$("$HOODIE" read "$tmp/big_down" --columns id,payload,ts --format csv | tail -n +2 | sort)"
# reads that skip about in a file past the footer megabyte (through the read-ahead window): projections, a filter
for cols in ts payload,id id; do
    check_eq "big file, columns $cols" "$("$HOODIE" read "$tmp/big_down" --columns "$cols" --format csv | sort)" \
        "$("$HOODIE" read "$big" --columns "$cols" --format csv | sort)"
done
check_eq "big file, filtered" "$("$HOODIE" read "$tmp/big_down" --filter 'ts > 200000' --columns id --format csv | sort)" \
    "$("$HOODIE" read "$big" --filter 'ts > 200000' --columns id --format csv | sort)"
size=$(find "$tmp/big_down" -name '*.parquet' -size +10M | wc -l)
[ "$size" -ge 1 ] && ok || bad "multipart: no base file past 10 MiB ($(find "$tmp/big_down" -name '*.parquet' -exec ls -l {} +))"
# what a read of it costs: the open is one GET of the last megabyte (no HEAD), the scan's row group is fetched on
# its advice in requests of at most 8 MiB sent together, and no byte of the file comes twice (the leading magic is
# fetched alone, on advice too)
bigf=$(find "$tmp/big_down" -name '*.parquet' -size +10M | head -1)
bigs=$(stat -c %s "$bigf")
bign=$(basename "$bigf")
HOODIE_S3_TRACE=1 "$HOODIE" read "$big" --format csv -o /dev/null 2> "$tmp/rd.trace" || bad "traced read failed"
check_eq "reads open with a GET, no HEAD" "0" "$(grep -c ' HEAD ' "$tmp/rd.trace")"
gets=$(grep -c "GET [^ ]*/$bign " "$tmp/rd.trace")
fetched=$(grep "GET [^ ]*/$bign " "$tmp/rd.trace" | awk '{s += $(NF-1)} END {print s + 0}')
[ "$gets" -le $((bigs / 8388608 + 4)) ] && ok || bad "big file: $gets GETs for $bigs bytes: $(grep "$bign" "$tmp/rd.trace")"
[ "$fetched" -le $((bigs + 4096)) ] && [ "$fetched" -ge "$bigs" ] && ok || bad "big file: $fetched bytes fetched for $bigs"
HOODIE_S3_TRACE=1 "$HOODIE" read "$big" --columns ts --format csv -o /dev/null 2> "$tmp/rd.trace" || bad "traced read failed"
fetched=$(grep "GET [^ ]*/$bign " "$tmp/rd.trace" | awk '{s += $(NF-1)} END {print s + 0}')
[ "$fetched" -le $((bigs / 4)) ] && ok || bad "big file, one small column: $fetched bytes fetched for $bigs"
# an empty object: the open's suffix range has nothing to return (416), a HEAD then finds it; a small one comes
# whole with its open
mkdir -p "$tmp/odd"
: > "$tmp/odd/empty.parquet"
printf 'PAR1' > "$tmp/odd/four.parquet"
sync_ up "$tmp/odd" s3://hudi/odd || bad "upload of odd files failed"
out=$("$HOODIE" parquet meta s3://hudi/odd/empty.parquet 2>&1)
check_contains "empty object" "$out" "0 bytes is too short for a Parquet file"
out=$("$HOODIE" parquet meta s3://hudi/odd/four.parquet 2>&1)
check_contains "4-byte object" "$out" "4 bytes is too short for a Parquet file"
out=$("$HOODIE" parquet meta s3://hudi/odd/none.parquet 2>&1)
check_contains "missing object" "$out" "s3://hudi/odd/none.parquet: GET: HTTP 404"

# ---- credentials, region and endpoint from the AWS tools' shared files, by profile ----
mkdir -p "$tmp/aws"
printf '[default]\naws_access_key_id = nobody\naws_secret_access_key = nothing\n\n# the test server'"'"'s keys\n[hudi-test]\naws_access_key_id = %s\naws_secret_access_key = %s\n' \
    "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" > "$tmp/aws/credentials"
printf '[profile hudi-test]\nregion = %s\nendpoint_url = %s\n' "$AWS_REGION" "$AWS_ENDPOINT_URL" > "$tmp/aws/config"
fx=s3://hudi/fixtures/cow_v8_nonpartitioned
want=$(keys "$fx")
shared() { env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY -u AWS_REGION -u AWS_ENDPOINT_URL \
               AWS_SHARED_CREDENTIALS_FILE="$tmp/aws/credentials" AWS_CONFIG_FILE="$tmp/aws/config" "$@"; }
check_eq "profile from the shared files" "$want" "$(shared AWS_PROFILE=hudi-test "$HOODIE" read "$fx" \
    --columns _hoodie_record_key,_hoodie_commit_time --format csv 2>&1 | sort)"
out=$(shared AWS_PROFILE=nope "$HOODIE" read "$fx" 2>&1 > /dev/null)
check_contains "unknown profile" "$out" "AWS profile 'nope' is in neither"
# the environment wins over the files: the right keys in the environment, the default profile's wrong ones in the file
check_eq "environment over the files" "$want" "$(AWS_SHARED_CREDENTIALS_FILE="$tmp/aws/credentials" keys "$fx")"

# ---- temporary credentials: instance metadata, container endpoint, web identity (STS), credential_process ----
# A second server hands them out (valid 1 s each) and takes requests signed with them; its S3 answers are slowed
# (600 ms; a read of the table is 7 requests one after the other) so that one command outlives several sets:
# hoodie must renew them from the same source as it goes.
# start_more DIR ARGS...: another server; sets more_port
start_more() {
    local dir=$1
    shift
    node "$ORACLE/s3server.mjs" --dir "$dir" --port 0 --bucket hudi --access-key hoodie-test-ak \
        --secret-key hoodie-test-secret/xyz --region eu-west-3 --parent-pid $$ "$@" < /dev/null > "$dir.out" 2> "$dir.err" &
    more_pids="${more_pids:-} $!"
    more_port=""
    for _ in $(seq 100); do
        more_port=$(sed -n 's/^S3SERVER port=\([0-9]*\).*/\1/p' "$dir.out" 2>/dev/null)
        [ -n "$more_port" ] && break
        sleep 0.1
    done
    [ -n "$more_port" ] || bad "a second S3 test server did not start: $(cat "$dir.err")"
}
start_more "$tmp/credsrv" --temp-creds-seconds 1 --delay-ms 600 --web-identity-token jwt-for-hoodie \
    --container-auth "Bearer pod-identity" --external-id ext-42
cp_url=http://127.0.0.1:$more_port
AWS_ENDPOINT_URL=$cp_url sync_ up "$FIX/cow_v8_nonpartitioned" s3://hudi/t || bad "upload to the credentials server failed"
want=$(keys "$FIX/cow_v8_nonpartitioned")
# issued KIND: how many credential sets the server has handed out from that service
issued() {
    curl -s "$cp_url/__hoodie_test/creds" |
        node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s)['$1']))"
}
# temp ENV... CMD...: a command against the credentials server with no keys, the environment given
temp() { env -u AWS_ACCESS_KEY_ID -u AWS_SECRET_ACCESS_KEY AWS_ENDPOINT_URL="$cp_url" HOODIE_S3_TRACE=1 "$@"; }
printf 'Bearer pod-identity\n' > "$tmp/pod-token"
printf 'jwt-for-hoodie' > "$tmp/jwt"
for src in instance container container_file sts; do
    case $src in
        instance) set -- AWS_EC2_METADATA_DISABLED=false AWS_EC2_METADATA_SERVICE_ENDPOINT="$cp_url" ;;
        container) set -- AWS_CONTAINER_CREDENTIALS_FULL_URI="$cp_url/container-creds" \
                          AWS_CONTAINER_AUTHORIZATION_TOKEN="Bearer pod-identity" ;;
        container_file) set -- AWS_CONTAINER_CREDENTIALS_FULL_URI="$cp_url/container-creds" \
                               AWS_CONTAINER_AUTHORIZATION_TOKEN_FILE="$tmp/pod-token" ;;
        sts) set -- AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/jwt" AWS_ROLE_ARN=arn:aws:iam::123456789012:role/hoodie-reader ;;
    esac
    kind=${src%_file}
    n0=$(issued "$kind")
    got=$(temp "$@" "$HOODIE" read s3://hudi/t --columns _hoodie_record_key,_hoodie_commit_time --format csv \
          2> "$tmp/creds.trace" | sort)
    check_eq "credentials from $src: the table reads" "$want" "$got"
    n1=$(issued "$kind")
    renewed=$(grep -c "credentials renewed from" "$tmp/creds.trace")
    if [ "$((n1 - n0))" -ge 3 ] && [ "$renewed" -ge 2 ] && [ "$((n1 - n0))" = "$((renewed + 1))" ]; then ok
    else bad "credentials from $src: $((n1 - n0)) sets issued, $renewed renewals: $(grep -v ' GET ' "$tmp/creds.trace")"
    fi
done
# from the profile: web identity (role_arn, web_identity_token_file), and credential_process (a command that asks
# the container endpoint and answers as a credential process does)
{
    echo '#!/bin/sh'
    echo "curl -sf -H 'Authorization: Bearer pod-identity' '$cp_url/container-creds' | node -e \"let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const c=JSON.parse(s);console.log(JSON.stringify({Version:1,AccessKeyId:c.AccessKeyId,SecretAccessKey:c.SecretAccessKey,SessionToken:c.Token,Expiration:c.Expiration}))})\""
} > "$tmp/cproc.sh"
chmod +x "$tmp/cproc.sh"
mkdir -p "$tmp/aws"
{
    printf '[profile wi]\nrole_arn = arn:aws:iam::123456789012:role/hoodie-reader\nweb_identity_token_file = %s\n' "$tmp/jwt"
    printf '[profile proc]\ncredential_process = %s\n' "$tmp/cproc.sh"
    printf '[profile badproc]\ncredential_process = sh -c "exit 3"\n'
    printf '[profile assume]\nrole_arn = arn:aws:iam::123456789012:role/hoodie-reader\nsource_profile = base\n'
    printf 'external_id = ext-42\nrole_session_name = hoodie-test\n'
    printf '[profile assume_ecs]\nrole_arn = arn:aws:iam::123456789012:role/hoodie-reader\n'
    printf 'credential_source = EcsContainer\nexternal_id = ext-42\n'
    printf '[profile badext]\nrole_arn = arn:aws:iam::123456789012:role/hoodie-reader\nsource_profile = base\n'
    printf 'external_id = wrong\n'
    printf '[profile chain]\nrole_arn = arn:aws:iam::123456789012:role/other\nsource_profile = assume\n'
    printf '[profile nokeys]\nrole_arn = arn:aws:iam::123456789012:role/other\nsource_profile = proc\n'
} > "$tmp/aws/config.creds"
# the source profile's keys (the server's own) in the credentials file
printf '[base]\naws_access_key_id = %s\naws_secret_access_key = %s\n' "$AWS_ACCESS_KEY_ID" "$AWS_SECRET_ACCESS_KEY" \
    > "$tmp/aws/credentials.base"
for prof in wi proc; do
    check_eq "credentials from profile $prof" "$want" "$(temp AWS_CONFIG_FILE="$tmp/aws/config.creds" \
        AWS_SHARED_CREDENTIALS_FILE=/nonexistent AWS_PROFILE=$prof "$HOODIE" read s3://hudi/t \
        --columns _hoodie_record_key,_hoodie_commit_time --format csv 2> /dev/null | sort)"
done
# STS AssumeRole, signed (service sts) with the source profile's keys, or with the container endpoint's
# credentials (credential_source): renewed as they expire, as the other sources' are
for prof in assume assume_ecs; do
    n0=$(issued assume)
    got=$(temp AWS_CONFIG_FILE="$tmp/aws/config.creds" AWS_SHARED_CREDENTIALS_FILE="$tmp/aws/credentials.base" \
          AWS_CONTAINER_CREDENTIALS_FULL_URI="$cp_url/container-creds" AWS_CONTAINER_AUTHORIZATION_TOKEN="Bearer pod-identity" \
          AWS_PROFILE=$prof "$HOODIE" read s3://hudi/t --columns _hoodie_record_key,_hoodie_commit_time --format csv \
          2> "$tmp/creds.trace" | sort)
    check_eq "credentials from profile $prof (AssumeRole)" "$want" "$got"
    n1=$(issued assume)
    renewed=$(grep -c "credentials renewed from" "$tmp/creds.trace")
    if [ "$((n1 - n0))" -ge 3 ] && [ "$((n1 - n0))" = "$((renewed + 1))" ]; then ok
    else bad "profile $prof: $((n1 - n0)) roles assumed, $renewed renewals: $(grep -v ' GET ' "$tmp/creds.trace")"
    fi
    check_contains "profile $prof: named" "$(cat "$tmp/creds.trace")" "credentials from assume role arn:aws:iam::123456789012:role/hoodie-reader"
done
# sources that fail say which and why, and the command fails
fails() { # NAME WANT ENV...
    local name=$1 wantmsg=$2
    shift 2
    out=$(temp "$@" "$HOODIE" read s3://hudi/t 2>&1 > /dev/null)
    rc=$?
    [ "$rc" != 0 ] && ok || bad "$name: the read succeeded"
    check_contains "$name" "$out" "$wantmsg"
}
printf 'not-the-token' > "$tmp/badjwt"
fails "web identity, wrong token" "InvalidIdentityToken" AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/badjwt" \
    AWS_ROLE_ARN=arn:aws:iam::123456789012:role/hoodie-reader
fails "web identity, no token file" "cannot read $tmp/none.jwt" AWS_WEB_IDENTITY_TOKEN_FILE="$tmp/none.jwt" \
    AWS_ROLE_ARN=arn:aws:iam::123456789012:role/hoodie-reader
fails "container, wrong authorization" "HTTP 401" AWS_CONTAINER_CREDENTIALS_FULL_URI="$cp_url/container-creds" \
    AWS_CONTAINER_AUTHORIZATION_TOKEN=nope
fails "failing credential_process" "exited with status 3" AWS_CONFIG_FILE="$tmp/aws/config.creds" \
    AWS_SHARED_CREDENTIALS_FILE=/nonexistent AWS_PROFILE=badproc
fails "AssumeRole, wrong external id" "AssumeRole" AWS_CONFIG_FILE="$tmp/aws/config.creds" \
    AWS_SHARED_CREDENTIALS_FILE="$tmp/aws/credentials.base" AWS_PROFILE=badext
check_contains "AssumeRole, wrong external id: the server's answer" "$out" "wrong ExternalId"
fails "a chain of roles" "not a chain of roles" AWS_CONFIG_FILE="$tmp/aws/config.creds" \
    AWS_SHARED_CREDENTIALS_FILE="$tmp/aws/credentials.base" AWS_PROFILE=chain
fails "a source profile without keys" "its source_profile 'proc' has no aws_access_key_id" \
    AWS_CONFIG_FILE="$tmp/aws/config.creds" AWS_SHARED_CREDENTIALS_FILE="$tmp/aws/credentials.base" AWS_PROFILE=nokeys
# no metadata service where it is looked for: requests go unsigned (a public bucket reads), which this server refuses
fails "no instance metadata service" "requires AWS4-HMAC-SHA256 signed requests" AWS_EC2_METADATA_DISABLED=false \
    AWS_EC2_METADATA_SERVICE_ENDPOINT=http://127.0.0.1:9
check_contains "no instance metadata service: traced" "$out" "requests go unsigned"
out=$(temp "$HOODIE" read s3://hudi/t 2>&1 > /dev/null)
case "$out" in *"instance metadata"*) bad "AWS_EC2_METADATA_DISABLED=true: the service was asked: $out" ;; *) ok ;; esac

# ---- https: a server with its own certificate (a MinIO with a private CA), trusted through AWS_CA_BUNDLE ----
openssl req -x509 -newkey rsa:2048 -nodes -keyout "$tmp/tls.key" -out "$tmp/tls.pem" -days 2 -subj "/CN=127.0.0.1" \
    -addext "subjectAltName=IP:127.0.0.1,DNS:localhost" > /dev/null 2>&1 || bad "openssl could not make a certificate"
start_more "$tmp/tlssrv" --tls-cert "$tmp/tls.pem" --tls-key "$tmp/tls.key"
tls_url=https://127.0.0.1:$more_port
AWS_ENDPOINT_URL=$tls_url NODE_EXTRA_CA_CERTS="$tmp/tls.pem" sync_ up "$FIX/cow_v8_nonpartitioned" s3://hudi/t \
    || bad "upload over https failed"
check_eq "https: a table reads, the CA from AWS_CA_BUNDLE" "$want" \
    "$(AWS_ENDPOINT_URL=$tls_url AWS_CA_BUNDLE="$tmp/tls.pem" keys s3://hudi/t)"
printf '[default]\nca_bundle = %s\n' "$tmp/tls.pem" > "$tmp/aws/config.tls"
check_eq "https: the CA from the profile's ca_bundle" "$want" \
    "$(AWS_ENDPOINT_URL=$tls_url AWS_CONFIG_FILE="$tmp/aws/config.tls" keys s3://hudi/t)"
printf 'id,name,ts\n1,a,1\n2,b,1\n' > "$tmp/tls.csv"
tw() { AWS_ENDPOINT_URL=$tls_url AWS_CA_BUNDLE="$tmp/tls.pem" "$HOODIE" "$@"; }
tw create s3://hudi/w --type mor --name w --record-key id --keygen nonpartitioned --ordering-field ts > /dev/null \
    && tw write s3://hudi/w --op bulk_insert --input "$tmp/tls.csv" > /dev/null || bad "https: write failed"
check_eq "https: a table written reads back" "$(printf '1,a\n2,b')" \
    "$(tw read s3://hudi/w --columns id,name --format csv | tail -n +2 | sort)"
out=$(AWS_ENDPOINT_URL=$tls_url "$HOODIE" read s3://hudi/t 2>&1 > /dev/null)
rc=$?
[ "$rc" != 0 ] && ok || bad "https: an untrusted certificate was accepted"
check_contains "https: untrusted certificate" "$out" "SSL certificate problem"
out=$(AWS_ENDPOINT_URL=$tls_url AWS_CA_BUNDLE="$tmp/none.pem" "$HOODIE" read s3://hudi/t 2>&1 > /dev/null)
check_contains "https: a CA bundle that is not there" "$out" "cannot read $tmp/none.pem"

# ---- errors ----
out=$("$HOODIE" read s3://hudi/fixtures/cow_v8_nonpartitioned 2>&1 > /dev/null)
rc=$?
[ "$rc" = 0 ] && ok || bad "a good read failed: $out"
out=$(AWS_SECRET_ACCESS_KEY=wrong "$HOODIE" read s3://hudi/fixtures/cow_v8_nonpartitioned 2>&1 > /dev/null)
rc=$?
[ "$rc" != 0 ] && ok || bad "a wrong secret was accepted"
check_contains "wrong secret" "$out" "SignatureDoesNotMatch"
check_contains "wrong secret names the object" "$out" "s3://hudi/fixtures/cow_v8_nonpartitioned/.hoodie"
out=$("$HOODIE" read s3://hudi/no/such/table 2>&1 > /dev/null)
rc=$?
[ "$rc" != 0 ] && ok || bad "a missing table read"
check_contains "missing table" "$out" "s3://hudi/no/such/table"
out=$(AWS_ENDPOINT_URL=http://127.0.0.1:9 "$HOODIE" timeline s3://hudi/fixtures/cow_v8_nonpartitioned 2>&1 > /dev/null)
rc=$?
[ "$rc" != 0 ] && ok || bad "a server that is not there answered"
check_contains "no server" "$out" "s3://hudi/fixtures/cow_v8_nonpartitioned"
out=$("$HOODIE" create s3://hudi/written/cow_8 --type cow --name again --record-key id 2>&1 > /dev/null)
rc=$?
[ "$rc" != 0 ] && ok || bad "create over an existing S3 table succeeded"
check_contains "existing table" "$out" "exists"
out=$(AWS_ENDPOINT_URL=ftp://x "$HOODIE" read s3://hudi/fixtures/cow_v8_nonpartitioned 2>&1 > /dev/null)
rc=$?
[ "$rc" != 0 ] && ok || bad "a bad endpoint was accepted"
check_contains "bad endpoint" "$out" "not an http:// or https:// URL"
# the server checked every signature: it logs those it refused; only the wrong-secret read may be there
refused=$(grep -c "SignatureDoesNotMatch" "$tmp/srv_err" 2>/dev/null || true)
[ "${refused:-0}" -ge 1 ] && ok || bad "the server never refused a signature (is it checking them?)"

# ---- data files go up in the background, several at once; a commit waits for them and fails if one failed ----
# A server whose answers take 40 ms: the writer finishes files faster than one PUT, so PUTs overlap.
start_more "$tmp/bgsrv" --delay-ms 40
bg_url=http://127.0.0.1:$more_port
on_bg() { AWS_ENDPOINT_URL=$bg_url "$@"; }
puts_stat() {
    curl -s "$bg_url/__hoodie_test/puts" |
        node -e "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>console.log(JSON.parse(s)['$1']))"
}
awk 'BEGIN { print "id,part,v,ts"; for (i = 0; i < 600; i++) printf "k%05d,p%02d,v%d,1\n", i, i % 6, i }' > "$tmp/bg.csv"
awk 'BEGIN { print "id,part,v,ts"; for (i = 0; i < 600; i += 3) printf "k%05d,p%02d,u%d,2\n", i, i % 6, i }' > "$tmp/bg_up.csv"
bg_rows() { on_bg "$HOODIE" read "$1" --columns id,part,v,ts --format csv | tail -n +2 | sort; }
for type in cow mor; do
    t=s3://hudi/bg/$type
    on_bg "$HOODIE" create "$t" --type $type --name bg --record-key id --partition-fields part --ordering-field ts > /dev/null
    curl -s -X POST "$bg_url/__hoodie_test/puts-reset" > /dev/null
    on_bg "$HOODIE" write "$t" --op bulk_insert --input "$tmp/bg.csv" > /dev/null || bad "$type: background bulk_insert"
    inflight=$(puts_stat max_in_flight)
    [ "$inflight" -ge 2 ] && ok || bad "$type: base files went up one at a time (at most $inflight PUTs at once)"
    check_eq "$type: bulk_insert reads back" "$(tail -n +2 "$tmp/bg.csv" | sort)" "$(bg_rows "$t")"
    before=$(bg_rows "$t")
    # the new data files (base files for COW, log files for MOR) fail to go up: the commit must not appear
    pat=$([ $type = cow ] && echo '%5C.parquet%24' || echo '%5C.log%5C.%5B0-9%5D%2B_%5B0-9-%5D%2B%24') # .parquet$ / .log.N_T$
    curl -s -X POST "$bg_url/__hoodie_test/fail-puts?match=$pat" > /dev/null
    on_bg "$HOODIE" write "$t" --op upsert --input "$tmp/bg_up.csv" > /dev/null 2> "$tmp/bg.err"; rc=$?
    curl -s -X POST "$bg_url/__hoodie_test/fail-puts?match=" > /dev/null
    [ "$rc" -ne 0 ] && ok || bad "$type: an upsert whose data files failed to go up succeeded"
    check_contains "$type: the failed upload named" "$(cat "$tmp/bg.err")" "uploaded in the background"
    check_contains "$type: the server's answer" "$(cat "$tmp/bg.err")" "AccessDenied"
    check_eq "$type: the table as before the failed upsert" "$before" "$(bg_rows "$t")"
    check_eq "$type: the failed upsert left pending" "1" "$(on_bg "$HOODIE" timeline "$t" | tail -n +2 | grep -vc completed)"
    # the next write rolls it back and goes in
    on_bg "$HOODIE" write "$t" --op upsert --input "$tmp/bg_up.csv" > "$tmp/bg.out" 2>&1 ||
        bad "$type: upsert after the failure: $(cat "$tmp/bg.out")"
    check_eq "$type: upserted after the rollback" \
        "$( (tail -n +2 "$tmp/bg_up.csv"; tail -n +2 "$tmp/bg.csv" | awk 'NR % 3 != 1') | sort)" "$(bg_rows "$t")"
    [ -z "$(on_bg "$HOODIE" timeline "$t" | tail -n +2 | grep -v completed | grep -v rollback)" ] && ok ||
        bad "$type: pending instants left: $(on_bg "$HOODIE" timeline "$t")"
    # markers go up in the background too, but no data file before its marker: when the markers fail, not one
    # data file of the write is PUT, the write fails, and the next one rolls it back
    before=$(bg_rows "$t")
    curl -s -X POST "$bg_url/__hoodie_test/fail-puts?match=%5C.marker%5C." > /dev/null # \.marker\.
    on_bg "$HOODIE" write "$t" --op upsert --input "$tmp/bg_up.csv" > /dev/null 2> "$tmp/bg.err"; rc=$?
    curl -s -X POST "$bg_url/__hoodie_test/fail-puts?match=" > /dev/null
    [ "$rc" -ne 0 ] && ok || bad "$type: an upsert whose markers failed to go up succeeded"
    check_contains "$type: the failed marker named" "$(cat "$tmp/bg.err")" "marker"
    inst=$(on_bg "$HOODIE" timeline "$t" | tail -n +2 | grep -v completed | awk '{ print $1 }')
    [ -n "$inst" ] && ok || bad "$type: no pending instant after the failed markers"
    check_eq "$type: data files PUT without their markers" "" \
        "$(find "$tmp/bgsrv" -name "*$inst*" -not -path "*/.hoodie/*" 2> /dev/null)"
    check_eq "$type: the table as before the failed markers" "$before" "$(bg_rows "$t")"
    on_bg "$HOODIE" write "$t" --op upsert --input "$tmp/bg_up.csv" > "$tmp/bg.out" 2>&1 ||
        bad "$type: upsert after the failed markers: $(cat "$tmp/bg.out")"
    [ -z "$(on_bg "$HOODIE" timeline "$t" | tail -n +2 | grep -v completed | grep -v rollback)" ] && ok ||
        bad "$type: pending instants left after the failed markers: $(on_bg "$HOODIE" timeline "$t")"
done

finish s3
