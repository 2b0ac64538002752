#!/usr/bin/env node
// A local S3-compatible server for hoodie's tests that VERIFIES AWS Signature V4 independently of hoodie.
//
//   node tests/oracle/s3server.mjs --dir DIR [--port 0] [--host 127.0.0.1] [--bucket NAME ...]
//        [--access-key AK --secret-key SK] [--region us-east-1] [--allow-anonymous]
//        [--max-skew-seconds 900] [--parent-pid PID] [--verbose]
//        [--temp-creds-seconds N [--web-identity-token T] [--container-auth A] [--external-id X]] [--delay-ms N]
//        [--tls-cert PEM --tls-key PEM]
//
// Storage is s3rver (an S3 emulator that does not check V4 signatures) listening on an internal ephemeral port
// and keeping its files in DIR. In front of it runs the HTTP server the tests talk to (path-style URLs:
// http://HOST:PORT/bucket/key). For each request it
//   * checks the Authorization header (AWS4-HMAC-SHA256) by recomputing the signature with the `aws4` package
//     over the request as received: method, raw path and query, the headers named in SignedHeaders (values as
//     received) and x-amz-content-sha256 as the payload hash. A mismatch answers 403 SignatureDoesNotMatch and
//     prints the canonical request and string to sign that the server computed to stderr;
//   * checks that x-amz-content-sha256, unless UNSIGNED-PAYLOAD, is the sha256 of the body received
//     (400 XAmzContentSHA256Mismatch);
//   * implements what s3rver lacks or gets wrong: conditional PUT (If-None-Match: * and If-Match: ETAG, also on
//     CompleteMultipartUpload), single byte ranges as RFC 9110 and S3 define them (suffix ranges bytes=-N,
//     bytes=0-0, 416 for unsatisfiable ranges), and ListObjectsV2 (list-type=2) in byte order of the keys with
//     prefix, delimiter, max-keys, start-after, continuation-token and encoding-type=url;
//   * makes every change atomic for readers: reads (GET, HEAD) run together, changes run one at a time, a
//     change's answer is sent only once s3rver has closed the files it wrote, and answers are buffered so that
//     no lock waits on a slow client;
//   * forwards everything else to s3rver unchanged (method, raw path and query, headers without Authorization,
//     body) and sends its answer back.
//
// With --temp-creds-seconds N it also plays the services that hand out temporary credentials, each set valid for N
// seconds (Expiration in whole seconds), and accepts requests signed with them and their x-amz-security-token
// until 2 s past their expiration (400 ExpiredToken after; 403 InvalidToken for a wrong token):
//   * EC2 instance metadata, IMDSv2: PUT /latest/api/token (X-aws-ec2-metadata-token-ttl-seconds), then with
//     X-aws-ec2-metadata-token: GET /latest/meta-data/iam/security-credentials/ (the role "hoodie-test-role") and
//     GET /latest/meta-data/iam/security-credentials/hoodie-test-role (JSON: Code, AccessKeyId, SecretAccessKey,
//     Token, Expiration); a missing or wrong session token is 401;
//   * the container endpoint: GET /container-creds, which wants Authorization: <--container-auth> when given;
//   * STS AssumeRole: a POST of the form Action=AssumeRole, RoleArn, RoleSessionName (and ExternalId, which must
//     equal --external-id when given), signed with Signature V4 for service "sts" by the server's keys or a set it
//     issued: the XML response (counted as "assume");
//   * STS: GET or POST /?Action=AssumeRoleWithWebIdentity with RoleArn, RoleSessionName and WebIdentityToken
//     (which must equal --web-identity-token when given; 400 InvalidIdentityToken otherwise): the XML response;
//   * GET /__hoodie_test/creds: JSON counts of the sets issued, {"instance": n, "container": n, "sts": n,
//     "assume": n}.
// --delay-ms N delays every S3 answer by N ms (credential lifetimes then run out within one command).
// Test controls (unsigned, for the tests' own use):
//   * GET /__hoodie_test/puts: JSON {"total": n, "max_in_flight": n} of object PUTs (not copies) since the start or
//     the last POST /__hoodie_test/puts-reset: how many, and the most under way at once;
//   * POST /__hoodie_test/fail-puts?match=RE: from then on object PUTs (not parts, not copies) of keys that the
//     JavaScript regular expression RE matches answer 403 AccessDenied; an empty RE stops that;
//   * POST /__hoodie_test/fail-gets?match=RE&from=N: from then on GETs with a Range that starts at byte N or later
//     (a suffix range bytes=-n never) of keys RE matches answer 403 AccessDenied; an empty RE stops that.
// --tls-cert and --tls-key make it speak HTTPS with that certificate (the line it prints is the same).
//
// Encoding of keys in URLs: the server takes bucket and key from the path by percent-decoding it (a literal '+'
// stays '+'), so '=' may come as '=' or '%3D', ' ' must come as '%20', '%' as '%25', '+' as '+' or '%2B'.
// The canonical URI it signs is AWS's for S3: each '/'-separated segment of the decoded path percent-encoded
// once, everything but A-Z a-z 0-9 - _ . ~ as %XY with upper-case hex ('=' -> %3D, ' ' -> %20, '%' -> %25,
// '+' -> %2B, UTF-8 bytes for non-ASCII), '/' kept. The canonical query sorts the parameters by name and encodes
// names and values the same way ('+' in a query means a space there, as in s3rver). A client that sends the
// canonical URI itself as the URL path is always right.
//
// On stdout it prints exactly one line, `S3SERVER port=<port>`, once it accepts connections. It runs until
// SIGTERM or SIGINT, until its standard input closes when that is a pipe or socket (a terminal or /dev/null, as
// for `cmd &` in a script, is not watched), or until the process --parent-pid names is gone (a test script
// starting it in the background passes `--parent-pid $$`), and then exits 0.

import http from 'node:http';
import https from 'node:https';
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const S3rver = require('s3rver');
const aws4 = require('aws4');

// ---------------------------------------------------------------- options
function usage(msg) {
  if (msg) process.stderr.write(`s3server: ${msg}\n`);
  process.stderr.write('usage: node s3server.mjs --dir DIR [--port 0] [--host 127.0.0.1] [--bucket NAME ...] ' +
    '[--access-key AK --secret-key SK] [--region us-east-1] [--allow-anonymous] [--max-skew-seconds 900] ' +
    '[--parent-pid PID] [--verbose]\n');
  process.exit(2);
}

const opt = {
  dir: null, port: 0, host: '127.0.0.1', buckets: [], accessKey: 'S3RVER', secretKey: 'S3RVER',
  region: 'us-east-1', allowAnonymous: false, maxSkew: 900, parentPid: 0, verbose: false,
  tempCreds: 0, webIdentityToken: null, containerAuth: null, externalId: null, delayMs: 0, tlsCert: null, tlsKey: null,
};
{
  const a = process.argv.slice(2);
  const val = (i) => { if (i + 1 >= a.length) usage(`${a[i]} needs a value`); return a[i + 1]; };
  for (let i = 0; i < a.length; i++) {
    switch (a[i]) {
      case '--dir': opt.dir = val(i); i++; break;
      case '--port': opt.port = Number(val(i)); i++; break;
      case '--host': opt.host = val(i); i++; break;
      case '--bucket': opt.buckets.push(val(i)); i++; break;
      case '--access-key': opt.accessKey = val(i); i++; break;
      case '--secret-key': opt.secretKey = val(i); i++; break;
      case '--region': opt.region = val(i); i++; break;
      case '--allow-anonymous': opt.allowAnonymous = true; break;
      case '--max-skew-seconds': opt.maxSkew = Number(val(i)); i++; break;
      case '--parent-pid': opt.parentPid = Number(val(i)); i++; break;
      case '--verbose': opt.verbose = true; break;
      case '--temp-creds-seconds': opt.tempCreds = Number(val(i)); i++; break;
      case '--web-identity-token': opt.webIdentityToken = val(i); i++; break;
      case '--container-auth': opt.containerAuth = val(i); i++; break;
      case '--external-id': opt.externalId = val(i); i++; break;
      case '--delay-ms': opt.delayMs = Number(val(i)); i++; break;
      case '--tls-cert': opt.tlsCert = val(i); i++; break;
      case '--tls-key': opt.tlsKey = val(i); i++; break;
      case '-h': case '--help': usage();
      default: usage(`unknown argument ${a[i]}`);
    }
  }
  if (!opt.dir) usage('--dir is required');
  if (!Number.isInteger(opt.port) || opt.port < 0 || opt.port > 65535) usage('bad --port');
  if (!Number.isFinite(opt.maxSkew) || opt.maxSkew < 0) usage('bad --max-skew-seconds');
  if (!Number.isInteger(opt.parentPid) || opt.parentPid < 0) usage('bad --parent-pid');
  if (!Number.isFinite(opt.tempCreds) || opt.tempCreds < 0) usage('bad --temp-creds-seconds');
  if (!Number.isInteger(opt.delayMs) || opt.delayMs < 0) usage('bad --delay-ms');
  if (!opt.tlsCert !== !opt.tlsKey) usage('--tls-cert and --tls-key go together');
}

fs.mkdirSync(opt.dir, { recursive: true });
const rootDir = fs.realpathSync(opt.dir);
const OBJECT_SUFFIX = '._S3rver_object'; // s3rver's file layout: DIR/bucket/<key dirs>/<last segment>._S3rver_object
const log = (...m) => process.stderr.write(`s3server: ${m.join(' ')}\n`);
const vlog = (...m) => { if (opt.verbose) log(...m); };

// ---------------------------------------------------------------- helpers
const xmlEsc = (s) => String(s).replace(/[&<>"']/g,
  (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' })[c]);
const sha256hex = (buf) => crypto.createHash('sha256').update(buf).digest('hex');
const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

class S3Err extends Error {
  constructor(status, code, message, extra = {}) {
    super(message);
    this.status = status; this.code = code; this.extra = extra;
  }
}

function errorBody(code, message, extra) {
  let x = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${xmlEsc(code)}</Code><Message>${xmlEsc(message)}</Message>`;
  for (const [k, v] of Object.entries(extra)) x += `<${k}>${xmlEsc(v)}</${k}>`;
  return Buffer.from(x + `<RequestId>${crypto.randomBytes(8).toString('hex')}</RequestId></Error>\n`);
}

function send(res, method, status, headers, body) {
  const h = { ...headers };
  if (status === 204 || status === 304) delete h['content-length'];
  else if (method !== 'HEAD') h['content-length'] = String(body ? body.length : 0);
  res.writeHead(status, h);
  res.end(method === 'HEAD' ? undefined : body);
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

// Values of one header as received, duplicates joined with ',' (SigV4's rule; node's req.headers drops
// duplicates of some headers).
function rawHeaderValue(req, name) {
  const vals = [];
  for (let i = 0; i < req.rawHeaders.length; i += 2) {
    if (req.rawHeaders[i].toLowerCase() === name) vals.push(req.rawHeaders[i + 1].trim());
  }
  return vals.length ? vals.join(',') : undefined;
}

// ---------------------------------------------------------------- locking: reads together, changes alone
class RWLock {
  constructor() { this.readers = 0; this.writer = false; this.queue = []; }
  acquire(exclusive) {
    if (!this.writer && !this.queue.length && (!exclusive || this.readers === 0)) {
      if (exclusive) this.writer = true; else this.readers++;
      return Promise.resolve();
    }
    return new Promise((resolve) => this.queue.push({ exclusive, resolve }));
  }
  release(exclusive) {
    if (exclusive) this.writer = false; else this.readers--;
    while (this.queue.length && !this.writer) {
      const w = this.queue[0];
      if (w.exclusive) {
        if (this.readers) break;
        this.queue.shift(); this.writer = true; w.resolve();
      } else {
        this.queue.shift(); this.readers++; w.resolve();
      }
    }
  }
}
const lock = new RWLock();

// s3rver answers a PUT before its write stream has flushed the object to disk; wait until this process has no
// file open under DIR any more (Linux /proc), so that what the client reads next is complete.
const haveProcFd = fs.existsSync('/proc/self/fd');
async function settleWrites() {
  if (!haveProcFd) return;
  const deadline = Date.now() + 10000;
  for (;;) {
    let busy = false;
    for (const fd of fs.readdirSync('/proc/self/fd')) {
      let target;
      try { target = fs.readlinkSync(`/proc/self/fd/${fd}`); } catch { continue; }
      if (target.startsWith(rootDir + '/')) { busy = true; break; }
    }
    if (!busy) return;
    if (Date.now() > deadline) { log('warning: s3rver still has files open under', rootDir); return; }
    await sleep(1);
  }
}

// ---------------------------------------------------------------- talking to s3rver
let backendPort = 0;
const backendAgent = new http.Agent({ keepAlive: true, maxSockets: 64 });
const HOP_BY_HOP = new Set(['connection', 'keep-alive', 'transfer-encoding', 'te', 'trailer', 'upgrade', 'expect',
  'proxy-authorization', 'proxy-connection', 'authorization', 'host', 'content-length']);

function backend(method, rawUrl, headers, body) {
  return new Promise((resolve, reject) => {
    const h = { host: `127.0.0.1:${backendPort}` };
    for (const [k, v] of Object.entries(headers)) if (!HOP_BY_HOP.has(k)) h[k] = v;
    // S3 percent-decodes x-amz-copy-source whole; s3rver uses decodeURI, which leaves %3D (=), %2B (+), ... as
    // they are: hand it the source decoded, in the form decodeURI restores exactly
    if (h['x-amz-copy-source'] !== undefined) {
      const src = String(h['x-amz-copy-source']).split('?')[0];
      h['x-amz-copy-source'] = encodeURI(src.split('/').map((seg) => decodeURIComponent(seg)).join('/'));
    }
    if (body && body.length) h['content-length'] = String(body.length);
    else if (method === 'PUT' || method === 'POST') h['content-length'] = '0';
    const r = http.request({ host: '127.0.0.1', port: backendPort, method, path: rawUrl, headers: h, agent: backendAgent },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => resolve({ status: res.statusCode, headers: res.headers, body: Buffer.concat(chunks) }));
        res.on('error', reject);
      });
    r.on('error', reject);
    r.end(body && body.length ? body : undefined);
  });
}

function passHeaders(h) {
  const out = {};
  for (const [k, v] of Object.entries(h)) {
    if (['connection', 'keep-alive', 'transfer-encoding', 'content-length'].includes(k)) continue;
    out[k] = v;
  }
  return out;
}

function relay(res, method, r) {
  const h = passHeaders(r.headers);
  if (method === 'HEAD' && r.headers['content-length'] !== undefined) h['content-length'] = r.headers['content-length'];
  send(res, method, r.status, h, r.body);
}

const objectUrl = (bucket, key) =>
  '/' + encodeURIComponent(bucket) + '/' + key.split('/').map(encodeURIComponent).join('/');

// ---------------------------------------------------------------- SigV4 verification
function verifySigV4(req, rawPath, rawQuery, service = 's3') {
  const auth = req.headers.authorization;
  const m = /^AWS4-HMAC-SHA256\s+(.*)$/s.exec(auth);
  if (!m) {
    throw new S3Err(400, 'InvalidArgument', 'Unsupported Authorization Type (only AWS4-HMAC-SHA256 is accepted)',
      { ArgumentName: 'Authorization', ArgumentValue: auth });
  }
  const parts = {};
  for (const piece of m[1].split(',')) {
    const eq = piece.indexOf('=');
    if (eq > 0) parts[piece.slice(0, eq).trim()] = piece.slice(eq + 1).trim();
  }
  for (const k of ['Credential', 'SignedHeaders', 'Signature']) {
    if (!parts[k]) throw new S3Err(400, 'AuthorizationHeaderMalformed', `The authorization header is malformed; missing ${k}.`);
  }
  const cred = parts.Credential.split('/');
  if (cred.length !== 5) throw new S3Err(400, 'AuthorizationHeaderMalformed', `malformed Credential '${parts.Credential}'`);
  const [ak, scopeDate, scopeRegion, scopeService, terminator] = cred;
  let secret = opt.secretKey;
  if (ak !== opt.accessKey) {
    const t = issued.get(ak);
    if (!t) {
      throw new S3Err(403, 'InvalidAccessKeyId', 'The AWS Access Key Id you provided does not exist in our records.',
        { AWSAccessKeyId: ak });
    }
    if (rawHeaderValue(req, 'x-amz-security-token') !== t.token) {
      throw new S3Err(403, 'InvalidToken', 'The provided token is malformed or otherwise invalid.');
    }
    if (Date.now() > t.exp + 2000) throw new S3Err(400, 'ExpiredToken', 'The provided token has expired.');
    secret = t.sk;
  }
  if (scopeRegion !== opt.region) {
    throw new S3Err(400, 'AuthorizationHeaderMalformed',
      `The authorization header is malformed; the region '${scopeRegion}' is wrong; expecting '${opt.region}'`,
      { Region: opt.region });
  }
  if (scopeService !== service || terminator !== 'aws4_request') {
    throw new S3Err(400, 'AuthorizationHeaderMalformed',
      `The authorization header is malformed; the credential scope must end in /${service}/aws4_request, not /${scopeService}/${terminator}`);
  }
  const amzDate = rawHeaderValue(req, 'x-amz-date');
  if (!amzDate || !/^\d{8}T\d{6}Z$/.test(amzDate)) {
    throw new S3Err(403, 'AccessDenied', 'AWS authentication requires a valid x-amz-date header (YYYYMMDDTHHMMSSZ)');
  }
  if (scopeDate !== amzDate.slice(0, 8)) {
    throw new S3Err(400, 'AuthorizationHeaderMalformed',
      `Invalid credential date '${scopeDate}'. Date is not the same as X-Amz-Date: '${amzDate.slice(0, 8)}'.`);
  }
  if (opt.maxSkew > 0) {
    const t = Date.UTC(+amzDate.slice(0, 4), +amzDate.slice(4, 6) - 1, +amzDate.slice(6, 8),
      +amzDate.slice(9, 11), +amzDate.slice(11, 13), +amzDate.slice(13, 15));
    if (Math.abs(Date.now() - t) > opt.maxSkew * 1000) {
      throw new S3Err(403, 'RequestTimeTooSkewed', 'The difference between the request time and the current time is too large.',
        { RequestTime: amzDate, ServerTime: new Date().toISOString().replace(/\.\d+/, '') });
    }
  }
  const contentSha = rawHeaderValue(req, 'x-amz-content-sha256');
  if (contentSha === undefined) {
    throw new S3Err(400, 'InvalidRequest', 'Missing required header for this request: x-amz-content-sha256');
  }
  const signedNames = parts.SignedHeaders.split(';');
  if (!signedNames.includes('host')) {
    throw new S3Err(403, 'AccessDenied', "SignedHeaders must include 'host'", { SignedHeaders: parts.SignedHeaders });
  }
  const headers = {};
  for (const name of signedNames) {
    if (name !== name.toLowerCase() || !name) {
      throw new S3Err(403, 'SignatureDoesNotMatch', `SignedHeaders must be lower-case header names: '${parts.SignedHeaders}'`);
    }
    const v = rawHeaderValue(req, name);
    if (v === undefined) {
      throw new S3Err(403, 'AccessDenied', `Header '${name}' is listed in SignedHeaders but is not in the request`);
    }
    headers[name] = v;
  }
  for (const name of Object.keys(req.headers)) {
    if (name.startsWith('x-amz-') && !signedNames.includes(name)) {
      throw new S3Err(403, 'AccessDenied', `There were headers present in the request which were not signed: ${name}`,
        { HeadersNotSigned: name });
    }
  }

  // aws4 decodes '+' in a path segment as a space before encoding it again; in S3 (and in s3rver) a '+' in the
  // path is a literal '+', so hand it to aws4 as %2B. Everything else is the path and query as received.
  const aws4Path = rawPath.replace(/\+/g, '%2B') + (rawQuery !== null ? '?' + rawQuery : '');
  const signer = new aws4.RequestSigner({
    method: req.method, path: aws4Path, service, region: scopeRegion, headers,
    doNotModifyHeaders: true, extraHeadersToInclude: Object.fromEntries(signedNames.map((n) => [n, true])),
  }, { accessKeyId: ak, secretAccessKey: secret });
  signer.datetime = amzDate;
  let canonical, stringToSign, expected;
  try {
    canonical = signer.canonicalString();
    stringToSign = signer.stringToSign();
    expected = signer.signature();
  } catch (e) {
    throw new S3Err(400, 'InvalidURI', `Couldn't parse the specified URI (${e.message})`);
  }
  const given = parts.Signature.toLowerCase();
  const ok = given.length === expected.length &&
    crypto.timingSafeEqual(Buffer.from(given), Buffer.from(expected));
  if (!ok) {
    const note = signer.signedHeaders() !== parts.SignedHeaders
      ? ` (note: SignedHeaders given '${parts.SignedHeaders}' is not in canonical order '${signer.signedHeaders()}')` : '';
    log(`SignatureDoesNotMatch for ${req.method} ${req.url}${note}\n` +
      `--- canonical request computed by the server (aws4) ---\n${canonical}\n` +
      `--- string to sign ---\n${stringToSign}\n--- expected signature ${expected}, got ${given} ---`);
    throw new S3Err(403, 'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided. Check your key and signing method.' + note,
      { AWSAccessKeyId: ak, StringToSign: stringToSign, SignatureProvided: given, CanonicalRequest: canonical });
  }
  return contentSha;
}

function checkPayload(contentSha, body) {
  if (contentSha === undefined || contentSha === 'UNSIGNED-PAYLOAD') return;
  if (/^STREAMING-/.test(contentSha)) {
    throw new S3Err(501, 'NotImplemented', `x-amz-content-sha256 '${contentSha}' (aws-chunked uploads) is not supported by this test server`);
  }
  if (!/^[0-9a-fA-F]{64}$/.test(contentSha)) {
    throw new S3Err(400, 'InvalidArgument', 'x-amz-content-sha256 must be UNSIGNED-PAYLOAD or a valid sha256 value.',
      { ArgumentName: 'x-amz-content-sha256', ArgumentValue: contentSha });
  }
  const actual = sha256hex(body);
  if (actual !== contentSha.toLowerCase()) {
    throw new S3Err(400, 'XAmzContentSHA256Mismatch', "The provided 'x-amz-content-sha256' header does not match what was computed.",
      { ClientComputedContentSHA256: contentSha, S3ComputedContentSHA256: actual });
  }
}

// ---------------------------------------------------------------- conditional writes
async function checkPreconditions(req, bucket, key) {
  const inm = req.headers['if-none-match'];
  const im = req.headers['if-match'];
  if (inm === undefined && im === undefined) return;
  if (inm !== undefined && inm.trim() !== '*') {
    throw new S3Err(501, 'NotImplemented', 'A header you provided implies functionality that is not implemented',
      { Header: 'If-None-Match' });
  }
  const head = await backend('HEAD', objectUrl(bucket, key), {}, null);
  if (head.status !== 200 && head.status !== 404) {
    throw new S3Err(500, 'InternalError', `checking the precondition, s3rver answered HEAD with ${head.status}`);
  }
  if (inm !== undefined && head.status === 200) {
    throw new S3Err(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold',
      { Condition: 'If-None-Match' });
  }
  if (im !== undefined) {
    if (head.status === 404) throw new S3Err(404, 'NoSuchKey', 'The specified key does not exist.', { Key: key });
    const want = im.trim();
    const etag = head.headers.etag || '';
    const strip = (s) => s.replace(/^W\//, '').replace(/^"|"$/g, '');
    if (want !== '*' && strip(want) !== strip(etag)) {
      throw new S3Err(412, 'PreconditionFailed', 'At least one of the pre-conditions you specified did not hold',
        { Condition: 'If-Match' });
    }
  }
}

// ---------------------------------------------------------------- ranges
// Returns {start, end} (inclusive), 'ignore' (not a single byte range: serve the whole object) or throws 416.
function resolveRange(spec, size) {
  const m = /^bytes=(\d*)-(\d*)$/.exec(spec.trim());
  if (!m || (m[1] === '' && m[2] === '')) return 'ignore';
  let start, end;
  if (m[1] === '') {
    const n = Number(m[2]);
    if (n === 0 || size === 0) throw rangeErr(spec, size);
    start = Math.max(0, size - n); end = size - 1;
  } else {
    start = Number(m[1]);
    if (m[2] !== '' && Number(m[2]) < start) return 'ignore'; // invalid: S3 then serves the whole object
    if (start >= size) throw rangeErr(spec, size);
    end = m[2] === '' ? size - 1 : Math.min(Number(m[2]), size - 1);
  }
  return { start, end };
}
function rangeErr(spec, size) {
  const e = new S3Err(416, 'InvalidRange', 'The requested range is not satisfiable', { RangeRequested: spec, ActualObjectSize: size });
  e.headers = { 'content-range': `bytes */${size}` };
  return e;
}

async function getWithRange(req, res, rawUrl, bucket, key) {
  const spec = req.headers.range;
  const head = await backend('HEAD', objectUrl(bucket, key), {}, null);
  const fwd = { ...req.headers };
  delete fwd.range;
  if (head.status !== 200) return relay(res, req.method, await backend(req.method, rawUrl, fwd, null));
  const size = Number(head.headers['content-length']);
  const r = resolveRange(spec, size);
  if (r === 'ignore') return relay(res, req.method, await backend(req.method, rawUrl, fwd, null));
  fwd.range = `bytes=${r.start}-${r.end}`;
  const got = await backend(req.method, rawUrl, fwd, null);
  if (got.status !== 200 && got.status !== 206) return relay(res, req.method, got);
  const h = passHeaders(got.headers);
  const len = r.end - r.start + 1;
  h['content-range'] = `bytes ${r.start}-${r.end}/${size}`;
  h['content-length'] = String(len);
  let body = Buffer.alloc(0);
  if (req.method !== 'HEAD') {
    // s3rver serves the whole object for bytes=0-0 and may start elsewhere: cut by its own Content-Range.
    let offset = 0;
    const cr = /^bytes (\d+)-/.exec(got.headers['content-range'] || '');
    if (got.status === 206 && cr) offset = Number(cr[1]);
    body = got.body.subarray(r.start - offset, r.start - offset + len);
    if (body.length !== len) throw new S3Err(500, 'InternalError', `s3rver returned ${got.body.length} bytes for ${fwd.range}`);
  }
  res.writeHead(206, h);
  res.end(req.method === 'HEAD' ? undefined : body);
}

// ---------------------------------------------------------------- ListObjectsV2, sorted as S3 sorts (UTF-8 bytes)
const byteCmp = (a, b) => Buffer.compare(Buffer.from(a, 'utf8'), Buffer.from(b, 'utf8'));
const urlEnc = (s) => encodeURIComponent(s).replace(/%2F/g, '/').replace(/%20/g, '+')
  .replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());

function listKeys(bucketDir, prefix) {
  const keys = [];
  const walk = (dir, rel) => {
    let ents;
    try { ents = fs.readdirSync(dir, { withFileTypes: true }); } catch { return; }
    for (const e of ents) {
      if (e.isDirectory()) {
        if (rel === '' && e.name.endsWith('._S3rver_uploads')) continue;
        const sub = rel + e.name + '/';
        if (sub.startsWith(prefix) || prefix.startsWith(sub)) walk(path.join(dir, e.name), sub);
      } else if (e.name.endsWith(OBJECT_SUFFIX)) {
        const key = rel + e.name.slice(0, -OBJECT_SUFFIX.length);
        if (key.startsWith(prefix)) keys.push(key);
      }
    }
  };
  walk(bucketDir, '');
  return keys.sort(byteCmp);
}

function objectInfo(bucketDir, key) {
  const file = path.join(bucketDir, ...key.split('/').slice(0, -1), key.split('/').pop() + OBJECT_SUFFIX);
  let st;
  try { st = fs.statSync(file); } catch { return null; }
  let md5;
  try { md5 = fs.readFileSync(file + '.md5', 'utf8').trim(); } catch {
    md5 = crypto.createHash('md5').update(fs.readFileSync(file)).digest('hex');
  }
  return { size: st.size, mtime: st.mtime, etag: `"${md5}"` };
}

function listObjectsV2(req, res, bucket, q) {
  const bucketDir = path.join(rootDir, bucket);
  if (!bucket || bucket.includes('/') || bucket.startsWith('.') || !fs.existsSync(bucketDir) || !fs.statSync(bucketDir).isDirectory()) {
    throw new S3Err(404, 'NoSuchBucket', 'The specified bucket does not exist', { BucketName: bucket });
  }
  const one = (k) => (q.has(k) ? q.get(k) : undefined);
  const prefix = one('prefix') || '';
  const delimiter = one('delimiter') || '';
  let maxKeys = 1000;
  if (one('max-keys') !== undefined) {
    if (!/^\d+$/.test(one('max-keys'))) {
      throw new S3Err(400, 'InvalidArgument', 'Provided max-keys not an integer or within integer range',
        { ArgumentName: 'max-keys', ArgumentValue: one('max-keys') });
    }
    maxKeys = Math.min(1000, Number(one('max-keys')));
  }
  const enc = one('encoding-type');
  if (enc !== undefined && enc !== 'url') {
    throw new S3Err(400, 'InvalidArgument', 'Invalid Encoding Method specified in Request',
      { ArgumentName: 'encoding-type', ArgumentValue: enc });
  }
  const E = (s) => xmlEsc(enc === 'url' ? urlEnc(s) : s);
  const token = one('continuation-token');
  const startAfter = one('start-after');
  let after = startAfter || '', afterIsPrefix = false;
  if (token !== undefined) {
    try {
      const t = JSON.parse(Buffer.from(token, 'base64url').toString('utf8'));
      if (t.b !== bucket || typeof t.k !== 'string') throw new Error('bad token');
      after = t.k; afterIsPrefix = !!t.p;
    } catch {
      throw new S3Err(400, 'InvalidArgument', 'The continuation token provided is incorrect', { ArgumentName: 'continuation-token' });
    }
  }

  const contents = [], prefixes = [];
  let count = 0, truncated = false, last = null;
  for (const key of listKeys(bucketDir, prefix)) {
    if (after && byteCmp(key, after) <= 0) continue;
    if (afterIsPrefix && key.startsWith(after)) continue;
    let cp = null;
    if (delimiter) {
      const i = key.indexOf(delimiter, prefix.length);
      if (i >= 0) cp = key.slice(0, i + delimiter.length);
    }
    if (cp !== null && prefixes.length && prefixes[prefixes.length - 1] === cp) continue;
    if (count >= maxKeys) { truncated = maxKeys > 0; break; }
    if (cp !== null) {
      prefixes.push(cp); last = { k: cp, p: true };
    } else {
      const info = objectInfo(bucketDir, key);
      if (!info) continue;
      contents.push({ key, ...info }); last = { k: key, p: false };
    }
    count++;
  }

  let x = '<?xml version="1.0" encoding="UTF-8"?>\n<ListBucketResult xmlns="http://s3.amazonaws.com/doc/2006-03-01/">';
  x += `<Name>${xmlEsc(bucket)}</Name><Prefix>${E(prefix)}</Prefix>`;
  if (delimiter) x += `<Delimiter>${E(delimiter)}</Delimiter>`;
  if (startAfter !== undefined) x += `<StartAfter>${E(startAfter)}</StartAfter>`;
  if (token !== undefined) x += `<ContinuationToken>${xmlEsc(token)}</ContinuationToken>`;
  x += `<KeyCount>${count}</KeyCount><MaxKeys>${maxKeys}</MaxKeys>`;
  if (enc) x += '<EncodingType>url</EncodingType>';
  x += `<IsTruncated>${truncated}</IsTruncated>`;
  if (truncated) {
    const next = Buffer.from(JSON.stringify({ b: bucket, ...last })).toString('base64url');
    x += `<NextContinuationToken>${next}</NextContinuationToken>`;
  }
  for (const c of contents) {
    x += `<Contents><Key>${E(c.key)}</Key><LastModified>${c.mtime.toISOString()}</LastModified>` +
      `<ETag>${xmlEsc(c.etag)}</ETag><Size>${c.size}</Size><StorageClass>STANDARD</StorageClass></Contents>`;
  }
  for (const p of prefixes) x += `<CommonPrefixes><Prefix>${E(p)}</Prefix></CommonPrefixes>`;
  x += '</ListBucketResult>\n';
  send(res, req.method, 200, { 'content-type': 'application/xml' }, Buffer.from(x));
}

// ---------------------------------------------------------------- the front server
// ---------------------------------------------------------------- temporary credentials
const issued = new Map(); // access key -> { sk, token, exp (ms) }
const issuedCount = { instance: 0, container: 0, sts: 0, assume: 0 };
const imdsTokens = new Set();
let issueSeq = 0;

function issue(kind) {
  issuedCount[kind]++;
  const ak = `ASIAHOODIE${String(++issueSeq).padStart(10, '0')}`;
  const exp = Math.floor((Date.now() + opt.tempCreds * 1000) / 1000) * 1000; // whole seconds, as AWS writes them
  const t = { sk: crypto.randomBytes(30).toString('base64'), token: crypto.randomBytes(120).toString('base64'), exp };
  issued.set(ak, t);
  return { ak, ...t, expiration: new Date(exp).toISOString().replace(/\.\d+Z$/, 'Z') };
}

function sendJson(res, status, obj) {
  send(res, 'GET', status, { 'content-type': 'application/json' }, Buffer.from(JSON.stringify(obj)));
}

// The credential services (--temp-creds-seconds); true when the request was one of theirs.
function credentialService(req, res, rawPath, q, body) {
  if (!opt.tempCreds) return false;
  const m = req.method;
  if (rawPath === '/__hoodie_test/creds' && m === 'GET') { sendJson(res, 200, issuedCount); return true; }
  if (rawPath === '/latest/api/token' && m === 'PUT') {
    if (!req.headers['x-aws-ec2-metadata-token-ttl-seconds']) {
      send(res, m, 400, {}, Buffer.from('missing X-aws-ec2-metadata-token-ttl-seconds'));
      return true;
    }
    const tok = crypto.randomBytes(24).toString('base64');
    imdsTokens.add(tok);
    send(res, m, 200, { 'content-type': 'text/plain' }, Buffer.from(tok));
    return true;
  }
  if (rawPath.startsWith('/latest/meta-data/iam/security-credentials/') && m === 'GET') {
    if (!imdsTokens.has(req.headers['x-aws-ec2-metadata-token'])) { send(res, m, 401, {}, Buffer.from('')); return true; }
    const role = rawPath.slice('/latest/meta-data/iam/security-credentials/'.length);
    if (role === '') { send(res, m, 200, { 'content-type': 'text/plain' }, Buffer.from('hoodie-test-role')); return true; }
    if (role !== 'hoodie-test-role') { send(res, m, 404, {}, Buffer.from('')); return true; }
    const c = issue('instance');
    sendJson(res, 200, { Code: 'Success', LastUpdated: new Date().toISOString(), Type: 'AWS-HMAC',
      AccessKeyId: c.ak, SecretAccessKey: c.sk, Token: c.token, Expiration: c.expiration });
    return true;
  }
  if (rawPath === '/container-creds' && m === 'GET') {
    if (opt.containerAuth !== null && req.headers.authorization !== opt.containerAuth) {
      sendJson(res, 401, { code: 'AccessDenied', message: 'wrong Authorization' });
      return true;
    }
    const c = issue('container');
    sendJson(res, 200, { AccessKeyId: c.ak, SecretAccessKey: c.sk, Token: c.token, Expiration: c.expiration });
    return true;
  }
  const params = new URLSearchParams(m === 'POST' ? body.toString('utf8') : '');
  for (const [k, v] of q) params.set(k, v);
  if (rawPath === '/' && params.get('Action') === 'AssumeRole') {
    // signed by the keys of the source (the server's own, or a set it issued), for service "sts"
    if (m !== 'POST' || req.headers.authorization === undefined) {
      throw new S3Err(403, 'MissingAuthenticationToken', 'AssumeRole is a signed POST');
    }
    checkPayload(verifySigV4(req, rawPath, null, 'sts'), body);
    if (!params.get('RoleArn') || !params.get('RoleSessionName')) {
      throw new S3Err(400, 'MissingParameter', 'RoleArn and RoleSessionName are required');
    }
    if (opt.externalId !== null && params.get('ExternalId') !== opt.externalId) {
      throw new S3Err(403, 'AccessDenied', 'not authorized to perform sts:AssumeRole (wrong ExternalId)');
    }
    const c = issue('assume');
    send(res, m, 200, { 'content-type': 'text/xml' }, Buffer.from(
      '<AssumeRoleResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><AssumeRoleResult>' +
      `<AssumedRoleUser><Arn>${xmlEsc(params.get('RoleArn'))}/${xmlEsc(params.get('RoleSessionName'))}</Arn>` +
      '<AssumedRoleId>AROAHOODIE:assumed</AssumedRoleId></AssumedRoleUser><Credentials>' +
      `<AccessKeyId>${c.ak}</AccessKeyId><SecretAccessKey>${xmlEsc(c.sk)}</SecretAccessKey>` +
      `<SessionToken>${xmlEsc(c.token)}</SessionToken><Expiration>${c.expiration}</Expiration></Credentials>` +
      '</AssumeRoleResult><ResponseMetadata><RequestId>hoodie-test</RequestId></ResponseMetadata></AssumeRoleResponse>'));
    return true;
  }
  if (rawPath === '/' && params.get('Action') === 'AssumeRoleWithWebIdentity') {
    const stsErr = (status, code, msg) => send(res, m, status, { 'content-type': 'text/xml' }, Buffer.from(
      `<ErrorResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/"><Error><Type>Sender</Type><Code>${code}</Code>` +
      `<Message>${xmlEsc(msg)}</Message></Error><RequestId>hoodie-test</RequestId></ErrorResponse>`));
    if (!params.get('RoleArn') || !params.get('RoleSessionName') || !params.get('WebIdentityToken')) {
      stsErr(400, 'MissingParameter', 'RoleArn, RoleSessionName and WebIdentityToken are required');
      return true;
    }
    if (opt.webIdentityToken !== null && params.get('WebIdentityToken') !== opt.webIdentityToken) {
      stsErr(400, 'InvalidIdentityToken', 'Couldn\'t retrieve verification key from your identity provider');
      return true;
    }
    const c = issue('sts');
    send(res, m, 200, { 'content-type': 'text/xml' }, Buffer.from(
      '<AssumeRoleWithWebIdentityResponse xmlns="https://sts.amazonaws.com/doc/2011-06-15/">' +
      '<AssumeRoleWithWebIdentityResult><Credentials>' +
      `<SessionToken>${xmlEsc(c.token)}</SessionToken><SecretAccessKey>${xmlEsc(c.sk)}</SecretAccessKey>` +
      `<Expiration>${c.expiration}</Expiration><AccessKeyId>${c.ak}</AccessKeyId></Credentials>` +
      `<SubjectFromWebIdentityToken>system:serviceaccount:hoodie:test</SubjectFromWebIdentityToken>` +
      `<AssumedRoleUser><Arn>${xmlEsc(params.get('RoleArn'))}/${xmlEsc(params.get('RoleSessionName'))}</Arn>` +
      '<AssumedRoleId>AROAHOODIE:test</AssumedRoleId></AssumedRoleUser></AssumeRoleWithWebIdentityResult>' +
      '<ResponseMetadata><RequestId>hoodie-test</RequestId></ResponseMetadata></AssumeRoleWithWebIdentityResponse>'));
    return true;
  }
  return false;
}

// Object PUTs under way (the test controls above).
const puts = { total: 0, max_in_flight: 0, inFlight: 0 };
let failPuts = null; // a RegExp
let failGets = null; // { re: RegExp, from: byte offset }

function testControl(req, res, rawPath, q) {
  const m = req.method;
  if (rawPath === '/__hoodie_test/puts' && m === 'GET') {
    sendJson(res, 200, { total: puts.total, max_in_flight: puts.max_in_flight });
    return true;
  }
  if (rawPath === '/__hoodie_test/puts-reset' && m === 'POST') {
    puts.total = 0;
    puts.max_in_flight = puts.inFlight;
    sendJson(res, 200, {});
    return true;
  }
  if (rawPath === '/__hoodie_test/fail-gets' && m === 'POST') {
    const re = q.get('match') || '';
    const from = Number(q.get('from') || '0');
    try {
      if (!Number.isInteger(from) || from < 0) throw new Error('bad from');
      failGets = re ? { re: new RegExp(re), from } : null;
    } catch (e) {
      sendJson(res, 400, { error: String(e) });
      return true;
    }
    sendJson(res, 200, { match: re, from });
    return true;
  }
  if (rawPath === '/__hoodie_test/fail-puts' && m === 'POST') {
    const re = q.get('match') || '';
    try {
      failPuts = re ? new RegExp(re) : null;
    } catch (e) {
      sendJson(res, 400, { error: String(e) });
      return true;
    }
    sendJson(res, 200, { match: re });
    return true;
  }
  return false;
}

// A PUT of an object's bytes: not a part of a multipart upload, not a copy.
function isObjectPut(req, rawPath, q) {
  return req.method === 'PUT' && rawPath.split('/').length > 2 && !rawPath.endsWith('/') && !q.has('partNumber') &&
    req.headers['x-amz-copy-source'] === undefined;
}

async function handle(req, res) {
  const qi0 = req.url.indexOf('?');
  const q0 = new URLSearchParams(qi0 >= 0 ? req.url.slice(qi0 + 1) : '');
  const p0 = qi0 >= 0 ? req.url.slice(0, qi0) : req.url;
  if (!isObjectPut(req, p0, q0)) return handleS3(req, res);
  puts.total++;
  puts.inFlight++;
  if (puts.inFlight > puts.max_in_flight) puts.max_in_flight = puts.inFlight;
  try {
    return await handleS3(req, res);
  } finally {
    puts.inFlight--;
  }
}

async function handleS3(req, res) {
  let rawUrl = req.url;
  if (!rawUrl.startsWith('/')) { // absolute-form request target
    const m = /^[a-z][a-z0-9+.-]*:\/\/[^/?]*(.*)$/i.exec(rawUrl);
    rawUrl = m && m[1] ? (m[1].startsWith('/') ? m[1] : '/' + m[1]) : '/';
  }
  const qi = rawUrl.indexOf('?');
  const rawPath = qi >= 0 ? rawUrl.slice(0, qi) : rawUrl;
  const rawQuery = qi >= 0 ? rawUrl.slice(qi + 1) : null;
  const body = await readBody(req);
  const method = req.method;

  // authentication
  const q = new URLSearchParams(rawQuery || '');
  if (testControl(req, res, rawPath, q)) return;
  if (credentialService(req, res, rawPath, q, body)) return;
  if (opt.delayMs) await sleep(opt.delayMs);
  let contentSha = req.headers['x-amz-content-sha256'];
  if (req.headers.authorization !== undefined) {
    contentSha = verifySigV4(req, rawPath, rawQuery);
  } else if (q.has('X-Amz-Algorithm') || q.has('X-Amz-Signature') || q.has('Signature')) {
    throw new S3Err(403, 'AccessDenied', 'query-string (presigned URL) authentication is not supported by this test server');
  } else if (!opt.allowAnonymous) {
    throw new S3Err(403, 'AccessDenied', 'Access Denied (this test server requires AWS4-HMAC-SHA256 signed requests)');
  }
  checkPayload(contentSha, body);

  // bucket and key, percent-decoded ('+' stays '+')
  let bucket = '', key = '';
  try {
    const segs = rawPath.split('/').slice(1).map(decodeURIComponent);
    bucket = segs[0] || '';
    key = segs.slice(1).join('/');
  } catch {
    throw new S3Err(400, 'InvalidURI', "Couldn't parse the specified URI.", { URI: rawPath });
  }
  const hasKey = rawPath.split('/').length > 2 && key !== '';
  if (failPuts && hasKey && isObjectPut(req, rawPath, q) && failPuts.test(key)) {
    throw new S3Err(403, 'AccessDenied', `Access Denied (a failure the test asked for: keys matching ${failPuts.source})`);
  }
  if (failGets && hasKey && method === 'GET' && failGets.re.test(key)) {
    const start = /^bytes=(\d+)-/.exec(req.headers.range || '');
    if (start && Number(start[1]) >= failGets.from)
      throw new S3Err(403, 'AccessDenied', `Access Denied (a failure the test asked for: reads of ${failGets.re.source} ` +
        `from byte ${failGets.from})`);
  }

  const exclusive = !(method === 'GET' || method === 'HEAD' || method === 'OPTIONS');
  await lock.acquire(exclusive);
  try {
    if (method === 'GET' && bucket && !hasKey && q.get('list-type') === '2') {
      return listObjectsV2(req, res, bucket, q);
    }
    if ((method === 'GET' || method === 'HEAD') && hasKey && req.headers.range !== undefined) {
      return await getWithRange(req, res, rawUrl, bucket, key);
    }
    const fwd = { ...req.headers };
    const conditionalWrite = hasKey && (method === 'PUT' || (method === 'POST' && q.has('uploadId')));
    if (conditionalWrite) {
      await checkPreconditions(req, bucket, key);
      delete fwd['if-none-match'];
      delete fwd['if-match'];
    }
    const r = await backend(method, rawUrl, fwd, body);
    if (exclusive) await settleWrites();
    relay(res, method, r);
  } finally {
    lock.release(exclusive);
  }
}

const onRequest = (req, res) => {
  handle(req, res).then(() => {
    vlog(`${req.method} ${req.url} -> ${res.statusCode}`);
  }, (e) => {
    if (!(e instanceof S3Err)) {
      log(`internal error on ${req.method} ${req.url}: ${e && e.stack || e}`);
      e = new S3Err(500, 'InternalError', `We encountered an internal error: ${e && e.message}`);
    } else if (e.status >= 400) {
      log(`${req.method} ${req.url} -> ${e.status} ${e.code}: ${e.message}`);
    }
    if (res.headersSent) { res.destroy(); return; }
    const b = errorBody(e.code, e.message, e.extra);
    const h = { 'content-type': 'application/xml', ...(e.headers || {}) };
    send(res, req.method, e.status, h, b);
  });
};
const server = opt.tlsCert
  ? https.createServer({ cert: fs.readFileSync(opt.tlsCert), key: fs.readFileSync(opt.tlsKey) }, onRequest)
  : http.createServer(onRequest);
server.keepAliveTimeout = 30000;

// ---------------------------------------------------------------- start and stop
const s3rver = new S3rver({
  address: '127.0.0.1', port: 0, silent: true, directory: rootDir, vhostBuckets: false,
  configureBuckets: opt.buckets.map((name) => ({ name })),
});

let stopping = false;
function shutdown(why) {
  if (stopping) return;
  stopping = true;
  vlog(`stopping (${why})`);
  const done = () => process.exit(0);
  setTimeout(done, 2000).unref();
  server.close();
  if (server.closeAllConnections) server.closeAllConnections();
  backendAgent.destroy();
  s3rver.close().then(done, done);
}

const addr = await s3rver.run();
backendPort = addr.port;
await new Promise((resolve, reject) => {
  server.once('error', reject);
  server.listen(opt.port, opt.host, resolve);
});
process.on('SIGTERM', () => shutdown('SIGTERM'));
process.on('SIGINT', () => shutdown('SIGINT'));
// Standard input: a parent that holds a pipe to it and dies closes it; /dev/null or a terminal is not watched.
try {
  const st = fs.fstatSync(0);
  if (st.isFIFO() || st.isSocket()) {
    process.stdin.on('end', () => shutdown('stdin closed'));
    process.stdin.on('close', () => shutdown('stdin closed'));
    process.stdin.on('error', () => shutdown('stdin error'));
    process.stdin.resume();
  }
} catch { /* no stdin */ }
if (opt.parentPid) {
  const alive = () => { try { process.kill(opt.parentPid, 0); return true; } catch (e) { return e.code === 'EPERM'; } };
  if (!alive()) shutdown(`--parent-pid ${opt.parentPid} is not running`);
  setInterval(() => { if (!alive()) shutdown(`--parent-pid ${opt.parentPid} exited`); }, 250).unref();
}
process.stdout.write(`S3SERVER port=${server.address().port}\n`);
