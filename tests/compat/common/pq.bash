# Shared by tests/compat/parquet_*.sh (sourced, not a test itself: ctest only globs tests/compat/*.sh).
# Environment (set by ctest; defaults for running a script by hand from the source tree):
#   HOODIE          the CLI                      (default: $HOODIE_BUILD/hoodie)
#   HOODIE_SRC      the source tree              (default: two levels above this file)
#   HOODIE_BUILD    the build tree               (default: $HOODIE_SRC/build)
#   HOODIE_FIXTURES the shared fixtures folder   (default: $HOODIE_SRC/../shared/fixtures)
#   HOODIE_TIMEOUT  seconds allowed per CLI run  (default: 60); a run that takes longer counts as a hang
#   KEEP_TMP=1      keep the temporary folder (its path is printed)

HOODIE_SRC=${HOODIE_SRC:-$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)}
HOODIE_BUILD=${HOODIE_BUILD:-$HOODIE_SRC/build}
HOODIE=${HOODIE:-$HOODIE_BUILD/hoodie}
HOODIE_FIXTURES=${HOODIE_FIXTURES:-$HOODIE_SRC/../shared/fixtures}
HOODIE_TIMEOUT=${HOODIE_TIMEOUT:-60}
ORACLE=$HOODIE_SRC/tests/oracle

pq_passed=0
pq_failed=0

pq_pass() { pq_passed=$((pq_passed + 1)); echo "PASS $1"; }
pq_fail() { pq_failed=$((pq_failed + 1)); echo "FAIL $1"; shift; local l; for l in "$@"; do echo "    $l"; done; }

# The closing line, and the exit status.
pq_finish() {
    echo "$pq_passed passed, $pq_failed failed"
    [ "$pq_failed" -eq 0 ]
    exit
}

pq_tmpdir() {
    PQ_TMP=$(mktemp -d "${TMPDIR:-/tmp}/hoodie-$1.XXXXXX")
    if [ "${KEEP_TMP:-0}" = 1 ]; then
        echo "(keeping $PQ_TMP)"
    else
        trap 'rm -rf "$PQ_TMP"' EXIT
    fi
}

# pq_run OUTFILE ERRFILE CMD...: run with a time limit; sets PQ_RC. 124 = timed out (hang).
pq_run() {
    local out=$1 err=$2
    shift 2
    PQ_RC=0
    timeout -k 5 "$HOODIE_TIMEOUT" "$@" >"$out" 2>"$err" || PQ_RC=$?
}

# A crash: killed by a signal (status >= 128; timeout reports 128+signal too), or a sanitizer report.
pq_crashed() { # RC ERRFILE
    [ "$1" -ge 128 ] && return 0
    grep -qE 'ERROR: AddressSanitizer|ERROR: LeakSanitizer|runtime error:|UndefinedBehaviorSanitizer|MemorySanitizer' "$2" 2>/dev/null
}

# Explain a failed CLI run in one line (for pq_fail detail).
pq_why() { # RC ERRFILE
    local rc=$1 err=$2 what
    if [ "$rc" -eq 124 ]; then what="timed out after ${HOODIE_TIMEOUT}s"
    elif [ "$rc" -ge 128 ]; then what="killed by signal $((rc - 128))"
    else what="exit $rc"; fi
    echo "$what: $(head -c 400 "$err" | tr '\n' ' ')"
}

# Stop early, with one clear failure, if the CLI cannot run `hoodie parquet schema` on a valid file.
pq_preflight() { # VALID.parquet
    if [ ! -x "$HOODIE" ]; then
        pq_fail "preflight" "no executable CLI at HOODIE=$HOODIE"
        pq_finish
    fi
    pq_run "$PQ_TMP/preflight.out" "$PQ_TMP/preflight.err" "$HOODIE" parquet schema "$1"
    if [ "$PQ_RC" -ne 0 ]; then
        pq_fail "preflight: $HOODIE parquet schema $(basename "$1")" "$(pq_why "$PQ_RC" "$PQ_TMP/preflight.err")" \
            "hoodie parquet does not work yet; stopping here"
        pq_finish
    fi
}

# Preflight on a one-row file from DuckDB, before spending time generating the inputs.
pq_preflight_probe() {
    if ! node "$ORACLE/duck.mjs" "COPY (SELECT 1 AS id, 'x' AS s) TO '$PQ_TMP/probe.parquet' (FORMAT parquet)" \
        >/dev/null 2>"$PQ_TMP/probe.err"; then
        pq_fail "setup" "DuckDB cannot write a probe file: $(head -c 300 "$PQ_TMP/probe.err")"
        pq_finish
    fi
    pq_preflight "$PQ_TMP/probe.parquet"
}

# Run the batch of DuckDB checks in MANIFEST and fold its PASS/FAIL lines into the counters.
pq_checks() { # MANIFEST
    [ -s "$1" ] || return 0
    local out rc=0
    out=$(node "$ORACLE/pqcheck.mjs" "$1" 2>&1) || rc=$?
    echo "$out" | grep -v -E '^[0-9]+ passed, [0-9]+ failed$' || true
    local p f
    p=$(echo "$out" | grep -c '^PASS ' || true)
    f=$(echo "$out" | grep -c '^FAIL ' || true)
    pq_passed=$((pq_passed + p))
    pq_failed=$((pq_failed + f))
    if [ "$rc" -ne 0 ] && [ "$f" -eq 0 ]; then
        pq_fail "pqcheck $(basename "$1")" "the checker itself failed (exit $rc)"
    fi
}

pq_need_node() {
    if ! command -v node >/dev/null || [ ! -e "$ORACLE/node_modules/@duckdb/node-api" ]; then
        pq_fail "setup" "node and tests/oracle/node_modules (DuckDB) are needed: make deps"
        pq_finish
    fi
}
