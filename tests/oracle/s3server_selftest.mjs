#!/usr/bin/env node
// Self-check of tests/oracle/s3server.mjs: starts it as a child process and talks to it with plain node:http,
// signing with the `aws4` package and, for the key-encoding and AWS-example checks, with a second SigV4 signer
// written here from AWS's specification (so the server's verification is checked against more than aws4 itself).
// Prints one line per check and a closing "N passed, N failed" line; exits 0 when all pass.
//
//   node tests/oracle/s3server_selftest.mjs

import http from 'node:http';
import crypto from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const require = createRequire(import.meta.url);
const aws4 = require('aws4');
const here = path.dirname(fileURLToPath(import.meta.url));

let passed = 0, failed = 0;
function check(name, cond, detail = '') {
  if (cond) { passed++; console.log(`ok - ${name}`); } else { failed++; console.log(`FAIL - ${name}${detail ? ': ' + detail : ''}`); }
}

// ---------------------------------------------------------------- helpers
const sha256 = (b) => crypto.createHash('sha256').update(b).digest('hex');
const hmac = (k, s) => crypto.createHmac('sha256', k).update(s, 'utf8').digest();

function startServer(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [path.join(here, 's3server.mjs'), ...args], { stdio: ['pipe', 'pipe', 'pipe'] });
    let out = '', err = '';
    child.stderr.on('data', (d) => { err += d; });
    child.stdout.on('data', (d) => {
      out += d;
      const m = /^S3SERVER port=(\d+)\n/.exec(out);
      if (m) resolve({ child, port: Number(m[1]), stderr: () => err, stdout: () => out });
    });
    child.on('exit', (code) => reject(new Error(`s3server exited with ${code} before it was ready: ${err}`)));
  });
}

function request({ port, method, path: p, headers = {}, body }) {
  return new Promise((resolve, reject) => {
    const r = http.request({ host: '127.0.0.1', port, method, path: p, headers }, (res) => {
      const chunks = [];
      res.on('data', (c) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
    });
    r.on('error', reject);
    r.end(body);
  });
}

// SigV4 from the specification: canonical URI = UriEncode(decoded path) keeping '/', each byte outside
// A-Z a-z 0-9 - _ . ~ as %XY (upper-case hex); canonical query sorted and UriEncoded (with '/').
function uriEncode(s, keepSlash) {
  let out = '';
  for (const b of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(b);
    if (/[A-Za-z0-9\-_.~]/.test(c) || (keepSlash && c === '/')) out += c;
    else out += '%' + b.toString(16).toUpperCase().padStart(2, '0');
  }
  return out;
}
function specSign({ method, decodedPath, query = [], headers, payloadHash, ak, sk, region, amzDate }) {
  const canonicalUri = uriEncode(decodedPath, true);
  const canonicalQuery = query.map(([k, v]) => [uriEncode(k, false), uriEncode(v, false)])
    .sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0))
    .map(([k, v]) => `${k}=${v}`).join('&');
  const hs = Object.entries(headers).map(([k, v]) => [k.toLowerCase(), String(v).trim().replace(/\s+/g, ' ')])
    .sort((a, b) => (a[0] < b[0] ? -1 : 1));
  const signedHeaders = hs.map((h) => h[0]).join(';');
  const creq = [method, canonicalUri, canonicalQuery, hs.map(([k, v]) => `${k}:${v}\n`).join(''), signedHeaders, payloadHash].join('\n');
  const date = amzDate.slice(0, 8);
  const scope = `${date}/${region}/s3/aws4_request`;
  const sts = ['AWS4-HMAC-SHA256', amzDate, scope, sha256(creq)].join('\n');
  const kSigning = hmac(hmac(hmac(hmac('AWS4' + sk, date), region), 's3'), 'aws4_request');
  const signature = crypto.createHmac('sha256', kSigning).update(sts, 'utf8').digest('hex');
  return {
    signature, canonicalUri, canonicalQuery, creq,
    authorization: `AWS4-HMAC-SHA256 Credential=${ak}/${scope},SignedHeaders=${signedHeaders},Signature=${signature}`,
  };
}
const nowAmz = () => new Date().toISOString().replace(/[:-]|\.\d{3}/g, '');

// ---------------------------------------------------------------- 1. the spec signer against AWS's S3 examples
const EX = { ak: 'AKIAIOSFODNN7EXAMPLE', sk: 'wJalrXUtnFEMI/K7MDENG/bPxRfiCYEXAMPLEKEY', region: 'us-east-1', amzDate: '20130524T000000Z' };
const EMPTY = sha256('');
const vectors = [
  {
    name: 'GET Object (signed Range)', method: 'GET', decodedPath: '/test.txt', query: [],
    headers: { host: 'examplebucket.s3.amazonaws.com', range: 'bytes=0-9', 'x-amz-content-sha256': EMPTY, 'x-amz-date': EX.amzDate },
    payloadHash: EMPTY, body: undefined, sig: 'f0e8bdb87c964420e857bd35b5d6ed310bd44f0170aba48dd91039c6036bdb41',
  },
  {
    name: "PUT Object (key with '$')", method: 'PUT', decodedPath: '/test$file.text', query: [],
    headers: {
      date: 'Fri, 24 May 2013 00:00:00 GMT', host: 'examplebucket.s3.amazonaws.com', 'x-amz-date': EX.amzDate,
      'x-amz-storage-class': 'REDUCED_REDUNDANCY', 'x-amz-content-sha256': sha256('Welcome to Amazon S3.'),
    },
    payloadHash: sha256('Welcome to Amazon S3.'), body: 'Welcome to Amazon S3.',
    sig: '98ad721746da40c64f1a55b78f14c238d841ea1380cd77a1b5971af0ece108bd',
  },
  {
    name: 'GET Bucket (list, query)', method: 'GET', decodedPath: '/', query: [['max-keys', '2'], ['prefix', 'J']],
    headers: { host: 'examplebucket.s3.amazonaws.com', 'x-amz-content-sha256': EMPTY, 'x-amz-date': EX.amzDate },
    payloadHash: EMPTY, body: undefined, sig: '34b48302e7b5fa45bde8084f4b7868a86f0a534bc59db6670ed5711ef69dc6f7',
  },
];
for (const v of vectors) {
  const s = specSign({ ...EX, ...v });
  check(`spec signer reproduces AWS example signature: ${v.name}`, s.signature === v.sig, s.signature);
}

// ---------------------------------------------------------------- 2. the server
const AK = 'hoodie-test-ak', SK = 'hoodie/test+secret', REGION = 'us-east-1', BUCKET = 'test';
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 's3server-selftest-'));
let srv, srvB;
try {
  srv = await startServer(['--dir', dir, '--port', '0', '--bucket', BUCKET, '--bucket', 'other',
    '--access-key', AK, '--secret-key', SK, '--region', REGION]);
  check('server printed "S3SERVER port=N" as its only stdout line', /^S3SERVER port=\d+\n$/.test(srv.stdout()));
  const port = srv.port;

  // aws4-signed request; urlPath is sent as is (aws4 derives the canonical URI from it)
  async function a4(method, urlPath, { headers = {}, body, secret = SK, sendPath } = {}) {
    const opts = { host: '127.0.0.1', port, method, path: urlPath, service: 's3', region: REGION, headers: { ...headers } };
    if (body !== undefined) { opts.body = body; if (!opts.headers['Content-Type']) opts.headers['Content-Type'] = 'application/octet-stream'; }
    aws4.sign(opts, { accessKeyId: AK, secretAccessKey: secret });
    return request({ port, method, path: sendPath || opts.path, headers: opts.headers, body });
  }
  // spec-signed request: URL path = canonical URI of the decoded key (unless urlPath is given)
  async function sp(method, key, { query = [], headers = {}, body, urlPath } = {}) {
    const payload = body === undefined ? '' : body;
    const h = { host: `127.0.0.1:${port}`, 'x-amz-date': nowAmz(), 'x-amz-content-sha256': sha256(payload), ...headers };
    const s = specSign({ method, decodedPath: `/${BUCKET}/${key}`, query, headers: h, payloadHash: h['x-amz-content-sha256'], ak: AK, sk: SK, region: REGION, amzDate: h['x-amz-date'] });
    const target = (urlPath || s.canonicalUri) + (s.canonicalQuery ? '?' + s.canonicalQuery : '');
    return request({ port, method, path: target, headers: { ...h, authorization: s.authorization }, body });
  }
  const enc = (key) => `/${BUCKET}/` + key.split('/').map(encodeURIComponent).join('/');
  const xmlAll = (xml, tag) => [...xml.matchAll(new RegExp(`<${tag}>([\\s\\S]*?)</${tag}>`, 'g'))].map((m) => m[1]);

  // PUT, GET with Range, HEAD
  const data = crypto.randomBytes(1000);
  let r = await a4('PUT', enc('data/blob.bin'), { body: data });
  check('PUT object (aws4)', r.status === 200, `${r.status} ${r.body}`);
  r = await a4('GET', enc('data/blob.bin'));
  check('GET whole object', r.status === 200 && r.body.equals(data), `${r.status} len=${r.body.length}`);
  r = await a4('GET', enc('data/blob.bin'), { headers: { Range: 'bytes=10-19' } });
  check('GET Range bytes=10-19 -> 206 and the right bytes',
    r.status === 206 && r.body.equals(data.subarray(10, 20)) && r.headers['content-range'] === 'bytes 10-19/1000',
    `${r.status} ${r.headers['content-range']} len=${r.body.length}`);
  r = await a4('GET', enc('data/blob.bin'), { headers: { Range: 'bytes=-8' } });
  check('GET Range bytes=-8 (suffix) -> last 8 bytes', r.status === 206 && r.body.equals(data.subarray(992)) &&
    r.headers['content-range'] === 'bytes 992-999/1000', `${r.status} ${r.headers['content-range']}`);
  r = await a4('GET', enc('data/blob.bin'), { headers: { Range: 'bytes=0-0' } });
  check('GET Range bytes=0-0 -> 1 byte', r.status === 206 && r.body.equals(data.subarray(0, 1)), `${r.status} len=${r.body.length}`);
  r = await a4('GET', enc('data/blob.bin'), { headers: { Range: 'bytes=990-' } });
  check('GET Range bytes=990- -> last 10 bytes', r.status === 206 && r.body.equals(data.subarray(990)), `${r.status}`);
  r = await a4('GET', enc('data/blob.bin'), { headers: { Range: 'bytes=995-5000' } });
  check('GET Range past the end is cut to the object', r.status === 206 && r.body.equals(data.subarray(995)), `${r.status}`);
  r = await a4('GET', enc('data/blob.bin'), { headers: { Range: 'bytes=1000-' } });
  check('GET Range from the end -> 416 InvalidRange', r.status === 416 && /InvalidRange/.test(r.body), `${r.status}`);
  r = await sp('GET', 'data/blob.bin', { headers: { range: 'bytes=100-199' } });
  check('GET with Range among SignedHeaders (spec signer)', r.status === 206 && r.body.equals(data.subarray(100, 200)), `${r.status} ${r.body}`);
  r = await a4('HEAD', enc('data/blob.bin'));
  check('HEAD -> content-length', r.status === 200 && r.headers['content-length'] === '1000' && r.body.length === 0,
    `${r.status} ${r.headers['content-length']}`);
  r = await a4('HEAD', enc('data/missing.bin'));
  check('HEAD of a missing key -> 404', r.status === 404, `${r.status}`);
  r = await a4('GET', enc('data/missing.bin'));
  check('GET of a missing key -> 404 NoSuchKey', r.status === 404 && /NoSuchKey/.test(r.body), `${r.status} ${r.body}`);

  // test controls: counting object PUTs, failing those of some keys
  r = await request({ port, method: 'POST', path: '/__hoodie_test/puts-reset' });
  check('puts-reset', r.status === 200, `${r.status}`);
  await Promise.all([0, 1, 2].map((i) => a4('PUT', enc(`count/p${i}.bin`), { body: data })));
  r = await request({ port, method: 'GET', path: '/__hoodie_test/puts' });
  let pc = JSON.parse(r.body);
  check('puts counts object PUTs', pc.total === 3 && pc.max_in_flight >= 1 && pc.max_in_flight <= 3, r.body.toString());
  r = await request({ port, method: 'POST', path: '/__hoodie_test/fail-puts?match=doomed%5C.bin%24' });
  check('fail-puts armed', r.status === 200, `${r.status}`);
  r = await a4('PUT', enc('count/doomed.bin'), { body: data });
  check('fail-puts: a PUT of a key it matches -> 403', r.status === 403 && /AccessDenied/.test(r.body), `${r.status}`);
  r = await a4('PUT', enc('count/fine.bin'), { body: data });
  check('fail-puts: other keys go in', r.status === 200, `${r.status}`);
  r = await a4('PUT', enc('count/doomed.bin.marker'), { body: data });
  check('fail-puts: a key the expression does not match goes in', r.status === 200, `${r.status}`);
  await request({ port, method: 'POST', path: '/__hoodie_test/fail-puts?match=' });
  r = await a4('PUT', enc('count/doomed.bin'), { body: data });
  check('fail-puts cleared', r.status === 200, `${r.status}`);
  r = await request({ port, method: 'POST', path: '/__hoodie_test/fail-gets?match=blob%5C.bin%24&from=500' });
  check('fail-gets armed', r.status === 200, `${r.status}`);
  r = await a4('GET', enc('data/blob.bin'), { headers: { Range: 'bytes=600-699' } });
  check('fail-gets: a ranged GET from past the offset -> 403', r.status === 403 && /AccessDenied/.test(r.body), `${r.status}`);
  r = await a4('GET', enc('data/blob.bin'), { headers: { Range: 'bytes=0-99' } });
  check('fail-gets: a ranged GET before the offset is answered', r.status === 206 && r.body.equals(data.subarray(0, 100)),
    `${r.status}`);
  r = await a4('GET', enc('data/blob.bin'), { headers: { Range: 'bytes=-8' } });
  check('fail-gets: a suffix range is answered', r.status === 206, `${r.status}`);
  await request({ port, method: 'POST', path: '/__hoodie_test/fail-gets?match=' });
  r = await a4('GET', enc('data/blob.bin'), { headers: { Range: 'bytes=600-699' } });
  check('fail-gets cleared', r.status === 206, `${r.status}`);

  // Keys with '=', ' ', '%', '+' and non-ASCII
  const hive = 't/partition_path=Monday/x.parquet';
  const hiveData = Buffer.from('PAR1 hive partition file PAR1');
  r = await sp('PUT', hive, { body: hiveData });
  check("PUT hive key, URL = canonical URI ('=' as %3D), spec signer", r.status === 200, `${r.status} ${r.body}`);
  r = await a4('GET', '/test/t/partition_path=Monday/x.parquet');
  check("GET the same key with a raw '=' in the URL (aws4)", r.status === 200 && r.body.equals(hiveData), `${r.status}`);
  r = await sp('GET', hive, { urlPath: '/test/t/partition_path=Monday/x.parquet' });
  check("GET with a raw '=' in the URL, canonical URI %3D (spec signer)", r.status === 200 && r.body.equals(hiveData), `${r.status} ${r.body}`);
  const odd = 't/p=a b%c+d é/y z%25.parquet';
  const oddData = Buffer.from('odd key');
  r = await sp('PUT', odd, { body: oddData });
  check("PUT key with '=', ' ', '%', '+', 'é' (spec signer, fully encoded URL)", r.status === 200, `${r.status} ${r.body}`);
  r = await a4('GET', enc(odd));
  check('GET it back (aws4, encodeURIComponent per segment)', r.status === 200 && r.body.equals(oddData), `${r.status} ${r.body}`);
  r = await a4('GET', `/${BUCKET}/?list-type=2&prefix=${encodeURIComponent('t/p=a b%c+d é/')}`);
  check('the key is stored decoded (listing shows it verbatim)', r.status === 200 && xmlAll(r.body.toString(), 'Key').includes(odd), r.body.toString());
  const onDisk = fs.existsSync(path.join(dir, BUCKET, 't', 'partition_path=Monday', 'x.parquet._S3rver_object'));
  check('s3rver keeps the hive key as directories on disk', onDisk);

  // ListObjectsV2 with prefix and delimiter
  for (const k of ['a/1.txt', 'a/2.txt', 'a/sub/3.txt', 'a/sub/4.txt', 'a/sub2/5.txt', 'a-b.txt', 'b.txt']) {
    r = await a4('PUT', enc(k), { body: Buffer.from(k) });
    if (r.status !== 200) check(`PUT ${k}`, false, `${r.status}`);
  }
  r = await a4('GET', `/${BUCKET}?list-type=2&prefix=a/&delimiter=/`);
  let xml = r.body.toString();
  check('ListObjectsV2 prefix=a/ delimiter=/ -> Contents',
    r.status === 200 && JSON.stringify(xmlAll(xml, 'Key')) === JSON.stringify(['a/1.txt', 'a/2.txt']), xml);
  check('ListObjectsV2 -> CommonPrefixes',
    JSON.stringify(xmlAll(xml, 'Prefix').slice(1)) === JSON.stringify(['a/sub/', 'a/sub2/']) && /<KeyCount>4<\/KeyCount>/.test(xml), xml);
  check('ListObjectsV2 Contents carry Size and ETag', /<Size>7<\/Size>/.test(xml) && /<ETag>&quot;[0-9a-f]{32}&quot;<\/ETag>/.test(xml), xml);
  r = await a4('GET', `/${BUCKET}?list-type=2&prefix=t/&delimiter=/`);
  check('ListObjectsV2 prefix=t/ -> hive partition prefixes',
    JSON.stringify(xmlAll(r.body.toString(), 'Prefix').slice(1)) === JSON.stringify(['t/p=a b%c+d é/', 't/partition_path=Monday/']), r.body.toString());
  r = await a4('GET', `/${BUCKET}?list-type=2`);
  const all = xmlAll(r.body.toString(), 'Key');
  check('ListObjectsV2 lists keys in UTF-8 byte order', JSON.stringify(all) === JSON.stringify([...all].sort((x, y) => Buffer.compare(Buffer.from(x), Buffer.from(y)))) &&
    all.indexOf('a-b.txt') < all.indexOf('a/1.txt'), all.join(' '));
  // pagination with max-keys=1 gives the same items
  const pages = [];
  let token = null;
  for (let i = 0; i < 20; i++) {
    r = await a4('GET', `/${BUCKET}?list-type=2&prefix=a/&delimiter=/&max-keys=1` + (token ? `&continuation-token=${encodeURIComponent(token)}` : ''));
    xml = r.body.toString();
    pages.push(...xmlAll(xml, 'Key'), ...xmlAll(xml, 'Prefix').slice(1));
    token = /<IsTruncated>true<\/IsTruncated>/.test(xml) ? xmlAll(xml, 'NextContinuationToken')[0] : null;
    if (!token) break;
  }
  check('ListObjectsV2 pagination (max-keys=1, continuation-token)',
    JSON.stringify(pages) === JSON.stringify(['a/1.txt', 'a/2.txt', 'a/sub/', 'a/sub2/']), pages.join(' '));
  r = await a4('GET', `/nosuchbucket?list-type=2`);
  check('ListObjectsV2 of a missing bucket -> 404 NoSuchBucket', r.status === 404 && /NoSuchBucket/.test(r.body), `${r.status}`);

  // DELETE
  r = await a4('DELETE', enc('a/1.txt'));
  check('DELETE -> 204', r.status === 204, `${r.status} ${r.body}`);
  r = await a4('GET', enc('a/1.txt'));
  check('GET after DELETE -> 404', r.status === 404, `${r.status}`);
  r = await a4('GET', `/${BUCKET}?list-type=2&prefix=a/&delimiter=/`);
  check('listing after DELETE', JSON.stringify(xmlAll(r.body.toString(), 'Key')) === JSON.stringify(['a/2.txt']), r.body.toString());

  // Conditional PUT
  r = await a4('PUT', enc('cond/x'), { body: Buffer.from('first'), headers: { 'If-None-Match': '*' } });
  check('conditional PUT (If-None-Match: *) of a new key -> 200', r.status === 200, `${r.status} ${r.body}`);
  r = await a4('PUT', enc('cond/x'), { body: Buffer.from('second'), headers: { 'If-None-Match': '*' } });
  check('conditional PUT of an existing key -> 412 PreconditionFailed', r.status === 412 && /PreconditionFailed/.test(r.body), `${r.status} ${r.body}`);
  r = await a4('GET', enc('cond/x'));
  check('the object kept its first content', r.body.toString() === 'first', r.body.toString());
  const race = await Promise.all(Array.from({ length: 8 }, (_, i) =>
    a4('PUT', enc('cond/race'), { body: Buffer.from(`writer ${i}`), headers: { 'If-None-Match': '*' } })));
  const wins = race.filter((x) => x.status === 200).length, lost = race.filter((x) => x.status === 412).length;
  check('8 racing conditional PUTs: exactly one succeeds', wins === 1 && lost === 7, `200s=${wins} 412s=${lost}`);
  r = await a4('HEAD', enc('cond/x'));
  const etag = r.headers.etag;
  r = await a4('PUT', enc('cond/x'), { body: Buffer.from('third'), headers: { 'If-Match': '"0123456789abcdef0123456789abcdef"' } });
  check('PUT If-Match with a stale ETag -> 412', r.status === 412, `${r.status}`);
  r = await a4('PUT', enc('cond/x'), { body: Buffer.from('third'), headers: { 'If-Match': etag } });
  check('PUT If-Match with the current ETag -> 200', r.status === 200, `${r.status} ${r.body}`);

  // Signature and payload checks
  r = await a4('GET', enc('data/blob.bin'), { secret: 'wrong-secret' });
  check('wrong secret -> 403 SignatureDoesNotMatch', r.status === 403 && /<Code>SignatureDoesNotMatch<\/Code>/.test(r.body), `${r.status} ${r.body}`);
  // the log line travels on another pipe than the answer: give it a moment on a busy machine
  for (let i = 0; i < 100 && !/canonical request computed by the server/.test(srv.stderr()); i++)
    await new Promise((res) => setTimeout(res, 20));
  check('the server logged its canonical request to stderr', /canonical request computed by the server/.test(srv.stderr()));
  r = await a4('GET', enc('data/blob.bin'), { sendPath: enc('data/other.bin') });
  check('path changed after signing -> 403 SignatureDoesNotMatch', r.status === 403 && /SignatureDoesNotMatch/.test(r.body), `${r.status}`);
  r = await a4('PUT', enc('data/bad-sha'), { body: Buffer.from('actual body'), headers: { 'X-Amz-Content-Sha256': sha256('another body') } });
  check('x-amz-content-sha256 not the body sha256 -> 400 XAmzContentSHA256Mismatch', r.status === 400 && /XAmzContentSHA256Mismatch/.test(r.body), `${r.status} ${r.body}`);
  r = await a4('GET', enc('data/bad-sha'));
  check('... and nothing was stored', r.status === 404, `${r.status}`);
  r = await a4('PUT', enc('data/unsigned'), { body: Buffer.from('unsigned payload'), headers: { 'X-Amz-Content-Sha256': 'UNSIGNED-PAYLOAD' } });
  check('UNSIGNED-PAYLOAD PUT -> 200', r.status === 200, `${r.status} ${r.body}`);
  r = await request({ port, method: 'GET', path: enc('data/blob.bin') });
  check('no Authorization -> 403 AccessDenied', r.status === 403 && /AccessDenied/.test(r.body), `${r.status}`);
  {
    const opts = { host: '127.0.0.1', port, method: 'GET', path: enc('data/blob.bin'), service: 's3', region: REGION };
    aws4.sign(opts, { accessKeyId: 'someone-else', secretAccessKey: SK });
    r = await request({ port, method: 'GET', path: opts.path, headers: opts.headers });
    check('unknown access key -> 403 InvalidAccessKeyId', r.status === 403 && /InvalidAccessKeyId/.test(r.body), `${r.status}`);
  }
  {
    const opts = { host: '127.0.0.1', port, method: 'GET', path: enc('data/blob.bin'), service: 's3', region: 'eu-west-1' };
    aws4.sign(opts, { accessKeyId: AK, secretAccessKey: SK });
    r = await request({ port, method: 'GET', path: opts.path, headers: opts.headers });
    check('wrong region in the scope -> 400 AuthorizationHeaderMalformed', r.status === 400 && /AuthorizationHeaderMalformed/.test(r.body), `${r.status}`);
  }
  {
    const opts = { host: '127.0.0.1', port, method: 'GET', path: enc('data/blob.bin'), service: 's3', region: REGION };
    aws4.sign(opts, { accessKeyId: AK, secretAccessKey: SK });
    r = await request({ port, method: 'GET', path: opts.path, headers: { ...opts.headers, 'x-amz-meta-extra': 'unsigned' } });
    check('an unsigned x-amz-* header -> 403', r.status === 403, `${r.status}`);
  }
  {
    const opts = { host: '127.0.0.1', port, method: 'GET', path: enc('data/blob.bin'), service: 's3', region: REGION,
      headers: { 'X-Amz-Date': '20130524T000000Z' } };
    aws4.sign(opts, { accessKeyId: AK, secretAccessKey: SK });
    r = await request({ port, method: 'GET', path: opts.path, headers: opts.headers });
    check('x-amz-date far from now -> 403 RequestTimeTooSkewed', r.status === 403 && /RequestTimeTooSkewed/.test(r.body), `${r.status}`);
  }

  // A larger object read right after it was written (s3rver answers before flushing; the server waits)
  const big = crypto.randomBytes(6 * 1024 * 1024 + 7);
  r = await a4('PUT', enc('data/big.bin'), { body: big });
  const rb = await a4('GET', enc('data/big.bin'));
  check('6 MiB PUT then GET returns the same bytes', r.status === 200 && rb.status === 200 && rb.body.equals(big), `${r.status} ${rb.status} len=${rb.body.length}`);

  // ---------------------------------------------------------------- 3. AWS's own example requests, replayed
  const dirB = fs.mkdtempSync(path.join(os.tmpdir(), 's3server-selftest-b-'));
  srvB = await startServer(['--dir', dirB, '--access-key', EX.ak, '--secret-key', EX.sk, '--region', EX.region, '--max-skew-seconds', '0']);
  for (const v of vectors) {
    const s = specSign({ ...EX, ...v });
    const target = s.canonicalUri + (s.canonicalQuery ? '?' + s.canonicalQuery : '');
    r = await request({ port: srvB.port, method: v.method, path: target, headers: { ...v.headers, authorization: s.authorization }, body: v.body });
    check(`server accepts AWS's example signature: ${v.name}`, r.status !== 403 && !/SignatureDoesNotMatch/.test(r.body), `${r.status} ${r.body}`);
    const bad = s.authorization.replace(/Signature=(.)/, (m, c) => `Signature=${c === '0' ? '1' : '0'}`);
    r = await request({ port: srvB.port, method: v.method, path: target, headers: { ...v.headers, authorization: bad }, body: v.body });
    check(`... and rejects it with one hex digit changed`, r.status === 403 && /SignatureDoesNotMatch/.test(r.body), `${r.status}`);
  }

  // ---------------------------------------------------------------- 3b. temporary credentials
  {
    const dirC = fs.mkdtempSync(path.join(os.tmpdir(), 's3server-selftest-c-'));
    const srvC = await startServer(['--dir', dirC, '--bucket', BUCKET, '--access-key', AK, '--secret-key', SK,
      '--region', REGION, '--temp-creds-seconds', '1', '--container-auth', 'Bearer x', '--web-identity-token', 'jwt']);
    try {
      const pc = srvC.port;
      const get = (p, headers = {}, method = 'GET') => request({ port: pc, method, path: p, headers });
      let t = await get('/container-creds', { authorization: 'Bearer x' });
      const c = JSON.parse(t.body);
      check('container endpoint hands out AccessKeyId, SecretAccessKey, Token, Expiration',
        t.status === 200 && c.AccessKeyId && c.SecretAccessKey && c.Token && /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/.test(c.Expiration), t.body);
      t = await get('/container-creds', { authorization: 'Bearer y' });
      check('container endpoint refuses a wrong Authorization', t.status === 401, `${t.status}`);
      const signed = (creds, token) => {
        const opts = { host: '127.0.0.1', port: pc, method: 'PUT', path: `/${BUCKET}/k`, service: 's3', region: REGION,
          headers: { 'x-amz-security-token': token }, body: 'x' };
        aws4.sign(opts, { accessKeyId: creds.AccessKeyId, secretAccessKey: creds.SecretAccessKey });
        return request({ port: pc, method: 'PUT', path: opts.path, headers: opts.headers, body: 'x' });
      };
      t = await signed(c, c.Token);
      check('a request signed with them and their token is accepted', t.status === 200, `${t.status} ${t.body}`);
      t = await signed(c, c.Token + 'x');
      check('... with another token: 403 InvalidToken', t.status === 403 && /InvalidToken/.test(t.body), `${t.status}`);
      t = await get('/latest/api/token', { 'x-aws-ec2-metadata-token-ttl-seconds': '60' }, 'PUT');
      const it = t.body.toString();
      t = await get('/latest/meta-data/iam/security-credentials/', { 'x-aws-ec2-metadata-token': it });
      check('IMDSv2: a session token, then the role', t.status === 200 && t.body.toString() === 'hoodie-test-role', `${t.status}`);
      t = await get('/latest/meta-data/iam/security-credentials/hoodie-test-role', {});
      check('IMDSv2: no session token, 401', t.status === 401, `${t.status}`);
      t = await get('/latest/meta-data/iam/security-credentials/hoodie-test-role', { 'x-aws-ec2-metadata-token': it });
      check('IMDSv2: the role\'s credentials, Code Success', t.status === 200 && JSON.parse(t.body).Code === 'Success', `${t.status}`);
      t = await get('/?Action=AssumeRoleWithWebIdentity&RoleArn=arn%3Aaws%3Aiam%3A%3A1%3Arole%2Fr&RoleSessionName=s&WebIdentityToken=jwt&Version=2011-06-15');
      check('STS AssumeRoleWithWebIdentity: Credentials in XML', t.status === 200 && /<AccessKeyId>ASIA/.test(t.body) && /<SessionToken>/.test(t.body), `${t.status} ${t.body}`);
      t = await get('/?Action=AssumeRoleWithWebIdentity&RoleArn=r&RoleSessionName=s&WebIdentityToken=nope&Version=2011-06-15');
      check('STS refuses another token: 400 InvalidIdentityToken', t.status === 400 && /InvalidIdentityToken/.test(t.body), `${t.status}`);
      t = await get('/__hoodie_test/creds');
      const n = JSON.parse(t.body);
      check('the counts of sets issued', n.container === 1 && n.instance === 1 && n.sts === 1, t.body.toString());
      await new Promise((r) => setTimeout(r, 3100)); /* expired (1 s, whole seconds) and past the 2 s of grace */
      t = await signed(c, c.Token);
      check('expired credentials: 400 ExpiredToken', t.status === 400 && /ExpiredToken/.test(t.body), `${t.status} ${t.body}`);
    } finally {
      srvC.child.kill('SIGTERM');
      fs.rmSync(dirC, { recursive: true, force: true });
    }
  }

  // ---------------------------------------------------------------- 4. stopping
  const exitCode = (c) => new Promise((resolve) => c.on('exit', (code, sig) => resolve(code === null ? sig : code)));
  const eB = exitCode(srvB.child);
  srvB.child.kill('SIGTERM');
  check('SIGTERM -> exit 0', (await eB) === 0);
  srvB = null;
  const eA = exitCode(srv.child);
  srv.child.stdin.end();
  const timer = new Promise((resolve) => setTimeout(() => resolve('timeout'), 5000));
  check('closing its stdin -> exit 0', (await Promise.race([eA, timer])) === 0);
  srv = null;
  const fakeParent = spawn('sleep', ['60'], { stdio: 'ignore' });
  srvB = await startServer(['--dir', dirB, '--parent-pid', String(fakeParent.pid)]);
  const eC = exitCode(srvB.child);
  fakeParent.kill('SIGKILL');
  const timer2 = new Promise((resolve) => setTimeout(() => resolve('timeout'), 5000));
  check('the --parent-pid process ending -> exit 0', (await Promise.race([eC, timer2])) === 0);
  srvB = null;
  fs.rmSync(dirB, { recursive: true, force: true });
} catch (e) {
  check('self-test ran to the end', false, e && e.stack || String(e));
} finally {
  for (const s of [srv, srvB]) if (s) s.child.kill('SIGTERM');
  if (failed && srv) process.stderr.write(srv.stderr());
  fs.rmSync(dir, { recursive: true, force: true });
}
console.log(`${passed} passed, ${failed} failed`);
process.exit(failed ? 1 : 0);
