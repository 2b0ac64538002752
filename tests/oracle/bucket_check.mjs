// Check that every row of a bucket-index table lives in its bucket's file group.
//   node bucket_check.mjs FILE.parquet BUCKETS [HASH_FIELD,...]
// FILE.parquet: the table as read (with _hoodie_record_key, _hoodie_partition_path and _hoodie_file_name).
// The bucket of a key, as Hudi's BucketIdentifier computes it: the hash fields' values taken from the record key
// (a complex key "f1:v1,f2:v2" gives the values of the named fields; a simple key is its own value), then
// (Java List.hashCode of those strings & 0x7fffffff) % BUCKETS, String.hashCode over UTF-16 code units.
// The file group's bucket is the number its file id begins with (8 digits). Also: one file group per bucket and
// partition. Prints "ok ..." or "FAIL ..." lines.
import { DuckDBInstance } from '@duckdb/node-api';

const [file, nArg, fieldsArg] = process.argv.slice(2);
const n = Number(nArg);
const fields = fieldsArg ? fieldsArg.split(',') : [];

function javaStringHash(s) {
  let h = 0;
  for (let i = 0; i < s.length; i++) h = (Math.imul(h, 31) + s.charCodeAt(i)) | 0;
  return h;
}
function hashValues(key) {
  if (!fields.length || !key.includes(':')) return [key];
  const parts = {};
  for (const kv of key.split(',')) {
    const i = kv.indexOf(':');
    parts[kv.slice(0, i)] = kv.slice(i + 1);
  }
  return fields.map(f => {
    const v = parts[f];
    return v === '__null__' ? null : v === '__empty__' ? '' : v;
  });
}
function bucketOf(key) {
  let h = 1;
  for (const v of hashValues(key)) h = (Math.imul(h, 31) + (v === null ? 0 : javaStringHash(v))) | 0;
  return (h & 0x7fffffff) % n;
}

const inst = await DuckDBInstance.create(':memory:');
const con = await inst.connect();
const rows = (await con.runAndReadAll(
  `SELECT _hoodie_record_key, _hoodie_partition_path, _hoodie_file_name FROM '${file}'`)).getRowsJS();
let bad = 0;
const groups = new Map(); // partition/bucket -> file group id
for (const [key, part, name] of rows) {
  const fid = name.replace(/^\./, '').split('_')[0];
  const b = Number(fid.slice(0, 8));
  if (!/^\d{8}-/.test(fid) || b !== bucketOf(key)) {
    if (bad++ < 5) console.log(`FAIL key ${key} (bucket ${bucketOf(key)}) is in file ${name}`);
    continue;
  }
  const slot = `${part}/${b}`;
  if (groups.has(slot) && groups.get(slot) !== fid) {
    if (bad++ < 5) console.log(`FAIL bucket ${b} of partition '${part}' has two file groups: ${groups.get(slot)}, ${fid}`);
  }
  groups.set(slot, fid);
}
if (!rows.length) console.log('FAIL no rows');
else if (!bad) console.log(`ok ${rows.length} rows in ${groups.size} bucket file groups`);
