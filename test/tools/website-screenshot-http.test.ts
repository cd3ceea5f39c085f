//! website-screenshot through HTTP against the running stack: every field of the answer and its
//! price, a big capture through the claim check, a capture longer than a workflow task, a page that
//! hangs ending at the tool's deadline unpaid, and private targets and bad fields refused unpaid.
import test from 'ava';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { decodeImage } from '../helpers/images.js';
import { compileToolSchemas } from '../helpers/tools.js';
import { PRIVATE_REFERENCES, startBrowserPages } from '../fixtures/browser-pages.js';
import type { PageServer } from '../fixtures/http-pages.js';

const schemas = compileToolSchemas('website-screenshot');

let pages: PageServer;

test.before(async () => {
  pages = await startBrowserPages();
});

test.after.always(async () => {
  await pages?.close();
});

test("HTTP: a page that never answers is 504 tool_timeout at the tool's deadline, and not charged", async (t) => {
  // The fixture never answers at all, so only the call's deadline (the tool's 60 s) can end it.
  t.timeout(4 * 60_000);
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'website-screenshot', { url: pages.url('/hang') });
  t.true(isProblem(res, 504, 'tool_timeout'), JSON.stringify(res.body));
  t.is(await balanceOf(account), 100);
});

test('HTTP: 200 with every spec field, 25 credits charged, blocked requests counted', async (t) => {
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'website-screenshot', { url: pages.url('/browser/resources') });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(schemas.output(res.body), JSON.stringify(schemas.output.errors));
  t.like(res.body, {
    mimeType: 'image/png',
    width: 1440,
    height: 900,
    pageTitle: 'Resources',
    finalUrl: pages.url('/browser/resources'),
    truncated: false,
    blockedRequestCount: 1 + PRIVATE_REFERENCES.length,
  });
  t.is(res.headers.get('x-credits-charged'), '25');
  t.is(await balanceOf(account), 75);
});

test('HTTP: a big full-page capture comes back whole through the claim check', async (t) => {
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'website-screenshot', {
    url: pages.url('/browser/colourful'),
    fullPage: true,
    deviceScaleFactor: 2,
    width: 1200,
  });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(res.body.fileBase64.length > 128 * 1024, `${res.body.fileBase64.length} base64 characters`);
  const image = await decodeImage(res.body.fileBase64, res.body.mimeType);
  t.deepEqual([image.width, image.height], [res.body.width, res.body.height]);
  t.is(image.width, 2400);
});

test('HTTP: a capture that outlasts a workflow task (a resource that never arrives: the load and settling bounds, ~20 s) answers 200, charged once', async (t) => {
  // The capture runs inside its call's workflow task, whose timeout is 10 s: the worker keeps the
  // task alive while it runs, so the call is neither timed out nor run again.
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'website-screenshot', { url: pages.url('/browser/slow-image') });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.like(res.body, { pageTitle: 'Slow image', width: 1440, height: 900 });
  t.is(await balanceOf(account), 75);
});

test('HTTP: a private target is 422 target_not_allowed and not charged; a bad field is 400', async (t) => {
  const account = await newAccount(100);
  for (const url of ['http://10.0.0.1/', 'http://private10.test/', pages.url('/redirect?to=http%3A%2F%2F10.0.0.1%2F')]) {
    const res = await callTool(account.apiKey, 'website-screenshot', { url });
    t.true(isProblem(res, 422, 'target_not_allowed'), `${url}: ${JSON.stringify(res.body)}`);
    t.is(res.body.reason, 'private');
  }
  const bad = await callTool(account.apiKey, 'website-screenshot', { url: 'file:///etc/passwd', width: 100 });
  t.true(isProblem(bad, 400, 'validation_failed'));
  t.deepEqual(bad.body.errors.map((e: { field: string }) => e.field).sort(), ['/url', '/width']);
  t.is(await balanceOf(account), 100);
});
