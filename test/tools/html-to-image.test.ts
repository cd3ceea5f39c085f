//! html-to-image: markup rendered by real Chromium. Fragments are wrapped into a document, the
//! image is canvas x scale (full documents as tall as they are, cut at 16384 px), formats and
//! quality hold, public and data: images load, a private reference refuses the call, local files
//! stay out of reach, and markup that never settles ends at the deadline with its page closed;
//! then the same through HTTP against the running stack (a 3 MiB body limit).
import test from 'ava';
import type { Page } from 'puppeteer-core';
import type { BrowserPool } from '../../activities/browser/browser-pool.js';
import { asDocument, createHtmlToImage } from '../../activities/tools/html-to-image.js';
import type { HtmlToImageInput, HtmlToImageOutput } from '../../domain/tools/html-to-image.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { useBrowserAndPages } from '../helpers/browser-fixture.js';
import { decodeImage } from '../helpers/images.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';

const schemas = compileToolSchemas('html-to-image');
const ctx = standaloneContext();

const fixture = useBrowserAndPages();

const RED = [255, 0, 0];
const BLUE = [0, 0, 255];
const WHITE = [255, 255, 255];

function tool(pool: Pick<BrowserPool, 'withPage'> = fixture.browser.pool) {
  return createHtmlToImage({ pool });
}

async function render(t: Parameters<typeof validInput>[0], fields: Partial<HtmlToImageInput>): Promise<HtmlToImageOutput> {
  const out = await tool()(validInput<HtmlToImageInput>(t, schemas.input, fields), ctx);
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return out;
}

const block = (colour: string, height = 100) => `<div style="width: 100px; height: ${height}px; background: ${colour}"></div>`;

// ===== Unit: the handler on a real Chromium (no stack) =====

test('a fragment is wrapped into a document; a whole document is kept as it is', (t) => {
  const wrapped = asDocument('<p>hi</p>');
  t.regex(wrapped, /^<!doctype html>/);
  t.regex(wrapped, /<meta charset="utf-8">[\s\S]*<body>\n<p>hi<\/p>\n<\/body>/);
  for (const whole of [
    '<!DOCTYPE html><title>x</title>',
    '  <html><body>x</body></html>',
    '<!-- note --><!doctype html><p>x',
    '<HTML lang="en">x</HTML>',
  ]) {
    t.is(asDocument(whole), whole);
  }
  t.not(asDocument('<htmlish>'), '<htmlish>');
});

test('a fragment renders on the default 1440x900 canvas with the body margin of a document', async (t) => {
  const out = await render(t, { html: block('rgb(255, 0, 0)') + '<p>Grüße, 世界</p>' });
  t.like(out, { mimeType: 'image/png', width: 1440, height: 900, truncated: false });
  const image = await decodeImage(out.fileBase64, out.mimeType);
  t.deepEqual([image.width, image.height], [1440, 900]);
  t.deepEqual(image.rgb(50, 50), RED);
  t.deepEqual(image.rgb(4, 4), WHITE, 'the 8 px margin of the wrapping body');
});

test('canvas size times deviceScaleFactor; media queries see the canvas width', async (t) => {
  const html =
    '<!doctype html><style>body { margin: 0; background: rgb(0, 0, 255) } @media (max-width: 600px) { body { background: rgb(255, 0, 0) } }</style>';
  const small = await render(t, { html, width: 400, height: 300, deviceScaleFactor: 2 });
  t.like(small, { width: 800, height: 600 });
  const image = await decodeImage(small.fileBase64, small.mimeType);
  t.deepEqual([image.width, image.height], [800, 600]);
  t.deepEqual(image.rgb(790, 590), RED);
  const wide = await render(t, { html, width: 1200, height: 200 });
  t.deepEqual((await decodeImage(wide.fileBase64, wide.mimeType)).rgb(1190, 190), BLUE);
});

test('fullPage takes the whole document, up to 16384 pixels with truncated', async (t) => {
  const doc = (height: number) => `<!doctype html><body style="margin: 0">${block('rgb(0, 0, 255)', height)}</body>`;
  const whole = await render(t, { html: doc(3000), fullPage: true, width: 500, height: 400 });
  t.like(whole, { width: 500, height: 3000, truncated: false });
  t.deepEqual((await decodeImage(whole.fileBase64, whole.mimeType)).rgb(50, 2990), BLUE);
  const cut = await render(t, { html: doc(9000), fullPage: true, width: 320, deviceScaleFactor: 2, format: 'jpeg', quality: 60 });
  t.like(cut, { mimeType: 'image/jpeg', width: 640, height: 16_384, truncated: true });
  const image = await decodeImage(cut.fileBase64, cut.mimeType);
  t.deepEqual([image.width, image.height], [640, 16_384]);
});

test('jpeg at a lower quality is smaller', async (t) => {
  const html =
    '<div style="height: 600px; background: linear-gradient(45deg, #e66465, #9198e5)"></div>' +
    '<p>Text of some length. 0123456789</p>'.repeat(20);
  const low = await render(t, { html, format: 'jpeg', quality: 40, width: 800, height: 600 });
  const high = await render(t, { html, format: 'jpeg', quality: 100, width: 800, height: 600 });
  t.true(low.fileBase64.length < high.fileBase64.length * 0.7, `q40 ${low.fileBase64.length} vs q100 ${high.fileBase64.length}`);
  t.deepEqual([(await decodeImage(low.fileBase64, low.mimeType)).width, low.height], [800, 600]);
});

test('images from a public address and from data: URIs load', async (t) => {
  const green = fixture.pages.url('/browser/image.png?color=00a000&w=100&h=100');
  const dataUri = `data:image/svg+xml;base64,${Buffer.from('<svg xmlns="http://www.w3.org/2000/svg" width="100" height="100"><rect width="100" height="100" fill="#0000ff"/></svg>').toString('base64')}`;
  const out = await render(t, {
    html: `<body style="margin: 0"><img src="${green}" style="display: block"><img src="${dataUri}" style="display: block"></body>`,
    width: 400,
    height: 300,
  });
  const image = await decodeImage(out.fileBase64, out.mimeType);
  t.deepEqual(image.rgb(50, 50), [0, 160, 0]);
  t.deepEqual(image.rgb(50, 150), BLUE);
});

test('markup referring to a private address is refused with 422, however it refers to it', async (t) => {
  const cases = [
    ['<img src="http://10.0.0.1/x.png">', 'private'],
    ['<div style="width: 10px; height: 10px; background: url(http://169.254.169.254/latest/meta-data/)"></div>', 'metadata'],
    ['<iframe src="http://private10.test/"></iframe>', 'private'],
    ['<script>fetch("http://127.0.0.1:8080/admin").catch(() => {})</script>', 'loopback'],
    ['<link rel="stylesheet" href="http://[::1]/x.css">', 'loopback'],
  ] as const;
  for (const [html, reason] of cases) {
    const err = await rejectsWith(t, tool()(validInput<HtmlToImageInput>(t, schemas.input, { html }), ctx), 'target_not_allowed');
    t.is(err.extras.reason, reason, html);
    t.regex(err.message, /^The markup loads from a refused address/);
  }
});

test('local files stay out of reach: no file: image, frame or navigation', async (t) => {
  const html = `<body style="margin: 0; background: rgb(255, 255, 255)">
<img src="file:///etc/hostname" onload="document.body.style.background = 'rgb(255, 0, 0)'" onerror="document.body.style.background = 'rgb(0, 0, 255)'">
<iframe src="file:///etc/passwd"></iframe>
<script>setTimeout(() => { location.href = 'file:///etc/hostname'; }, 10);</script></body>`;
  const out = await render(t, { html, width: 400, height: 300 });
  t.deepEqual((await decodeImage(out.fileBase64, out.mimeType)).rgb(390, 290), BLUE, 'the file: image failed to load');
});

test('JavaScript dialogs in the markup do not stop it', async (t) => {
  const out = await render(t, {
    html: `<script>alert(1); confirm(2); prompt(3);</script>${block('rgb(255, 0, 0)')}`,
    width: 400,
    height: 300,
  });
  t.deepEqual((await decodeImage(out.fileBase64, out.mimeType)).rgb(50, 50), RED);
});

test.serial('markup that never finishes ends at the deadline, and its page is closed', async (t) => {
  // The deadline runs from the moment the page opens, so a slow start of the pool does not eat it.
  const deadline = new AbortController();
  let seen: Page | undefined;
  const handler = tool({
    withPage: (task, signal) =>
      fixture.browser.pool.withPage((lease) => {
        seen = lease.page;
        setTimeout(() => deadline.abort(new Error('deadline')), 1_500);
        return task(lease);
      }, signal),
  });
  // The deadline's own error: the load limit (15 s) would end the loop with its own.
  await t.throwsAsync(
    handler(
      validInput<HtmlToImageInput>(t, schemas.input, { html: '<script>for (;;) {}</script>' }),
      standaloneContext('loop', deadline.signal),
    ),
    { message: 'deadline' },
  );
  t.true(await eventually(async () => seen?.isClosed() ?? false, Boolean, 60_000, 'the page closed'));
  // The pool goes on serving.
  t.is((await render(t, { html: 'after', width: 320, height: 200 })).width, 320);
});

test('schemas: html required, defaults, the same bounds as website-screenshot', (t) => {
  const input = validInput<HtmlToImageInput>(t, schemas.input, { html: '<p>x</p>' });
  t.deepEqual(input, { html: '<p>x</p>', width: 1440, height: 900, fullPage: false, deviceScaleFactor: 1, format: 'png', quality: 85 });
  for (const bad of [
    {},
    { html: '' },
    { html: 'x', width: 3841 },
    { html: 'x', height: 199 },
    { html: 'x', quality: 39 },
    { html: 'x', deviceScaleFactor: 1.5 },
    { html: 'x', url: 'https://e.com/' },
  ]) {
    t.false(schemas.input(bad), JSON.stringify(bad));
  }
  const { examples } = schemas.input.schema as { examples: unknown[] };
  t.true(schemas.input(structuredClone(examples[0])));
});

// ===== Integration: through HTTP against the running stack =====

test('HTTP: 200 with the spec fields and 25 credits; a body over 1 MiB travels (limit 3 MiB)', async (t) => {
  const account = await newAccount(100);
  // ~1.5 MiB of markup: over the default body limit, and over the claim check threshold.
  const html = `${block('rgb(255, 0, 0)')}<!-- ${'x'.repeat(1_500_000)} -->`;
  const res = await callTool(account.apiKey, 'html-to-image', { html, width: 640, height: 480, format: 'jpeg', quality: 90 });
  t.is(res.status, 200, JSON.stringify(res.body).slice(0, 500));
  t.true(schemas.output(res.body), JSON.stringify(schemas.output.errors));
  t.like(res.body, { mimeType: 'image/jpeg', width: 640, height: 480, truncated: false });
  const image = await decodeImage(res.body.fileBase64, res.body.mimeType);
  t.deepEqual([image.width, image.height], [640, 480]);
  t.is(res.headers.get('x-credits-charged'), '25');
  t.is(await balanceOf(account), 75);
});

test('HTTP: over 3 MiB is 413; a private reference is 422 and not charged', async (t) => {
  const account = await newAccount(100);
  const big = await callTool(account.apiKey, 'html-to-image', { html: 'x'.repeat(3 * 1024 * 1024 + 1) });
  t.true(isProblem(big, 413, 'payload_too_large'));
  const refused = await callTool(account.apiKey, 'html-to-image', { html: '<img src="http://10.0.0.1/x.png">' });
  t.true(isProblem(refused, 422, 'target_not_allowed'), JSON.stringify(refused.body));
  t.is(refused.body.reason, 'private');
  t.is(await balanceOf(account), 100);
});
