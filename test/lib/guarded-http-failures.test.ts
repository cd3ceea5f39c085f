//! The guarded HTTP client's failures (lib/guarded-http.ts): timeouts (the body's too), refused and
//! reset connections and unresolvable names are upstream errors naming only the target; the caller's
//! abort ends the call with its reason. Its servers: test/fixtures/guarded-servers.ts.
import test from 'ava';
import { upstreamError } from '../../lib/upstream.js';
import { FIXTURE_NAMES as N } from '../fixtures/dns-server.js';
import { at, client, failure, ports, startGuardedServers, stopGuardedServers } from '../fixtures/guarded-servers.js';

test.before(startGuardedServers);
test.after.always(stopGuardedServers);

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
