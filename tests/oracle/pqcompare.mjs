// Compare two Parquet files through DuckDB.
//   node pqcompare.mjs A.parquet B.parquet
// Exit 0 iff DuckDB reads the same schema (DESCRIBE names and types, in order) and the same multiset of rows
// (equal counts, EXCEPT ALL empty both ways) from both. Otherwise print the difference (schema, counts, first
// differing rows as DuckDB text) and exit 1. Exit 2 on usage error or if DuckDB cannot read a file.
import { openDuck, compareFiles } from './lib.mjs';

const args = process.argv.slice(2);
let maxRows = 5;
if (args[0] === '--max-rows') { args.shift(); maxRows = Number(args.shift()); }
if (args.length !== 2) {
  process.stderr.write('usage: node pqcompare.mjs [--max-rows N] A.parquet B.parquet\n');
  process.exit(2);
}
const [a, b] = args;
let res;
try {
  const con = await openDuck();
  res = await compareFiles(con, a, b, { maxRows });
} catch (e) {
  process.stderr.write(`pqcompare: DuckDB cannot compare ${a} and ${b}: ${e.message}\n`);
  process.exit(2);
}
if (res.ok) {
  process.stdout.write(`same: ${a} ${b}\n`);
  process.exit(0);
}
process.stdout.write(`DIFFERENT: ${a} vs ${b}\n` + res.lines.join('\n') + '\n');
process.exit(1);
