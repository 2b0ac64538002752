# Shared by tests/compat/sql.sh and ingest.sh (sourced, not a test itself): a temporary folder removed at exit,
# and counted checks. The script ends with `finish NAME`, which prints the counts and sets the exit status.
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2> /dev/null; rm -rf "$tmp"' EXIT
pass=0 fail=0
ok()   { pass=$((pass + 1)); }
bad()  { echo "FAIL: $*"; fail=$((fail + 1)); }
check_eq() { if [ "$2" == "$3" ]; then ok; else bad "$1: expected [$2], got [$3]"; fi; }
finish() { echo "$1: $pass passed, $fail failed"; [ "$fail" -eq 0 ]; }
