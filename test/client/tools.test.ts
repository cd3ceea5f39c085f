//! Every tool through `utility-tools/client` against the stack, once each, with the fixtures the
//! tools' own suites use: the output those suites expect, decoded bytes for binary outputs, and a
//! charge equal to the catalogue's cost with the balance the account API reports.
import { once } from 'node:events';
import type net from 'node:net';
import tls from 'node:tls';
import test, { type ExecutionContext } from 'ava';
import { UtilityTools, UtilityToolsError, type ToolName, type ToolResult } from 'utility-tools/client';
import { apiUrl, newAccount, request } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { FIXTURE_NAMES as N } from '../fixtures/dns-server.js';
import { feedMode } from '../fixtures/gold-feed.js';
import { makeDocx, readPdf } from '../fixtures/documents.js';
import { startFileServer, type FileServer } from '../fixtures/file-server.js';
import { decodeImage, makeImage } from '../fixtures/images.js';
import { makePdf } from '../fixtures/pdf-files.js';
import { caFromEnv, issueLeaf } from '../fixtures/tls-certs.js';

let files: FileServer;
let tlsPort: number;
const servers: net.Server[] = [];
const costs = new Map<string, number>();
const pages = (path: string) => testEnv.fixtures().http.url + path;

test.before(async () => {
  files = await startFileServer();
  const leaf = await issueLeaf(await caFromEnv(), { names: [N.fixture] });
  const server = tls.createServer({ cert: leaf.cert, key: leaf.key }, (socket) => socket.end());
  servers.push(server);
  server.listen(0, '127.0.0.2');
  await once(server, 'listening');
  tlsPort = (server.address() as net.AddressInfo).port;
  const catalogue = await request('GET', '/api/v1/tools');
  for (const tool of catalogue.body.tools) costs.set(tool.name, tool.cost);
});
test.after.always(async () => {
  await files?.close();
  for (const s of servers) s.close();
});

/** A client on a fresh account of 100 credits, and the account's owner view. */
async function clientWithCredits() {
  const account = await newAccount(100);
  return { client: new UtilityTools({ baseUrl: apiUrl(), apiKey: account.apiKey, ownerToken: account.ownerToken }), account };
}

/** Calls one tool and checks what the call cost against the catalogue and the account. */
async function charged<T extends ToolName>(
  t: ExecutionContext,
  tool: T,
  call: (client: UtilityTools) => Promise<ToolResult<T>>,
): Promise<ToolResult<T>> {
  const { client } = await clientWithCredits();
  const result = await call(client);
  const cost = costs.get(tool)!;
  t.is(result.charged, cost, `${tool} charged`);
  t.is(result.balance, 100 - cost);
  t.is((await client.account.get()).balance, 100 - cost);
  t.regex(result.requestId, /^call-/);
  t.false(result.replayed);
  return result;
}

test('hash-text', async (t) => {
  const out = await charged(t, 'hash-text', (c) => c.tools.hashText({ text: 'hello world' }));
  t.deepEqual(
    { ...out, charged: 0, balance: 0, requestId: '', replayed: false },
    {
      algorithm: 'sha256',
      hash: 'b94d27b9934d3e08a52e52d7da7dabfac484efe37a5380ee9088f7ace2efcde9',
      charged: 0,
      balance: 0,
      requestId: '',
      replayed: false,
    },
  );
});

test('bcrypt-hash, then bcrypt-verify of its hash', async (t) => {
  const hashed = await charged(t, 'bcrypt-hash', (c) => c.tools.bcryptHash({ password: 'pw', workFactor: 4 }));
  t.regex(hashed.hash, /^\$2[aby]\$04\$/);
  const verified = await charged(t, 'bcrypt-verify', (c) => c.tools.bcryptVerify({ password: 'pw', hash: hashed.hash }));
  t.true(verified.matches);
});

test('argon2-verify', async (t) => {
  const { default: argon2 } = await import('argon2');
  const hash = await argon2.hash('pw', { type: argon2.argon2id, memoryCost: 1024, timeCost: 2 });
  const out = await charged(t, 'argon2-verify', (c) => c.tools.argon2Verify({ password: 'pw', hash }));
  t.true(out.matches);
});

test('qr-generate: the PNG also as bytes', async (t) => {
  const out = await charged(t, 'qr-generate', (c) => c.tools.qrGenerate({ text: 'https://example.com', size: 128 }));
  t.like(out, { mimeType: 'image/png', size: 128 });
  t.true(out.image instanceof Uint8Array);
  t.deepEqual(Buffer.from(out.image), Buffer.from(out.imageBase64, 'base64'));
  t.false(Object.keys(out).includes('image'), 'the decoded bytes stay out of the JSON');
  const image = await decodeImage(Buffer.from(out.image));
  t.deepEqual([image.width, image.height], [128, 128]);
});

test('watermark-image', async (t) => {
  const fileUrl = files.put('/client/item.jpg', await makeImage('jpeg', 640, 480, 0x806040ff));
  const out = await charged(t, 'watermark-image', (c) =>
    c.tools.watermarkImage({ fileUrl, text: '© Shop 2025', position: 'tile', opacity: 0.5 }),
  );
  t.like(out, { mimeType: 'image/jpeg', fileName: 'item-watermarked.jpg', width: 640, height: 480 });
  const image = await decodeImage(Buffer.from(out.file));
  t.deepEqual([image.width, image.height], [640, 480]);
});

test('image-upscale', async (t) => {
  const fileUrl = files.put('/client/logo.png', await makeImage('png', 64, 48, 0xff0000ff, 0x0000ffff));
  const out = await charged(t, 'image-upscale', (c) => c.tools.imageUpscale({ fileUrl, factor: 4 }));
  t.like(out, { mimeType: 'image/png', fileName: 'logo-x4.png', factor: 4, width: 256, height: 192 });
  const image = await decodeImage(Buffer.from(out.file));
  t.deepEqual([image.width, image.height], [256, 192]);
});

test('word-to-pdf', async (t) => {
  const pagesText = ['First page of the client fixture', 'Second page of the client fixture'];
  const fileUrl = files.put('/client/quarterly report.docx', await makeDocx(pagesText));
  const out = await charged(t, 'word-to-pdf', (c) => c.tools.wordToPdf({ fileUrl }));
  t.like(out, { mimeType: 'application/pdf', fileName: 'quarterly-report.pdf' });
  t.deepEqual((await readPdf(Buffer.from(out.file))).pages, pagesText);
});

test('http-request', async (t) => {
  const out = await charged(t, 'http-request', (c) =>
    c.tools.httpRequest({ url: pages('/echo'), method: 'PUT', headers: '{"X-Test":"1"}', body: 'hello' }),
  );
  const sent = JSON.parse(out.body);
  t.like(sent, { method: 'PUT', body: 'hello' });
  t.deepEqual(sent.headers['x-test'], ['1']);
});

test('web-scrape', async (t) => {
  const out = await charged(t, 'web-scrape', (c) => c.tools.webScrape({ url: pages('/article.html'), selector: '#main-note' }));
  t.is(out.title, 'Fixture article');
  t.deepEqual(out.selectorMatches, ['Note with nested text']);
});

test('seo-meta', async (t) => {
  const out = await charged(t, 'seo-meta', (c) => c.tools.seoMeta({ url: pages('/article.html') }));
  t.like(out, { title: 'Fixture article', robots: 'index, nofollow', twitter: { 'twitter:card': 'summary_large_image' } });
});

test('broken-links', async (t) => {
  const out = await charged(t, 'broken-links', (c) => c.tools.brokenLinks({ url: pages('/'), maxLinks: 5 }));
  t.deepEqual(
    out.links.map((l) => [l.url, l.reason]),
    [[pages('/article.html'), null]],
  );
});

test('pdf-metadata', async (t) => {
  const fileUrl = files.put('/client/plain.pdf', await makePdf({ title: 'Quarterly report', author: 'Ada Lovelace', pages: 3 }));
  const out = await charged(t, 'pdf-metadata', (c) => c.tools.pdfMetadata({ fileUrl }));
  t.like(out, { title: 'Quarterly report', author: 'Ada Lovelace', pageCount: 3, encrypted: false });
});

test('ping', async (t) => {
  const port = Number(new URL(files.origin).port);
  const out = await charged(t, 'ping', (c) => c.tools.ping({ host: N.fixture, port, count: 3, timeoutMs: 1000 }));
  t.like(out, { resolvedIp: '127.0.0.2', sent: 3, received: 3, packetLossPercent: 0 });
});

test('dns-lookup', async (t) => {
  const out = await charged(t, 'dns-lookup', (c) => c.tools.dnsLookup({ hostname: N.mail, recordType: 'MX' }));
  t.like(out, { hostname: 'mail.test', recordType: 'MX', found: true });
  t.deepEqual(out.records, [
    { priority: 10, exchange: 'mx1.test' },
    { priority: 20, exchange: 'mx2.test' },
  ]);
});

test('ssl-check', async (t) => {
  const out = await charged(t, 'ssl-check', (c) => c.tools.sslCheck({ host: N.fixture, port: tlsPort }));
  t.like(out, { host: 'fixture.test', subject: 'CN=fixture.test', chainValid: true, hostnameMatches: true });
  t.deepEqual(out.subjectAlternativeNames, ['fixture.test']);
});

// smtp-test's own suite holds the fixture addresses' SMTP ports (2525, 465, 587) while it runs; the
// closed port 25 is the case it leaves free: an unreachable server, 502 and refunded.
test('smtp-test: an unreachable server is a typed 502, refunded', async (t) => {
  const { client } = await clientWithCredits();
  const err = await t.throwsAsync(client.tools.smtpTest({ host: N.fixture, port: 25 }), { instanceOf: UtilityToolsError });
  t.like(err, { status: 502, code: 'upstream_error' });
  t.regex(err!.requestId!, /^call-/);
  t.is((await client.account.get()).balance, 100);
});

/** Until the shared gold feed is up (bounded only against a hang). */
async function untilFeedUp(): Promise<void> {
  for (const until = Date.now() + 120_000; (await feedMode(testEnv.goldFeedControlUrl())) !== 'up'; ) {
    if (Date.now() > until) throw new Error('the gold feed fixture stayed down');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

test('gold-price', async (t) => {
  // gold-price's own suite takes the shared feed down twice; a call then with no stored quote is a
  // refunded 502 (feed_unavailable). With the feed up again, the call must answer.
  const out = await charged(t, 'gold-price', async (c) => {
    for (let attempt = 1; ; attempt++) {
      try {
        return await c.tools.goldPrice({ metal: 'gold', currency: 'EUR' });
      } catch (err) {
        if (!(err instanceof UtilityToolsError) || err.reason !== 'feed_unavailable' || attempt === 3) throw err;
        await untilFeedUp();
      }
    }
  });
  t.like(out, { metal: 'gold', currency: 'EUR' });
  t.is(out.karats.length, 9);
});

test('website-screenshot', async (t) => {
  const out = await charged(t, 'website-screenshot', (c) =>
    c.tools.websiteScreenshot({ url: pages('/article.html'), width: 800, height: 600 }),
  );
  t.like(out, { mimeType: 'image/png', width: 800, height: 600, pageTitle: 'Fixture article', truncated: false });
  const image = await decodeImage(Buffer.from(out.file));
  t.deepEqual([image.width, image.height], [800, 600]);
});

test('html-to-image', async (t) => {
  const html = '<body style="margin:0;background:rgb(255,0,0)"></body>';
  const out = await charged(t, 'html-to-image', (c) => c.tools.htmlToImage({ html, width: 640, height: 480, format: 'jpeg', quality: 90 }));
  t.like(out, { mimeType: 'image/jpeg', width: 640, height: 480, truncated: false });
  const image = await decodeImage(Buffer.from(out.file));
  t.deepEqual([image.width, image.height], [640, 480]);
});

test('every tool of the catalogue has its method', async (t) => {
  const client = new UtilityTools({ baseUrl: apiUrl(), apiKey: 'utk_unused' });
  const methods = [...costs.keys()].map((name) => name.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()));
  for (const m of methods) t.is(typeof (client.tools as unknown as Record<string, unknown>)[m], 'function', m);
  t.true(costs.size > 0, 'the catalogue was read'); // that it lists every tool of the client: test/client/types.test.ts
});
