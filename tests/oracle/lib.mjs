// Shared helpers for the DuckDB oracle scripts (gen_matrix, pqcompare, pqdump, pqcheck, bench).
// DuckDB is the independent reference: everything here reads files through DuckDB only, never through hoodie.
import { DuckDBInstance } from '@duckdb/node-api';

/** An in-memory DuckDB connection with TimeZone UTC (and optional settings, e.g. { threads: 1 }). */
export async function openDuck(settings = {}) {
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  await con.run("SET TimeZone='UTC'");
  for (const [k, v] of Object.entries(settings)) await con.run(`SET ${k}=${typeof v === 'string' ? lit(v) : v}`);
  return con;
}

/** SQL string literal. */
export function lit(s) { return "'" + String(s).replace(/'/g, "''") + "'"; }
/** SQL quoted identifier. */
export function ident(s) { return '"' + String(s).replace(/"/g, '""') + '"'; }
/** read_parquet(...) of one file. */
export function rp(path) { return `read_parquet(${lit(path)}, hive_partitioning = false)`; }

/** Run SQL, return rows as arrays of JS values (BIGINT as bigint). */
export async function rows(con, sql) {
  const r = await con.runAndReadAll(sql);
  return r.getRowsJS();
}
/** Run SQL, return { names, rows }. */
export async function table(con, sql) {
  const r = await con.runAndReadAll(sql);
  return { names: r.columnNames(), rows: r.getRowsJS() };
}
/** First column of the first row. */
export async function scalar(con, sql) {
  const r = await rows(con, sql);
  return r.length ? r[0][0] : undefined;
}

/** [{name, type}] of a Parquet file as DuckDB reads it (DESCRIBE, in column order). */
export async function describe(con, path) {
  const r = await rows(con, `DESCRIBE SELECT * FROM ${rp(path)}`);
  return r.map(x => ({ name: x[0], type: x[1] }));
}

/** JSON.stringify that renders bigint as a string. */
export function jstr(v) { return JSON.stringify(v, (k, x) => typeof x === 'bigint' ? x.toString() : x); }

/**
 * SELECT list rendering every column as DuckDB's text (exact for every type: no float, ns or decimal loss),
 * so rows print the same way whatever the JS binding does with a type.
 */
export function textSelect(cols) {
  return cols.map(c => `CAST(${ident(c.name)} AS VARCHAR) AS ${ident(c.name)}`).join(', ');
}

/** Rows of `relation` (SQL FROM clause) as JSON-line strings, values as DuckDB text; `limit` optional. */
export async function textRows(con, cols, relation, { order = true, limit = 0 } = {}) {
  if (cols.length === 0) return [];
  const sql = `SELECT ${textSelect(cols)} FROM ${relation}` + (order ? ' ORDER BY ALL' : '') +
    (limit ? ` LIMIT ${limit}` : '');
  const t = await table(con, sql);
  return t.rows.map(r => {
    const o = {};
    t.names.forEach((n, i) => { o[n] = r[i]; });
    return jstr(o);
  });
}

/**
 * Compare two relations (SQL FROM clauses, e.g. read_parquet('a')) the oracle's way: same column names and
 * DuckDB types in order, same number of rows, and the same multiset of rows (EXCEPT ALL both ways).
 * Returns { ok, lines } where lines is a human-readable diff when !ok.
 */
export async function compareRelations(con, relA, relB, { labelA = 'A', labelB = 'B', maxRows = 5 } = {}) {
  const lines = [];
  const da = (await rows(con, `DESCRIBE SELECT * FROM ${relA}`)).map(x => ({ name: x[0], type: x[1] }));
  const db = (await rows(con, `DESCRIBE SELECT * FROM ${relB}`)).map(x => ({ name: x[0], type: x[1] }));
  const sa = da.map(c => `${c.name} ${c.type}`), sb = db.map(c => `${c.name} ${c.type}`);
  if (sa.join('\n') !== sb.join('\n')) {
    lines.push('schema differs:');
    const n = Math.max(sa.length, sb.length);
    for (let i = 0; i < n; i++) {
      const mark = sa[i] === sb[i] ? '  ' : '! ';
      lines.push(`${mark}#${i}  ${labelA}: ${sa[i] ?? '(none)'}  |  ${labelB}: ${sb[i] ?? '(none)'}`);
    }
    return { ok: false, lines };
  }
  const na = await scalar(con, `SELECT count(*) FROM ${relA}`);
  const nb = await scalar(con, `SELECT count(*) FROM ${relB}`);
  if (na !== nb) lines.push(`row count differs: ${labelA}=${na} ${labelB}=${nb}`);
  if (da.length > 0) {
    // One pass first: rows (as whole-row structs) grouped over both sides, +1 per row of A, -1 per row of B. The
    // groups left with a non-zero balance are exactly (A EXCEPT ALL B) and (B EXCEPT ALL A) (same equality: NULLs
    // match, NaN = NaN), at a third of the cost of two EXCEPT ALLs. Only when they are not empty do the two
    // EXCEPT ALLs run, to count and show each direction.
    const unbalanced = await scalar(con, `SELECT count(*) FROM (SELECT r, sum(w) AS w FROM (` +
      `SELECT _a AS r, 1 AS w FROM ${relA} _a UNION ALL SELECT _b AS r, -1 AS w FROM ${relB} _b) GROUP BY r HAVING sum(w) <> 0)`);
    if (unbalanced > 0n) {
      for (const [x, y, lx, ly] of [[relA, relB, labelA, labelB], [relB, relA, labelB, labelA]]) {
        const diff = `(SELECT * FROM ${x} EXCEPT ALL SELECT * FROM ${y})`;
        const nd = await scalar(con, `SELECT count(*) FROM ${diff}`);
        if (nd > 0n) {
          lines.push(`${nd} row(s) in ${lx} not in ${ly}; first ${Math.min(Number(nd), maxRows)}:`);
          for (const r of await textRows(con, da, diff, { limit: maxRows })) lines.push('  ' + r);
        }
      }
      if (lines.length === 0) lines.push('rows differ by grouping but EXCEPT ALL finds no difference (oracle inconsistency)');
    }
  }
  return { ok: lines.length === 0, lines };
}

/** compareRelations on two Parquet files. */
export async function compareFiles(con, a, b, opts = {}) {
  return compareRelations(con, rp(a), rp(b), { labelA: a, labelB: b, ...opts });
}
