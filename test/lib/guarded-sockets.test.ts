//! The guarded raw connections (lib/guarded-sockets.ts): TCP and TLS only to guard-checked
//! addresses, the chain reported, STARTTLS on a plain connection. Its servers, shared with the
//! HTTP client's tests: test/fixtures/guarded-servers.ts.
import test from 'ava';
import { once } from 'node:events';
import { FIXTURE_NAMES as N } from '../fixtures/dns-server.js';
import {
  CONNECT_TIMEOUT_MS,
  failure,
  ports,
  sockets,
  startGuardedServers,
  stopGuardedServers,
  trustingSockets,
} from '../fixtures/guarded-servers.js';

test.before(startGuardedServers);
test.after.always(stopGuardedServers);

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
  const bad = await sockets.connect({
    host: N.fixture,
    port: ports.selfSigned,
    tls: true,
    rejectUnauthorized: false,
    timeoutMs: CONNECT_TIMEOUT_MS,
  });
  t.false(bad.authorized);
  t.is(bad.authorizationError, 'DEPTH_ZERO_SELF_SIGNED_CERT');
  t.truthy(bad.socket.getPeerCertificate().subject);
  bad.socket.destroy();
  const refused = await failure(() =>
    sockets.connect({ host: N.fixture, port: ports.selfSigned, tls: true, timeoutMs: CONNECT_TIMEOUT_MS }),
  );
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
