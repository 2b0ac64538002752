// Make damaged copies of Parquet files for the corrupt-input tests (deterministic: same input, same copies).
//   node corrupt.mjs OUTDIR FILE...
// Prints one TSV line per copy: PATH KIND OFFSET WHAT, where KIND is
//   trunc   the file cut at OFFSET (inside the magic, the footer length, the footer, the pages; 0 = empty file)
//   splice  the pages cut at OFFSET but the original footer kept, so the footer points past what is there
//   flip    the byte at OFFSET xor-ed (in the footer, a page header, page data, the magic, the footer length)
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { basename, join } from 'node:path';

const [outdir, ...inputs] = process.argv.slice(2);
if (!outdir || inputs.length === 0) {
  process.stderr.write('usage: node corrupt.mjs OUTDIR FILE...\n');
  process.exit(2);
}
mkdirSync(outdir, { recursive: true });

let seed = 0x9e3779b9;
const rnd = (n) => { seed = (Math.imul(seed, 1103515245) + 12345) >>> 0; return (seed >>> 8) % n; };

for (const input of inputs) {
  const buf = readFileSync(input);
  const size = buf.length;
  const flen = buf.readUInt32LE(size - 8);
  const fstart = size - 8 - flen;           // first byte of the footer (FileMetaData)
  const base = basename(input, '.parquet');
  const out = [];
  const emit = (kind, off, what, bytes) => {
    const p = join(outdir, `${base}.${kind}_${off}.parquet`);
    writeFileSync(p, bytes);
    out.push([p, kind, off, what].join('\t'));
  };
  const truncs = new Map([
    [0, 'empty file'], [2, 'inside the leading magic'], [4, 'just the leading magic'],
    [Math.floor(fstart / 3), 'inside the pages'], [Math.floor(fstart * 2 / 3), 'inside the pages'],
    [fstart, 'pages complete, no footer'], [fstart + 1, 'one byte into the footer'],
    [fstart + Math.floor(flen / 2), 'middle of the footer'], [size - 8, 'footer without its length'],
    [size - 6, 'inside the footer length'], [size - 4, 'no trailing magic'], [size - 1, 'inside the trailing magic'],
  ]);
  for (const [off, what] of [...truncs].sort((a, b) => a[0] - b[0])) {
    if (off >= 0 && off < size) emit('trunc', off, what, buf.subarray(0, off));
  }
  for (const frac of [0.25, 0.5, 0.9]) {
    const off = Math.max(4, Math.floor(fstart * frac));
    emit('splice', off, `pages cut at ${Math.round(frac * 100)}%, footer kept`, Buffer.concat([buf.subarray(0, off), buf.subarray(fstart)]));
  }
  const flips = new Map([
    [0, 'leading magic'], [4, 'first page header'], [5, 'first page header'], [8, 'first page header'],
    [size - 5, 'trailing magic'], [size - 8, 'footer length'], [size - 7, 'footer length'], [fstart, 'footer start'],
  ]);
  for (let k = 0; k < 12; k++) flips.set(fstart + rnd(flen), 'footer');
  for (let k = 0; k < 12; k++) flips.set(4 + rnd(fstart - 4), 'pages');
  for (const [off, what] of [...flips].sort((a, b) => a[0] - b[0])) {
    if (off < 0 || off >= size) continue;
    const copy = Buffer.from(buf);
    copy[off] ^= (k => [0xff, 0x01, 0x80, 0x10][k])(off % 4);
    emit('flip', off, what, copy);
  }
  process.stdout.write(out.join('\n') + '\n');
}
