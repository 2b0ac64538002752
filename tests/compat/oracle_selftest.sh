#!/usr/bin/env bash
# The DuckDB oracle checks itself (tests/oracle/selftest.mjs): pqcompare must see a changed nested value, a 1 ns
# difference, a missing row, a column order or type change, null vs empty, multiplicities; and must not see a
# different row order, row grouping, codec or page version. Ends with `N passed, M failed`.
set -uo pipefail
. "$(dirname "$0")/common/pq.bash"
pq_need_node
pq_tmpdir oracle
node "$ORACLE/selftest.mjs" "$PQ_TMP"
