// Hudi's bloom filters as Java writes them (Hadoop BloomFilter / DynamicBloomFilter with Hadoop's MurmurHash,
// bounded by Hudi's HoodieDynamicBoundedBloomFilter), written here from those classes' published behaviour, apart
// from hoodie's C code, so that tests can rebuild a base file's filter from its keys and compare it byte for byte.

/** Hadoop MurmurHash.hash(byte[], length, seed): Java int arithmetic, signed tail bytes. */
export function murmur(bytes, seed) {
  const m = 0x5bd1e995, len = bytes.length;
  let h = (seed ^ len) | 0;
  const s = (i) => (bytes[i] << 24) >> 24; // Java byte
  const n4 = len >> 2;
  for (let i = 0; i < n4; i++) {
    const o = i << 2;
    let k = (s(o + 3) << 24) | ((bytes[o + 2] & 0xff) << 16) | ((bytes[o + 1] & 0xff) << 8) | (bytes[o] & 0xff);
    k = Math.imul(k, m);
    k ^= k >>> 24;
    k = Math.imul(k, m);
    h = Math.imul(h, m);
    h ^= k;
  }
  const left = len - (n4 << 2);
  if (left) { // Hadoop indexes the tail from the end: data[length - 3] << 16, data[length - 2] << 8, data[length - 1]
    if (left >= 3) h ^= s(len - 3) << 16;
    if (left >= 2) h ^= s(len - 2) << 8;
    h ^= s(len - 1);
    h = Math.imul(h, m);
  }
  h ^= h >>> 13;
  h = Math.imul(h, m);
  h ^= h >>> 15;
  return h | 0;
}

function positions(key, k, size) {
  const out = [];
  let h = 0;
  for (let i = 0; i < k; i++) {
    h = murmur(key, h);
    out.push(Math.abs(h % size)); // Java: Math.abs(initval % maxValue)
  }
  return out;
}

/** A new filter as Hudi sizes it (defaults: 60000 entries, fpp 1e-9, DYNAMIC_V0 bounded at 100000). */
export function newFilter(type = 'DYNAMIC_V0', numEntries = 60000, fpp = 1e-9, maxEntries = 100000) {
  const size = Math.ceil(-(numEntries * Math.log(fpp)) / (Math.log(2) * Math.log(2)));
  const k = Math.ceil(Math.log(2) * size / numEntries);
  return { type, k, size, nr: numEntries, maxNr: maxEntries, cur: 0, reachedMax: false, rr: 0,
           rows: [new Uint8Array((size + 7) >> 3)] };
}

export function add(f, keyBytes) {
  let row;
  if (f.type === 'SIMPLE') row = f.rows[0];
  else {
    // InternalDynamicBloomFilter: rows grow while rows * nr < maxNr; the key reaching the bound goes to row 0,
    // later keys round-robin from row 0
    if (f.reachedMax) row = f.rows[f.rr++ % f.rows.length];
    else if (f.cur < f.nr) row = f.rows[f.rows.length - 1];
    else if (f.rows.length * f.nr >= f.maxNr) { f.reachedMax = true; row = f.rows[0]; }
    else { f.rows.push(new Uint8Array((f.size + 7) >> 3)); f.cur = 0; row = f.rows[f.rows.length - 1]; }
    f.cur++;
  }
  for (const p of positions(keyBytes, f.k, f.size)) row[p >> 3] |= 1 << (p & 7);
}

export function test(f, keyBytes) {
  const ps = positions(keyBytes, f.k, f.size);
  return f.rows.some(r => ps.every(p => (r[p >> 3] >> (p & 7)) & 1));
}

function header(f) {
  const b = Buffer.alloc(13);
  b.writeInt32BE(-1, 0); b.writeInt32BE(f.k, 4); b.writeInt8(1, 8); b.writeInt32BE(f.size, 9);
  return b;
}

export function serialize(f) {
  if (f.type === 'SIMPLE') return Buffer.concat([header(f), Buffer.from(f.rows[0])]).toString('base64');
  const d = Buffer.alloc(12);
  d.writeInt32BE(f.nr, 0); d.writeInt32BE(f.cur, 4); d.writeInt32BE(f.rows.length, 8);
  return Buffer.concat([header(f), d, ...f.rows.flatMap(r => [header(f), Buffer.from(r)])]).toString('base64');
}

export function parse(text, type = 'SIMPLE') {
  const b = Buffer.from(text, 'base64');
  let o = 0;
  const hdr = () => { const v = b.readInt32BE(o), k = b.readInt32BE(o + 4), size = b.readInt32BE(o + 9); o += 13;
                      if (v !== -1) throw new Error(`bloom filter version ${v}`); return { k, size }; };
  const { k, size } = hdr();
  const rowBytes = (size + 7) >> 3;
  if (type === 'SIMPLE') return { type, k, size, rows: [b.subarray(o, o + rowBytes)] };
  const nr = b.readInt32BE(o), cur = b.readInt32BE(o + 4), n = b.readInt32BE(o + 8);
  o += 12;
  const rows = [];
  for (let i = 0; i < n; i++) { hdr(); rows.push(b.subarray(o, o + rowBytes)); o += rowBytes; }
  if (o !== b.length) throw new Error(`bloom filter: ${b.length - o} trailing bytes`);
  return { type, k, size, nr, cur, rows };
}
