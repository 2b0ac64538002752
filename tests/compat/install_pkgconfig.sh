#!/usr/bin/env bash
# `make install` gives headers, libraries, a pkg-config file and the CLI; a program builds against the installed
# library with pkg-config alone (shared and static) and runs.
set -u
BUILD=${HOODIE_BUILD:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
pass=0 fail=0
check() { if "$@"; then pass=$((pass + 1)); else echo "FAIL: $*"; fail=$((fail + 1)); fi; }
cmake --install "$BUILD" --prefix "$tmp/prefix" > "$tmp/install.log" 2>&1
check test -x "$tmp/prefix/bin/hoodie"
check test -f "$tmp/prefix/include/hoodie/hoodie.h"
libdir=$(dirname "$(find "$tmp/prefix" -name hoodie.pc | head -1)")/..
check test -f "$libdir/libhoodie.a"
check test -f "$libdir/libhoodie.so"
cat > "$tmp/prog.c" <<'C'
#include <hoodie/hoodie.h>
#include <stdio.h>
int main(void)
{
    hoodie_table *t = NULL;
    hoodie_status rc = hoodie_table_open(&t, "/nonexistent", NULL);
    printf("%u %s\n", hoodie_version_number(), rc == HOODIE_ENOTFOUND ? "notfound" : hoodie_status_str(rc));
    return hoodie_version_number() == HOODIE_VERSION_NUMBER ? 0 : 1;
}
C
export PKG_CONFIG_PATH="$libdir/pkgconfig"
check cc "$tmp/prog.c" $(pkg-config --cflags --libs hoodie) -o "$tmp/prog_shared"
check env LD_LIBRARY_PATH="$libdir" "$tmp/prog_shared"
check cc "$tmp/prog.c" $(pkg-config --cflags hoodie) "$libdir/libhoodie.a" $(pkg-config --static --libs-only-l hoodie | sed 's/-lhoodie//') -o "$tmp/prog_static"
check "$tmp/prog_static"
check "$tmp/prefix/bin/hoodie" --version
echo "$pass passed, $fail failed"
[ "$fail" -eq 0 ]
