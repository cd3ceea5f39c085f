//! web-scrape: the structure of real fixture pages over HTTP and HTTPS (compressed, redirected,
//! legacy charsets), simple selectors only, text truncation, size and type limits, refused
//! targets including a redirect to a private address, and the same through the running stack.
import test from 'ava';
import { createWebScrape } from '../../activities/tools/web-scrape.js';
import { MAX_TEXT_CHARS } from '../../activities/network/markup-readings.js';
import { readInline } from '../../activities/network/readings.js';
import { parseSimpleSelector, type WebScrapeInput } from '../../domain/tools/web-scrape.js';
import { findTool } from '../../domain/tools/catalogue.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { apiUrl, balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';
import { net, pages, securePages } from './support/page-fixtures.js';
import { ARTICLE_WORDS, closedPort } from '../fixtures/http-pages.js';

const schemas = compileToolSchemas('web-scrape');
/** A context of its own per call: tests run concurrently and each call listens on its signal. */
const ctx = () => standaloneContext();

const scrape = (timeoutMs?: number) => createWebScrape({ http: net.http, reader: readInline, page: { timeoutMs } });

async function run(t: Parameters<typeof validInput>[0], fields: Partial<WebScrapeInput>) {
  const out = await scrape()(validInput<WebScrapeInput>(t, schemas.input, fields), ctx());
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return out;
}

// ===== Unit: the handler called directly against fixture servers (no stack) =====

test('the article: title, meta, canonical, headings, links, images, og: tags, selector matches, text', async (t) => {
  const out = await run(t, { url: pages.url('/article.html'), selector: '.price' });
  const o = pages.origin;
  t.is(out.finalUrl, `${o}/article.html`);
  t.is(out.statusCode, 200);
  t.is(out.title, 'Fixture article');
  t.is(out.metaDescription, 'A page with every kind of structure the tools read.');
  t.is(out.canonical, `${o}/article.html?ref=canonical`);
  t.deepEqual(out.headings, [
    { level: 1, text: 'Fixture article' },
    { level: 2, text: 'First section' },
    { level: 3, text: 'Sub heading' },
    { level: 2, text: 'Second section' },
  ]);
  t.deepEqual(out.links, [
    { url: `${o}/about`, text: 'About us', internal: true, nofollow: false, occurrences: 2 },
    { url: `${o}/contact.html`, text: 'Contact', internal: true, nofollow: true, occurrences: 1 },
    { url: 'https://external.example.org/page?q=1', text: 'External', internal: false, nofollow: true, occurrences: 1 },
    { url: 'https://partner.example.net/', text: 'Partner', internal: false, nofollow: false, occurrences: 2 },
    { url: `${o}/img-link`, text: 'Home icon', internal: true, nofollow: false, occurrences: 1 },
  ]);
  t.deepEqual(out.images, [
    { url: `${o}/icons/home.png`, alt: 'Home icon', width: null, height: null },
    { url: `${o}/images/photo.jpg`, alt: 'A photo', width: 640, height: 480 },
    { url: `${o}/images/decor.gif`, alt: '', width: 100, height: null },
    { url: `${o}/images/lazy.webp`, alt: null, width: null, height: null },
  ]);
  t.deepEqual(out.openGraph, {
    'og:title': 'Fixture article',
    'og:type': 'article',
    'og:image': ['https://cdn.example.org/one.png', 'https://cdn.example.org/two.png'],
  });
  t.deepEqual(out.selectorMatches, ['$19.99', '$5.00']);
  t.regex(out.text!, /^Fixture article\nAbout us\n/);
  t.regex(out.text!, /Seven words of readable text live here\./);
  t.notRegex(out.text!, /script words|Hidden words|Neither are these|Template words|Enable scripts|color: red/);
  t.false(out.textTruncated);
  t.is(out.wordCount, ARTICLE_WORDS);
});

test('tag and id selectors; no selector gives no matches', async (t) => {
  t.deepEqual((await run(t, { url: pages.url('/article.html'), selector: 'h2' })).selectorMatches, ['First section', 'Second section']);
  t.deepEqual((await run(t, { url: pages.url('/article.html'), selector: '#main-note' })).selectorMatches, ['Note with nested text']);
  t.deepEqual((await run(t, { url: pages.url('/article.html'), selector: 'blink' })).selectorMatches, []);
  t.deepEqual((await run(t, { url: pages.url('/article.html') })).selectorMatches, []);
});

test('anything but a simple selector is 400 on /selector, before any request', async (t) => {
  for (const selector of [
    'div p',
    'div > p',
    'a[href]',
    'p:first-child',
    '.a.b',
    'p, h1',
    '*',
    '#1abc',
    '.-1x',
    '',
    'x'.repeat(101),
    'p::before',
    '.a\\:b',
  ]) {
    t.is(parseSimpleSelector(selector), undefined, selector);
    await rejectsWith(
      t,
      scrape()({ url: pages.url('/article.html?bad-selector'), selector, includeText: true }, ctx()),
      'validation_failed',
      '/selector',
    );
  }
  for (const selector of ['p', 'H1', 'my-widget', '.price', '.-x', '._y', '#main-note', '#a_b'])
    t.truthy(parseSimpleSelector(selector), selector);
  t.false(pages.requests.some((r) => r.path === '/article.html?bad-selector'));
});

test('includeText false leaves the text out but still counts words', async (t) => {
  const out = await run(t, { url: pages.url('/article.html'), includeText: false });
  t.is(out.text, null);
  t.false(out.textTruncated);
  t.is(out.wordCount, ARTICLE_WORDS);
});

test('text is cut at 50,000 characters with textTruncated; the word count covers all of it', async (t) => {
  const out = await run(t, { url: pages.url('/long-text.html') });
  t.is(out.text!.length, MAX_TEXT_CHARS);
  t.true(out.textTruncated);
  t.is(out.wordCount, 10_000);
});

test('gzip pages are decoded; legacy charsets are read from the header or a meta tag', async (t) => {
  const gz = await run(t, { url: pages.url('/gzip/article.html') });
  t.is(gz.title, 'Fixture article');
  t.is(gz.wordCount, ARTICLE_WORDS);
  t.is((await run(t, { url: pages.url('/cp1252.html') })).title, 'Café €');
  t.is((await run(t, { url: pages.url('/meta-charset.html') })).text, 'naïve');
});

test('a redirect chain is followed with finalUrl; links resolve against the final page', async (t) => {
  const out = await run(t, { url: pages.url(`/redirect?to=${encodeURIComponent('/redirect?status=301&to=/based.html')}`) });
  t.is(out.finalUrl, pages.url('/based.html'));
  t.deepEqual(
    out.links.map((l) => l.url),
    [pages.url('/docs/v2/intro.html'), pages.url('/top')],
  );
});

test('an error page is read, not refused: statusCode tells', async (t) => {
  const out = await run(t, { url: pages.url('/status/404') });
  t.is(out.statusCode, 404);
  t.is(out.title, 'Status 404');
});

test('HTTPS pages, by address and by a name the DNS fixture serves', async (t) => {
  t.is((await run(t, { url: securePages.url('/article.html') })).title, 'Fixture article');
  const byName = await run(t, { url: `https://fixture.test:${securePages.port}/article.html` });
  t.is(byName.links[0]!.url, `https://fixture.test:${securePages.port}/about`);
  t.true(byName.links[0]!.internal);
});

test('a page over 5 MiB is 422 source_too_large; an image or JSON is 422 unsupported_source; plain text is read', async (t) => {
  const big = await rejectsWith(
    t,
    scrape()({ url: pages.url(`/huge?bytes=${5 * 1024 * 1024 + 1}`), includeText: true }, ctx()),
    'source_too_large',
  );
  t.regex(big.message, /5 MiB/);
  await t.notThrowsAsync(scrape()({ url: pages.url(`/huge?bytes=${5 * 1024 * 1024}`), includeText: false }, ctx()));
  for (const file of ['/image.png', '/data.json']) {
    await rejectsWith(t, scrape()({ url: pages.url(file), includeText: true }, ctx()), 'unsupported_source');
  }
  t.is((await run(t, { url: pages.url('/text.txt') })).text, 'Plain words, no markup.');
});

test('private targets are 422, also when reached by a redirect', async (t) => {
  const direct = await rejectsWith(
    t,
    scrape()({ url: `http://127.0.0.1:${pages.port}/article.html`, includeText: true }, ctx()),
    'target_not_allowed',
  );
  t.is(direct.extras.reason, 'loopback');
  for (const [to, reason] of [
    ['http://10.0.0.1/', 'private'],
    [`http://127.0.0.1:${pages.port}/`, 'loopback'],
    ['http://metadata.test/', 'metadata'],
  ] as const) {
    const err = await rejectsWith(
      t,
      scrape()({ url: pages.url(`/redirect?to=${encodeURIComponent(to)}`), includeText: true }, ctx()),
      'target_not_allowed',
    );
    t.is(err.extras.reason, reason, to);
    t.regex(err.message, /^Redirect refused/);
  }
});

test('bad URLs are 400; unreachable pages are 502 with the reason', async (t) => {
  for (const url of ['example.com', 'ftp://127.0.0.2/', 'http://']) {
    await rejectsWith(t, scrape()({ url, includeText: true }, ctx()), 'validation_failed', '/url');
  }
  const refused = await rejectsWith(
    t,
    scrape()({ url: `http://127.0.0.2:${await closedPort()}/`, includeText: true }, ctx()),
    'upstream_error',
  );
  t.is(refused.extras.reason, 'connection_refused');
  const silent = await rejectsWith(t, scrape(300)({ url: pages.url('/hang'), includeText: true }, ctx()), 'upstream_error');
  t.is(silent.extras.reason, 'timeout');
  // Room for every hop of the loop on a busy machine: the redirect limit, not the deadline, must end it.
  const loop = await rejectsWith(t, scrape(60_000)({ url: pages.url('/loop'), includeText: true }, ctx()), 'upstream_error');
  t.is(loop.extras.reason, 'too_many_redirects');
});

test('input schema: url required, includeText default true, no unknown fields, example valid', (t) => {
  t.false(schemas.input({}));
  t.false(schemas.input({ url: 'http://x/', depth: 2 }));
  t.false(schemas.input({ url: 'http://x/', selector: '' }));
  t.is(validInput<WebScrapeInput>(t, schemas.input, { url: 'http://x/' }).includeText, true);
  t.true(schemas.input(structuredClone((schemas.input.schema as { examples: unknown[] }).examples[0])));
  t.true(schemas.output((schemas.output.schema as { examples: unknown[] }).examples[0]));
  t.notThrows(() => findTool('web-scrape')!.precheck!({ url: 'http://x/', selector: '.price', includeText: true }));
});

// ===== Integration: through HTTP against the running stack =====

test('stack: a scrape answers the structure and charges 3 credits', async (t) => {
  const account = await newAccount(20);
  const res = await callTool(account.apiKey, 'web-scrape', { url: pages.url('/article.html'), selector: '#main-note' });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(schemas.output(res.body));
  t.is(res.body.title, 'Fixture article');
  t.deepEqual(res.body.selectorMatches, ['Note with nested text']);
  t.is(res.headers.get('x-credits-charged'), '3');
  t.is(await balanceOf(account), 17);
});

test('stack: a full CSS selector is 400 and not charged', async (t) => {
  const account = await newAccount(20);
  const res = await callTool(account.apiKey, 'web-scrape', { url: pages.url('/article.html'), selector: 'main > p' });
  t.true(isProblem(res, 400, 'validation_failed'));
  t.deepEqual(
    res.body.errors.map((e: { field: string }) => e.field),
    ['/selector'],
  );
  t.is(await balanceOf(account), 20);
});

test('stack: a redirect from an allowed fixture to the service itself or a private address is 422 and not charged', async (t) => {
  const account = await newAccount(20);
  for (const [to, reason] of [
    [`${apiUrl()}/healthz`, 'loopback'],
    ['http://10.0.0.1/', 'private'],
  ] as const) {
    const res = await callTool(account.apiKey, 'web-scrape', { url: pages.url(`/redirect?to=${encodeURIComponent(to)}`) });
    t.true(isProblem(res, 422, 'target_not_allowed'), JSON.stringify(res.body));
    t.is(res.body.reason, reason);
  }
  const direct = await callTool(account.apiKey, 'web-scrape', { url: `${apiUrl()}/healthz` });
  t.true(isProblem(direct, 422, 'target_not_allowed'));
  t.is(await balanceOf(account), 20);
});

test('stack: an unreachable page is 502 and a too-large one 422, both refunded', async (t) => {
  const account = await newAccount(20);
  const refused = await callTool(account.apiKey, 'web-scrape', { url: `http://127.0.0.2:${await closedPort()}/` });
  t.true(isProblem(refused, 502, 'upstream_error'), JSON.stringify(refused.body));
  const big = await callTool(account.apiKey, 'web-scrape', { url: pages.url(`/huge?bytes=${6 * 1024 * 1024}`) });
  t.true(isProblem(big, 422, 'source_too_large'), JSON.stringify(big.body));
  t.is(await balanceOf(account), 20);
});
