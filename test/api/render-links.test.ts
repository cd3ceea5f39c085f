//! Render links over HTTP: link secrets (shown once, stored sealed, listed without the secret,
//! retired within a second, several live at once), signed links answering the image (charged iff
//! 200, a tampered or unsigned link 401, an expired one 403, query values converted by the schema,
//! SSRF refusals free), the link a page embeds shown in Chromium, and the owner's signed links.
import test from 'ava';
import { PNG } from 'pngjs';
import { setTimeout as sleep } from 'node:timers/promises';
import { buildRenderLink, signRenderLink } from '../../lib/render-link-signature.js';
import { startPageServer, html, htmlDocument, type PageServer } from '../fixtures/http-pages.js';
import { startBrowserPages } from '../fixtures/browser-pages.js';
import { apiUrl, balanceOf, isProblem, newAccount, request, type Answer, type TestAccount } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { launchBrowser } from '../dashboard/page.js';

interface LinkSecret {
  id: string;
  secret: string;
}

async function newLinkSecret(account: TestAccount): Promise<LinkSecret> {
  const res = await request('POST', '/api/v1/account/link-secrets', { token: account.ownerToken });
  if (res.status !== 201) throw new Error(`could not create a link secret: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

function link(
  secret: LinkSecret,
  tool: string,
  input: Record<string, string | number | boolean>,
  extra: { expires?: number; maxAge?: number } = {},
): string {
  return buildRenderLink({ baseUrl: apiUrl(), secretId: secret.id, secret: secret.secret, tool, input, ...extra });
}

/** GET (or HEAD) of a full link; the body as bytes. */
async function open(url: string, init: RequestInit = {}): Promise<Answer<Buffer>> {
  const res = await fetch(url, init);
  const bytes = Buffer.from(await res.arrayBuffer());
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, headers: res.headers, body: /json/.test(type) ? JSON.parse(bytes.toString('utf8')) : bytes };
}

const pngSize = (bytes: Buffer) => {
  const png = PNG.sync.read(bytes);
  return [png.width, png.height];
};

test('a link secret is shown once, stored only sealed, listed without the secret', async (t) => {
  const account = await newAccount(10);
  const created = await request('POST', '/api/v1/account/link-secrets', { token: account.ownerToken });
  t.is(created.status, 201);
  t.regex(created.body.id, /^lks_[0-9A-Za-z]{22}$/);
  t.regex(created.body.secret, /^lksec_[0-9A-Za-z_-]{43}$/);
  const list = await request('GET', '/api/v1/account/link-secrets', { token: account.ownerToken });
  t.deepEqual(list.body, [{ id: created.body.id, createdAt: created.body.createdAt, retiredAt: null }]);
  const stored = await withServiceDb((db) => db.collection('link_secrets').findOne({ _id: created.body.id as never }));
  t.truthy(stored);
  t.false(JSON.stringify(stored).includes(created.body.secret.slice(6)));
  // An API key is not an owner token.
  t.true(isProblem(await request('GET', '/api/v1/account/link-secrets', { token: account.apiKey }), 403, 'forbidden'));
});

test('a render link answers the image itself, charged once; a repeat is a free cache hit with Age and ETag; If-None-Match is 304', async (t) => {
  const account = await newAccount(10);
  const secret = await newLinkSecret(account);
  const url = link(secret, 'qr-generate', { text: 'render link', size: 200 });
  const first = await open(url);
  t.is(first.status, 200);
  t.is(first.headers.get('content-type'), 'image/png');
  t.deepEqual(pngSize(first.body), [200, 200]);
  t.is(first.headers.get('x-cache'), 'MISS');
  t.is(first.headers.get('x-credits-charged'), '1');
  t.is(first.headers.get('cache-control'), 'public, max-age=14400');
  const etag = first.headers.get('etag');
  t.regex(etag ?? '', /^"[0-9A-Za-z_-]+"$/);
  t.is(await balanceOf(account), 9);

  const second = await open(url);
  t.is(second.status, 200);
  t.is(second.headers.get('x-cache'), 'HIT');
  t.is(second.headers.get('x-credits-charged'), '0');
  t.is(second.headers.get('etag'), etag);
  t.regex(second.headers.get('age') ?? '', /^\d+$/);
  t.regex(second.headers.get('cache-control') ?? '', /^public, max-age=\d+$/);
  t.deepEqual(second.body, first.body);

  const notModified = await open(url, { headers: { 'If-None-Match': etag! } });
  t.is(notModified.status, 304);
  t.is(notModified.headers.get('etag'), etag);
  t.is(notModified.body.length, 0);

  const head = await open(url, { method: 'HEAD' });
  t.is(head.status, 200);
  t.is(head.headers.get('content-type'), 'image/png');
  t.is(head.body.length, 0);
  t.is(await balanceOf(account), 9);
  // The hits were no calls: the ledger holds the one render, and only the miss answered with its workflow's id.
  const ledger = await request('GET', '/api/v1/account/usage', { token: account.ownerToken });
  t.deepEqual(
    ledger.body.items.map((i: { requestId: string }) => i.requestId),
    [first.headers.get('x-request-id')],
  );
  t.not(second.headers.get('x-request-id'), first.headers.get('x-request-id'));

  const usage = await request('GET', '/api/v1/account/render-cache', { token: account.ownerToken });
  t.is(usage.status, 200);
  const today = new Date().toISOString().slice(0, 10);
  // The hits are counted after their answer: wait for the last one, bounded only against a hang.
  for (let i = 0; i < 50; i++) {
    const days = (await request('GET', '/api/v1/account/render-cache', { token: account.ownerToken })).body.days;
    if (days[0]?.hits === 3) break;
    await sleep(100);
  }
  const days = (await request('GET', '/api/v1/account/render-cache', { token: account.ownerToken })).body.days;
  t.deepEqual(days, [{ day: today, hits: 3, creditsSaved: 3 }]);
});

test('a tampered, appended, unsigned or foreign-signed link is 401 invalid_signature and free', async (t) => {
  const account = await newAccount(10);
  const secret = await newLinkSecret(account);
  const url = link(secret, 'qr-generate', { text: 'tamper', size: 200 });
  const cases = [
    url.replace('size=200', 'size=201'),
    url.replace('text=tamper', 'text=tampered'),
    `${url}&size=300`,
    url.replace(/&signature=.*$/, ''),
    url.replace(/signature=[0-9a-f]{64}$/, `signature=${'0'.repeat(64)}`),
    link({ id: secret.id, secret: 'lksec_not-the-secret' }, 'qr-generate', { text: 'tamper', size: 200 }),
    url.replace(secret.id, 'lks_0000000000000000000000'),
  ];
  for (const bad of cases) {
    const res = await open(bad);
    t.true(isProblem(res as Answer, 401, 'invalid_signature'), `${bad}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  t.is(await balanceOf(account), 10);
});

test('a link past its expires is 403 link_expired and free; one before it works', async (t) => {
  const account = await newAccount(10);
  const secret = await newLinkSecret(account);
  const now = Math.floor(Date.now() / 1000);
  const expired = await open(link(secret, 'qr-generate', { text: 'expiry' }, { expires: now - 1 }));
  t.true(isProblem(expired as Answer, 403, 'link_expired'), JSON.stringify(expired.body));
  t.is((expired.body as unknown as { expiredAt: string }).expiredAt, new Date((now - 1) * 1000).toISOString());
  const live = await open(link(secret, 'qr-generate', { text: 'expiry' }, { expires: now + 3600 }));
  t.is(live.status, 200);
  // A shared cache keeps it no longer than the link lives.
  const maxAge = Number(/max-age=(\d+)/.exec(live.headers.get('cache-control') ?? '')?.[1]);
  t.true(maxAge <= 3600 && maxAge > 3000, String(maxAge));
  t.is(await balanceOf(account), 9);
});

test('query values are converted by the schema; a bad one is 400 naming the parameter, after the signature holds', async (t) => {
  const account = await newAccount(10);
  const secret = await newLinkSecret(account);
  const res = await open(link(secret, 'qr-generate', { text: 'types', size: 'big' }));
  t.true(isProblem(res as Answer, 400, 'validation_failed'));
  t.deepEqual((res.body as unknown as { errors: unknown }).errors, [{ field: 'query:size', message: 'must be integer' }]);
  const unknown = await open(link(secret, 'qr-generate', { text: 'types', colour: 'red' }));
  t.deepEqual((unknown.body as unknown as { errors: unknown }).errors, [{ field: 'query:colour', message: 'is not a known field' }]);
  const maxAge = await open(link(secret, 'qr-generate', { text: 'types' }, { maxAge: 99_999_999 }));
  t.deepEqual((maxAge.body as unknown as { errors: unknown }).errors, [{ field: 'query:maxAge', message: 'must be 0 to 2592000 seconds' }]);
  t.is(await balanceOf(account), 10);
});

test('several secrets are live at once; a retired one stops its links within a second, not the others', async (t) => {
  const account = await newAccount(10);
  const [a, b] = [await newLinkSecret(account), await newLinkSecret(account)];
  const linkA = link(a, 'qr-generate', { text: 'rotation' });
  const linkB = link(b, 'qr-generate', { text: 'rotation' });
  t.is((await open(linkA)).status, 200);
  t.is((await open(linkB)).status, 200);
  const retired = await request('DELETE', `/api/v1/account/link-secrets/${a.id}`, { token: account.ownerToken });
  t.is(retired.status, 200);
  t.truthy(retired.body.retiredAt);
  await sleep(1_000);
  t.true(isProblem((await open(linkA)) as Answer, 401, 'invalid_signature'));
  t.is((await open(linkB)).status, 200);
  t.true(
    isProblem(
      await request('DELETE', '/api/v1/account/link-secrets/lks_0000000000000000000000', { token: account.ownerToken }),
      404,
      'not_found',
    ),
  );
});

test('an account holds at most 10 live link secrets (409), and may create more after retiring one', async (t) => {
  const account = await newAccount(10);
  const secrets = [];
  for (let i = 0; i < 10; i++) secrets.push(await newLinkSecret(account));
  t.true(isProblem(await request('POST', '/api/v1/account/link-secrets', { token: account.ownerToken }), 409, 'already_exists'));
  await request('DELETE', `/api/v1/account/link-secrets/${secrets[0]!.id}`, { token: account.ownerToken });
  t.is((await request('POST', '/api/v1/account/link-secrets', { token: account.ownerToken })).status, 201);
});

test("a link is the account's call: 402 on a short balance, free; other methods 405; a tool without images 404", async (t) => {
  const account = await newAccount(0);
  const secret = await newLinkSecret(account);
  t.true(isProblem((await open(link(secret, 'qr-generate', { text: 'broke' }))) as Answer, 402, 'insufficient_credits'));
  const post = await open(link(secret, 'qr-generate', { text: 'broke' }), { method: 'POST' });
  t.true(isProblem(post as Answer, 405, 'method_not_allowed'));
  t.is(post.headers.get('allow'), 'GET, HEAD');
  t.true(isProblem((await open(link(secret, 'hash-text', { text: 'x' }))) as Answer, 404, 'unknown_tool'));
});

test("two accounts with the same input never see each other's render", async (t) => {
  const [one, two] = [await newAccount(10), await newAccount(10)];
  const [s1, s2] = [await newLinkSecret(one), await newLinkSecret(two)];
  const input = { text: 'shared input', size: 128 };
  t.is((await open(link(s1, 'qr-generate', input))).headers.get('x-cache'), 'MISS');
  t.is((await open(link(s1, 'qr-generate', input))).headers.get('x-cache'), 'HIT');
  const other = await open(link(s2, 'qr-generate', input));
  t.is(other.headers.get('x-cache'), 'MISS');
  t.is(other.headers.get('x-credits-charged'), '1');
  t.is(await balanceOf(two), 9);
});

test('POST /account/render-links signs a working link; without a live secret 404; bad input 400', async (t) => {
  const account = await newAccount(10);
  const none = await request('POST', '/api/v1/account/render-links', {
    token: account.ownerToken,
    body: { tool: 'qr-generate', input: { text: 'x' } },
  });
  t.true(isProblem(none, 404, 'not_found'));
  const secret = await newLinkSecret(account);
  const made = await request('POST', '/api/v1/account/render-links', {
    token: account.ownerToken,
    body: { tool: 'qr-generate', input: { text: 'signed by the server', size: 96 }, expiresIn: 600, maxAge: 60 },
  });
  t.is(made.status, 200, JSON.stringify(made.body));
  t.is(made.body.secretId, secret.id);
  // PUBLIC_BASE_URL names the service; the test reaches it at API_URL.
  const signed = new URL(made.body.url);
  t.true(
    `${signed.pathname}${signed.search}`.startsWith(
      `/api/v1/render/${secret.id}/qr-generate?text=signed%20by%20the%20server&size=96&expires=`,
    ),
    made.body.url,
  );
  const res = await open(`${apiUrl()}${signed.pathname}${signed.search}`);
  t.is(res.status, 200);
  t.deepEqual(pngSize(res.body), [96, 96]);
  t.is(res.headers.get('cache-control'), 'public, max-age=60');
  const bad = await request('POST', '/api/v1/account/render-links', {
    token: account.ownerToken,
    body: { tool: 'qr-generate', input: { size: 10 } },
  });
  t.true(isProblem(bad, 400, 'validation_failed'));
  t.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), ['/size', '/text']);
});

test('the signature is exactly HMAC-SHA256 of the path after /api/v1/render/, "?", and the query as sent', async (t) => {
  const account = await newAccount(10);
  const secret = await newLinkSecret(account);
  // Written by hand, spelled as a browser might send it: the query is signed as it is sent.
  const query = 'text=Hello+World%21&size=120&errorCorrection=H';
  const path = `${secret.id}/qr-generate`;
  const res = await open(`${apiUrl()}/api/v1/render/${path}?${query}&signature=${signRenderLink(secret.secret, path, query)}`);
  t.is(res.status, 200, JSON.stringify(res.body));
  t.deepEqual(pngSize(res.body), [120, 120]);
});

test('Chromium shows a page\'s <img src="{render link}">, decoded at its size; an altered parameter shows nothing and is answered 401', async (t) => {
  const account = await newAccount(10);
  const secret = await newLinkSecret(account);
  const good = link(secret, 'qr-generate', { text: 'in a page', size: 160 });
  const altered = good.replace('size=160', 'size=170');
  let pages: PageServer | undefined;
  const browser = await launchBrowser();
  try {
    pages = await startPageServer({
      routes: {
        '/embed': html(200, htmlDocument('<title>Embed</title>', `<img id="good" src="${good}"><img id="altered" src="${altered}">`)),
      },
    });
    const page = await browser.newPage();
    const statuses = new Map<string, number>();
    page.on('response', (r) => statuses.set(r.url(), r.status()));
    await page.goto(pages.url('/embed'), { waitUntil: 'networkidle0' });
    const sizes = await page.evaluate(() =>
      ['good', 'altered'].map((id) => {
        const img = document.getElementById(id) as HTMLImageElement;
        return { complete: img.complete, width: img.naturalWidth, height: img.naturalHeight };
      }),
    );
    t.deepEqual(sizes, [
      { complete: true, width: 160, height: 160 },
      { complete: true, width: 0, height: 0 },
    ]);
    t.is(statuses.get(good), 200);
    // Chromium hands a problem+json answer to an <img> as nothing at all (opaque response blocking):
    // what the page's request was answered is read again directly.
    t.true(isProblem((await open(altered)) as Answer, 401, 'invalid_signature'));
  } finally {
    await browser.close();
    await pages?.close();
  }
  t.is(await balanceOf(account), 9);
});

test('a website-screenshot link captures a public page; a link to a private target is 422 and free', async (t) => {
  const account = await newAccount(100);
  const secret = await newLinkSecret(account);
  const pages = await startBrowserPages();
  try {
    const res = await open(
      link(secret, 'website-screenshot', { url: pages.url('/browser/title'), width: 320, height: 200, blockAds: false }),
    );
    t.is(res.status, 200, String(res.body));
    t.is(res.headers.get('content-type'), 'image/png');
    t.deepEqual(pngSize(res.body), [320, 200]);
    t.is(res.headers.get('x-credits-charged'), '25');
    for (const url of ['http://10.0.0.1/', 'http://private10.test/', pages.url('/redirect?to=http%3A%2F%2F10.0.0.1%2F')]) {
      const refused = await open(link(secret, 'website-screenshot', { url }));
      t.true(isProblem(refused as Answer, 422, 'target_not_allowed'), `${url}: ${JSON.stringify(refused.body)}`);
    }
    t.is(await balanceOf(account), 75);
  } finally {
    await pages.close();
  }
});

test('the worked example in /docs is a true signature', async (t) => {
  const overview: string = (await request('GET', '/api/v1/openapi.json')).body.info.description;
  const secret = /the secret\s+`(lksec_[^`]+)`/.exec(overview)?.[1];
  const signedText = /\| signed text \| `([^`]+)` \|/.exec(overview)?.[1];
  const signature = /\| signature \| `([0-9a-f]{64})` \|/.exec(overview)?.[1];
  t.truthy(secret && signedText && signature);
  const [path, query] = signedText!.split('?') as [string, string];
  t.is(signRenderLink(secret!, path, query), signature!);
  t.true(overview.includes(`/api/v1/render/${signedText}&signature=${signature}`));
});
