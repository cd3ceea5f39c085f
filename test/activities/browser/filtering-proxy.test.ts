//! The filtering proxy with plain Node clients (no browser): it carries nothing before a capture
//! takes the session, forwards HTTP and tunnels CONNECT to the guard's pinned address, drops
//! private targets and (when asked) ad hosts and counts them, and says why it did not carry a
//! request. Also the pure helpers, and the ad host list and its builder.
import test from 'ava';
import http from 'node:http';
import tls from 'node:tls';
import type net from 'node:net';
import { hostRules, renderHostList } from '../../../scripts/update-ad-hosts.js';
import { loadAdHostList, parseAdHostList } from '../../../activities/browser/ad-hosts.js';
import {
  createFilteringProxy,
  forwardedHeaders,
  parseAuthority,
  PROXY_ANSWER_HEADER,
  type ProxySession,
} from '../../../activities/browser/filtering-proxy.js';
import { startTestNetwork, type TestNetwork } from '../../helpers/network-access.js';
import { AD_HOST, startBrowserPages } from '../../fixtures/browser-pages.js';
import { temporaryCa } from '../../fixtures/tls-certs.js';
import { closedPort, type PageServer } from '../../fixtures/http-pages.js';

let network: TestNetwork;
let pages: PageServer;
let securePages: PageServer;
let ca: string;
let testCa: Awaited<ReturnType<typeof temporaryCa>> | undefined;

test.before(async () => {
  testCa = await temporaryCa(['fixture.test']);
  const { ca: authority, leaf } = testCa;
  ca = authority.cert;
  network = await startTestNetwork();
  network.dns.setRecords(AD_HOST, [{ type: 'A', data: '127.0.0.2' }]);
  pages = await startBrowserPages();
  securePages = await startBrowserPages({ tls: { cert: leaf.cert, key: leaf.key } });
});

test.after.always(async () => {
  await Promise.all([pages?.close(), securePages?.close(), network?.close()]);
  await testCa?.close();
});

const proxy = () => createFilteringProxy({ guard: network.guard, adHosts: loadAdHostList() });

async function withSession(run: (session: ProxySession) => Promise<void>) {
  const session = await proxy().openSession();
  try {
    await run(session);
  } finally {
    await session.close();
  }
}

/** A GET in absolute form through the proxy, as a browser sends it. */
function viaProxy(session: ProxySession, url: string): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: string }> {
  const proxyUrl = new URL(session.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: proxyUrl.hostname, port: proxyUrl.port, path: url, headers: { host: new URL(url).host } }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => resolve({ status: res.statusCode ?? 0, headers: res.headers, body: Buffer.concat(chunks).toString('utf8') }));
    });
    req.on('error', reject);
    req.end();
  });
}

/** A CONNECT through the proxy: the status line, and the socket when the tunnel stands. */
function connect(session: ProxySession, authority: string): Promise<{ status: number; socket: net.Socket }> {
  const proxyUrl = new URL(session.url);
  return new Promise((resolve, reject) => {
    const req = http.request({ host: proxyUrl.hostname, port: proxyUrl.port, method: 'CONNECT', path: authority });
    req.once('connect', (res, socket) => resolve({ status: res.statusCode ?? 0, socket }));
    req.once('error', reject);
    req.end();
  });
}

test('a session carries nothing until a capture sets its policy', async (t) => {
  await withSession(async (session) => {
    const res = await viaProxy(session, pages.url('/browser/title'));
    t.is(res.status, 403);
    t.deepEqual(session.drops, []);
    session.setPolicy({ blockAds: true });
    const carried = await viaProxy(session, pages.url('/browser/title'));
    t.is(carried.status, 200);
    t.regex(carried.body, /Browser fixture title/);
  });
});

test('HTTP: private targets are refused and counted, the reason kept; the proxy marks its own answers', async (t) => {
  await withSession(async (session) => {
    session.setPolicy({ blockAds: false });
    for (const url of ['http://10.0.0.1/', 'http://private10.test/x', 'http://metadata.test/', 'http://127.0.0.1:8080/']) {
      const res = await viaProxy(session, url);
      t.is(res.status, 403, url);
      t.is(res.headers[PROXY_ANSWER_HEADER], 'target_not_allowed');
    }
    t.deepEqual(
      session.drops.map((d) => d.kind),
      ['target', 'target', 'target', 'target'],
    );
    t.is(session.errorFor('private10.test', 80)?.extras.reason, 'private');
    t.is(session.errorFor('metadata.test', 80)?.extras.reason, 'metadata');
    t.is(session.errorFor('127.0.0.1', 8080)?.extras.reason, 'loopback');
    t.is(session.errorFor('10.0.0.1', 443), undefined, 'per port');
  });
});

test("resolveAgain: a host's pinned address is forgotten, so the guard resolves and checks it again (a load made again after a network change)", async (t) => {
  const host = 'moving.test';
  const url = `http://${host}:${pages.port}/browser/title`;
  network.dns.setRecords(host, [{ type: 'A', data: '127.0.0.2' }]);
  await withSession(async (session) => {
    session.setPolicy({ blockAds: false });
    t.is((await viaProxy(session, url)).status, 200);
    // The name now leads to a private address: the session keeps the address its guard checked.
    network.dns.setRecords(host, [{ type: 'A', data: '10.0.0.7' }]);
    t.is((await viaProxy(session, url)).status, 200, 'pinned');
    session.resolveAgain();
    const again = await viaProxy(session, url);
    t.is(again.status, 403);
    t.is(again.headers[PROXY_ANSWER_HEADER], 'target_not_allowed');
    t.is(session.errorFor(host, pages.port)?.extras.reason, 'private');
    // And back: a failure is forgotten too, and the new answer is the guard's.
    network.dns.setRecords(host, [{ type: 'A', data: '127.0.0.2' }]);
    session.resolveAgain();
    t.is(session.errorFor(host, pages.port), undefined);
    t.is((await viaProxy(session, url)).status, 200);
  });
});

test("ad hosts are dropped only with blockAds, never the page's own host", async (t) => {
  const adUrl = `http://${AD_HOST}:${pages.port}/browser/title`;
  await withSession(async (session) => {
    session.setPolicy({ blockAds: true });
    const res = await viaProxy(session, adUrl);
    t.is(res.status, 403);
    t.is(res.headers[PROXY_ANSWER_HEADER], 'ad_host');
    t.like(session.drops[0], { kind: 'ad', host: AD_HOST });
    session.setPolicy({ blockAds: true, adExemptHost: AD_HOST });
    t.is((await viaProxy(session, adUrl)).status, 200);
    session.setPolicy({ blockAds: false });
    t.is((await viaProxy(session, adUrl)).status, 200);
    t.is(session.drops.length, 1);
  });
});

test('CONNECT: a tunnel to the pinned address carries TLS end to end, by name', async (t) => {
  await withSession(async (session) => {
    session.setPolicy({ blockAds: true });
    const { status, socket } = await connect(session, `fixture.test:${securePages.port}`);
    t.is(status, 200);
    const secure = tls.connect({ socket, servername: 'fixture.test', ca });
    await new Promise<void>((resolve, reject) => secure.once('secureConnect', resolve).once('error', reject));
    secure.end(`GET /browser/title HTTP/1.1\r\nHost: fixture.test:${securePages.port}\r\nConnection: close\r\n\r\n`);
    let text = '';
    for await (const chunk of secure) text += chunk;
    t.regex(text, /^HTTP\/1\.1 200/);
    t.regex(text, /Browser fixture title/);
  });
});

test('CONNECT: private targets are refused and counted; an unreachable one is 502, not counted, with the reason', async (t) => {
  await withSession(async (session) => {
    session.setPolicy({ blockAds: true });
    for (const authority of ['10.0.0.1:443', 'private10.test:443', '[::1]:443', '169.254.169.254:80']) {
      const { status, socket } = await connect(session, authority);
      socket.destroy();
      t.is(status, 403, authority);
    }
    t.is(session.drops.length, 4);
    const port = await closedPort();
    const { status, socket } = await connect(session, `127.0.0.2:${port}`);
    socket.destroy();
    t.is(status, 502);
    t.is(session.errorFor('127.0.0.2', port)?.extras.reason, 'connection_refused');
    const nx = await connect(session, 'nxdomain.test:443');
    nx.socket.destroy();
    t.is(nx.status, 502);
    t.is(session.errorFor('nxdomain.test', 443)?.code, 'upstream_error');
    t.is(session.drops.length, 4);
  });
});

test('closing a session cuts its tunnels', async (t) => {
  const session = await proxy().openSession();
  session.setPolicy({ blockAds: true });
  const { socket } = await connect(session, `127.0.0.2:${pages.port}`);
  const closed = new Promise((resolve) => socket.once('close', resolve));
  await session.close();
  await closed;
  t.true(socket.destroyed);
});

test('parseAuthority and forwardedHeaders', (t) => {
  t.deepEqual(parseAuthority('example.com:443'), { host: 'example.com', port: 443 });
  t.deepEqual(parseAuthority('[::1]:8443'), { host: '::1', port: 8443 });
  for (const bad of [undefined, '', 'example.com', 'example.com:0', 'a/b:1', 'user@host:1', 'host:99999'])
    t.is(parseAuthority(bad), undefined, String(bad));
  t.deepEqual(
    forwardedHeaders(['Host', 'a', 'Connection', 'keep-alive, X-Hop', 'X-Hop', '1', 'Proxy-Authorization', 's', 'Accept', '*/*']),
    ['Host', 'a', 'Accept', '*/*'],
  );
});

test('the ad host list: parents match, exceptions win, addresses never match', (t) => {
  const list = parseAdHostList('# Generated: 2026-01-02T03:04:05.000Z\n# Source: test\nads.example\ntracker.test\n@@ok.tracker.test\n');
  t.true(list.matches('ads.example'));
  t.true(list.matches('a.b.ads.example'));
  t.true(list.matches('ADS.example.'));
  t.false(list.matches('notads.example'));
  t.false(list.matches('ok.tracker.test'));
  t.false(list.matches('deep.ok.tracker.test'));
  t.true(list.matches('x.tracker.test'));
  t.false(list.matches('10.0.0.1'));
  t.is(list.size, 2);
  t.deepEqual(list.generatedAt, new Date('2026-01-02T03:04:05.000Z'));
  t.deepEqual(list.sources, ['test']);
});

test('the list builder keeps host-wide rules of an Adblock Plus list and its plain exceptions', (t) => {
  const rules = hostRules(
    [
      '[Adblock Plus 2.0]',
      '! comment',
      '||ads.example^',
      '||t.example^$third-party',
      '||img.example^$image,script',
      '||pop.example^$popup',
      '||doc.example^$document',
      '||site.example^$domain=a.com',
      '||path.example/ads/',
      '@@||ok.example^',
      '@@||scoped.example^$domain=b.com',
      '||1.2.3.4^',
      'example.net##.ad',
    ].join('\n'),
  );
  t.deepEqual([...rules.block].sort(), ['ads.example', 'img.example', 't.example']);
  t.deepEqual([...rules.allow], ['ok.example']);
  const text = renderHostList(rules, ['unit test'], new Date('2026-01-01T00:00:00Z'));
  const list = parseAdHostList(text);
  t.true(list.matches('x.t.example'));
  t.false(list.matches('ok.example'));
  t.deepEqual(list.sources, ['unit test']);
});

test('the shipped list is large and names the usual ad and tracker hosts', async (t) => {
  const list = await loadAdHostList();
  t.true(list.size > 50_000, `${list.size} domains`);
  for (const host of [
    'pagead2.googlesyndication.com',
    'ad.doubleclick.net',
    'www.google-analytics.com',
    'googletagmanager.com',
    'scorecardresearch.com',
  ])
    t.true(list.matches(host), host);
  for (const host of ['example.com', 'wikipedia.org', 'github.com']) t.false(list.matches(host), host);
  t.truthy(list.generatedAt);
});
