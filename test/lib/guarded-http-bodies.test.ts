//! The guarded HTTP client's bodies (lib/guarded-http.ts): capped at maxBytes, decompressed ones
//! too (a zip bomb stops there), content codings undone only when asked, a corrupt one an upstream
//! error. Its servers: test/fixtures/guarded-servers.ts.
import test from 'ava';
import { decodersFor } from '../../lib/guarded-http.js';
import { at, client, failure, ports, startGuardedServers, stopGuardedServers, TEXT } from '../fixtures/guarded-servers.js';

test.before(startGuardedServers);
test.after.always(stopGuardedServers);

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
