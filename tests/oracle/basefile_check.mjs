// Checks base files as Hudi's readers expect them, through DuckDB and tests/oracle/bloom.mjs only:
//   node basefile_check.mjs FILE.parquet...
// per file: DuckDB reads it; the five meta columns come first; the footer holds parquet.avro.schema (whose first
// fields are the meta columns), the bloom filter with its type code, hoodie_min_record_key and
// hoodie_max_record_key equal to the smallest and largest key; the filter answers yes for every key and is,
// byte for byte, the filter Java would build from the file's keys in file order; every record names the file in
// _hoodie_file_name (records copied from an older version too: Hudi rewrites the name). Prints "ok FILE" or "FAIL FILE: why" per file.
import { openDuck, lit, rows } from './lib.mjs';
import * as bloom from './bloom.mjs';
import { basename } from 'node:path';

const META = ['_hoodie_commit_time', '_hoodie_commit_seqno', '_hoodie_record_key', '_hoodie_partition_path',
              '_hoodie_file_name'];
const con = await openDuck({ threads: 1 });
let fails = 0;
for (const file of process.argv.slice(2)) {
  const why = [];
  try {
    const rp = `read_parquet(${lit(file)}, hive_partitioning = false)`;
    const cols = (await rows(con, `DESCRIBE SELECT * FROM ${rp}`)).map(r => r[0]);
    if (META.some((m, i) => cols[i] !== m)) why.push(`columns ${cols.slice(0, 5).join(',')}`);
    const kv = Object.fromEntries((await rows(con, `SELECT decode(key), decode(value) FROM parquet_kv_metadata(${lit(file)})`)));
    const avro = kv['parquet.avro.schema'];
    if (!avro) why.push('no parquet.avro.schema');
    else {
      const s = JSON.parse(avro);
      if (s.type !== 'record' || META.some((m, i) => s.fields[i]?.name !== m)) why.push('avro schema lacks the meta fields');
    }
    const keys = (await rows(con, `SELECT _hoodie_record_key FROM ${rp}`)).map(r => r[0]);
    const [mn, mx] = (await rows(con, `SELECT min(_hoodie_record_key), max(_hoodie_record_key) FROM ${rp}`))[0];
    if (kv.hoodie_min_record_key !== mn || kv.hoodie_max_record_key !== mx)
      why.push(`key range ${kv.hoodie_min_record_key}..${kv.hoodie_max_record_key}, keys ${mn}..${mx}`);
    const text = kv['org.apache.hudi.bloomfilter'], type = kv.hoodie_bloom_filter_type_code;
    if (!text || !type) why.push('no bloom filter');
    else {
      const f = bloom.parse(text, type);
      const miss = keys.filter(k => !bloom.test(f, Buffer.from(k, 'utf8')));
      if (miss.length) why.push(`bloom filter says no to ${miss.length} keys (${miss.slice(0, 3).join(',')})`);
      const g = bloom.newFilter(type);
      for (const k of keys) bloom.add(g, Buffer.from(k, 'utf8'));
      if (bloom.serialize(g) !== text) why.push('bloom filter differs from the one built from the keys');
    }
    const m = /_([0-9]{14,17})\.parquet$/.exec(basename(file));
    if (!m) why.push('file name does not end in _INSTANT.parquet');
    else {
      // every record, copied ones too (they keep their commit time and sequence number): as Spark writes them
      const bad = (await rows(con, `SELECT count(*) FROM ${rp}
                                    WHERE _hoodie_file_name IS DISTINCT FROM ${lit(basename(file))}`))[0][0];
      if (Number(bad)) why.push(`${bad} records name another file in _hoodie_file_name`);
    }
  } catch (e) {
    why.push(String(e.message || e).slice(0, 300));
  }
  if (why.length) { fails++; console.log(`FAIL ${file}: ${why.join('; ')}`); } else console.log(`ok ${file}`);
}
process.exit(fails ? 1 : 0);
