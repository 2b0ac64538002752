// Copies a folder tree to or from the test S3 server with an independent client (Node's http + the aws4
// signer), so that tests put tables there, and look at what hoodie wrote there, without hoodie's S3 code.
//   node s3sync.mjs up   LOCAL_DIR  s3://bucket/prefix
//   node s3sync.mjs down s3://bucket/prefix  LOCAL_DIR
//   node s3sync.mjs ls   s3://bucket/prefix        (every key under the prefix, one per line, sorted)
// Environment: AWS_ENDPOINT_URL (http://127.0.0.1:PORT, or https:// with NODE_EXTRA_CA_CERTS naming the server's
// certificate), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY, AWS_REGION.
import http from 'node:http';
import https from 'node:https';
import fs from 'node:fs';
import path from 'node:path';
import crypto from 'node:crypto';
import aws4 from 'aws4';

const endpoint = new URL(process.env.AWS_ENDPOINT_URL);
const creds = { accessKeyId: process.env.AWS_ACCESS_KEY_ID, secretAccessKey: process.env.AWS_SECRET_ACCESS_KEY };
const region = process.env.AWS_REGION || 'us-east-1';

const enc = (s) => encodeURIComponent(s).replace(/[!'()*]/g, (c) => '%' + c.charCodeAt(0).toString(16).toUpperCase());
const encKey = (k) => k.split('/').map(enc).join('/');

function request(method, bucket, key, query, body) {
    const p = '/' + enc(bucket) + (key ? '/' + encKey(key) : '') + (query ? '?' + query : '');
    const payload = body || Buffer.alloc(0);
    const opts = aws4.sign({
        host: endpoint.host, path: p, method, service: 's3', region, body: payload,
        headers: { 'x-amz-content-sha256': crypto.createHash('sha256').update(payload).digest('hex') },
    }, creds);
    return new Promise((resolve, reject) => {
        const req = (endpoint.protocol === 'https:' ? https : http).request({ hostname: endpoint.hostname, port: endpoint.port, path: p, method,
                                   headers: opts.headers }, (res) => {
            const chunks = [];
            res.on('data', (c) => chunks.push(c));
            res.on('end', () => {
                const buf = Buffer.concat(chunks);
                if (res.statusCode >= 300) reject(new Error(`${method} ${p}: HTTP ${res.statusCode} ${buf}`));
                else resolve(buf);
            });
        });
        req.on('error', reject);
        req.end(payload);
    });
}

function parseS3(url) {
    const m = /^s3a?:\/\/([^/]+)\/?(.*)$/.exec(url);
    if (!m) throw new Error(`not an s3:// URL: ${url}`);
    return { bucket: m[1], prefix: m[2].replace(/\/+$/, '') };
}

const unxml = (s) => s.replace(/&(amp|lt|gt|quot|apos|#x[0-9a-fA-F]+|#[0-9]+);/g, (_, e) =>
    ({ amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" })[e] ??
    String.fromCodePoint(e[1] === 'x' ? parseInt(e.slice(2), 16) : parseInt(e.slice(1), 10)));

async function listAll(bucket, prefix) {
    const keys = [];
    let token = null;
    for (;;) {
        const q = [];
        if (token) q.push('continuation-token=' + enc(token));
        q.push('list-type=2');
        if (prefix) q.push('prefix=' + enc(prefix + '/'));
        const xml = (await request('GET', bucket, '', q.join('&'))).toString();
        for (const m of xml.matchAll(/<Contents>[\s\S]*?<Key>([\s\S]*?)<\/Key>[\s\S]*?<\/Contents>/g)) keys.push(unxml(m[1]));
        const t = /<NextContinuationToken>([\s\S]*?)<\/NextContinuationToken>/.exec(xml);
        if (!/<IsTruncated>true<\/IsTruncated>/.test(xml) || !t) break;
        token = unxml(t[1]);
    }
    return keys.sort();
}

function walk(dir, rel = '') {
    const out = [];
    for (const e of fs.readdirSync(path.join(dir, rel), { withFileTypes: true })) {
        const r = rel ? rel + '/' + e.name : e.name;
        if (e.isDirectory()) out.push(...walk(dir, r));
        else if (e.isFile()) out.push(r);
    }
    return out;
}

const [cmd, a, b] = process.argv.slice(2);
if (cmd === 'up') {
    const { bucket, prefix } = parseS3(b);
    for (const rel of walk(a)) await request('PUT', bucket, (prefix ? prefix + '/' : '') + rel, '', fs.readFileSync(path.join(a, rel)));
} else if (cmd === 'down') {
    const { bucket, prefix } = parseS3(a);
    for (const key of await listAll(bucket, prefix)) {
        if (key.endsWith('/')) continue; // folder markers
        const rel = prefix ? key.slice(prefix.length + 1) : key;
        fs.mkdirSync(path.dirname(path.join(b, rel)), { recursive: true });
        fs.writeFileSync(path.join(b, rel), await request('GET', bucket, key, ''));
    }
} else if (cmd === 'ls') {
    const { bucket, prefix } = parseS3(a);
    for (const key of await listAll(bucket, prefix)) console.log(key);
} else {
    console.error('usage: s3sync.mjs up DIR s3://bucket/prefix | down s3://bucket/prefix DIR | ls s3://bucket/prefix');
    process.exit(2);
}
