// Render a Parquet file the way ../shared/fixtures/hudi/expected/*.csv were rendered, for comparison:
//   node render_expected.mjs RESULT.parquet EXPECTED.csv
// Columns: those of the expected CSV's header (so a test compares exactly what the fixture asserts), rows sorted
// by _hoodie_record_key in byte order, values as DuckDB's text with TimeZone UTC, blobs as upper-case hex, NULL as
// an empty field, RFC 4180 quoting. Prints the CSV on stdout.
import { DuckDBInstance } from '@duckdb/node-api';
import { readFileSync } from 'node:fs';

const [, , parquet, expected] = process.argv;
const header = readFileSync(expected, 'utf8').split('\n')[0];
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run("SET TimeZone='UTC'");
if (!header) { // an empty expected file: the result must have no rows
  const r = await con.runAndReadAll(`SELECT count(*) FROM read_parquet('${parquet}', hive_partitioning = false)`);
  const n = Number(r.getRowsJS()[0][0]);
  if (n !== 0) process.stdout.write(`${n} rows, expected none\n`);
  process.exit(0);
}
const cols = header.split(',');
const desc = await con.runAndReadAll(`DESCRIBE SELECT * FROM read_parquet('${parquet}', hive_partitioning = false)`);
const types = new Map(desc.getRowsJS().map(r => [r[0], r[1]]));
const q = (c) => '"' + c.replace(/"/g, '""') + '"';
const exprs = cols.map(c => {
  if (!types.has(c)) throw new Error(`result has no column ${c}`);
  return types.get(c) === 'BLOB' ? `upper(hex(${q(c)}))` : `CAST(${q(c)} AS VARCHAR)`;
});
const r = await con.runAndReadAll(
  `SELECT ${exprs.join(', ')} FROM read_parquet('${parquet}', hive_partitioning = false) ORDER BY CAST("_hoodie_record_key" AS BLOB)`);
const csv = (v) => v === null || v === undefined ? '' : (v === '' || /[",\n\r]/.test(v) ? '"' + v.replace(/"/g, '""') + '"' : v);
const out = [header];
for (const row of r.getRowsJS()) out.push(row.map(csv).join(','));
process.stdout.write(out.join('\n') + '\n');
