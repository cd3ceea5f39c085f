//! The guarded HTTP client (lib/guarded-http.ts) connects only where the guard checked: to the
//! address the guard resolved (never resolving again, a rebinding name refused on its next call),
//! keeping the name for Host, SNI and the certificate, which it verifies against the name with the
//! extra CA. Its servers: test/fixtures/guarded-servers.ts.
import test from 'ava';
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
  trusting,
} from '../fixtures/guarded-servers.js';

test.before(startGuardedServers);
test.after.always(stopGuardedServers);

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
