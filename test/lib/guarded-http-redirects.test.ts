//! The guarded HTTP client's redirects (lib/guarded-http.ts): returned as they are unless asked,
//! every hop resolved and checked again, credentials kept to their origin, 303 and 307 as HTTP says,
//! too many or an unparsable Location an upstream error. Its servers: test/fixtures/guarded-servers.ts.
import test from 'ava';
import { nextHop } from '../../lib/guarded-http.js';
import { at, client, dns, failure, otherHits, ports, startGuardedServers, stopGuardedServers } from '../fixtures/guarded-servers.js';

test.before(startGuardedServers);
test.after.always(stopGuardedServers);

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
