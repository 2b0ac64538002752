// The DuckDB side of tests/compat/write_sequences.sh: the input CSVs of a write sequence, and the table state that
// each step leaves, computed in SQL from those CSVs alone (never through hoodie).
//
//   node write_seq.mjs gen DIR
//       writes DIR/s1.csv .. DIR/s5.csv (bulk_insert, upsert, delete, insert_overwrite, upsert), the same as .jsonl
//       and .parquet, and DIR/steps (OP NAME lines)
//   node write_seq.mjs check KEYGEN HIVE MANIFEST [nometa]
//       MANIFEST lines: "OP NAME INSTANT ACTUAL.parquet" (ACTUAL: hoodie read --as-of INSTANT of the table); the
//       expected states are computed from NAME.csv whatever the format the table was written from;
//       prints "ok STEP" or "FAIL STEP: ..." per line.
//       With CDC_JSONL set (hoodie read --query cdc --format jsonl of the table, every commit), each step's changes
//       are checked too: "i" for a key the step brought, "u" (before and after) for a key whose stored row the step
//       replaced, "d" for a key that is gone; insert_overwrite deletes every row of the partitions it writes and
//       inserts its rows. Prints "ok cdc STEP" or "FAIL cdc STEP: ...".
//
// Merge rules (Hudi's event-time ordering): within a batch, one row per key, the larger ts wins, ties to the later
// row; against the table, the incoming row wins when its ts is larger or equal; deletes remove; insert_overwrite
// replaces every partition its rows touch. The expected meta columns: _hoodie_commit_time is the instant of the
// write whose row won, _hoodie_record_key and _hoodie_partition_path as the key generator forms them, and
// _hoodie_commit_seqno begins with the commit time and '_'. With `nometa` (a table without meta fields) both are
// null; the record key and partition path are the ones readers form from the key fields.
import { openDuck, lit } from './lib.mjs';
import { writeFileSync } from 'node:fs';

const [cmd, ...args] = process.argv.slice(2);
const con = await openDuck({ threads: 1 });

const COLS = 'id BIGINT, name VARCHAR, city VARCHAR, region VARCHAR, ts BIGINT, amount DOUBLE, event_ms BIGINT';
// every partition field is a function of id, so a key never changes partition
const derived = (ts, name) => `id, ${name} AS name, ['sf','la','ny'][id % 3 + 1] AS city,
  ['east','west'][id % 2 + 1] AS region, ${ts}::BIGINT AS ts, id * 1.5 AS amount,
  1700000000000 + (id % 4) * 86400000 AS event_ms`;

async function copy(sql, path) { await con.run(`COPY (${sql}) TO ${lit(path)} (HEADER, DELIMITER ',')`); }

if (cmd === 'gen') {
  const d = args[0];
  await copy(`SELECT ${derived('100', "'n' || id || '_v1'")} FROM range(1, 301) t(id)`, `${d}/s1.csv`);
  await copy(`SELECT * EXCLUDE (o) FROM (
      SELECT 1 AS o, ${derived('200', "'n' || id || '_v2new'")} FROM range(1, 61) t(id)
      UNION ALL SELECT 2, ${derived('50', "'n' || id || '_v2stale'")} FROM range(61, 121) t(id)
      UNION ALL SELECT 3, ${derived('100', "'n' || id || '_v2tie'")} FROM range(121, 141) t(id)
      UNION ALL SELECT 4, ${derived('300', "'n' || id || '_v2a'")} FROM range(141, 151) t(id)
      UNION ALL SELECT 5, ${derived('250', "'n' || id || '_v2b'")} FROM range(141, 151) t(id)
      UNION ALL SELECT 6, ${derived('300', "'n' || id || '_v2c'")} FROM range(151, 161) t(id)
      UNION ALL SELECT 7, ${derived('300', "'n' || id || '_v2d'")} FROM range(151, 161) t(id)
      UNION ALL SELECT 8, ${derived('100', "'n' || id || '_v2ins'")} FROM range(301, 351) t(id)
    ) ORDER BY o, id`, `${d}/s2.csv`);
  await copy(`SELECT id, city, region, event_ms FROM (SELECT ${derived('0', "''")} FROM range(10, 31) t(id)
      UNION ALL SELECT ${derived('0', "''")} FROM range(500, 506) t(id)) ORDER BY id`, `${d}/s3.csv`);
  await copy(`SELECT ${derived('50', "'n' || id || '_v4'")} FROM range(1, 401) t(id) WHERE id % 12 = 3`, `${d}/s4.csv`);
  await copy(`SELECT ${derived('150', "'n' || id || '_v5'")} FROM range(1, 401) t(id) WHERE id % 5 = 0`, `${d}/s5.csv`);
  // the same inputs as JSON lines and as Parquet
  for (const n of ['s1', 's2', 's3', 's4', 's5']) {
    const src = `read_csv(${lit(`${d}/${n}.csv`)}, header = true)`;
    await con.run(`COPY (SELECT * FROM ${src}) TO ${lit(`${d}/${n}.jsonl`)} (FORMAT json)`);
    await con.run(`COPY (SELECT * FROM ${src}) TO ${lit(`${d}/${n}.parquet`)} (FORMAT parquet)`);
  }
  writeFileSync(`${d}/steps`, 'bulk_insert s1\nupsert s2\ndelete s3\ninsert_overwrite s4\nupsert s5\n');
  process.exit(0);
}

if (cmd !== 'check') { console.error('usage: write_seq.mjs gen DIR | check KEYGEN HIVE MANIFEST'); process.exit(2); }
const [keygen, hive, manifest, flavor] = args;
const noMeta = flavor === 'nometa'; // hoodie.populate.meta.fields=false: no commit times, no sequence numbers
const h = (name, e) => hive === '1' ? `'${name}=' || ${e}` : e;
const PART = {
  simple: h('city', 'city'),
  complex: `${h('city', 'city')} || '/' || ${h('region', 'region')}`,
  nonpartitioned: "''",
  timestamp: h('event_ms', "strftime(make_timestamp(event_ms * 1000), '%Y/%m/%d')"),
}[keygen];
const KEY = keygen === 'complex' ? "'id:' || id || ',region:' || region" : 'id::VARCHAR';
if (!PART) { console.error(`unknown key generator ${keygen}`); process.exit(2); }

const { readFileSync } = await import('node:fs');
const lines = readFileSync(manifest, 'utf8').split('\n').filter(Boolean).map(l => l.split(' '));
const dir = manifest.replace(/\/[^/]*$/, '');
await con.run(`CREATE TABLE st (part VARCHAR, rkey VARCHAR, ${COLS}, commit_time VARCHAR)`);
let fails = 0;
for (const [op, csv, instant, actual] of lines) {
  const src = `read_csv(${lit(`${dir}/${csv}.csv`)}, header = true, auto_detect = false, columns = ${
    op === 'delete' ? "{'id': 'BIGINT', 'city': 'VARCHAR', 'region': 'VARCHAR', 'event_ms': 'BIGINT'}"
                    : "{'id': 'BIGINT', 'name': 'VARCHAR', 'city': 'VARCHAR', 'region': 'VARCHAR', 'ts': 'BIGINT', 'amount': 'DOUBLE', 'event_ms': 'BIGINT'}"})`;
  await con.run('CREATE OR REPLACE TEMP TABLE prev AS SELECT * FROM st');
  await con.run(`CREATE OR REPLACE TEMP TABLE raw AS SELECT *, ${PART} AS part, ${KEY} AS rkey, row_number() OVER () AS rn FROM ${src}`);
  if (op === 'delete') {
    await con.run('DELETE FROM st WHERE (part, rkey) IN (SELECT (part, rkey) FROM raw)');
  } else {
    // one row per key within the batch: larger ts, ties to the later row
    await con.run(`CREATE OR REPLACE TEMP TABLE b AS SELECT part, rkey, id, name, city, region, ts, amount, event_ms,
        ${noMeta ? 'NULL::VARCHAR' : lit(instant)} AS commit_time FROM raw QUALIFY row_number() OVER (PARTITION BY part, rkey ORDER BY ts DESC, rn DESC) = 1`);
    if (op === 'insert_overwrite') {
      await con.run('DELETE FROM st WHERE part IN (SELECT part FROM b)');
      await con.run('INSERT INTO st SELECT * FROM b');
    } else if (op === 'upsert') {
      await con.run('DELETE FROM st WHERE (part, rkey) IN (SELECT (b.part, b.rkey) FROM b JOIN st USING (part, rkey) WHERE b.ts >= st.ts)');
      await con.run('INSERT INTO st SELECT * FROM b WHERE (part, rkey) NOT IN (SELECT (part, rkey) FROM st)');
    } else { // bulk_insert, insert: no lookup
      await con.run('INSERT INTO st SELECT * FROM b');
    }
  }
  const got = `SELECT _hoodie_partition_path AS part, _hoodie_record_key AS rkey, id, name, city, region, ts, amount,
      event_ms, _hoodie_commit_time AS commit_time FROM read_parquet(${lit(actual)}, hive_partitioning = false)`;
  const diff = await con.runAndReadAll(`SELECT 'missing' AS k, * FROM (SELECT * FROM st EXCEPT ALL ${got})
      UNION ALL SELECT 'unexpected', * FROM (${got} EXCEPT ALL SELECT * FROM st) ORDER BY id, k LIMIT 6`);
  const bad = diff.getRowsJS();
  const seq = await con.runAndReadAll(`SELECT count(*) FROM read_parquet(${lit(actual)}, hive_partitioning = false)
      WHERE ${noMeta ? '_hoodie_commit_seqno IS NOT NULL' : `NOT starts_with(_hoodie_commit_seqno, _hoodie_commit_time || '_')
         OR NOT regexp_matches(_hoodie_commit_seqno, '^[0-9]{17}_[0-9]+_[0-9]+$')`}`);
  const badSeq = Number(seq.getRowsJS()[0][0]);
  const n = Number((await con.runAndReadAll('SELECT count(*) FROM st')).getRowsJS()[0][0]);
  if (bad.length || badSeq) {
    fails++;
    console.log(`FAIL ${op} ${csv} @${instant}: ${badSeq} bad sequence numbers; ${bad.map(r => r.map(String).join('|')).join('; ')}`);
  } else {
    console.log(`ok ${op} ${csv} @${instant} (${n} rows)`);
  }
  if (process.env.CDC_JSONL && !noMeta) fails += await checkCdc(op, csv, instant);
}
process.exit(fails ? 1 : 0);

// The step's changes as DuckDB derives them from the states before and after it, against hoodie's CDC rows.
async function checkCdc(op, csv, instant) {
  const img = (c, w) => `(${c}::JSON->>'$.id')::BIGINT AS ${w}id, ${c}::JSON->>'$.name' AS ${w}name, (${c}::JSON->>'$.ts')::BIGINT AS ${w}ts`;
  const got = `SELECT op, ${img('before', 'b')}, ${img('after', 'a')}
      FROM read_json(${lit(process.env.CDC_JSONL)}, columns = {'op': 'VARCHAR', 'ts_ms': 'VARCHAR', 'before': 'VARCHAR', 'after': 'VARCHAR'})
      WHERE ts_ms = ${lit(instant)}`;
  const row = (t, w) => `${t}.id AS ${w}id, ${t}.name AS ${w}name, ${t}.ts AS ${w}ts`;
  const none = w => `NULL::BIGINT AS ${w}id, NULL::VARCHAR AS ${w}name, NULL::BIGINT AS ${w}ts`;
  const want = op === 'insert_overwrite'
    ? `SELECT 'd' AS op, ${row('p', 'b')}, ${none('a')} FROM prev p WHERE p.part IN (SELECT part FROM b)
       UNION ALL SELECT 'i', ${none('b')}, ${row('s', 'a')} FROM st s WHERE s.commit_time = ${lit(instant)}`
    : `SELECT 'i' AS op, ${none('b')}, ${row('s', 'a')} FROM st s
         WHERE s.commit_time = ${lit(instant)} AND (s.part, s.rkey) NOT IN (SELECT (part, rkey) FROM prev)
       UNION ALL SELECT 'u', ${row('p', 'b')}, ${row('s', 'a')} FROM st s JOIN prev p USING (part, rkey)
         WHERE s.commit_time = ${lit(instant)}
       UNION ALL SELECT 'd', ${row('p', 'b')}, ${none('a')} FROM prev p
         WHERE (p.part, p.rkey) NOT IN (SELECT (part, rkey) FROM st)`;
  const w = `SELECT * FROM (${want})`, g = `SELECT * FROM (${got})`; /* each a single operand of EXCEPT */
  const diff = (await con.runAndReadAll(`SELECT 'missing' AS k, * FROM (${w} EXCEPT ALL ${g})
      UNION ALL SELECT 'unexpected', * FROM (${g} EXCEPT ALL ${w}) ORDER BY 3, 6, 1 LIMIT 6`)).getRowsJS();
  const n = Number((await con.runAndReadAll(`SELECT count(*) FROM (${want})`)).getRowsJS()[0][0]);
  if (diff.length) {
    console.log(`FAIL cdc ${op} ${csv} @${instant}: ${diff.map(r => r.map(String).join('|')).join('; ')}`);
    return 1;
  }
  console.log(`ok cdc ${op} ${csv} @${instant} (${n} changes)`);
  return 0;
}
