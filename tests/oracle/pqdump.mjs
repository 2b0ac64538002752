// Print a Parquet file's rows as JSON lines in a stable order, for debugging.
//   node pqdump.mjs [--schema] [--limit N] FILE
// Values are DuckDB's text rendering (exact for decimals, nanoseconds, nested values), null as null; rows are
// sorted by that text so two dumps of equal files are byte-identical. --schema first prints the DESCRIBE lines.
import { openDuck, describe, textRows, rp } from './lib.mjs';

const args = process.argv.slice(2);
let schema = false, limit = 0;
while (args.length && args[0].startsWith('--')) {
  const a = args.shift();
  if (a === '--schema') schema = true;
  else if (a === '--limit') limit = Number(args.shift());
  else { process.stderr.write(`pqdump: unknown option ${a}\n`); process.exit(2); }
}
if (args.length !== 1) { process.stderr.write('usage: node pqdump.mjs [--schema] [--limit N] FILE\n'); process.exit(2); }
const file = args[0];
try {
  const con = await openDuck();
  const cols = await describe(con, file);
  if (schema) for (const c of cols) process.stdout.write(`# ${c.name} ${c.type}\n`);
  for (const line of await textRows(con, cols, rp(file), { limit })) process.stdout.write(line + '\n');
} catch (e) {
  process.stderr.write(`pqdump: ${file}: ${e.message}\n`);
  process.exit(2);
}
