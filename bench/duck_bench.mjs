// The DuckDB side of `make bench` (single-threaded: SET threads=1), and the dataset.
//   node duck_bench.mjs data DATADIR ROWS          make DATADIR/people_<ROWS>.parquet if missing (DuckDB, snappy);
//                                                  prints its path
//   node duck_bench.mjs run CASE DATA.parquet      time one case; prints `duckdb_s=<s> duckdb_rss_mb=<mb> check=<c>`
//   node duck_bench.mjs checksum FILE.parquet      prints `check=<c>` (the parquet_scan aggregates of FILE)
//   node duck_bench.mjs verify-gen TSV START COUNT exit 0 iff TSV (bench_gen output) = rows START.. of the dataset
//   node duck_bench.mjs csv DATA.parquet ROWS      make the write benchmarks' CSV inputs next to DATA if missing:
//                                                  people_<ROWS>.csv (the dataset) and upsert_<ROWS>.csv (every
//                                                  10th row updated: name + ' Jr', ts + 1; then ROWS/50 new rows);
//                                                  prints both paths and `upsert_check=<c>` (the table after it)
//   node duck_bench.mjs run bulk_insert PEOPLE.csv OUTDIR
//   node duck_bench.mjs run cow_upsert DIR UPSERT.csv OUTDIR
//   node duck_bench.mjs checksum-dir DIR           `check=<c>` of every Parquet file under DIR
// Cases: parquet_write (COPY of an in-memory table of the dataset to snappy Parquet; only the COPY is timed),
//        parquet_scan (read the file with every column of every row materialized: the checksum aggregates),
//        bulk_insert (the CSV to Parquet partitioned by partition_path: COPY ... (PARTITION_BY partition_path)),
//        cow_upsert (the partitioned table rewritten with the upsert batch: anti-join of the old rows on id, union
//        the batch, COPY partitioned again).
//        lsm_compaction DIR (merge the files of bench_lsm build: UNION ALL, the newest version per key by
//        row_number(), sorted by key, COPY to snappy Parquet), point_lookup FILE KEY (best of 5, in process),
//        mor_snapshot_read DIR, compaction DIR, csv_export DIR and jsonl_export DIR (the MOR case directory of
//        run.sh: base file + update batches; the newest version per key by ts; aggregated / written to snappy
//        Parquet / written as CSV with a header / as JSON lines).
//   node duck_bench.mjs mor-data DATA.parquet DIR  the MOR cases' update batches (see below), prints their paths
// RSS is process.resourceUsage().maxRSS: the whole node process, peak over its life (one process per case).
import { mkdirSync, existsSync, renameSync, rmSync, readdirSync } from 'node:fs';
import { join, dirname } from 'node:path';
import { fileURLToPath } from 'node:url';
import { createRequire } from 'node:module';

// The DuckDB binding lives with the test oracle.
const here = dirname(fileURLToPath(import.meta.url));
const require = createRequire(join(here, '..', 'tests', 'oracle', 'package.json'));
const { DuckDBInstance } = await import(require.resolve('@duckdb/node-api'));

const FIRST = ['Alice', 'Bob', 'Carla', 'Dmitri', 'Elena', 'Farid', 'Grace', 'Hiro', 'Ines', 'Jonas', 'Kofi', 'Lena',
  'Mateo', 'Nora', 'Omar', 'Priya'];
const LAST = ['Smith', 'Moreau', 'Tanaka', 'Okafor', 'Silva', 'Novak', 'Haddad', 'Larsen', 'Kowalski', 'Rossi',
  'Nguyen', 'Fischer', 'Garcia', 'Ivanova', 'Dubois', 'Park'];
const STREET = ['Maple', 'Oak', 'Cedar', 'Elm', 'Willow', 'Birch', 'Chestnut', 'Aspen', 'Harbor', 'Mill', 'Station',
  'Church', 'Market', 'River', 'Garden', 'Hill'];
const SUFFIX = ['Street', 'Avenue', 'Road', 'Lane'];
const CITY = ['Springfield', 'Riverton', 'Lakeside', 'Fairview', 'Greenville', 'Bristol', 'Clayton', 'Ashford',
  'Milton', 'Newport', 'Salem', 'Dover', 'Kingston', 'Oakridge', 'Brighton', 'Hudson'];
const STATE = ['NY', 'CA', 'TX', 'WA', 'IL', 'MA', 'OR', 'CO'];
const DAY = ['Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday', 'Sunday'];
const L = (a) => '[' + a.map(s => `'${s}'`).join(', ') + ']';

// The dataset: the same formula as bench/bench_gen.h, row i from range(start, start + rows).
export function datasetSql(start, rows) {
  return `SELECT lpad(i::VARCHAR, 8, '0') AS id,
    ${L(FIRST)}[h1 % 16 + 1] || ' ' || ${L(LAST)}[(h1 >> 8) % 16 + 1] AS name,
    ((h1 >> 16) % 80 + 18)::INTEGER AS age,
    (h2 % 9000 + 1000)::VARCHAR || ' ' || ${L(STREET)}[(h2 >> 13) % 16 + 1] || ' ' || ${L(SUFFIX)}[(h2 >> 17) % 4 + 1]
      || ', ' || ${L(CITY)}[h3 % 16 + 1] || ' ' || ${L(STATE)}[(h1 >> 24) % 8 + 1] || ' ' || ((h3 >> 8) % 90000 + 10000)::VARCHAR AS address,
    ${L(DAY)}[(h3 >> 20) % 7 + 1] AS partition_path,
    (1700000000000 + i * 1000 + h3 % 1000)::BIGINT AS ts
  FROM (SELECT i, (i * 2654435761 + 1013904223) % 4294967296 AS h1, (i * 2246822519 + 3266489917) % 4294967296 AS h2,
               (i * 3266489917 + 668265263) % 4294967296 AS h3
        FROM range(${start}, ${start + rows}) t(i))`;
}

const MOR_LOGS = 5, MOR_TS = [2, 5, -1, 3, 4];
// An export of the dataset's six columns (csv with a header, or JSON lines) as a relation of their types.
const EXPORT_COLS = "{'id': 'VARCHAR', 'name': 'VARCHAR', 'age': 'INTEGER', 'address': 'VARCHAR', " +
                    "'partition_path': 'VARCHAR', 'ts': 'BIGINT'}";
const EXPORT_READ = (fmt, path) => fmt === 'csv' ? `read_csv(${lit(path)}, header = true, columns = ${EXPORT_COLS})`
  : `read_json(${lit(path)}, format = 'newline_delimited', columns = ${EXPORT_COLS})`;
const CHECK_SQL = (rel) => `SELECT count(*) || ',' || sum(length(id)) || ',' || sum(length(name)) || ',' ||
  sum(age) || ',' || sum(length(address)) || ',' || sum(length(partition_path)) || ',' || sum(ts) FROM ${rel}`;
const lit = (s) => "'" + String(s).replace(/'/g, "''") + "'";

async function connect() {
  const inst = await DuckDBInstance.create(':memory:');
  const con = await inst.connect();
  await con.run('SET threads=1');
  await con.run("SET TimeZone='UTC'");
  return con;
}
const scalar = async (con, sql) => (await con.runAndReadAll(sql)).getRowsJS()[0][0];
const rssMb = () => (process.resourceUsage().maxRSS / 1024).toFixed(1);

const [cmd, ...args] = process.argv.slice(2);
const con = await connect();
if (cmd === 'data') {
  const [dir, rowsArg] = args;
  const rows = Number(rowsArg || 10000000);
  mkdirSync(dir, { recursive: true });
  const path = join(dir, `people_${rows}.parquet`);
  if (!existsSync(path)) {
    const tmp = path + '.tmp';
    await con.run(`COPY (${datasetSql(0, rows)}) TO ${lit(tmp)} (FORMAT parquet, COMPRESSION snappy)`);
    renameSync(tmp, path);
  }
  process.stdout.write(path + '\n');
} else if (cmd === 'checksum') {
  process.stdout.write(`check=${await scalar(con, CHECK_SQL(`read_parquet(${lit(args[0])})`))}\n`);
} else if (cmd === 'csv') {
  const [data, rowsArg] = args;
  const rows = Number(rowsArg);
  const people = join(dirname(data), `people_${rows}.csv`), upsert = join(dirname(data), `upsert_${rows}.csv`);
  if (!existsSync(people)) {
    await con.run(`COPY (SELECT * FROM read_parquet(${lit(data)})) TO ${lit(people + '.tmp')} (HEADER, FORMAT csv)`);
    renameSync(people + '.tmp', people);
  }
  if (!existsSync(upsert)) {
    await con.run(`COPY (SELECT id, name || ' Jr' AS name, age, address, partition_path, ts + 1 AS ts
                         FROM read_parquet(${lit(data)}) WHERE id::BIGINT % 10 = 0
                         UNION ALL (${datasetSql(rows, Math.floor(rows / 50))}))
                   TO ${lit(upsert + '.tmp')} (HEADER, FORMAT csv)`);
    renameSync(upsert + '.tmp', upsert);
  }
  const after = `(SELECT * FROM read_parquet(${lit(data)}) WHERE id NOT IN (SELECT id FROM read_csv(${lit(upsert)}, all_varchar = true))
                  UNION ALL SELECT * FROM read_csv(${lit(upsert)}, columns = {'id': 'VARCHAR', 'name': 'VARCHAR',
                  'age': 'INTEGER', 'address': 'VARCHAR', 'partition_path': 'VARCHAR', 'ts': 'BIGINT'}))`;
  process.stdout.write(`${people}\n${upsert}\nupsert_check=${await scalar(con, CHECK_SQL(after))}\n`);
} else if (cmd === 'mor-data') {
  // DATA.parquet DIR ROWS: the MOR cases' update batches DIR/upd_<j>.parquet, j = 1..MOR_LOGS: about ROWS/10
  // rows each (DuckDB's hash(i, j) picks them, independently per batch, so some keys are in several), name + ' v<j>',
  // age + j, ts + MOR_TS[j-1]: log 3 loses to the base, log 2 wins over logs 4, 5 and 1 (event-time ordering).
  const [data, dir] = args;
  mkdirSync(dir, { recursive: true });
  for (let j = 1; j <= MOR_LOGS; j++) {
    const out = join(dir, `upd_${j}.parquet`);
    if (existsSync(out)) continue;
    await con.run(`COPY (SELECT id, name || ' v${j}' AS name, age + ${j} AS age, address, partition_path,
                         ts + ${MOR_TS[j - 1]} AS ts FROM read_parquet(${lit(data)}) WHERE hash(id, ${j}) % 10 = 0)
                   TO ${lit(out + '.tmp')} (FORMAT parquet, COMPRESSION snappy)`);
    renameSync(out + '.tmp', out);
  }
  for (let j = 1; j <= MOR_LOGS; j++) process.stdout.write(join(dir, `upd_${j}.parquet`) + '\n');
} else if (cmd === 'checksum-csv' || cmd === 'checksum-jsonl') {
  // a CSV (with a header) or JSON lines of the dataset's six columns (hoodie read --format csv|jsonl, DuckDB's COPY)
  process.stdout.write(`check=${await scalar(con, CHECK_SQL(EXPORT_READ(cmd === 'checksum-csv' ? 'csv' : 'jsonl', args[0])))}\n`);
} else if (cmd === 'checksum-dir') {
  process.stdout.write(`check=${await scalar(con, CHECK_SQL(`read_parquet(${lit(args[0] + '/**/*.parquet')}, hive_partitioning = false)`))}\n`);
} else if (cmd === 'run') {
  const [name, data] = args;
  let t0, t1, check = '';
  const CSV_COLS = `columns = ${EXPORT_COLS}`;
  if (name === 'bulk_insert') {
    const out = args[2];
    rmSync(out, { recursive: true, force: true });
    t0 = process.hrtime.bigint();
    await con.run(`COPY (SELECT * FROM read_csv(${lit(data)}, header = true, ${CSV_COLS}))
                   TO ${lit(out)} (FORMAT parquet, COMPRESSION snappy, PARTITION_BY partition_path)`);
    t1 = process.hrtime.bigint();
    check = await scalar(con, CHECK_SQL(`read_parquet(${lit(out + '/**/*.parquet')}, hive_partitioning = true)`));
  } else if (name === 'cow_upsert') {
    const [, , upsert, out] = args;
    rmSync(out, { recursive: true, force: true });
    t0 = process.hrtime.bigint();
    await con.run(`CREATE TEMP TABLE upd AS SELECT * FROM read_csv(${lit(upsert)}, header = true, ${CSV_COLS})`);
    await con.run(`COPY (SELECT id, name, age, address, partition_path, ts
                         FROM read_parquet(${lit(data + '/**/*.parquet')}, hive_partitioning = true) o
                         WHERE NOT EXISTS (SELECT 1 FROM upd WHERE upd.id = o.id)
                         UNION ALL SELECT * FROM upd)
                   TO ${lit(out)} (FORMAT parquet, COMPRESSION snappy, PARTITION_BY partition_path)`);
    t1 = process.hrtime.bigint();
    check = await scalar(con, CHECK_SQL(`read_parquet(${lit(out + '/**/*.parquet')}, hive_partitioning = true)`));
    rmSync(out, { recursive: true, force: true });
  } else if (name === 'parquet_write') {
    await con.run(`CREATE TABLE people AS SELECT * FROM read_parquet(${lit(data)})`);
    const out = join(dirname(data), `duck_write_${process.pid}.parquet`);
    t0 = process.hrtime.bigint();
    await con.run(`COPY people TO ${lit(out)} (FORMAT parquet, COMPRESSION snappy)`);
    t1 = process.hrtime.bigint();
    check = await scalar(con, CHECK_SQL(`read_parquet(${lit(out)})`));
    rmSync(out, { force: true });
  } else if (name === 'parquet_scan') {
    t0 = process.hrtime.bigint();
    check = await scalar(con, CHECK_SQL(`read_parquet(${lit(data)})`));
    t1 = process.hrtime.bigint();
  } else if (name === 'lsm_compaction') {
    // DATA is the directory of bench_lsm build: base.parquet, log_01.parquet ...; the latest version of each key
    // (the highest source number) wins, written sorted by key, as hoodie's FULL compaction does.
    const files = readdirSync(data).filter(f => /^(base|log_\d+)\.parquet$/.test(f)).sort();
    const rel = files.map((f, k) => `SELECT *, ${k} AS src FROM read_parquet(${lit(join(data, f))})`).join(' UNION ALL ');
    const out = join(data, `duck_compact_${process.pid}.parquet`);
    t0 = process.hrtime.bigint();
    await con.run(`COPY (SELECT * EXCLUDE (src) FROM (${rel}) QUALIFY row_number() OVER
      (PARTITION BY _hoodie_record_key ORDER BY src DESC) = 1 ORDER BY _hoodie_record_key)
      TO ${lit(out)} (FORMAT parquet, COMPRESSION snappy)`);
    t1 = process.hrtime.bigint();
    check = await scalar(con, CHECK_SQL(`read_parquet(${lit(out)})`));
    rmSync(out, { force: true });
  } else if (name === 'mor_snapshot_read' || name === 'compaction' || name === 'csv_export' ||
             name === 'jsonl_export') {
    // DATA is the MOR case directory (bench/run.sh): table/ with one file group (its base file) and the update
    // batches upd_<j>.parquet that hoodie wrote to the table as log files. The newest version of each key is the
    // one with the highest ts (event-time ordering); mor_snapshot_read aggregates it as parquet_scan does,
    // compaction writes it to snappy Parquet. Only the dataset's six columns (no Hudi meta columns).
    const base = readdirSync(join(data, 'table')).filter(f => f.endsWith('.parquet'));
    if (base.length !== 1) throw new Error(`${data}/table: expected one base file, found ${base.length}`);
    const cols = 'id, name, age, address, partition_path, ts';
    const rel = [join(data, 'table', base[0]), ...readdirSync(data).filter(f => /^upd_\d+\.parquet$/.test(f)).sort()
      .map(f => join(data, f))].map(f => `SELECT ${cols} FROM read_parquet(${lit(f)})`).join(' UNION ALL ');
    const merged = `(SELECT * FROM (${rel}) QUALIFY row_number() OVER (PARTITION BY id ORDER BY ts DESC) = 1)`;
    if (name === 'mor_snapshot_read') {
      t0 = process.hrtime.bigint();
      check = await scalar(con, CHECK_SQL(merged));
      t1 = process.hrtime.bigint();
    } else if (name === 'csv_export' || name === 'jsonl_export') {
      const fmt = name === 'csv_export' ? 'csv' : 'jsonl';
      const out = join(data, `duck_export_${process.pid}.${fmt}`);
      t0 = process.hrtime.bigint();
      await con.run(`COPY ${merged} TO ${lit(out)} (${fmt === 'csv' ? 'FORMAT csv, HEADER true' : 'FORMAT json'})`);
      t1 = process.hrtime.bigint();
      check = await scalar(con, CHECK_SQL(EXPORT_READ(fmt, out)));
      rmSync(out, { force: true });
    } else {
      const out = join(data, `duck_compact_${process.pid}.parquet`);
      t0 = process.hrtime.bigint();
      await con.run(`COPY ${merged} TO ${lit(out)} (FORMAT parquet, COMPRESSION snappy)`);
      t1 = process.hrtime.bigint();
      check = await scalar(con, CHECK_SQL(`read_parquet(${lit(out)})`));
      rmSync(out, { force: true });
    }
  } else if (name === 'point_lookup') {
    // DATA is a file; KEY the record key: DuckDB's time to the row (row-group statistics prune the scan)
    const key = args[2];
    let best = null;
    for (let r = 0; r < 5; r++) {
      const a = process.hrtime.bigint();
      check = String(await scalar(con, `SELECT count(*) || ',' || coalesce(max(ts), 0) FROM read_parquet(${lit(data)})
        WHERE _hoodie_record_key = ${lit(key)}`));
      const b = process.hrtime.bigint();
      if (best === null || b - a < best) best = b - a;
    }
    t0 = 0n; t1 = best;
  } else {
    process.stderr.write(`duck_bench: unknown case ${name}\n`);
    process.exit(2);
  }
  process.stdout.write(`duckdb_s=${(Number(t1 - t0) / 1e9).toFixed(3)} duckdb_rss_mb=${rssMb()} check=${check}\n`);
} else if (cmd === 'verify-gen') {
  const [tsv, start, count] = args.map((x, k) => k ? Number(x) : x);
  const rel = `read_csv(${lit(tsv)}, delim='\t', header=false, quote='', escape='', columns={'id': 'VARCHAR',
    'name': 'VARCHAR', 'age': 'INTEGER', 'address': 'VARCHAR', 'partition_path': 'VARCHAR', 'ts': 'BIGINT'})`;
  const n = await scalar(con, `SELECT count(*) FROM ${rel}`);
  const diff = await scalar(con, `SELECT count(*) FROM ((SELECT * FROM ${rel} EXCEPT ALL ${datasetSql(start, count)})
    UNION ALL (${datasetSql(start, count)} EXCEPT ALL SELECT * FROM ${rel}))`);
  if (Number(n) !== count || diff !== 0n) {
    process.stdout.write(`bench_gen differs from the SQL dataset: ${n} rows (expected ${count}), ${diff} differing\n`);
    const r = (await con.runAndReadAll(`SELECT * FROM ${rel} EXCEPT ALL ${datasetSql(start, count)} LIMIT 3`)).getRowsJS();
    const s = (await con.runAndReadAll(`${datasetSql(start, count)} EXCEPT ALL SELECT * FROM ${rel} LIMIT 3`)).getRowsJS();
    const j = (x) => JSON.stringify(x, (k, v) => typeof v === 'bigint' ? v.toString() : v);
    for (const x of r) process.stdout.write(`  C only:   ${j(x)}\n`);
    for (const x of s) process.stdout.write(`  SQL only: ${j(x)}\n`);
    process.exit(1);
  }
  process.stdout.write(`bench_gen = SQL dataset for rows ${start}..${start + count - 1}\n`);
} else {
  process.stderr.write('usage: node duck_bench.mjs data DIR ROWS | run CASE DATA | checksum FILE | verify-gen TSV START COUNT\n');
  process.exit(2);
}
