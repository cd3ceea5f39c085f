//! Cost bombs through the whole stack (in the disruptive phase because they saturate a pool for
//! up to a minute, which would slow whatever ran beside them; bombs aimed at different pools go off
//! side by side, the browser's one after the other): each is refused or cut off within its limit, the worker
//! process survives (same pid, and the next call of the tool answers), and the call is refunded
//! unless the tool legitimately answered 200 (a truncated capture or body), in which case it is
//! charged its cost exactly once.
//!
//! Proven elsewhere, not repeated here: an argon2 hash asking for 4 GiB (m=4194304) and a
//! bcrypt hash of cost 31 are 422 hash_too_costly before any hashing (test/tools/argon2-verify
//! and bcrypt-verify; the API runs the same precheck before a workflow starts, so nothing is
//! reserved), bcrypt-hash workFactor 31 is a 400 (bcrypt-hash); an image declaring 100000 x
//! 100000 px is 422 before decoding and not charged (watermark-image "HTTP: ... a bomb 422";
//! image-upscale "one pixel over the factor limit"); an SMTP server dripping one byte a second is
//! cut at the session deadline with 502 (smtp-test "a server that drips bytes"), and a 502 is
//! refunded (smtp-test "HTTP: an unreachable mail server is 502 and refunded").
import test from 'ava';
import type { ExecutionContext } from 'ava';
import { CATALOGUE } from '../../domain/tools/catalogue.js';
import { balanceOf, callTool, newAccount, type Answer, type TestAccount } from '../helpers/api.js';
import { startBrowserPages } from '../fixtures/browser-pages.js';
import { FIXTURE_NAMES } from '../fixtures/dns-server.js';
import { makeDocx } from '../fixtures/documents.js';
import { send, startPageServer, type PageServer } from '../fixtures/http-pages.js';
import { stackControl } from './support/stack-control.js';
import { drippingBody, endlessBody, slowLayoutHtml, zipBombDocx } from './support/bombs.js';

const DOCX = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
let pages: PageServer;
let browserPages: PageServer;
let bomb: Buffer;
let small: Buffer;

test.before(async () => {
  [bomb, small] = await Promise.all([zipBombDocx(2 * 1024 ** 3), makeDocx(['After the bomb'])]);
  pages = await startPageServer({
    routes: {
      '/bomb.docx': (_req, res) => send(res, 200, DOCX, bomb),
      '/small.docx': (_req, res) => send(res, 200, DOCX, small),
      '/endless': endlessBody,
      '/drip': drippingBody,
    },
  });
  browserPages = await startBrowserPages();
});
test.after.always(async () => {
  await pages?.close();
  await browserPages?.close();
});

const workersPid = async () => {
  const url = process.env.STACK_CONTROL_URL;
  return url ? (await stackControl(url).pids()).workers : undefined;
};

/**
 * Calls the tool with the bomb and checks what every bomb must satisfy: an answer within the
 * tool's deadline plus the API's grace, charged exactly its cost if 200 and nothing otherwise.
 */
async function detonate(t: ExecutionContext, account: TestAccount, tool: string, body: unknown): Promise<Answer> {
  const spec = CATALOGUE.get(tool)!;
  const before = await balanceOf(account);
  const started = Date.now();
  const res = await callTool(account.apiKey, tool, body);
  const took = Date.now() - started;
  t.log(`${tool}: ${res.status} ${res.body?.code ?? ''} in ${(took / 1000).toFixed(1)} s`);
  t.true(took < spec.timeoutMs + 35_000, `${tool} answered within its deadline`);
  t.not(res.status, 500, JSON.stringify(res.body).slice(0, 300));
  t.is(await balanceOf(account), res.status === 200 ? before - spec.cost : before, 'charged if and only if 200');
  return res;
}

test('a DOCX that inflates to 2 GiB is answered within the deadline, billed by its answer, and the next document converts', async (t) => {
  t.timeout(4 * 60_000);
  t.true(bomb.length < 20 * 1024 * 1024, 'under the download limit: only the inflated size is hostile');
  const account = await newAccount(100);
  const pid = await workersPid();
  // LibreOffice streams the part and renders the spaces as one blank page: a 200 within its
  // hard timeout is a fair answer (and charged); what matters is the bound and the billing.
  await detonate(t, account, 'word-to-pdf', { fileUrl: pages.url('/bomb.docx') });
  const next = await callTool(account.apiKey, 'word-to-pdf', { fileUrl: pages.url('/small.docx') });
  t.is(next.status, 200, JSON.stringify(next.body).slice(0, 300));
  t.is(await workersPid(), pid, 'the worker process survived');
});

/**
 * The browser pool's bombs take turns: a capture beside the layout bomb, whose renderer holds a
 * core until the deadline, would be judged by that bomb's effect rather than its own.
 */
let browserTurn: Promise<unknown> = Promise.resolve();
function onBrowserTurn<T>(run: () => Promise<T>): Promise<T> {
  const mine = browserTurn.then(run);
  browserTurn = mine.catch(() => {});
  return mine;
}

test('html-to-image of deeply nested, shadowed flex boxes is rendered or cut at the deadline; the pool renders the next', async (t) => {
  t.timeout(4 * 60_000);
  const account = await newAccount(100);
  const pid = await workersPid();
  const html = slowLayoutHtml(400, 60);
  t.true(html.length < 3 * 1024 * 1024);
  const next = await onBrowserTurn(async () => {
    await detonate(t, account, 'html-to-image', { html, fullPage: true, width: 3840, deviceScaleFactor: 2 });
    return callTool(account.apiKey, 'html-to-image', { html: '<p>next</p>', width: 320, height: 200 });
  });
  t.is(next.status, 200, JSON.stringify(next.body).slice(0, 300));
  t.is(await workersPid(), pid, 'the worker process survived');
});

test('a page 20000 px tall: the full-page capture is cut at 16384 px, answered and charged once', async (t) => {
  t.timeout(3 * 60_000);
  const account = await newAccount(100);
  const res = await onBrowserTurn(() =>
    detonate(t, account, 'website-screenshot', {
      url: browserPages.url('/browser/tall?height=20000'),
      fullPage: true,
      width: 800,
      format: 'jpeg',
    }),
  );
  t.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  t.like(res.body, { width: 800, height: 16_384, truncated: true });
});

test('a name with a thousand A records is answered whole (over TCP) and charged 1', async (t) => {
  const account = await newAccount(10);
  const res = await detonate(t, account, 'dns-lookup', { hostname: FIXTURE_NAMES.many, recordType: 'A' });
  t.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
  t.is(res.body.records.length, 1000);
});

test('an HTTP body that never ends is cut at 5 MiB and answered; one that drips is cut at the deadline', async (t) => {
  t.timeout(3 * 60_000);
  const account = await newAccount(20);
  const pid = await workersPid();
  const endless = await detonate(t, account, 'http-request', { url: pages.url('/endless') });
  t.is(endless.status, 200);
  t.like(endless.body, { statusCode: 200, bodyTruncated: true });
  t.is(endless.body.body.length, 5 * 1024 * 1024);
  await detonate(t, account, 'http-request', { url: pages.url('/drip') });
  const next = await callTool(account.apiKey, 'http-request', { url: pages.url('/article.html') });
  t.is(next.status, 200);
  t.is(await workersPid(), pid, 'the worker process survived');
});
