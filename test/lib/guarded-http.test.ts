//! The guarded HTTP client (lib/guarded-http.ts) reaches only guard-checked addresses: it connects
//! to the address the guard resolved (never resolving again), keeps the name for Host, SNI and
//! certificates, re-checks every redirect hop, caps bodies (also decompressed ones) and maps
//! failures to upstream_error. Its servers: test/fixtures/guarded-servers.ts.
import test from 'ava';
import { decodersFor, nextHop } from '../../lib/guarded-http.js';
import { upstreamError } from '../../lib/upstream.js';
import { FIXTURE_NAMES as N } from '../fixtures/dns-server.js';
import {
  at,
  client,
  CONNECT_TIMEOUT_MS,
  dns,
  failure,
  guard,
  otherHits,
  ports,
  sockets,
  startGuardedServers,
  stopGuardedServers,
  TEXT,
  trusting,
} from '../fixtures/guarded-servers.js';

test.before(startGuardedServers);
test.after.always(stopGuardedServers);

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
  const res = await client.request({
    url: at(ports.plain, '/echo'),
    method: 'put',
    headers: { 'X-Trace': 'abc', 'Content-Type': 'text/plain' },
    body: 'payload',
  });
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
  t.is(dns.queryCount(N.rebind, 'A') - before, 1, "exactly one A query: the guard's");
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
  const seeOther = JSON.parse(
    (
      await client.request({
        url: at(ports.plain, '/see-other'),
        method: 'POST',
        body: 'x',
        headers: { 'content-type': 'text/plain' },
        maxRedirects: 1,
      })
    ).body.toString(),
  );
  t.is(seeOther.method, 'GET');
  t.is(seeOther.body, '');
  t.is(seeOther.headers['content-type'], undefined);
  const temporary = JSON.parse(
    (await client.request({ url: at(ports.plain, '/temporary'), method: 'POST', body: 'x', maxRedirects: 1 })).body.toString(),
  );
  t.is(temporary.method, 'POST');
  t.is(temporary.body, 'x');
});

test('credentials are not forwarded to another origin', async (t) => {
  const res = await client.request({
    url: `http://127.0.0.2:${ports.plain}/cross-origin`,
    headers: { authorization: 'Bearer secret', cookie: 'c=1' },
    maxRedirects: 1,
  });
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
