//! The guarded clients reach only guard-checked addresses: they connect to the address the guard
//! resolved (never resolving again), keep the name for Host, SNI and certificates, re-check
//! every redirect hop, cap bodies (also decompressed ones) and map failures to upstream_error.
//! HTTP (lib/guarded-http.ts) and raw TCP/TLS (lib/guarded-sockets.ts) share these fixtures.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import tls from 'node:tls';
import zlib from 'node:zlib';
import { once } from 'node:events';
import { ServiceError } from '../../lib/errors.js';
import { createGuardedHttp, decodersFor, nextHop, type GuardedHttp } from '../../lib/guarded-http.js';
import { createGuardedSockets, type GuardedSockets } from '../../lib/guarded-sockets.js';
import { createResolver } from '../../lib/resolver.js';
import { createTargetGuard, type TargetGuard } from '../../lib/target-guard.js';
import { upstreamError } from '../../lib/upstream.js';
import { FIXTURE_NAMES as N, startDnsServer, type DnsServer } from '../fixtures/dns-server.js';

interface Certs {
  ca: string;
  key: string;
  cert: string;
  selfKey: string;
  selfCert: string;
}

/** A test CA, a leaf for fixture.test / rebind.test / 127.0.0.2 it signs, and a self-signed leaf. */
function makeCerts(): Certs {
  const dir = mkdtempSync(path.join(os.tmpdir(), 'guard-certs-'));
  const run = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' });
  const ec = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:prime256v1', '-nodes'];
  try {
    run('req', '-x509', '-new', ...ec, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=Guard Test CA',
      '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
    run('req', '-new', ...ec, '-keyout', 'leaf.key', '-out', 'leaf.csr', '-subj', '/CN=fixture.test');
    writeFileSync(path.join(dir, 'leaf.ext'), 'subjectAltName=DNS:fixture.test,DNS:rebind.test,IP:127.0.0.2\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n');
    run('x509', '-req', '-in', 'leaf.csr', '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-out', 'leaf.pem', '-days', '2', '-extfile', 'leaf.ext');
    run('req', '-x509', '-new', ...ec, '-keyout', 'self.key', '-out', 'self.pem', '-days', '2', '-subj', '/CN=fixture.test', '-addext', 'subjectAltName=DNS:fixture.test');
    const read = (f: string) => readFileSync(path.join(dir, f), 'utf8');
    return { ca: read('ca.pem'), key: read('leaf.key'), cert: read('leaf.pem'), selfKey: read('self.key'), selfCert: read('self.pem') };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

async function listen(server: net.Server): Promise<number> {
  server.listen(0, '127.0.0.2');
  await once(server, 'listening');
  return (server.address() as net.AddressInfo).port;
}

/** A loopback port with nothing listening on it. */
async function closedPort(): Promise<number> {
  const server = net.createServer();
  const port = await listen(server);
  await new Promise((r) => server.close(r));
  return port;
}

let certs: Certs;
let dns: DnsServer;
let guard: TargetGuard;
let client: GuardedHttp;
let trusting: GuardedHttp;
let sockets: GuardedSockets;
let trustingSockets: GuardedSockets;
/**
 * Deadline of the raw-connection tests (resolve, connect, handshake): generous, as they test what
 * a connection reports, not how fast; a 2 s bound failed on a machine at load 27.
 */
const CONNECT_TIMEOUT_MS = 10_000;
const ports = { plain: 0, other: 0, secure: 0, selfSigned: 0, closed: 0, startTls: 0, v6: 0 };
let otherHits = 0;
const servers: net.Server[] = [];
const BOMB = zlib.gzipSync(Buffer.alloc(32 * 1024 * 1024));
const TEXT = 'hello, guarded world\n'.repeat(100);

function plainHandler(req: http.IncomingMessage, res: http.ServerResponse): void {
  const url = new URL(req.url!, 'http://x');
  const redirect = (status: number, location: string): void => {
    res.writeHead(status, { location }).end();
  };
  switch (url.pathname) {
    case '/ok':
      res.setHeader('set-cookie', ['a=1', 'b=2']);
      res.setHeader('x-custom', 'yes');
      return void res.end('hello');
    case '/echo': {
      const chunks: Buffer[] = [];
      req.on('data', (c) => chunks.push(c));
      req.on('end', () => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ method: req.method, url: req.url, headers: req.headers, body: Buffer.concat(chunks).toString() }));
      });
      return;
    }
    case '/big':
      return void res.end(Buffer.alloc(Number(url.searchParams.get('n') ?? 100_000), 'a'));
    case '/gzip':
      return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(zlib.gzipSync(TEXT));
    case '/br':
      return void res.writeHead(200, { 'content-encoding': 'br' }).end(zlib.brotliCompressSync(TEXT));
    case '/deflate':
      return void res.writeHead(200, { 'content-encoding': 'deflate' }).end(zlib.deflateSync(TEXT));
    case '/bomb':
      return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(BOMB);
    case '/corrupt-br':
      return void res.writeHead(200, { 'content-encoding': 'br' }).end(Buffer.from('this is not brotli data at all, definitely not'));
    case '/corrupt-gzip':
      return void res.writeHead(200, { 'content-encoding': 'gzip' }).end(Buffer.from('this is not gzip at all'));
    case '/slow':
      return; // never answers
    case '/slow-body':
      res.writeHead(200);
      res.write('partial');
      return; // never finishes
    case '/reset':
      return void req.socket.destroy();
    case '/to-private':
      return redirect(302, 'http://10.0.0.1/');
    case '/to-metadata':
      return redirect(302, 'http://169.254.169.254/latest/meta-data/iam/security-credentials/');
    case '/to-private-name':
      return redirect(301, `http://${N.private10}/`);
    case '/to-other-port':
      return redirect(302, `http://127.0.0.2:${ports.other}/`);
    case '/to-decimal-loopback':
      return redirect(307, `http://2130706433:${ports.other}/`);
    case '/to-ftp':
      return redirect(302, 'ftp://public.test/file');
    case '/to-ok':
      return redirect(302, '/ok');
    case '/chain': {
      const n = Number(url.searchParams.get('n'));
      return n > 0 ? redirect(302, `/chain?n=${n - 1}`) : void res.end('end of chain');
    }
    case '/see-other':
      return redirect(303, '/echo');
    case '/temporary':
      return redirect(307, '/echo');
    case '/cross-origin':
      return redirect(302, `http://${N.fixture}:${ports.plain}/echo`);
    case '/flip': {
      // The name served this request from 127.0.0.2; now point it somewhere private and redirect back to it.
      dns.setRecords('flip.test', [{ type: 'A', data: '10.0.0.1', ttl: 0 }]);
      return redirect(302, `http://flip.test:${ports.plain}/ok`);
    }
    case '/bad-location':
      return redirect(302, 'http://[not-an-address/');
    default:
      res.statusCode = 404;
      res.end('not found');
  }
}

test.before(async () => {
  certs = makeCerts();
  dns = await startDnsServer();

  const plain = http.createServer(plainHandler);
  const other = http.createServer((_req, res) => {
    otherHits++;
    res.end('other');
  });
  const secure = https.createServer({ key: certs.key, cert: certs.cert }, plainHandler);
  const selfSigned = https.createServer({ key: certs.selfKey, cert: certs.selfCert }, plainHandler);
  // A line server that upgrades to TLS after "STARTTLS", like SMTP.
  const startTls = net.createServer((socket) => {
    socket.once('data', () => {
      socket.write('220 go ahead\r\n', () => {
        const secured = new tls.TLSSocket(socket, { isServer: true, key: certs.key, cert: certs.cert });
        secured.on('error', () => {});
        secured.on('data', (d) => secured.write(`echo ${d}`));
      });
    });
    socket.on('error', () => {});
  });
  for (const s of [plain, other, secure, selfSigned, startTls]) servers.push(s);
  ports.plain = await listen(plain);
  ports.other = await listen(other);
  ports.secure = await listen(secure);
  ports.selfSigned = await listen(selfSigned);
  ports.startTls = await listen(startTls);
  ports.closed = await closedPort();
  // IPv6 loopback, where the machine has it (the IPv6 tests pass vacuously otherwise).
  const v6 = http.createServer(plainHandler);
  try {
    v6.listen(0, '::1');
    await once(v6, 'listening');
    ports.v6 = (v6.address() as net.AddressInfo).port;
    servers.push(v6);
  } catch {
    ports.v6 = 0;
  }

  const allowlist = [ports.plain, ports.secure, ports.selfSigned, ports.closed, ports.startTls].map((p) => `127.0.0.2/32:${p}`);
  if (ports.v6) allowlist.push(`[::1]/128:${ports.v6}`);
  guard = createTargetGuard({ allowlist, resolver: createResolver({ servers: [dns.address], timeoutMs: 5000 }) });
  client = createGuardedHttp({ guard });
  trusting = createGuardedHttp({ guard, ca: certs.ca });
  sockets = createGuardedSockets({ guard });
  trustingSockets = createGuardedSockets({ guard, ca: certs.ca });
});

test.after.always(async () => {
  for (const s of servers) {
    (s as http.Server).closeAllConnections?.();
    s.close();
  }
  await dns?.close();
});

async function failure(fn: () => Promise<unknown>): Promise<ServiceError> {
  try {
    await fn();
  } catch (err) {
    if (err instanceof ServiceError) return err;
    throw err;
  }
  throw new Error('expected a ServiceError');
}

const at = (port: number, p: string, host: string = N.fixture) => `http://${host}:${port}${p}`;

// ---------------------------------------------------------------------------------------------
// Pinned connections

test('a GET through a name reaches the checked address and returns every header', async (t) => {
  const res = await client.request({ url: at(ports.plain, '/ok') });
  t.is(res.statusCode, 200);
  t.is(res.body.toString(), 'hello');
  t.deepEqual(res.headers['set-cookie'], ['a=1', 'b=2']);
  t.is(res.headers['x-custom'], 'yes');
  t.true(res.rawHeaders.includes('x-custom'));
  t.is(res.remoteAddress, '127.0.0.2');
  t.is(res.finalUrl, at(ports.plain, '/ok'));
  t.deepEqual(res.redirects, []);
  t.false(res.truncated);
  t.true(Number.isInteger(res.elapsedMs));
});

test('Host carries the name and port, not the pinned address', async (t) => {
  const res = await client.request({ url: at(ports.plain, '/echo?x=1') });
  const echo = JSON.parse(res.body.toString());
  t.is(echo.headers.host, `fixture.test:${ports.plain}`);
  t.is(echo.url, '/echo?x=1');
  t.is(echo.headers['user-agent'], 'UtilityTools/1.0');
});

test('method, headers and body are sent as given', async (t) => {
  const res = await client.request({ url: at(ports.plain, '/echo'), method: 'put', headers: { 'X-Trace': 'abc', 'Content-Type': 'text/plain' }, body: 'payload' });
  const echo = JSON.parse(res.body.toString());
  t.is(echo.method, 'PUT');
  t.is(echo.headers['x-trace'], 'abc');
  t.is(echo.body, 'payload');
});

test('an invalid request header is a validation failure, not an upstream error', async (t) => {
  const err = await failure(() => client.request({ url: at(ports.plain, '/ok'), headers: { 'bad header': 'x' } }));
  t.is(err.code, 'validation_failed');
});

test('an IP literal on an allowlisted port is reached directly', async (t) => {
  const res = await client.request({ url: `http://127.0.0.2:${ports.plain}/ok` });
  t.is(res.statusCode, 200);
});

test('a loopback port that is not allowlisted is refused before any connection', async (t) => {
  const before = otherHits;
  const err = await failure(() => client.request({ url: at(ports.other, '/') }));
  t.is(err.code, 'target_not_allowed');
  t.is(err.extras.reason, 'loopback');
  t.is(otherHits, before);
});

test('DNS rebinding: the connection goes to the address the guard checked, with no second lookup', async (t) => {
  dns.setRecords(N.rebind, { sequence: [[{ type: 'A', data: '127.0.0.2', ttl: 0 }], [{ type: 'A', data: '10.0.0.1', ttl: 0 }]] });
  const before = dns.queryCount(N.rebind, 'A');
  const res = await client.request({ url: at(ports.plain, '/ok', N.rebind) });
  t.is(res.statusCode, 200);
  t.is(res.remoteAddress, '127.0.0.2');
  t.is(dns.queryCount(N.rebind, 'A') - before, 1, 'exactly one A query: the guard\'s');
  // The next answer is private: the next call is refused, not connected.
  const err = await failure(() => client.request({ url: at(ports.plain, '/ok', N.rebind) }));
  t.is(err.extras.reason, 'private');
});

test('a resolved target stays pinned after its name changes', async (t) => {
  dns.setRecords('pinned.test', [{ type: 'A', data: '127.0.0.2', ttl: 0 }]);
  const target = await guard.resolveTarget('pinned.test', ports.plain);
  dns.setRecords('pinned.test', [{ type: 'A', data: '10.0.0.1', ttl: 0 }]);
  const queries = dns.queryCount('pinned.test');
  const conn = await sockets.connect({ target, timeoutMs: CONNECT_TIMEOUT_MS });
  t.is(conn.socket.remoteAddress, '127.0.0.2');
  t.is(conn.socket.remotePort, ports.plain);
  t.is(dns.queryCount('pinned.test'), queries);
  conn.socket.destroy();
});

test('an IPv6 literal gets a bracketed Host and reaches that address', async (t) => {
  if (!ports.v6) return void t.pass('no IPv6 loopback on this machine');
  const res = await client.request({ url: `http://[::1]:${ports.v6}/echo` });
  t.is(JSON.parse(res.body.toString()).headers.host, `[::1]:${ports.v6}`);
  t.is(res.remoteAddress, '::1');
});

test('a name with only an AAAA answer is pinned to that IPv6 address', async (t) => {
  if (!ports.v6) return void t.pass('no IPv6 loopback on this machine');
  const res = await client.request({ url: `http://${N.loopback6}:${ports.v6}/echo` });
  t.is(JSON.parse(res.body.toString()).headers.host, `loopback6.test:${ports.v6}`);
  t.is(res.remoteAddress, '::1');
});

// ---------------------------------------------------------------------------------------------
// Redirects

test('redirects are returned as they are by default', async (t) => {
  const res = await client.request({ url: at(ports.plain, '/to-private') });
  t.is(res.statusCode, 302);
  t.is(res.headers.location, 'http://10.0.0.1/');
  t.deepEqual(res.redirects, []);
});

for (const [route, reason] of [
  ['/to-private', 'private'],
  ['/to-metadata', 'metadata'],
  ['/to-private-name', 'private'],
  ['/to-other-port', 'loopback'],
  ['/to-decimal-loopback', 'loopback'],
  ['/to-ftp', 'scheme'],
] as const) {
  test(`a redirect from an allowed server is re-checked and refused: ${route} (${reason})`, async (t) => {
    const before = otherHits;
    const err = await failure(() => client.request({ url: at(ports.plain, route), maxRedirects: 5 }));
    t.is(err.code, 'target_not_allowed');
    t.is(err.extras.reason, reason);
    t.regex(err.message, /^Redirect refused/);
    t.is(otherHits, before, 'the refused hop was never contacted');
  });
}

test('every hop is resolved again: a name that turns private between hops is refused', async (t) => {
  dns.setRecords('flip.test', [{ type: 'A', data: '127.0.0.2', ttl: 0 }]);
  const err = await failure(() => client.request({ url: at(ports.plain, '/flip', 'flip.test'), maxRedirects: 3 }));
  t.is(err.code, 'target_not_allowed');
  t.is(err.extras.reason, 'private');
});

test('allowed redirects are followed and listed', async (t) => {
  const res = await client.request({ url: at(ports.plain, '/chain?n=2'), maxRedirects: 3 });
  t.is(res.body.toString(), 'end of chain');
  t.deepEqual(res.redirects, [at(ports.plain, '/chain?n=1'), at(ports.plain, '/chain?n=0')]);
  t.is(res.finalUrl, at(ports.plain, '/chain?n=0'));
  t.is((await client.request({ url: at(ports.plain, '/to-ok'), maxRedirects: 1 })).body.toString(), 'hello');
});

test('too many redirects is an upstream error', async (t) => {
  const err = await failure(() => client.request({ url: at(ports.plain, '/chain?n=5'), maxRedirects: 2 }));
  t.is(err.code, 'upstream_error');
  t.is(err.extras.reason, 'too_many_redirects');
});

test('an unparsable Location is an upstream error', async (t) => {
  const err = await failure(() => client.request({ url: at(ports.plain, '/bad-location'), maxRedirects: 2 }));
  t.is(err.extras.reason, 'bad_redirect');
});

test('303 turns a POST into a GET without body; 307 keeps both', async (t) => {
  const seeOther = JSON.parse((await client.request({ url: at(ports.plain, '/see-other'), method: 'POST', body: 'x', headers: { 'content-type': 'text/plain' }, maxRedirects: 1 })).body.toString());
  t.is(seeOther.method, 'GET');
  t.is(seeOther.body, '');
  t.is(seeOther.headers['content-type'], undefined);
  const temporary = JSON.parse((await client.request({ url: at(ports.plain, '/temporary'), method: 'POST', body: 'x', maxRedirects: 1 })).body.toString());
  t.is(temporary.method, 'POST');
  t.is(temporary.body, 'x');
});

test('credentials are not forwarded to another origin', async (t) => {
  const res = await client.request({ url: `http://127.0.0.2:${ports.plain}/cross-origin`, headers: { authorization: 'Bearer secret', cookie: 'c=1' }, maxRedirects: 1 });
  const echo = JSON.parse(res.body.toString());
  t.is(echo.headers.authorization, undefined);
  t.is(echo.headers.cookie, undefined);
  t.is(echo.headers.host, `fixture.test:${ports.plain}`);
});

test('nextHop keeps credentials on the same origin and drops a fixed Host', (t) => {
  const hop = { url: new URL('http://a.test/x'), method: 'GET', headers: { authorization: 'x', host: 'a.test' } };
  t.deepEqual(nextHop(hop, 302, new URL('http://a.test/y')).headers, { authorization: 'x' });
  t.deepEqual(nextHop(hop, 302, new URL('https://a.test/y')).headers, {});
});

// ---------------------------------------------------------------------------------------------
// Bodies and content codings

test('a body over maxBytes is cut and flagged', async (t) => {
  const res = await client.request({ url: at(ports.plain, '/big?n=100000'), maxBytes: 1000 });
  t.true(res.truncated);
  t.is(res.body.length, 1000);
});

test('a body of exactly maxBytes is not truncated', async (t) => {
  const res = await client.request({ url: at(ports.plain, '/big?n=4096'), maxBytes: 4096 });
  t.false(res.truncated);
  t.is(res.body.length, 4096);
});

for (const coding of ['gzip', 'br', 'deflate']) {
  test(`${coding} bodies are decoded only when asked`, async (t) => {
    const decoded = await client.request({ url: at(ports.plain, `/${coding}`), decompress: true });
    t.is(decoded.body.toString(), TEXT);
    t.true(decoded.decompressed);
    const raw = await client.request({ url: at(ports.plain, `/${coding}`) });
    t.false(raw.decompressed);
    t.not(raw.body.toString(), TEXT);
    t.is(raw.headers['content-encoding'], coding);
  });
}

test('decompression asks for the codings it can undo', async (t) => {
  const echo = JSON.parse((await client.request({ url: at(ports.plain, '/echo'), decompress: true })).body.toString());
  t.is(echo.headers['accept-encoding'], 'gzip, deflate, br');
});

test('a zip bomb stops at maxBytes of decompressed output', async (t) => {
  const res = await client.request({ url: at(ports.plain, '/bomb'), decompress: true, maxBytes: 1024 * 1024 });
  t.true(res.truncated);
  t.is(res.body.length, 1024 * 1024);
});

for (const route of ['/corrupt-gzip', '/corrupt-br']) {
  test(`a corrupt compressed body is an upstream error: ${route}`, async (t) => {
    const err = await failure(() => client.request({ url: at(ports.plain, route), decompress: true }));
    t.is(err.code, 'upstream_error');
    t.is(err.extras.reason, 'bad_encoding');
  });
}

test('decodersFor undoes stacked codings in reverse and leaves unknown ones alone', (t) => {
  t.is(decodersFor('gzip, br')?.length, 2);
  t.is(decodersFor('identity')?.length, 0);
  t.is(decodersFor('zstd'), undefined);
});

// ---------------------------------------------------------------------------------------------
// Failures

test('a server that never answers times out as an upstream error', async (t) => {
  const err = await failure(() => client.request({ url: at(ports.plain, '/slow'), timeoutMs: 300 }));
  t.is(err.code, 'upstream_error');
  t.is(err.extras.reason, 'timeout');
});

test('the deadline covers the body too', async (t) => {
  const err = await failure(() => client.request({ url: at(ports.plain, '/slow-body'), timeoutMs: 300 }));
  t.is(err.extras.reason, 'timeout');
});

test('connection refused is an upstream error that names only the target', async (t) => {
  const err = await failure(() => client.request({ url: at(ports.closed, '/') }));
  t.is(err.code, 'upstream_error');
  t.is(err.extras.reason, 'connection_refused');
  t.is(err.message, `Could not connect to fixture.test:${ports.closed}: connection refused`);
});

test('a reset connection is an upstream error', async (t) => {
  const err = await failure(() => client.request({ url: at(ports.plain, '/reset') }));
  t.is(err.code, 'upstream_error');
  t.is(err.extras.reason, 'connection_reset');
});

test('a name that does not resolve is an upstream error', async (t) => {
  const err = await failure(() => client.request({ url: `http://${N.nxdomain}/` }));
  t.is(err.code, 'upstream_error');
  t.is(err.extras.reason, 'dns_nxdomain');
});

test("the caller's abort ends the call with the abort reason", async (t) => {
  const controller = new AbortController();
  const reason = new Error('activity cancelled');
  setTimeout(() => controller.abort(reason), 100);
  const err = await t.throwsAsync(client.request({ url: at(ports.plain, '/slow'), signal: controller.signal }));
  t.is(err, reason);
});

test('upstreamError classifies socket, TLS, parser and zlib errors', (t) => {
  const reason = (code: string) => upstreamError(Object.assign(new Error('x'), { code }), 'example.com', 443).extras.reason;
  t.is(reason('ECONNREFUSED'), 'connection_refused');
  t.is(reason('EHOSTUNREACH'), 'unreachable');
  t.is(reason('CERT_HAS_EXPIRED'), 'tls');
  t.is(reason('ERR_TLS_CERT_ALTNAME_INVALID'), 'tls');
  t.is(reason('HPE_INVALID_CONSTANT'), 'protocol');
  t.is(reason('Z_DATA_ERROR'), 'bad_encoding');
  t.is(reason('EWHATEVER'), 'network');
});

// ---------------------------------------------------------------------------------------------
// TLS

test('HTTPS verifies the certificate against the name, with the extra CA', async (t) => {
  const res = await trusting.request({ url: `https://${N.fixture}:${ports.secure}/ok` });
  t.is(res.statusCode, 200);
  t.is(res.body.toString(), 'hello');
  t.is(res.remoteAddress, '127.0.0.2');
});

test('HTTPS to an IP literal checks the IP in the certificate', async (t) => {
  const res = await trusting.request({ url: `https://127.0.0.2:${ports.secure}/ok` });
  t.is(res.statusCode, 200);
});

test('an untrusted certificate is an upstream TLS error', async (t) => {
  const err = await failure(() => client.request({ url: `https://${N.fixture}:${ports.secure}/ok` }));
  t.is(err.code, 'upstream_error');
  t.is(err.extras.reason, 'tls');
  t.is(err.extras.tlsError, 'UNABLE_TO_VERIFY_LEAF_SIGNATURE');
});

test('a self-signed certificate is an upstream TLS error', async (t) => {
  const err = await failure(() => trusting.request({ url: `https://${N.fixture}:${ports.selfSigned}/ok` }));
  t.is(err.extras.reason, 'tls');
  t.is(err.extras.tlsError, 'DEPTH_ZERO_SELF_SIGNED_CERT');
});

test('a certificate for another name is refused: the name, not the pinned IP, is checked', async (t) => {
  // unnamed.test resolves to 127.0.0.2 too, but the certificate does not name it.
  const err = await failure(() => trusting.request({ url: `https://${N.fixtureUnnamed}:${ports.secure}/ok` }));
  t.is(err.extras.reason, 'tls');
  t.is(err.extras.tlsError, 'ERR_TLS_CERT_ALTNAME_INVALID');
});

// ---------------------------------------------------------------------------------------------
// Raw connections (lib/guarded-sockets.ts)

test('connect opens TCP to a checked address', async (t) => {
  const conn = await sockets.connect({ host: N.fixture, port: ports.plain, timeoutMs: CONNECT_TIMEOUT_MS });
  t.is(conn.socket.remoteAddress, '127.0.0.2');
  t.is(conn.target.hostname, 'fixture.test');
  t.true(conn.connectMs >= 0);
  conn.socket.destroy();
});

test('connect refuses private targets and forged targets', async (t) => {
  const err = await failure(() => sockets.connect({ host: N.private10, port: 25, timeoutMs: CONNECT_TIMEOUT_MS }));
  t.is(err.extras.reason, 'private');
  const forged = { hostname: 'x.test', port: 25, address: '10.0.0.1', family: 4 as const, addresses: ['10.0.0.1'], via: 'public' as const };
  await t.throwsAsync(sockets.connect({ target: forged, timeoutMs: CONNECT_TIMEOUT_MS }), { instanceOf: TypeError });
});

test('connect to a closed port is an upstream error', async (t) => {
  const err = await failure(() => sockets.connect({ host: '127.0.0.2', port: ports.closed, timeoutMs: CONNECT_TIMEOUT_MS }));
  t.is(err.extras.reason, 'connection_refused');
});

test('implicit TLS reports a valid chain, or an invalid one when asked not to reject it', async (t) => {
  const good = await trustingSockets.connect({ host: N.fixture, port: ports.secure, tls: true, timeoutMs: CONNECT_TIMEOUT_MS });
  t.true(good.authorized);
  t.is(good.socket.servername, 'fixture.test');
  good.socket.destroy();
  const bad = await sockets.connect({ host: N.fixture, port: ports.selfSigned, tls: true, rejectUnauthorized: false, timeoutMs: CONNECT_TIMEOUT_MS });
  t.false(bad.authorized);
  t.is(bad.authorizationError, 'DEPTH_ZERO_SELF_SIGNED_CERT');
  t.truthy(bad.socket.getPeerCertificate().subject);
  bad.socket.destroy();
  const refused = await failure(() => sockets.connect({ host: N.fixture, port: ports.selfSigned, tls: true, timeoutMs: CONNECT_TIMEOUT_MS }));
  t.is(refused.extras.reason, 'tls');
});

test('startTls upgrades a plain connection (STARTTLS)', async (t) => {
  const conn = await trustingSockets.connect({ host: N.fixture, port: ports.startTls, timeoutMs: CONNECT_TIMEOUT_MS });
  conn.socket.write('STARTTLS\r\n');
  await once(conn.socket, 'data');
  const upgraded = await trustingSockets.startTls(conn.socket, { hostname: conn.target.hostname, timeoutMs: CONNECT_TIMEOUT_MS });
  t.true(upgraded.authorized);
  upgraded.socket.write('ping');
  const [reply] = await once(upgraded.socket, 'data');
  t.is(String(reply), 'echo ping');
  upgraded.socket.destroy();
});
