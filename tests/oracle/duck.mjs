// Run SQL statements in an in-memory DuckDB and print the last statement's rows.
//   node duck.mjs [--csv|--json] "SQL; SQL; ..."
// --json (default): one JSON object per row (values via DuckDB's own text rendering for non-JSON types).
// --csv: header line then rows, values as DuckDB renders them, comma-separated with CSV quoting.
import { DuckDBInstance } from '@duckdb/node-api';

const args = process.argv.slice(2);
let mode = 'json';
if (args[0] === '--csv' || args[0] === '--json') mode = args.shift().slice(2);
const sql = args.join(' ');
const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
await con.run("SET TimeZone='UTC'");
const stmts = sql.split(/;\s*(?=(?:[^']*'[^']*')*[^']*$)/).map(s => s.trim()).filter(Boolean);
let reader = null;
for (const s of stmts) reader = await con.runAndReadAll(s);
if (reader) {
  const names = reader.columnNames();
  const rows = reader.getRowsJS();
  const text = (v) => v === null || v === undefined ? '' : (typeof v === 'object' ? JSON.stringify(v, (k, x) => typeof x === 'bigint' ? x.toString() : x) : String(v));
  if (mode === 'csv') {
    const q = (s) => /[",\n]/.test(s) ? '"' + s.replace(/"/g, '""') + '"' : s;
    const out = [names.map(q).join(',')];
    for (const r of rows) out.push(r.map(v => q(text(v))).join(','));
    process.stdout.write(out.join('\n') + '\n');
  } else {
    for (const r of rows) {
      const o = {};
      names.forEach((n, i) => { o[n] = r[i]; });
      process.stdout.write(JSON.stringify(o, (k, x) => typeof x === 'bigint' ? x.toString() : x) + '\n');
    }
  }
}
