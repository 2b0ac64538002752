// Timeline files named and encoded as in the Spark-written fixtures.
//   node timeline_shape.mjs FIXTURE_TABLE... -- TABLE...
// Every instant file of each TABLE (.hoodie/timeline/ for version 8, .hoodie/ for version 6) must have a name of
// the layout's form, and, where a fixture of the same table version has a file of the same action and state, the
// same encoding: empty, Avro (the same writer schema name), or JSON (the same top-level keys). Prints
// "ok TABLE" or "FAIL TABLE: why" per table.
import { readdirSync, readFileSync, existsSync } from 'node:fs';

const args = process.argv.slice(2);
const sep = args.indexOf('--');
const fixtures = args.slice(0, sep), tables = args.slice(sep + 1);

function version(t) {
  const p = readFileSync(`${t}/.hoodie/hoodie.properties`, 'utf8');
  return Number(/hoodie\.table\.version=(\d+)/.exec(p)?.[1] ?? 0) >= 8 ? 8 : 6;
}
const ACTIONS = 'commit|deltacommit|replacecommit|rollback|clean|compaction|clustering|indexing|restore|savepoint';
const NAME = {
  8: new RegExp(`^([0-9]{17})(?:_([0-9]{17}))?\\.(${ACTIONS})(\\.requested|\\.inflight)?$`),
  6: new RegExp(`^([0-9]{17})\\.(${ACTIONS})(\\.requested|\\.inflight)?$`),
};
// a commit's inflight file is named without its action: INSTANT.inflight
const COMMIT_INFLIGHT = /^([0-9]{17})\.inflight$/;
function signature(buf) {
  if (!buf.length) return 'empty';
  if (buf.subarray(0, 4).equals(Buffer.from([0x4f, 0x62, 0x6a, 0x01]))) {
    const m = /"name"\s*:\s*"([A-Za-z0-9_]+)"/.exec(buf.subarray(0, 16384).toString('latin1'));
    return `avro:${m ? m[1] : '?'}`;
  }
  try { return `json:${Object.keys(JSON.parse(buf.toString('utf8'))).sort().join(',')}`; } catch { return 'other'; }
}
function instants(t) {
  const v = version(t), dir = v === 8 ? `${t}/.hoodie/timeline` : `${t}/.hoodie`;
  const out = [], bad = [];
  if (!existsSync(dir)) return { out, bad };
  for (const n of readdirSync(dir, { withFileTypes: true })) {
    if (n.isDirectory() || n.name === 'hoodie.properties' || n.name.startsWith('hoodie.properties')) continue;
    if (!/^[0-9]/.test(n.name)) continue;
    if (COMMIT_INFLIGHT.test(n.name)) {
      out.push({ v, kind: 'commit.inflight', name: n.name, sig: signature(readFileSync(`${dir}/${n.name}`)) });
      continue;
    }
    const m = NAME[v].exec(n.name);
    if (!m) { bad.push(n.name); continue; }
    const action = v === 8 ? m[3] : m[2], state = (v === 8 ? m[4] : m[3]) || '.completed';
    if (v === 8 && state === '.completed' && !m[2]) { bad.push(`${n.name} (completed without completion time)`); continue; }
    if (v === 8 && state !== '.completed' && m[2]) { bad.push(`${n.name} (pending with completion time)`); continue; }
    out.push({ v, kind: `${action}${state}`, name: n.name, sig: signature(readFileSync(`${dir}/${n.name}`)) });
  }
  return { out, bad };
}
// Hudi's bulk insert moves its instant to inflight with no content (transitionRequestedToInflight(..,
// Option.empty()): no workload is known before the input is written), as the metadata table fixture's bulk-inserted
// deltacommits show: an empty inflight file is right when the completed instant's operationType is BULK_INSERT.
function bulkInsertInflight(t, i) {
  if (i.sig !== 'empty' || !/inflight$/.test(i.kind)) return false;
  const dir = i.v === 8 ? `${t}/.hoodie/timeline` : `${t}/.hoodie`, ts = i.name.slice(0, 17);
  const done = readdirSync(dir).find(n => n.startsWith(ts) && /^[0-9_]+\.(commit|deltacommit)$/.test(n));
  return !!done && readFileSync(`${dir}/${done}`).includes('BULK_INSERT');
}
const known = {};
for (const f of fixtures) {
  if (!existsSync(`${f}/.hoodie/hoodie.properties`)) continue;
  for (const i of instants(f).out) (known[`${i.v}:${i.kind}`] ??= new Set()).add(i.sig);
}
let fails = 0;
for (const t of tables) {
  const { out, bad } = instants(t);
  const why = bad.map(b => `bad name ${b}`);
  let compared = 0;
  for (const i of out) {
    const k = known[`${i.v}:${i.kind}`];
    if (!k) continue;
    compared++;
    if (k.has(i.sig) || bulkInsertInflight(t, i)) continue;
    why.push(`${i.name}: ${i.sig}, fixtures have ${[...k].join(' | ')}`);
  }
  if (!out.length) why.push('no instants');
  if (!compared) why.push('no instant comparable with a fixture');
  if (why.length) { fails++; console.log(`FAIL ${t}: ${why.join('; ')}`); }
  else console.log(`ok ${t} (${out.length} instant files, ${compared} compared with fixtures)`);
}
process.exit(fails ? 1 : 0);
