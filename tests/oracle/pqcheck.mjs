// Batch checker for the compat scripts: one DuckDB process checks many outputs of `hoodie parquet ...`
// (starting node + DuckDB per check would cost ~0.5 s each).
//   node pqcheck.mjs MANIFEST
// MANIFEST: one check per line, fields separated by TAB:
//   LABEL  roundtrip  ORIG.parquet  OUT.parquet       same as pqcompare.mjs ORIG OUT
//   LABEL  project    ORIG.parquet  OUT.parquet  COLS  COLS = a,b.c (dotted paths go into structs): OUT's
//                                                      top-level columns are exactly {a, b}, and the multiset of
//                                                      rows of SELECT a, b.c is the same from ORIG and OUT
//   LABEL  meta       ORIG.parquet  META.json          valid JSON; a "num_rows" (or numRows/row_count) key, at
//                                                      the shallowest level it occurs, equals DuckDB's count; if a
//                                                      "row_groups" array is present, it has one entry per row
//                                                      group (and their num_rows, if given, add up)
//   LABEL  csv        ORIG.parquet  OUT.csv            RFC 4180 records (quoted fields may hold newlines); an
//                                                      optional header record equal to the column names; the
//                                                      remaining records are the file's rows, each with one field
//                                                      per column
//   LABEL  jsonl      ORIG.parquet  OUT.jsonl          one JSON object per non-empty line, keys = column names,
//                                                      one line per row
//   LABEL  schema     ORIG.parquet  SCHEMA.txt         every top-level column name occurs in the text
//   LABEL  codec      OUT.parquet   CODEC              every column chunk uses CODEC (none = UNCOMPRESSED)
// Prints `PASS LABEL` or `FAIL LABEL: reason` (and indented detail lines) per check, then `N passed, M failed`.
// Exit 0 iff every check passed.
import { readFileSync } from 'node:fs';
import { openDuck, compareFiles, compareRelations, describe, rp, scalar, rows, ident, lit } from './lib.mjs';

if (process.argv.length !== 3) {
  process.stderr.write('usage: node pqcheck.mjs MANIFEST\n');
  process.exit(2);
}
const checks = readFileSync(process.argv[2], 'utf8').split('\n').filter(l => l.trim()).map(l => l.split('\t'));
const con = await openDuck();
let passed = 0, failed = 0;

function pathExpr(path) {
  const parts = path.split('.');
  let e = ident(parts[0]);
  for (const p of parts.slice(1)) e = `struct_extract(${e}, ${lit(p)})`;
  return e;
}

// RFC 4180 records of a CSV text (quoted fields may hold commas, quotes and newlines; CRLF or LF).
function csvRecords(text) {
  const recs = [];
  let rec = [], i = 0;
  const n = text.length;
  const special = /[",\r\n]/g;
  if (n === 0) return recs;
  for (;;) {
    let field;
    if (text[i] === '"') {
      let j = i + 1;
      field = '';
      for (;;) {
        const q = text.indexOf('"', j);
        if (q < 0) throw new Error('unterminated quoted field');
        field += text.slice(j, q);
        if (text[q + 1] === '"') { field += '"'; j = q + 2; continue; }
        i = q + 1;
        break;
      }
      if (i < n && !/[,\r\n]/.test(text[i])) throw new Error(`text after a closing quote at character ${i}`);
    } else {
      special.lastIndex = i;
      const m = special.exec(text);
      const e = m ? m.index : n;
      if (m && m[0] === '"') throw new Error(`quote inside an unquoted field at character ${e}`);
      field = text.slice(i, e);
      i = e;
    }
    rec.push(field);
    if (i >= n) { recs.push(rec); break; }
    if (text[i] === ',') { i++; continue; }
    recs.push(rec);
    rec = [];
    i += (text[i] === '\r' && text[i + 1] === '\n') ? 2 : 1;
    if (i >= n) break;
  }
  return recs;
}

function findKey(obj, names) {
  // breadth-first: the shallowest occurrence wins
  let level = [obj];
  while (level.length) {
    const next = [];
    for (const o of level) {
      if (o && typeof o === 'object' && !Array.isArray(o)) {
        for (const n of names) if (n in o) return { found: true, value: o[n] };
        for (const v of Object.values(o)) if (v && typeof v === 'object') next.push(v);
      }
    }
    level = next;
  }
  return { found: false };
}

async function check(kind, args) {
  const [orig, out] = args;
  switch (kind) {
    case 'roundtrip': {
      const r = await compareFiles(con, orig, out);
      return r.ok ? null : { reason: 'rows or schema differ from the original', detail: r.lines };
    }
    case 'project': {
      const paths = args[2].split(',');
      const tops = [...new Set(paths.map(p => p.split('.')[0]))];
      const got = (await describe(con, out)).map(c => c.name);
      if ([...got].sort().join(',') !== [...tops].sort().join(',')) {
        return { reason: `output columns [${got.join(', ')}], expected exactly [${tops.join(', ')}]` };
      }
      const sel = paths.map((p, k) => `${pathExpr(p)} AS ${ident('p' + k + '_' + p)}`).join(', ');
      const r = await compareRelations(con, `(SELECT ${sel} FROM ${rp(orig)})`, `(SELECT ${sel} FROM ${rp(out)})`,
        { labelA: 'DuckDB SELECT', labelB: 'hoodie --columns' });
      return r.ok ? null : { reason: 'projected values differ', detail: r.lines };
    }
    case 'meta': {
      let j;
      try { j = JSON.parse(readFileSync(out, 'utf8')); } catch (e) { return { reason: `not valid JSON: ${e.message}` }; }
      const [[n, nrg]] = await rows(con, `SELECT num_rows, num_row_groups FROM parquet_file_metadata(${lit(orig)})`);
      const k = findKey(j, ['num_rows', 'numRows', 'row_count']);
      if (!k.found) return { reason: 'no num_rows key in the JSON' };
      if (String(k.value) !== String(n)) return { reason: `num_rows ${k.value}, DuckDB says ${n}` };
      const g = findKey(j, ['row_groups', 'rowGroups']);
      if (g.found && Array.isArray(g.value)) {
        if (String(g.value.length) !== String(nrg)) return { reason: `${g.value.length} row groups, DuckDB says ${nrg}` };
        if (g.value.length && g.value.every(x => x && typeof x === 'object' && 'num_rows' in x)) {
          const sum = g.value.reduce((a, x) => a + BigInt(x.num_rows), 0n);
          if (sum !== BigInt(n)) return { reason: `row groups' num_rows add up to ${sum}, DuckDB says ${n}` };
        }
      }
      return null;
    }
    case 'csv': {
      const cols = (await describe(con, orig)).map(c => c.name);
      const n = Number(await scalar(con, `SELECT count(*) FROM ${rp(orig)}`));
      let recs;
      try { recs = csvRecords(readFileSync(out, 'utf8')); } catch (e) { return { reason: `bad CSV: ${e.message}` }; }
      if (recs.length && recs[0].join('\u0001') === cols.join('\u0001')) recs.shift();
      if (recs.length !== n) return { reason: `${recs.length} CSV records (besides a header), DuckDB counts ${n} rows` };
      const bad = recs.findIndex(r => r.length !== cols.length);
      if (bad >= 0) return { reason: `CSV record ${bad + 1} has ${recs[bad].length} fields, expected ${cols.length}` };
      return null;
    }
    case 'jsonl': {
      const cols = (await describe(con, orig)).map(c => c.name);
      const n = Number(await scalar(con, `SELECT count(*) FROM ${rp(orig)}`));
      const lines = readFileSync(out, 'utf8').split('\n').filter(l => l.trim() !== '');
      if (lines.length !== n) return { reason: `${lines.length} JSON lines, DuckDB counts ${n} rows` };
      for (let i = 0; i < lines.length; i++) {
        let o;
        try { o = JSON.parse(lines[i]); } catch (e) { return { reason: `line ${i + 1} is not JSON: ${e.message}` }; }
        if (!o || typeof o !== 'object' || Array.isArray(o)) return { reason: `line ${i + 1} is not a JSON object` };
        const keys = Object.keys(o);
        if ([...keys].sort().join(',') !== [...cols].sort().join(',')) {
          return { reason: `line ${i + 1} has keys [${keys.join(', ')}], expected [${cols.join(', ')}]` };
        }
      }
      return null;
    }
    case 'schema': {
      const text = readFileSync(out, 'utf8');
      const missing = (await describe(con, orig)).map(c => c.name).filter(n => !text.includes(n));
      return missing.length ? { reason: `schema text does not mention column(s) ${missing.join(', ')}` } : null;
    }
    case 'codec': {
      // args: OUT.parquet CODEC
      const want = out.toUpperCase() === 'NONE' ? 'UNCOMPRESSED' : out.toUpperCase();
      const got = (await rows(con, `SELECT DISTINCT compression FROM parquet_metadata(${lit(orig)}) ORDER BY 1`)).map(r => r[0]);
      if (got.length === 0) return null; // no column chunks (0 rows): nothing to check
      return got.length === 1 && got[0] === want ? null : { reason: `column chunks use ${got.join(', ')}, expected ${want}` };
    }
    default:
      return { reason: `unknown check kind ${kind}` };
  }
}

for (const [label, kind, ...args] of checks) {
  let res;
  try {
    res = await check(kind, args);
  } catch (e) {
    res = { reason: `DuckDB error: ${e.message.split('\n')[0]}` };
  }
  if (!res) { passed++; process.stdout.write(`PASS ${label}\n`); continue; }
  failed++;
  process.stdout.write(`FAIL ${label}: ${res.reason}\n`);
  for (const l of (res.detail || []).slice(0, 40)) process.stdout.write(`    ${l}\n`);
}
process.stdout.write(`${passed} passed, ${failed} failed\n`);
process.exit(failed ? 1 : 0);
