// s3rver behind a SigV4-verifying layer: the S3-compatible server sinkd's tests and benchmark talk
// to. s3rver stores objects but checks no signature (a wrong secret, a garbage signature and an
// unsigned request all get 200), so every request passes through this layer first, which rebuilds
// the canonical request independently of sinkd and refuses a mismatch with 403, as S3 does.
// It also does what s3rver skips and sinkd relies on:
//   - x-amz-content-sha256 and Content-MD5 are checked against the body (400 on a mismatch);
//   - If-None-Match: * on a PUT or a multipart completion is honoured (412 when the key exists)
//     as one atomic step with the create (see oneAtATime), or, with --if-none-match=reject,
//     refused with 501 NotImplemented like a store without it;
//   - If-Match: <ETag> on an object's DELETE is honoured as AWS does (412 when the object's ETag
//     differs, 404 when there is none), in the key's turn like a create, so a create cannot land
//     between the comparison and the delete;
//   - a multipart abort (DELETE ?uploadId) removes the upload (s3rver answers 405), unless
//     --s3rver-abort leaves s3rver's own answer;
//   - x-amz-security-token must be signed and, with --session-token, equal to it (403 otherwise);
//   - an object is one step, as on S3 (see oneAtATime and writesAlone): s3rver keeps it as three
//     files written one after the other in a directory per key prefix, so a GET, HEAD or listing
//     beside a write read a half-written metadata file or walked into a removed directory and
//     answered 500, and a create whose directory a delete beside it removed (s3rver removes
//     emptied directories) crashed s3rver on an unhandled ENOENT.
// s3rver encrypts ListObjectsV2 continuation tokens with DES, which OpenSSL 3 keeps in its legacy
// provider: without `node --openssl-legacy-provider` every listing of more than one page (1,000
// keys) answered 500 ERR_OSSL_EVP_UNSUPPORTED. The server refuses to start without it.
//
//   node --openssl-legacy-provider run-s3rver-verify.js DIR PORT AK SK [BUCKET] [options]
//     PORT 0 lets the OS choose; the chosen one is in the first line printed:
//       s3rver+sigv4 listening on 127.0.0.1:<port>
//     --log FILE            one JSON line per request: method, url, headers, status
//     --allow-anonymous     pass requests without Authorization through (logged), not 403
//     --session-token T     require this x-amz-security-token on signed requests
//     --if-none-match MODE  enforce (default) | reject | ignore | ignore-multipart (honoured on a
//                           PUT, ignored on a multipart completion)
//     --s3rver-abort        leave multipart abort to s3rver (405 MethodNotAllowed)
//     --last-modified TEXT  put TEXT in every listing's LastModified (a store whose dates a
//                           client cannot read)
//     --key AK2:SK2         another key pair (repeatable)
//     --tls-cert F --tls-key F   serve https
//     --vhost-domain D      virtual-hosted buckets as <bucket>.s3.D (default localhost)
// SIGTERM or SIGINT closes the server and exits 0. SIGV4_DEBUG=1 prints canonical requests.
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { PassThrough } from 'node:stream';
import { createRequire } from 'node:module';

const require = createRequire(import.meta.url);
const S3rver = require('s3rver');
const { DUMMY_ACCOUNT } = require('s3rver/lib/models/account');

function parseArgs(argv) {
  const positional = [];
  const opts = { ifNoneMatch: 'enforce', keys: [], vhostDomain: 'localhost' };
  for (let i = 0; i < argv.length; i++) {
    const a = argv[i];
    const value = () => {
      if (i + 1 >= argv.length) throw new Error(`${a} needs a value`);
      return argv[++i];
    };
    if (a === '--log') opts.log = value();
    else if (a === '--allow-anonymous') opts.allowAnonymous = true;
    else if (a === '--session-token') opts.sessionToken = value();
    else if (a === '--if-none-match') opts.ifNoneMatch = value();
    else if (a.startsWith('--if-none-match=')) opts.ifNoneMatch = a.slice(16);
    else if (a === '--s3rver-abort') opts.s3rverAbort = true;
    else if (a === '--last-modified') opts.lastModified = value();
    else if (a === '--key') opts.keys.push(value());
    else if (a === '--tls-cert') opts.tlsCert = value();
    else if (a === '--tls-key') opts.tlsKey = value();
    else if (a === '--vhost-domain') opts.vhostDomain = value();
    else if (a.startsWith('--')) throw new Error(`unknown option ${a}`);
    else positional.push(a);
  }
  if (positional.length < 4) {
    throw new Error('usage: run-s3rver-verify.js DIR PORT AK SK [BUCKET] [options]');
  }
  if (!['enforce', 'reject', 'ignore', 'ignore-multipart'].includes(opts.ifNoneMatch)) {
    throw new Error(`--if-none-match must be enforce, reject, ignore or ignore-multipart`);
  }
  const [dir, port, ak, sk, bucket] = positional;
  return { dir, port: Number(port), ak, sk, bucket, ...opts };
}

// RFC 3986: encodeURIComponent leaves !'()* alone; SigV4 wants them encoded too.
function rfc3986(text) {
  return encodeURIComponent(text).replace(
    /[!'()*]/g,
    c => '%' + c.charCodeAt(0).toString(16).toUpperCase(),
  );
}

function safeDecode(text) {
  try {
    return decodeURIComponent(text);
  } catch {
    return text;
  }
}

function canonicalUri(rawPath) {
  return rawPath
    .split('/')
    .map(segment => rfc3986(safeDecode(segment)))
    .join('/');
}

function canonicalQuery(rawQuery) {
  if (!rawQuery) return '';
  const pairs = rawQuery
    .split('&')
    .filter(p => p.length > 0)
    .map(p => {
      const eq = p.indexOf('=');
      const k = eq < 0 ? p : p.slice(0, eq);
      const v = eq < 0 ? '' : p.slice(eq + 1);
      const dec = s => safeDecode(s.replace(/\+/g, ' '));
      return [rfc3986(dec(k)), rfc3986(dec(v))];
    });
  pairs.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  return pairs.map(([k, v]) => `${k}=${v}`).join('&');
}

function hmac(key, data) {
  return crypto.createHmac('sha256', key).update(data, 'utf8').digest();
}

function s3Error(ctx, status, code, message) {
  ctx.status = status;
  ctx.type = 'application/xml';
  ctx.set('x-amz-error-code', code);
  ctx.body =
    '<?xml version="1.0" encoding="UTF-8"?>' +
    `<Error><Code>${code}</Code><Message>${message}</Message></Error>`;
}

const AUTH_RE =
  /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([a-z0-9;-]+), ?Signature=([0-9a-f]{64})$/;

// Checks a request's SigV4 header auth; returns null when it is right, else [status, code, msg].
function verifySignature(req, accounts) {
  const auth = req.headers['authorization'] || '';
  if (!auth.startsWith('AWS4-HMAC-SHA256 ')) {
    return [403, 'AccessDenied', 'SigV4 header auth required'];
  }
  const m = AUTH_RE.exec(auth);
  if (!m) return [403, 'AuthorizationHeaderMalformed', 'bad Authorization'];
  const [, keyId, day, region, service, signedHeaders, signature] = m;
  const secret = accounts.get(keyId);
  if (secret === undefined) return [403, 'InvalidAccessKeyId', keyId];
  const amzDate = req.headers['x-amz-date'] || '';
  if (!amzDate.startsWith(day)) return [403, 'SignatureDoesNotMatch', 'date/scope mismatch'];
  const url = req.url;
  const q = url.indexOf('?');
  const rawPath = q < 0 ? url : url.slice(0, q);
  const rawQuery = q < 0 ? '' : url.slice(q + 1);
  const names = signedHeaders.split(';');
  const headerLines = names
    .map(n => {
      const v = req.headers[n];
      const value = Array.isArray(v) ? v.join(',') : v === undefined ? '' : String(v);
      return `${n}:${value.trim().replace(/\s+/g, ' ')}\n`;
    })
    .join('');
  const payload = req.headers['x-amz-content-sha256'] || 'UNSIGNED-PAYLOAD';
  const canonical = [
    req.method,
    canonicalUri(rawPath),
    canonicalQuery(rawQuery),
    headerLines,
    signedHeaders,
    payload,
  ].join('\n');
  const scope = `${day}/${region}/${service}/aws4_request`;
  const stringToSign = [
    'AWS4-HMAC-SHA256',
    amzDate,
    scope,
    crypto.createHash('sha256').update(canonical, 'utf8').digest('hex'),
  ].join('\n');
  let key = hmac('AWS4' + secret, day);
  key = hmac(key, region);
  key = hmac(key, service);
  key = hmac(key, 'aws4_request');
  const expected = crypto.createHmac('sha256', key).update(stringToSign, 'utf8').digest();
  const given = Buffer.from(signature, 'hex');
  if (process.env.SIGV4_DEBUG) process.stderr.write(`canonical request:\n${canonical}\n---\n`);
  if (given.length !== expected.length || !crypto.timingSafeEqual(given, expected)) {
    return [
      403,
      'SignatureDoesNotMatch',
      'The request signature we calculated does not match the signature you provided.',
    ];
  }
  if ('x-amz-security-token' in req.headers && !names.includes('x-amz-security-token')) {
    return [403, 'AccessDenied', 'x-amz-security-token must be signed'];
  }
  return null;
}

function readBody(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', c => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks)));
    req.on('error', reject);
  });
}

// Bucket and key of a request, path-style or <bucket>.s3.<domain>.
function target(ctx, vhostDomain) {
  const host = (ctx.headers.host || '').replace(/:\d+$/, '');
  const suffix = `.s3.${vhostDomain}`;
  const rawPath = ctx.req.url.split('?')[0];
  const segments = rawPath.split('/').slice(1).map(safeDecode);
  if (host.endsWith(suffix)) {
    return { bucket: host.slice(0, -suffix.length), key: segments.join('/') };
  }
  return { bucket: segments[0] || '', key: segments.slice(1).join('/') };
}

// Runs `work` for one name at a time, in arrival order; the next waits until it has settled.
// If-None-Match is a compare-and-swap only if nothing can create the key between the existence
// check and the write: s3rver's own create is several awaits (mkdirp, a write stream, the md5 and
// metadata files), during which Node runs other requests, so a check-then-next() lets two
// creates of one key both see it free and both answer 200 (the second overwriting the first).
// Holding the key's turn from the check until s3rver has answered makes the pair one step: this
// process is the only writer of s3rver's directory, and every request that creates an object
// (PUT, copy, multipart completion) passes through here. Another key's creates do not wait.
// A create that waited gets its answer after its turn (412 if the key was taken), never the 409
// ConditionalRequestConflict AWS may give a create racing another; sinkd's client retries a 409
// (s3_client.cc), which then meets the same 412. Every request naming a key takes the key's turn
// (a GET's body is read whole within it), so nothing reads an object half-written or
// half-deleted.
function oneAtATime() {
  const tails = new Map();
  return async (name, work) => {
    const before = tails.get(name) ?? Promise.resolve();
    let done;
    const mine = new Promise(resolve => (done = resolve));
    tails.set(name, mine);
    await before;
    try {
      return await work();
    } finally {
      done();
      if (tails.get(name) === mine) tails.delete(name);
    }
  };
}

// Runs one 'write' at a time, or any number of 'list's together, first come first served. A
// listing reads every object of the bucket (stat, metadata and md5 files) and walks its
// directories, so it must not overlap a write of any key; two writes must not overlap either,
// since a delete removes the directory a create beside it has just made. The bodies were read
// before (check), so a write holds this for disk work only. A write waits here only after it has
// its key's turn, and nothing that runs here waits for a key, so the two never wait in a circle.
function writesAlone() {
  let active = null;
  let running = 0;
  const waiting = [];  // [kind, resolve], in arrival order
  const together = kind => running === 0 || (kind === 'list' && active === 'list');
  const admit = () => {
    while (waiting.length > 0 && together(waiting[0][0])) {
      const [kind, resolve] = waiting.shift();
      active = kind;
      ++running;
      resolve();
    }
  };
  return async (kind, work) => {
    if (waiting.length === 0 && together(kind)) {
      active = kind;
      ++running;
    } else {
      await new Promise(resolve => {
        waiting.push([kind, resolve]);
        admit();
      });
    }
    try {
      return await work();
    } finally {
      if (--running === 0) active = null;
      admit();
    }
  };
}

// A body s3rver streams from its files (GET), read whole while the key's turn is held.
async function readWhole(ctx) {
  const body = ctx.body;
  if (body === null || typeof body !== 'object' || typeof body.pipe !== 'function') return;
  const chunks = [];
  for await (const chunk of body) chunks.push(chunk);
  ctx.body = Buffer.concat(chunks);
}

function makeLayer(opts, accounts, store) {
  const turn = oneAtATime();
  const kinds = writesAlone();
  const log = opts.log ? fs.openSync(opts.log, 'a') : null;
  const record = (ctx, note, status, stack) => {
    if (log === null) return;
    const entry = {
      method: ctx.method,
      url: ctx.state.rawUrl ?? ctx.req.url,
      headers: ctx.headers,
      status: status ?? ctx.status,
      ...(note ? { note } : {}),
      ...(stack ? { stack } : {}),
    };
    fs.writeSync(log, JSON.stringify(entry) + '\n');
  };

  return async function verify(ctx, next) {
    try {
      await check(ctx, next);
    } catch (err) {
      if (process.env.SIGV4_DEBUG) process.stderr.write(`${err.stack}\n`);
      // A client that went away mid-request (a killed process: its upload cut short, or the body
      // of its GET destroyed with the response) gets no answer: 499, as nginx logs it, so that a
      // 5xx in the log is always the server's own failure, with where it came from.
      const gone = err.code === 'ECONNRESET' || ctx.res.destroyed || ctx.res.socket?.destroyed;
      const status = gone ? 499 : err.status ?? 500;
      record(ctx, err.code, status, status >= 500 ? String(err.stack) : undefined);
      throw err;
    }
  };

  async function check(ctx, next) {
    ctx.state.rawUrl = ctx.req.url;  // as sent: s3rver rewrites virtual-hosted paths
    const refuse = (status, code, message) => {
      s3Error(ctx, status, code, message);
      record(ctx, code);
    };
    const req = ctx.req;
    const signed = 'authorization' in req.headers;
    if (signed || !opts.allowAnonymous) {
      const problem = verifySignature(req, accounts);
      if (problem) return refuse(...problem);
      if (opts.sessionToken !== undefined &&
          req.headers['x-amz-security-token'] !== opts.sessionToken) {
        return refuse(403, 'InvalidToken', 'The provided token is malformed or otherwise invalid.');
      }
    }

    if (req.method === 'PUT' || req.method === 'POST') {
      const body = await readBody(req);
      const claimed = req.headers['x-amz-content-sha256'];
      if (claimed && !claimed.startsWith('UNSIGNED-PAYLOAD') && !claimed.startsWith('STREAMING-')) {
        const actual = crypto.createHash('sha256').update(body).digest('hex');
        if (actual !== claimed) {
          return refuse(400, 'XAmzContentSHA256Mismatch',
                        "The provided 'x-amz-content-sha256' header does not match what was computed.");
        }
      }
      const md5 = req.headers['content-md5'];
      if (md5 !== undefined && crypto.createHash('md5').update(body).digest('base64') !== md5) {
        return refuse(400, 'BadDigest', 'The Content-MD5 you specified did not match what we received.');
      }
      // s3rver reads the body from ctx.req: hand it the bytes already read.
      const replay = new PassThrough();
      replay.headers = req.headers;
      replay.url = req.url;
      replay.method = req.method;
      replay.end(body);
      ctx.req = replay;
    }

    const { bucket, key } = target(ctx, opts.vhostDomain);
    const reads = req.method === 'GET' || req.method === 'HEAD';
    const serve = () => handle(ctx, next, req, bucket, key, refuse);
    if (key && reads) return turn(`${bucket}/${key}`, serve);
    if (reads) return kinds('list', serve);
    if (key) return turn(`${bucket}/${key}`, () => kinds('write', serve));
    return kinds('write', serve);
  }

  // The request, in its key's turn and its kind's (see check).
  async function handle(ctx, next, req, bucket, key, refuse) {
    const query = new URLSearchParams(ctx.req.url.split('?')[1] || '');
    const creates =
      key && ((req.method === 'PUT' && !query.has('partNumber')) ||
              (req.method === 'POST' && query.has('uploadId')));
    if (creates && req.headers['if-none-match'] !== undefined && opts.ifNoneMatch === 'reject') {
      return refuse(501, 'NotImplemented',
                    'A header you provided implies functionality that is not implemented');
    }
    if (creates) {
      const honoured = opts.ifNoneMatch === 'enforce' ||
                       (opts.ifNoneMatch === 'ignore-multipart' && req.method === 'PUT');
      const conditional = honoured && req.headers['if-none-match'] === '*';
      if (conditional && (await store.existsObject(bucket, key))) {
        return refuse(412, 'PreconditionFailed',
                      'At least one of the pre-conditions you specified did not hold');
      }
      await next();
      record(ctx);
      return;
    }
    if (req.method === 'DELETE' && key && !query.has('uploadId') &&
        req.headers['if-match'] !== undefined) {
      const wanted = req.headers['if-match'].replace(/"/g, '');
      if (!(await store.existsObject(bucket, key))) {
        return refuse(404, 'NoSuchKey', 'The specified key does not exist.');
      }
      const { etag } = await store.getMetadata(bucket, key);
      if (wanted !== '*' && wanted !== etag.replace(/"/g, '')) {
        return refuse(412, 'PreconditionFailed',
                      'At least one of the pre-conditions you specified did not hold');
      }
      await next();
      record(ctx);
      return;
    }
    if (req.method === 'DELETE' && query.has('uploadId') && key && !opts.s3rverAbort) {
      const dir = path.join(store.getResourcePath(bucket, undefined, 'uploads'),
                            path.basename(query.get('uploadId')));
      if (!fs.existsSync(dir)) {
        return refuse(404, 'NoSuchUpload', 'The specified upload does not exist.');
      }
      fs.rmSync(dir, { recursive: true, force: true });
      ctx.status = 204;
      ctx.body = null;
      record(ctx, 'aborted');
      return;
    }
    await next();
    if (key) await readWhole(ctx);
    if (opts.lastModified !== undefined && req.method === 'GET' && !key &&
        typeof ctx.body === 'string') {
      ctx.body = ctx.body.replace(/<LastModified>[^<]*<\/LastModified>/g,
                                  `<LastModified>${opts.lastModified}</LastModified>`);
    }
    record(ctx);
  }
}

async function main() {
  const opts = parseArgs(process.argv.slice(2));
  try {
    crypto.createCipheriv('des', Buffer.alloc(8), Buffer.alloc(8));
  } catch (err) {
    throw new Error(`DES is unavailable (${err.code}): s3rver's ListObjectsV2 continuation ` +
                    'tokens need it; start node with --openssl-legacy-provider');
  }
  const accounts = new Map([[opts.ak, opts.sk]]);
  DUMMY_ACCOUNT.createKeyPair(opts.ak, opts.sk);
  for (const pair of opts.keys) {
    const colon = pair.indexOf(':');
    accounts.set(pair.slice(0, colon), pair.slice(colon + 1));
    DUMMY_ACCOUNT.createKeyPair(pair.slice(0, colon), pair.slice(colon + 1));
  }
  const serverOptions = {
    address: '127.0.0.1',
    port: opts.port,
    directory: opts.dir,
    silent: true,
    serviceEndpoint: opts.vhostDomain,
    configureBuckets: opts.bucket ? [{ name: opts.bucket, configs: [] }] : [],
  };
  if (opts.tlsCert) {
    serverOptions.cert = fs.readFileSync(opts.tlsCert);
    serverOptions.key = fs.readFileSync(opts.tlsKey);
  }
  const server = new S3rver(serverOptions);
  server.middleware.unshift(makeLayer(opts, accounts, server.store));
  const address = await server.run();
  process.stdout.write(`s3rver+sigv4 listening on ${address.address}:${address.port}\n`);
  const stop = () => server.close().then(() => process.exit(0), () => process.exit(0));
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch(err => {
  process.stderr.write(`run-s3rver-verify: ${err.message}\n`);
  process.exit(2);
});
