//! broken-links: unique links in document order, checked five at a time through the guard (HEAD,
//! then GET where HEAD is mishandled), every way a link can break reported with a reason (private
//! targets included, without failing the call), maxLinks, and the same through the running stack.
import test from 'ava';
import type http from 'node:http';
import { createBrokenLinks, LINK_CONCURRENCY, mapWithConcurrency } from '../../activities/tools/broken-links.js';
import { readInline } from '../../activities/network/readings.js';
import type { BrokenLinksInput, BrokenLinksOutput } from '../../domain/tools/broken-links.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { apiUrl, balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { startTestNetwork, type TestNetwork } from '../helpers/network-access.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';
import { closedPort, htmlDocument, send, startPageServer, type PageServer } from '../fixtures/http-pages.js';

const schemas = compileToolSchemas('broken-links');
/** A context of its own per call: tests run concurrently and each call listens on its signal. */
const ctx = () => standaloneContext();

let net: TestNetwork;
let pages: PageServer;
let refusedPort: number;
/** Requests to /busy in flight now, the most at once, how many came, and those held. */
const busy = { now: 0, max: 0, started: 0, held: [] as Array<() => void> };
const BUSY_LINKS = 12;

/** A page of links, one per href, in this order. */
const linkPage = (hrefs: string[]) =>
  htmlDocument('<title>Links</title>', hrefs.map((href, i) => `<a href="${href}">link ${i}</a>`).join('\n'));

/**
 * The link list the main test checks: each href with what its check must report. Every verdict
 * here is decided by what the fixture answers, never by how soon: the link that never answers
 * has a test of its own, with a short budget that no answering link has to beat.
 */
function mixedLinks(
  origin: string,
): Array<[string, { broken: boolean; statusCode: number | null; reason: string | null; method?: string }]> {
  return [
    ['/about', { broken: false, statusCode: 200, reason: null, method: 'HEAD' }],
    ['/status/404', { broken: true, statusCode: 404, reason: 'http_status', method: 'GET' }],
    ['/status/500', { broken: true, statusCode: 500, reason: 'http_status', method: 'GET' }],
    ['/head-405', { broken: false, statusCode: 200, reason: null, method: 'GET' }],
    ['/head-drop', { broken: false, statusCode: 200, reason: null, method: 'GET' }],
    ['/redirect?to=/contact.html', { broken: false, statusCode: 200, reason: null, method: 'HEAD' }],
    [`http://127.0.0.2:${refusedPort}/gone`, { broken: true, statusCode: null, reason: 'connection_refused', method: 'HEAD' }],
    ['http://nxdomain.test/', { broken: true, statusCode: null, reason: 'dns_nxdomain', method: 'HEAD' }],
    ['http://10.0.0.1/admin', { broken: true, statusCode: null, reason: 'private', method: 'HEAD' }],
    [`http://127.0.0.1:${pages.port}/about`, { broken: true, statusCode: null, reason: 'loopback', method: 'HEAD' }],
    ['http://169.254.169.254/latest/meta-data/', { broken: true, statusCode: null, reason: 'metadata', method: 'HEAD' }],
    [`/redirect?to=${encodeURIComponent('http://10.0.0.1/')}`, { broken: true, statusCode: null, reason: 'private', method: 'HEAD' }],
    [`${origin}/about#team`, { broken: false, statusCode: 200, reason: null }], // the same link as /about: merged
  ];
}

test.before(async () => {
  net = await startTestNetwork();
  refusedPort = await closedPort();
  const routes: Record<
    string,
    (req: http.IncomingMessage, res: http.ServerResponse, url: URL, server: PageServer) => void | Promise<void>
  > = {
    '/mixed.html': (_req, res, _url, server) =>
      send(
        res,
        200,
        'text/html',
        linkPage(
          mixedLinks(server.origin)
            .map(([href]) => href)
            .concat(['mailto:a@b.test', '#top']),
        ),
      ),
    '/many.html': (_req, res) => send(res, 200, 'text/html', linkPage(Array.from({ length: 40 }, (_, i) => `/about?n=${i}`))),
    '/silent.html': (_req, res) => send(res, 200, 'text/html', linkPage(['/hang'])),
    '/busy.html': (_req, res) => send(res, 200, 'text/html', linkPage(Array.from({ length: BUSY_LINKS }, (_, i) => `/busy?n=${i}`))),
    // Each request is held until as many are in flight as the checker may run (or the page's last
    // ones have come), so the most at once is the checker's limit on a machine of any pace.
    '/busy': async (_req, res) => {
      busy.now += 1;
      busy.started += 1;
      busy.max = Math.max(busy.max, busy.now);
      await new Promise<void>((resolve) => {
        busy.held.push(resolve);
        if (busy.now >= LINK_CONCURRENCY || busy.started >= BUSY_LINKS) for (const release of busy.held.splice(0)) release();
      });
      busy.now -= 1;
      send(res, 200, 'text/plain', 'ok');
    },
    // Requested only by the stack tests: a link to the API under test itself.
    '/service-link.html': (_req, res) => send(res, 200, 'text/html', linkPage([`${apiUrl()}/healthz`, '/about'])),
    '/no-links.html': (_req, res) => send(res, 200, 'text/html', htmlDocument('<title>Empty</title>', '<p>No links here.</p>')),
  };
  pages = await startPageServer({ routes });
});

test.after.always(async () => {
  await Promise.all([pages?.close(), net?.close()]);
});

/** The handler with the service's per-link budget, or a given one. */
const brokenLinks = (linkTimeoutMs?: number) =>
  createBrokenLinks({ http: net.http, reader: readInline, ...(linkTimeoutMs && { link: { timeoutMs: linkTimeoutMs } }) });

async function run(
  t: Parameters<typeof validInput>[0],
  fields: Partial<BrokenLinksInput>,
  linkTimeoutMs?: number,
): Promise<BrokenLinksOutput> {
  const out = await brokenLinks(linkTimeoutMs)(validInput<BrokenLinksInput>(t, schemas.input, fields), ctx());
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return out;
}

// ===== Unit: the handler called directly against fixture servers (no stack) =====

test('every way a link can break is reported with its reason; working links are not', async (t) => {
  const url = pages.url('/mixed.html');
  const out = await run(t, { url });
  const expected = mixedLinks(pages.origin).slice(0, -1); // the last one merges with /about
  t.is(out.url, url);
  t.is(out.finalUrl, url);
  t.is(out.totalFound, expected.length);
  t.is(out.checked, expected.length);
  t.is(out.brokenCount, expected.filter(([, e]) => e.broken).length);
  out.links.forEach((link, i) => {
    const [href, want] = expected[i]!;
    t.is(link.url, new URL(href, pages.origin).href.replace(/#.*$/, ''));
    t.like(link, { broken: want.broken, statusCode: want.statusCode, reason: want.reason }, href);
    if (want.method) t.is(link.method as string, want.method, href);
    t.is(link.detail === null, !want.broken, href);
    t.is(link.text, `link ${i}`);
  });
  const byPath = (p: string) => out.links.find((l) => l.url.endsWith(p))!;
  t.true(byPath('/about').internal);
  t.false(byPath('/admin').internal);
  t.is(byPath('/redirect?to=/contact.html').finalUrl, pages.url('/contact.html'));
  t.true(out.elapsedMs >= 0);
});

test('a link that never answers is broken with reason timeout once its budget is spent', async (t) => {
  const out = await run(t, { url: pages.url('/silent.html') }, 700);
  t.is(out.brokenCount, 1);
  t.like(out.links[0], { url: pages.url('/hang'), broken: true, statusCode: null, reason: 'timeout' });
  t.regex(out.links[0]!.detail!, /./);
});

// Serial: the request log of the shared fixture server is read, and no other test may add to it.
test.serial('HEAD comes first; GET only where HEAD was mishandled', async (t) => {
  await run(t, { url: pages.url('/mixed.html') });
  const methods = (path: string) => pages.requests.filter((r) => r.path === path).map((r) => r.method);
  t.deepEqual(methods('/about').slice(0, 1), ['HEAD']);
  t.false(methods('/about').includes('GET'));
  t.deepEqual(methods('/head-405').slice(0, 2), ['HEAD', 'GET']);
  t.deepEqual(methods('/head-drop').slice(0, 2), ['HEAD', 'GET']);
});

test('maxLinks takes the first links in document order; the default and maximum is 30', async (t) => {
  const five = await run(t, { url: pages.url('/many.html'), maxLinks: 5 });
  t.is(five.totalFound, 40);
  t.is(five.checked, 5);
  t.deepEqual(
    five.links.map((l) => l.url),
    [0, 1, 2, 3, 4].map((n) => pages.url(`/about?n=${n}`)),
  );
  const all = await run(t, { url: pages.url('/many.html') });
  t.is(all.checked, 30);
  t.is(all.brokenCount, 0);
  for (const maxLinks of [0, 31, 2.5]) {
    t.false(schemas.input({ url: pages.url('/many.html'), maxLinks }));
    await rejectsWith(t, brokenLinks()({ url: pages.url('/many.html'), maxLinks }, ctx()), 'validation_failed', '/maxLinks');
  }
});

test('links are checked five at a time', async (t) => {
  Object.assign(busy, { max: 0, started: 0 });
  const out = await run(t, { url: pages.url('/busy.html') });
  t.is(out.checked, BUSY_LINKS);
  t.is(out.brokenCount, 0);
  t.is(busy.max, 5);
});

test('mapWithConcurrency keeps input order and never runs more than the limit', async (t) => {
  let running = 0;
  let most = 0;
  const results = await mapWithConcurrency([50, 10, 30, 5, 20, 1, 15], 3, async (ms) => {
    most = Math.max(most, ++running);
    await new Promise((resolve) => setTimeout(resolve, ms));
    running -= 1;
    return ms * 2;
  });
  t.deepEqual(results, [100, 20, 60, 10, 40, 2, 30]);
  t.is(most, 3);
  t.deepEqual(await mapWithConcurrency([], 5, async (x) => x), []);
});

test('a page without links answers zero checks', async (t) => {
  const out = await run(t, { url: pages.url('/no-links.html') });
  t.like(out, { totalFound: 0, checked: 0, brokenCount: 0, links: [] });
});

test('the page itself: private is 422, an error status or unreachable is 502, bad input 400', async (t) => {
  const direct = await rejectsWith(t, brokenLinks()({ url: 'http://10.0.0.1/', maxLinks: 30 }, ctx()), 'target_not_allowed');
  t.is(direct.extras.reason, 'private');
  const redirected = await rejectsWith(
    t,
    brokenLinks()(
      { url: pages.url(`/redirect?to=${encodeURIComponent(`http://127.0.0.1:${pages.port}/mixed.html`)}`), maxLinks: 30 },
      ctx(),
    ),
    'target_not_allowed',
  );
  t.is(redirected.extras.reason, 'loopback');
  const missing = await rejectsWith(t, brokenLinks()({ url: pages.url('/status/404'), maxLinks: 30 }, ctx()), 'upstream_error');
  t.like(missing.extras, { reason: 'http_status', statusCode: 404 });
  const refused = await rejectsWith(t, brokenLinks()({ url: `http://127.0.0.2:${refusedPort}/`, maxLinks: 30 }, ctx()), 'upstream_error');
  t.is(refused.extras.reason, 'connection_refused');
  await rejectsWith(t, brokenLinks()({ url: 'page.html', maxLinks: 30 }, ctx()), 'validation_failed', '/url');
});

test('input schema: url required, maxLinks default 30 within 1-30, example valid', (t) => {
  t.false(schemas.input({}));
  t.false(schemas.input({ url: 'http://x/', depth: 1 }));
  t.is(validInput<BrokenLinksInput>(t, schemas.input, { url: 'http://x/' }).maxLinks, 30);
  t.true(schemas.input(structuredClone((schemas.input.schema as { examples: unknown[] }).examples[0])));
  t.true(schemas.output((schemas.output.schema as { examples: unknown[] }).examples[0]));
});

// ===== Integration: through HTTP against the running stack =====

test('stack: a crawl reports broken links, private ones included, for a flat 10 credits', async (t) => {
  const account = await newAccount(30);
  const res = await callTool(account.apiKey, 'broken-links', { url: pages.url('/mixed.html'), maxLinks: 30 });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(schemas.output(res.body));
  const reasons = Object.fromEntries(res.body.links.map((l: { url: string; reason: string | null }) => [l.url, l.reason]));
  t.like(reasons, {
    [pages.url('/about')]: null,
    [pages.url('/status/404')]: 'http_status',
    'http://10.0.0.1/admin': 'private',
    [`http://127.0.0.1:${pages.port}/about`]: 'loopback',
    'http://169.254.169.254/latest/meta-data/': 'metadata',
    [`http://127.0.0.2:${refusedPort}/gone`]: 'connection_refused',
  });
  t.is(res.headers.get('x-credits-charged'), '10');
  t.is(await balanceOf(account), 20);
  const few = await callTool(account.apiKey, 'broken-links', { url: pages.url('/many.html'), maxLinks: 2 });
  t.is(few.body.checked, 2);
  t.is(await balanceOf(account), 10, 'flat cost whatever maxLinks');
});

test('stack: a link to the service itself is reported broken (loopback), not requested', async (t) => {
  const account = await newAccount(30);
  const res = await callTool(account.apiKey, 'broken-links', {
    url: pages.url(`/redirect?to=${encodeURIComponent('/service-link.html')}`),
  });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.body.finalUrl, pages.url('/service-link.html'));
  t.like(res.body.links[0], { url: `${apiUrl()}/healthz`, broken: true, reason: 'loopback', statusCode: null });
  t.like(res.body.links[1], { broken: false, statusCode: 200 });
  t.is(await balanceOf(account), 20);
});

test('stack: a page redirecting to a private address is 422, an unreachable one 502, maxLinks 31 is 400: none charged', async (t) => {
  const account = await newAccount(30);
  const toService = await callTool(account.apiKey, 'broken-links', {
    url: pages.url(`/redirect?to=${encodeURIComponent(`${apiUrl()}/`)}`),
  });
  t.true(isProblem(toService, 422, 'target_not_allowed'), JSON.stringify(toService.body));
  t.is(toService.body.reason, 'loopback');
  t.true(isProblem(await callTool(account.apiKey, 'broken-links', { url: `http://127.0.0.2:${refusedPort}/` }), 502, 'upstream_error'));
  t.true(isProblem(await callTool(account.apiKey, 'broken-links', { url: pages.url('/status/500') }), 502, 'upstream_error'));
  t.true(
    isProblem(await callTool(account.apiKey, 'broken-links', { url: pages.url('/mixed.html'), maxLinks: 31 }), 400, 'validation_failed'),
  );
  t.is(await balanceOf(account), 30);
});
