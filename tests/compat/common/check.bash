# Shared by tests/compat scripts (sourced, not a test itself): a temporary folder removed at exit, counted
# checks and run (exit status, output kept). The script ends with `finish NAME`, which prints the counts and sets the exit status.
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2> /dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()   { pass=$((pass + 1)); }
bad()  { echo "FAIL: $*"; fail=$((fail + 1)); }
check_eq() { if [ "$2" == "$3" ]; then ok; else bad "$1: expected [$2], got [$3]"; fi; }
finish() { echo "$1: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; }
# run NAME WANT_EXIT CMD...: the command's exit status is WANT_EXIT; its stdout is left in $tmp/out, its stderr in
# $tmp/err
run() {
    local name=$1 want=$2
    shift 2
    "$@" > "$tmp/out" 2> "$tmp/err"
    local rc=$?
    if [ "$rc" -eq "$want" ]; then ok; else bad "$name: exit $rc, wanted $want: $(cat "$tmp/err")"; fi
}
