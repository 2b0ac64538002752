// Write the Parquet conformance matrix with DuckDB (the independent writer hoodie's reader is checked against).
//   node gen_matrix.mjs OUTDIR [--list]
// Prints the path of every file written, one per line (--list: print the names only, write nothing).
//
// Two tables, both deterministic (values from hash() of the row number, no randomness):
//   types:  one column per scalar type (every integer width signed and unsigned, float/double with NaN/inf/-0,
//           three decimal physical widths, varchar incl. empty/unicode/quotes/newlines/long, blob incl. empty and
//           NUL bytes, date, time, timestamp s/ms/us/ns, timestamptz, uuid, json, enum); every column has nulls,
//           and some rows are null in every nullable column. `row_id` is a unique, never-null key.
//   nested: list of ints, list of strings, list of lists, struct, struct with list, list of struct,
//           map(varchar, int), map with struct values, a doubly nested struct; each with null values, null
//           elements, empty lists/maps and null lists/maps.
// Files vary codec (uncompressed, snappy, gzip, zstd, lz4_raw), format version (PARQUET_VERSION v1 / v2: v2 makes
// DuckDB use DELTA_BINARY_PACKED, DELTA_LENGTH_BYTE_ARRAY, BYTE_STREAM_SPLIT, RLE_DICTIONARY; note that DuckDB
// 1.5.6 still writes DATA_PAGE (v1) page headers, and one data page per column chunk at these sizes, so neither
// DATA_PAGE_V2 nor multi-page chunks come from this matrix), dictionary vs plain (low-cardinality
// values vs high cardinality with DICTIONARY_SIZE_LIMIT 1), row-group size (1 row; ROW_GROUP_SIZE 1000, which
// DuckDB rounds up to its 2048-row chunks: 10000 rows in 5 groups; default: one group) and row
// count (0, 1, 25, 10000, 120000).
import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { openDuck, lit } from './lib.mjs';

const CODECS = ['uncompressed', 'snappy', 'gzip', 'zstd', 'lz4_raw'];

// Null unless the row is one of this column's null rows (k spreads the pattern) or an all-null row.
const nul = (k, expr) => `CASE WHEN i % 13 = ${k % 13} OR i % 101 = 7 THEN NULL ELSE ${expr} END`;
// Deterministic pseudo-random UBIGINT for column k from the seed `s` (s = i, or i % 37 for low cardinality).
const h = (k) => `hash(s + ${k * 1000003})`;
// Special values first (by i % 17), else the hashed value.
const pick = (specials, dflt) =>
  'CASE i % 17 ' + specials.map((v, j) => `WHEN ${j} THEN ${v} `).join('') + `ELSE ${dflt} END`;

function typesSelect(n, lowCard) {
  const col = (k, name, expr) => `${nul(k, expr)} AS ${name}`;
  const cols = [
    'i::INTEGER AS row_id',
    col(1, 'c_bool', `${h(1)} % 3 = 0`),
    col(2, 'c_tinyint', `(${pick(['-128', '127', '0'], `(${h(2)} % 256)::INTEGER - 128`)})::TINYINT`),
    col(3, 'c_smallint', `(${pick(['-32768', '32767', '0'], `(${h(3)} % 65536)::INTEGER - 32768`)})::SMALLINT`),
    col(4, 'c_integer', `(${pick(['-2147483648', '2147483647', '0'], `(${h(4)} % 4294967296)::BIGINT - 2147483648`)})::INTEGER`),
    col(5, 'c_bigint', `(${pick(['-9223372036854775808', '9223372036854775807', '0'], `${h(5)}::HUGEINT - 9223372036854775808`)})::BIGINT`),
    col(6, 'c_utinyint', `(${pick(['0', '255'], `${h(6)} % 256`)})::UTINYINT`),
    col(7, 'c_usmallint', `(${pick(['0', '65535'], `${h(7)} % 65536`)})::USMALLINT`),
    col(8, 'c_uinteger', `(${pick(['0', '4294967295'], `${h(8)} % 4294967296`)})::UINTEGER`),
    col(9, 'c_ubigint', `(${pick(['0', '18446744073709551615'], `${h(9)}`)})::UBIGINT`),
    col(10, 'c_float', `(${pick(["'NaN'::FLOAT", "'inf'::FLOAT", "'-inf'::FLOAT", "'-0.0'::FLOAT", '3.4028235e38::FLOAT', '1.4e-45::FLOAT'],
      `((${h(10)} % 2000001)::DOUBLE / 1000 - 1000)::FLOAT`)})::FLOAT`),
    col(11, 'c_double', `(${pick(["'NaN'::DOUBLE", "'inf'::DOUBLE", "'-inf'::DOUBLE", "'-0.0'::DOUBLE", '1.7976931348623157e308', '5e-324'],
      `(${h(11)}::DOUBLE / 1e9 - 9.2e9)`)})::DOUBLE`),
    col(12, 'c_dec4_2', `((${pick(['9999', '-9999', '0'], `(${h(12)} % 19999)::INTEGER - 9999`)})::INTEGER * 0.01)::DECIMAL(4,2)`),
    col(13, 'c_dec18_6', `(${pick(["'999999999999.999999'", "'-999999999999.999999'", "'0.000001'"],
      `(CASE WHEN ${h(13)} % 2 = 0 THEN '-' ELSE '' END) || ((${h(13)} >> 1) % 1000000000000)::VARCHAR || '.' || lpad(((${h(13)} >> 41) % 1000000)::VARCHAR, 6, '0')`)})::DECIMAL(18,6)`),
    col(14, 'c_dec38_10', `(${pick([`'${'9'.repeat(28)}.${'9'.repeat(10)}'`, `'-${'9'.repeat(28)}.${'9'.repeat(10)}'`, "'-0.0000000001'"],
      `(CASE WHEN ${h(14)} % 2 = 0 THEN '-' ELSE '' END) || ((${h(14)} >> 1) % 100000000000000)::VARCHAR || lpad((${h(15)} % 100000000000000)::VARCHAR, 14, '0') || '.' || lpad((${h(16)} % 10000000000)::VARCHAR, 10, '0')`)})::DECIMAL(38,10)`),
    col(15, 'c_varchar', pick(["''", "'héllo wörld ✓ 𝄞 日本語'", `'a,"b"' || chr(10) || 'c' || chr(13) || chr(10) || 'd'`,
      "CASE WHEN i % 5 = 0 THEN repeat('long-', 100) ELSE '' END || s::VARCHAR", "'tab' || chr(9) || 'back\\slash'"], `'str-' || (${h(17)} % 1000000000)::VARCHAR`)),
    col(16, 'c_blob', pick(["''::BLOB", "'\\x00\\xFF\\x00'::BLOB"], `unhex(left(md5(s::VARCHAR), 2 * (${h(18)} % 17)::INTEGER))`)),
    col(17, 'c_date', pick(["DATE '0001-01-01'", "DATE '9999-12-31'", "DATE '1969-12-31'", "DATE '1970-01-01'"],
      `DATE '1970-01-01' + ((${h(19)} % 200000)::INTEGER - 100000)`)),
    col(18, 'c_time', pick(["TIME '00:00:00'", "TIME '23:59:59.999999'"], `TIME '00:00:00' + to_microseconds((${h(20)} % 86400000000)::BIGINT)`)),
    col(19, 'c_timestamp', pick(["TIMESTAMP '1969-12-31 23:59:59.999999'", "TIMESTAMP '1970-01-01 00:00:00'", "TIMESTAMP '1677-09-22 00:00:00'"],
      `TIMESTAMP '1970-01-01' + to_microseconds((${h(21)} % 6311520000000000)::BIGINT - 3155760000000000)`)),
    col(20, 'c_timestamp_s', `(TIMESTAMP '1970-01-01' + to_seconds((${h(22)} % 6311520000)::BIGINT - 3155760000))::TIMESTAMP_S`),
    col(21, 'c_timestamp_ms', `(${pick(["TIMESTAMP '1969-12-31 23:59:59.999'"],
      `TIMESTAMP '1970-01-01' + to_milliseconds((${h(23)} % 6311520000000)::BIGINT - 3155760000000)`)})::TIMESTAMP_MS`),
    col(22, 'c_timestamp_ns', pick(['make_timestamp_ns(-1::BIGINT)', 'make_timestamp_ns(0::BIGINT)'],
      `make_timestamp_ns(((${h(24)} % 18000000000000000000)::HUGEINT - 9000000000000000000)::BIGINT)`)),
    col(23, 'c_timestamptz', `(TIMESTAMP '1970-01-01' + to_microseconds((${h(25)} % 6311520000000000)::BIGINT - 3155760000000000))::TIMESTAMPTZ`),
    col(24, 'c_uuid', pick(["'00000000-0000-0000-0000-000000000000'::UUID", "'ffffffff-ffff-ffff-ffff-ffffffffffff'::UUID"],
      `md5(s::VARCHAR || 'u')::UUID`)),
    col(25, 'c_json', `CASE WHEN s % 3 = 0 THEN json_object('k', s, 'u', 'é"x') ELSE json_array(s % 3) END::JSON`),
    col(26, 'c_enum', `(['sad', 'ok', 'happy'][(${h(26)} % 3)::INTEGER + 1])::mood`),
  ];
  return `SELECT ${cols.join(',\n  ')} FROM range(${n}) t(i), LATERAL (SELECT ${lowCard ? 'i % 37' : 'i'} AS s) _`;
}

function nestedSelect(n, lowCard) {
  const s = lowCard ? '(i % 37)' : 'i';
  // Shape of a list by row: null, empty, one element, several with a null element, several.
  const len = (k) => `(CASE ${s} % 5 WHEN 1 THEN 0 WHEN 2 THEN 1 ELSE ((${s} + ${k}) % 6) + 2 END)`;
  const isNullList = (k) => `i % 11 = ${k % 11} OR i % 101 = 7`;
  const list = (k, elem) => `CASE WHEN ${isNullList(k)} THEN NULL ELSE list_transform(range(${len(k)}), lambda x: ${elem}) END`;
  const nullElem = (k, e) => `CASE WHEN (x + ${s} + ${k}) % 7 = 3 THEN NULL ELSE ${e} END`;
  const cols = [
    'i::INTEGER AS row_id',
    `${list(1, nullElem(1, `((${s} * 31 + x * 7) % 1000)::INTEGER`))} AS l_int`,
    `${list(2, nullElem(2, `'e' || (${s} * 13 + x)::VARCHAR`))} AS l_str`,
    // list of lists: inner lists are null, empty or short
    `${list(3, `CASE (x + ${s}) % 4 WHEN 0 THEN NULL WHEN 1 THEN []::INTEGER[] ELSE list_transform(range((x + ${s}) % 3 + 1), lambda y: CASE WHEN y = 1 AND ${s} % 2 = 0 THEN NULL ELSE (y * 10 + x)::INTEGER END) END`)}::INTEGER[][] AS l_l`,
    `CASE WHEN i % 11 = 4 OR i % 101 = 7 THEN NULL ELSE {'a': CASE WHEN ${s} % 3 = 0 THEN NULL ELSE (${s} * 3)::INTEGER END, 'b': CASE WHEN ${s} % 4 = 1 THEN NULL ELSE 'b' || ${s}::VARCHAR END} END AS st`,
    `CASE WHEN i % 11 = 5 OR i % 101 = 7 THEN NULL ELSE {'id': ${s}::BIGINT, 'tags': ${list(6, nullElem(6, `'t' || x::VARCHAR`))}} END AS st_l`,
    `${list(7, `CASE WHEN (x + ${s}) % 5 = 4 THEN NULL ELSE {'x': CASE WHEN x = 1 THEN NULL ELSE (x + ${s})::INTEGER END, 'y': 'y' || x::VARCHAR} END`)} AS l_st`,
    `CASE WHEN i % 11 = 8 OR i % 101 = 7 THEN NULL ELSE map_from_entries(list_transform(range(${len(8)}), lambda x: {'k': 'k' || x::VARCHAR, 'v': ${nullElem(8, `(${s} + x)::INTEGER`)}})) END AS m`,
    `CASE WHEN i % 11 = 9 OR i % 101 = 7 THEN NULL ELSE map_from_entries(list_transform(range(${len(9)}), lambda x: {'k': 'key' || x::VARCHAR, 'v': CASE WHEN (x + ${s}) % 6 = 5 THEN NULL ELSE {'p': (${s} + x) / 8.0, 'q': (x + ${s}) % 2 = 0} END})) END AS m_st`,
    `CASE WHEN i % 11 = 10 OR i % 101 = 7 THEN NULL ELSE {'inner': CASE WHEN ${s} % 9 = 2 THEN NULL ELSE {'v': ${s}::INTEGER, 'w': ${list(10, `x::INTEGER`)}} END, 'z': ${s} % 2 = 0} END AS deep`,
  ];
  return `SELECT ${cols.join(',\n  ')} FROM range(${n}) t(i)`;
}

// A table of single-row SELECTs glued with UNION ALL: DuckDB flushes a row group per input chunk once
// ROW_GROUP_SIZE is reached, and each UNION ALL branch is its own chunk, so ROW_GROUP_SIZE 1 gives 1-row groups.
function oneRowGroups(select, n) {
  return Array.from({ length: n }, (_, k) => `SELECT * FROM (${select}) WHERE row_id = ${k}`).join('\nUNION ALL\n');
}

// name, table, rows, options (COPY options besides FORMAT), lowCard
const files = [];
for (const v of ['v1', 'v2']) {
  for (const c of CODECS) {
    files.push({ name: `types_${c}_${v}`, table: 'types', rows: 10000, opts: { COMPRESSION: c, PARQUET_VERSION: v } });
    files.push({ name: `nested_${c}_${v}`, table: 'nested', rows: 10000, opts: { COMPRESSION: c, PARQUET_VERSION: v } });
  }
  for (const t of ['types', 'nested']) {
    files.push({ name: `${t}_dict_${v}`, table: t, rows: 10000, lowCard: true, opts: { PARQUET_VERSION: v } });
    files.push({ name: `${t}_plain_${v}`, table: t, rows: 10000, opts: { PARQUET_VERSION: v, DICTIONARY_SIZE_LIMIT: 1 } });
  }
}
for (const t of ['types', 'nested']) {
  files.push({ name: `${t}_rows0`, table: t, rows: 0, opts: {} });
  files.push({ name: `${t}_rows1`, table: t, rows: 1, opts: {} });
  files.push({ name: `${t}_rg1`, table: t, rows: 25, rg1: true, opts: { ROW_GROUP_SIZE: 1 } });
  files.push({ name: `${t}_rg1000_v2`, table: t, rows: 10000, opts: { ROW_GROUP_SIZE: 1000, PARQUET_VERSION: 'v2', COMPRESSION: 'zstd' } });
}
// A larger row group (120000 rows); field ids and footer key-value metadata.
files.push({ name: 'types_big', table: 'types', rows: 120000, cols: 'row_id, c_bigint, c_varchar, c_bool', opts: { COMPRESSION: 'zstd' } });
files.push({ name: 'types_fieldids_kv', table: 'types', rows: 100, opts: { FIELD_IDS: "'auto'", KV_METADATA: "{origin: 'hoodie-matrix', note: 'kv ✓'}" } });

const args = process.argv.slice(2);
if (args[0] === '--list') {
  for (const f of files) process.stdout.write(f.name + '.parquet\n');
  process.exit(0);
}
if (args.length !== 1) {
  process.stderr.write('usage: node gen_matrix.mjs OUTDIR | --list\n');
  process.exit(2);
}
const outdir = args[0];
mkdirSync(outdir, { recursive: true });
const con = await openDuck({ threads: 1 });
await con.run("CREATE TYPE mood AS ENUM ('sad', 'ok', 'happy')");
for (const f of files) {
  let sel = f.table === 'types' ? typesSelect(f.rows, f.lowCard) : nestedSelect(f.rows, f.lowCard);
  if (f.rg1) sel = oneRowGroups(sel, f.rows);
  if (f.cols) sel = `SELECT ${f.cols} FROM (${sel})`;
  const opts = Object.entries(f.opts).map(([k, v]) => `, ${k} ${typeof v === 'number' || /^['{]/.test(v) ? v : lit(v)}`).join('');
  const path = join(outdir, f.name + '.parquet');
  try {
    await con.run(`COPY (${sel}) TO ${lit(path)} (FORMAT parquet${opts})`);
  } catch (e) {
    process.stderr.write(`gen_matrix: ${f.name}: ${e.message}\n`);
    process.exit(1);
  }
  process.stdout.write(path + '\n');
}
