// Self-test of the oracle: the comparison must tell apart what hoodie could get wrong, and must not flag what is
// only a different physical layout. Run by tests/compat/oracle_selftest.sh.
//   node selftest.mjs TMPDIR
import { join } from 'node:path';
import { execFileSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { openDuck, compareFiles, lit } from './lib.mjs';

const dir = process.argv[2];
const con = await openDuck();
let passed = 0, failed = 0;
const w = async (name, sql, opts = '') => {
  const p = join(dir, name + '.parquet');
  await con.run(`COPY (${sql}) TO ${lit(p)} (FORMAT parquet${opts})`);
  return p;
};
async function expect(label, same, a, b) {
  const r = await compareFiles(con, a, b);
  if (r.ok === same) { passed++; console.log(`PASS ${label}`); }
  else { failed++; console.log(`FAIL ${label}: expected ${same ? 'same' : 'different'}`); r.lines.forEach(l => console.log('    ' + l)); }
}

const base = `SELECT i::INTEGER AS id, {'a': i, 'l': [i, NULL]} AS s, map {'k': i} AS m, 'NaN'::DOUBLE AS d,
  make_timestamp_ns(i * 1000000007) AS tns FROM range(3000) t(i)`;
const a = await w('a', base);
await expect('same rows in another order, row groups, codec and page version', true, a,
  await w('a2', `${base} ORDER BY id DESC`, ", ROW_GROUP_SIZE 1000, COMPRESSION zstd, PARQUET_VERSION v2"));
await expect('one nested map value changed', false, a,
  await w('b1', `SELECT * REPLACE (CASE WHEN id = 7 THEN map {'k': 8} ELSE m END AS m) FROM (${base})`));
await expect('one timestamp off by 1 ns', false, a,
  await w('b2', `SELECT * REPLACE (CASE WHEN id = 9 THEN make_timestamp_ns(epoch_ns(tns) + 1) ELSE tns END AS tns) FROM (${base})`));
await expect('one row missing', false, a, await w('b3', `${base.replace('range(3000)', 'range(2999)')}`));
await expect('columns in another order', false, a, await w('b4', `SELECT s, id, m, d, tns FROM (${base})`));
await expect('INTEGER written as BIGINT', false, a, await w('b5', `SELECT * REPLACE (id::BIGINT AS id) FROM (${base})`));
await expect('null struct vs struct of nulls', false,
  await w('c1', `SELECT CASE WHEN i = 1 THEN NULL ELSE {'a': i} END AS s FROM range(3) t(i)`),
  await w('c2', `SELECT {'a': CASE WHEN i = 1 THEN NULL ELSE i END} AS s FROM range(3) t(i)`));
await expect('null list vs empty list', false,
  await w('c3', `SELECT CASE WHEN i = 1 THEN NULL ELSE [i] END AS l FROM range(3) t(i)`),
  await w('c4', `SELECT CASE WHEN i = 1 THEN [] ELSE [i] END AS l FROM range(3) t(i)`));
await expect('same count, different multiplicities {1,1,2} vs {1,2,2}', false,
  await w('c5', `SELECT unnest([1, 1, 2]) AS x`), await w('c6', `SELECT unnest([1, 2, 2]) AS x`));
await expect('zero rows vs zero rows', true,
  await w('c7', `SELECT 1 AS x WHERE false`), await w('c8', `SELECT 2 AS x WHERE false`));

// The command-line tools: exit codes.
const here = fileURLToPath(new URL('.', import.meta.url));
const run = (script, ...args) => {
  try { execFileSync(process.execPath, [join(here, script), ...args], { stdio: 'pipe' }); return 0; } catch (e) { return e.status; }
};
for (const [label, got, want] of [
  ['pqcompare exits 0 on equal files', run('pqcompare.mjs', a, join(dir, 'a2.parquet')), 0],
  ['pqcompare exits 1 on different files', run('pqcompare.mjs', a, join(dir, 'b1.parquet')), 1],
  ['pqcompare exits 2 on a file DuckDB cannot read', run('pqcompare.mjs', a, join(dir, 'missing.parquet')), 2],
  ['pqdump exits 0', run('pqdump.mjs', a), 0],
]) {
  if (got === want) { passed++; console.log(`PASS ${label}`); } else { failed++; console.log(`FAIL ${label}: exit ${got}`); }
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
