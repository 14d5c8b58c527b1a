'use strict';
// The Node.js receiver `make bench` measures against mod_wirehook: what a
// competent Node developer would write for the bank's webhooks, with the
// same checks in the same order and the same answers as wirehook (README,
// "How a notification is checked"). Bench-only: never installed.
//
//   NODE_PATH=build/bench/node_modules node bench/receivers/receiver.js
//
// Environment: WH_PORT (listen on 127.0.0.1), WH_SECRET_FILE (one secret a
// line, every line tried), WH_HTPASSWD (bcrypt or {SHA} entries),
// WH_SIGNED_URL (the public URL the bank signs, as wirehook's SignedUrl;
// unset: "http://" + Host + path, as wirehook rebuilds it).
//
// Differences from wirehook, all in its favour (it does less): JSON.parse
// keeps the last of duplicate member names instead of refusing them, and
// accepts "\u0000" and lone-surrogate escapes; the schema is bench/receivers/notification.schema.json
// through ajv (allErrors, like wirehook listing every problem);
// eventDateTime is ajv-formats' "date-time" (RFC 3339, calendar-checked).
// Replay protection is an in-memory Map (one process: a second process
// or a restart forgets it), entries kept 2 x 300 s like ReplayWindow.

const http = require('node:http');
const crypto = require('node:crypto');
const fs = require('node:fs');
const path = require('node:path');
const Ajv = require('ajv');
const addFormats = require('ajv-formats');
const bcrypt = require('bcryptjs');

const TOLERANCE = 300;
const MAX_BODY = 65536;
const MAX_DEPTH = 32;
const REPLAY_MS = 2 * TOLERANCE * 1000;
const AUTH_TTL_MS = 60 * 1000;
const REALM = 'wirehook';
const KNOWN = new Set(['Review', 'Send Ready', 'Reject', 'Error', 'Exception', 'Complete']);

const secrets = fs.readFileSync(process.env.WH_SECRET_FILE, 'utf8')
  .split('\n').map((l) => l.replace(/\r$/, '')).filter((l) => l.length > 0)
  .map((l) => Buffer.from(l, 'utf8'));
const htpasswdPath = process.env.WH_HTPASSWD;
const signedUrl = process.env.WH_SIGNED_URL || '';

const ajv = new Ajv({ allErrors: true, allowUnionTypes: true });
addFormats(ajv, ['date-time']);
const validate = ajv.compile(JSON.parse(
  fs.readFileSync(path.join(__dirname, 'notification.schema.json'), 'utf8')));

const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });
const authCache = new Map(); // sha256(Authorization) -> expiry (ms)
const seen = new Map();      // notificationId -> expiry (ms)

function send(res, status, obj, headers) {
  const body = JSON.stringify(obj) + '\n';
  res.writeHead(status, Object.assign({
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(body),
  }, headers || {}));
  res.end(body);
}

function fail(res, status, code, message, details, headers) {
  const error = { code, message };
  if (details) error.details = details;
  send(res, status, { error }, headers);
}

const challenge = { 'WWW-Authenticate': `Basic realm="${REALM}"` };

// htpasswd entry check: bcrypt ($2y$/$2b$/$2a$) or {SHA}
function passwordMatches(user, password) {
  let text;
  try { text = fs.readFileSync(htpasswdPath, 'utf8'); } catch (e) { return false; }
  for (const line of text.split('\n')) {
    const colon = line.indexOf(':');
    if (colon < 0 || line.slice(0, colon) !== user) continue;
    const hash = line.slice(colon + 1).trim();
    if (hash.startsWith('$2')) return bcrypt.compareSync(password, hash);
    if (hash.startsWith('{SHA}')) {
      const want = Buffer.from(hash.slice(5));
      const got = Buffer.from(crypto.createHash('sha1').update(password).digest('base64'));
      return want.length === got.length && crypto.timingSafeEqual(want, got);
    }
    return false;
  }
  return false;
}

// null when the credentials are good, else the error code
function checkAuth(header) {
  if (!header) return 'auth_required';
  const m = /^Basic ([A-Za-z0-9+/]+={0,2})$/.exec(header);
  if (!m) return 'auth_required';
  const key = crypto.createHash('sha256').update(header).digest('hex');
  const now = Date.now();
  const until = authCache.get(key);
  if (until !== undefined && until > now) {
    authCache.set(key, now + AUTH_TTL_MS); // sliding, as AuthCacheTTL
    return null;
  }
  const plain = Buffer.from(m[1], 'base64').toString('utf8');
  const colon = plain.indexOf(':');
  if (colon < 1) return 'auth_required';
  if (!passwordMatches(plain.slice(0, colon), plain.slice(colon + 1))) return 'auth_failed';
  authCache.set(key, now + AUTH_TTL_MS);
  return null;
}

function contentTypeOk(ct) {
  if (!ct) return false;
  const parts = ct.split(';');
  if (parts[0].trim().toLowerCase() !== 'application/json') return false;
  for (const p of parts.slice(1)) {
    const eq = p.indexOf('=');
    if (eq < 0) continue;
    if (p.slice(0, eq).trim().toLowerCase() === 'charset'
        && !/^"?utf-8"?$/i.test(p.slice(eq + 1).trim())) return false;
  }
  return true;
}

function depthOk(v, depth) {
  if (v === null || typeof v !== 'object') return true;
  if (depth > MAX_DEPTH) return false;
  for (const k in v) if (!depthOk(v[k], depth + 1)) return false;
  return true;
}

// ajv's instancePath is already an RFC 6901 pointer; a missing property
// is reported at its parent, so the member name is appended; the "if"
// summary of the wire.status branch repeats the errors under it
function problems(errors) {
  return errors.filter((e) => e.keyword !== 'if').map((e) => {
    if (e.keyword === 'required') {
      return { field: `${e.instancePath}/${e.params.missingProperty}`, problem: 'is required' };
    }
    return { field: e.instancePath, problem: e.message };
  });
}

function verify(req, res, body) {
  // 5. timestamp
  const ts = req.headers['x-timestamp'];
  if (ts === undefined) return fail(res, 401, 'timestamp_missing', 'the timestamp header is missing', null, challenge);
  if (!/^[0-9]{1,19}$/.test(ts)) return fail(res, 401, 'timestamp_malformed', 'the timestamp must be digits only', null, challenge);
  let seconds = Number(ts);
  if (ts.length >= 13) seconds = Math.floor(seconds / 1000);
  const now = Math.floor(Date.now() / 1000);
  if (seconds < now - TOLERANCE) return fail(res, 401, 'timestamp_expired', 'the timestamp is too old', null, challenge);
  if (seconds > now + TOLERANCE) return fail(res, 401, 'timestamp_in_future', 'the timestamp is in the future', null, challenge);
  // 6. signature: HMAC-SHA256(secret, METHOD + URL + BODY + TIMESTAMP)
  const sig = req.headers['x-signature'];
  if (sig === undefined) return fail(res, 401, 'signature_missing', 'the signature header is missing', null, challenge);
  if (!/^[0-9A-Fa-f]{64}$/.test(sig)) return fail(res, 401, 'signature_malformed', 'the signature must be 64 hex digits', null, challenge);
  const url = signedUrl || `http://${req.headers.host || ''}${req.url}`;
  const given = Buffer.from(sig, 'hex');
  let match = false;
  for (const key of secrets) { // every secret, in constant time
    const mac = crypto.createHmac('sha256', key)
      .update(req.method).update(url).update(body).update(ts).digest();
    if (crypto.timingSafeEqual(mac, given)) match = true;
  }
  if (!match) return fail(res, 401, 'signature_mismatch', 'the signature does not match', null, challenge);
  // 7. strict JSON (as strict as JSON.parse): valid UTF-8, a BOM kept so
  // that JSON.parse refuses it, nesting <= 32
  let doc;
  try {
    doc = JSON.parse(utf8.decode(body));
  } catch (e) {
    return fail(res, 400, 'invalid_json', 'the body is not valid JSON');
  }
  if (!depthOk(doc, 1)) return fail(res, 400, 'invalid_json', 'the body is nested too deeply');
  // 8. schema
  if (!validate(doc)) {
    return fail(res, 400, 'schema_violation', 'the notification does not match the schema', problems(validate.errors));
  }
  // replay protection: an accepted id is a duplicate for 2 x tolerance
  const id = doc.notificationId;
  const t = Date.now();
  const until = seen.get(id);
  if (until !== undefined && until > t) return send(res, 200, { status: 'duplicate', notificationId: id });
  seen.set(id, t + REPLAY_MS);
  if (seen.size > 1000 && (seen.size & 1023) === 0) { // occasional sweep
    for (const [k, v] of seen) if (v <= t) seen.delete(k);
  }
  // UnknownStatus accept: an unknown status is flagged, not refused (the
  // application would get the flag as wirehook's WIREHOOK_STATUS_KNOWN)
  const wire = doc.data && doc.data.wireEventInfo;
  res.setHeader('X-Status-Known', wire && KNOWN.has(wire.status) ? '1' : '0');
  return send(res, 200, { status: 'accepted', notificationId: id });
}

const server = http.createServer((req, res) => {
  // 1. method
  if (req.method !== 'POST') {
    req.resume();
    return fail(res, 405, 'method_not_allowed', 'only POST is accepted', null, { Allow: 'POST' });
  }
  // 2. Basic auth
  const why = checkAuth(req.headers.authorization);
  if (why) {
    req.resume();
    return fail(res, 401, why, why === 'auth_required' ? 'Basic authentication is required'
      : 'the credentials are not valid', null, challenge);
  }
  // 3. media type, no content coding
  const enc = req.headers['content-encoding'];
  if (!contentTypeOk(req.headers['content-type']) || (enc && enc.toLowerCase() !== 'identity')) {
    req.resume();
    return fail(res, 415, 'unsupported_media_type', 'the body must be application/json');
  }
  // 4. length: refused before reading when Content-Length says so
  const cl = req.headers['content-length'];
  if (cl !== undefined && !/^[0-9]+$/.test(cl)) {
    req.resume();
    return fail(res, 400, 'bad_request', 'Content-Length is not a number');
  }
  if (cl !== undefined && Number(cl) > MAX_BODY) {
    res.setHeader('Connection', 'close');
    fail(res, 413, 'body_too_large', 'the body is too large');
    return req.destroy();
  }
  const chunks = [];
  let size = 0;
  let over = false;
  req.on('data', (c) => {
    size += c.length;
    if (size > MAX_BODY) {
      if (!over) {
        over = true;
        res.setHeader('Connection', 'close');
        fail(res, 413, 'body_too_large', 'the body is too large');
        req.destroy();
      }
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    if (over) return;
    try {
      verify(req, res, chunks.length === 1 ? chunks[0] : Buffer.concat(chunks, size));
    } catch (e) {
      fail(res, 500, 'internal_error', 'internal error');
    }
  });
});
// outlive httpd's pooled backend connections (mod_proxy reuses them)
server.keepAliveTimeout = 120 * 1000;
server.headersTimeout = 130 * 1000;
server.listen(Number(process.env.WH_PORT), '127.0.0.1', () => {
  process.stdout.write(`listening on 127.0.0.1:${process.env.WH_PORT}\n`);
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
