//! seo-meta: the raw values of real fixture pages (title, description, canonical, robots, og:,
//! twitter:, outline, word count), null for what a page leaves out, the page fetch's limits and
//! refusals, and the same through the running stack.
import test from 'ava';
import { createSeoMeta } from '../../activities/tools/seo-meta.js';
import { readInline } from '../../activities/network/readings.js';
import type { SeoMetaInput } from '../../domain/tools/seo-meta.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { apiUrl, balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { startTestNetwork, type TestNetwork } from '../helpers/network-access.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';
import { ARTICLE_WORDS, closedPort, startPageServer, type PageServer } from '../fixtures/http-pages.js';

const schemas = compileToolSchemas('seo-meta');
/** A context of its own per call: tests run concurrently and each call listens on its signal. */
const ctx = () => standaloneContext();

let net: TestNetwork;
let pages: PageServer;

test.before(async () => {
  net = await startTestNetwork();
  pages = await startPageServer();
});

test.after.always(async () => {
  await Promise.all([pages?.close(), net?.close()]);
});

const seoMeta = () => createSeoMeta({ http: net.http, reader: readInline });

async function run(t: Parameters<typeof validInput>[0], url: string) {
  const out = await seoMeta()(validInput<SeoMetaInput>(t, schemas.input, { url }), ctx());
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return out;
}

// ===== Unit: the handler called directly against fixture servers (no stack) =====

test('the article: every value as declared, og: and twitter: properties, outline and word count', async (t) => {
  const url = pages.url('/article.html');
  t.deepEqual(await run(t, url), {
    url,
    finalUrl: url,
    statusCode: 200,
    title: 'Fixture article',
    description: 'A page with every kind of structure the tools read.',
    canonical: pages.url('/article.html?ref=canonical'),
    robots: 'index, nofollow',
    openGraph: {
      'og:title': 'Fixture article',
      'og:type': 'article',
      'og:image': ['https://cdn.example.org/one.png', 'https://cdn.example.org/two.png'],
    },
    twitter: { 'twitter:card': 'summary_large_image', 'twitter:site': '@fixture' },
    headings: [
      { level: 1, text: 'Fixture article' },
      { level: 2, text: 'First section' },
      { level: 3, text: 'Sub heading' },
      { level: 2, text: 'Second section' },
    ],
    wordCount: ARTICLE_WORDS,
  });
});

test('a page without head values answers null for each and empty objects', async (t) => {
  const out = await run(t, pages.url('/bare.html'));
  t.like(out, { title: null, description: null, canonical: null, robots: null, openGraph: {}, twitter: {}, headings: [], wordCount: 6 });
});

test('redirects are followed (url as asked, finalUrl where it ended); compressed pages are read', async (t) => {
  const asked = pages.url('/redirect?status=308&to=/gzip/article.html');
  const out = await run(t, asked);
  t.is(out.url, asked);
  t.is(out.finalUrl, pages.url('/gzip/article.html'));
  t.is(out.title, 'Fixture article');
  t.is(out.wordCount, ARTICLE_WORDS);
});

test('an error page is read with its status', async (t) => {
  const out = await run(t, pages.url('/status/410'));
  t.is(out.statusCode, 410);
  t.is(out.title, 'Status 410');
});

test('refusals and failures: 422 for private targets and non-pages, 502 when unreachable, 400 for bad URLs', async (t) => {
  const direct = await rejectsWith(t, seoMeta()({ url: 'http://192.168.1.1/' }, ctx()), 'target_not_allowed');
  t.is(direct.extras.reason, 'private');
  const redirected = await rejectsWith(
    t,
    seoMeta()({ url: pages.url(`/redirect?to=${encodeURIComponent('http://[::ffff:127.0.0.1]/')}`) }, ctx()),
    'target_not_allowed',
  );
  t.is(redirected.extras.reason, 'loopback');
  await rejectsWith(t, seoMeta()({ url: pages.url('/image.png') }, ctx()), 'unsupported_source');
  await rejectsWith(t, seoMeta()({ url: pages.url(`/huge?bytes=${6 * 1024 * 1024}`) }, ctx()), 'source_too_large');
  const refused = await rejectsWith(t, seoMeta()({ url: `http://127.0.0.2:${await closedPort()}/` }, ctx()), 'upstream_error');
  t.is(refused.extras.reason, 'connection_refused');
  await rejectsWith(t, seoMeta()({ url: 'mailto:someone@example.org' }, ctx()), 'validation_failed', '/url');
});

test('input schema: url required, nothing else, example valid', (t) => {
  t.false(schemas.input({}));
  t.false(schemas.input({ url: 'http://x/', score: true }));
  t.true(schemas.input(structuredClone((schemas.input.schema as { examples: unknown[] }).examples[0])));
  t.true(schemas.output((schemas.output.schema as { examples: unknown[] }).examples[0]));
});

// ===== Integration: through HTTP against the running stack =====

test('stack: a call answers the values and charges 2 credits', async (t) => {
  const account = await newAccount(20);
  const res = await callTool(account.apiKey, 'seo-meta', { url: pages.url('/article.html') });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(schemas.output(res.body));
  t.like(res.body, { title: 'Fixture article', robots: 'index, nofollow', twitter: { 'twitter:card': 'summary_large_image' } });
  t.is(await balanceOf(account), 18);
});

test('stack: private targets, redirects to them and bad URLs are refused and not charged; unreachable is 502', async (t) => {
  const account = await newAccount(20);
  const self = await callTool(account.apiKey, 'seo-meta', { url: pages.url(`/redirect?to=${encodeURIComponent(`${apiUrl()}/readyz`)}`) });
  t.true(isProblem(self, 422, 'target_not_allowed'), JSON.stringify(self.body));
  t.is(self.body.reason, 'loopback');
  t.true(isProblem(await callTool(account.apiKey, 'seo-meta', { url: 'http://10.0.0.1/' }), 422, 'target_not_allowed'));
  t.true(isProblem(await callTool(account.apiKey, 'seo-meta', { url: 'not a url' }), 400, 'validation_failed'));
  t.true(isProblem(await callTool(account.apiKey, 'seo-meta', { url: `http://127.0.0.2:${await closedPort()}/` }), 502, 'upstream_error'));
  t.is(await balanceOf(account), 20);
});
