//! The dashboard's loading and error states, with the service's answers replaced in the browser
//! (request interception) where the real stack cannot be made to give them on demand: a section
//! that fails shows the problem's detail and request id with Try again, the others still work; a
//! 429 on a read is waited out; a reload while the service is unreachable keeps a person's session.
import test from 'ava';
import type { HTTPRequest, Page } from 'puppeteer-core';
import { newAccount } from '../helpers/api.js';
import { client, serviceOrigin, signUp } from '../helpers/people.js';
import { browserForFile } from './browser-for-file.js';
import { goTo, openDashboard, screenshot, signIn, signInWithPassword, submitToken, textOf, waitForIdle, waitForText } from './page.js';

const browser = browserForFile();

/** What to do with a request: answer it here, fail it, or let it through (`undefined`). */
type Interceptor = (req: HTTPRequest) => { status: number; body: unknown; headers?: Record<string, string> } | 'fail' | undefined;

/** Routes every request of `page` through `interceptor` from now on. */
async function intercept(page: Page, interceptor: Interceptor): Promise<void> {
  await page.setRequestInterception(true);
  page.on('request', (req) => {
    if (req.isInterceptResolutionHandled()) return;
    const answer = interceptor(req);
    if (answer === undefined) return void req.continue();
    if (answer === 'fail') return void req.abort('connectionrefused');
    void req.respond({
      status: answer.status,
      headers: answer.headers,
      contentType: 'application/problem+json',
      body: JSON.stringify(answer.body),
    });
  });
}

const problem = (status: number, code: string, detail: string) => ({
  type: `http://localhost/docs/errors#${code}`,
  title: code,
  status,
  detail,
  code,
  requestId: 'req_fromTheTest',
});
const isGet = (req: HTTPRequest, path: string) => req.method() === 'GET' && new URL(req.url()).pathname === path;

test('a failing section shows the problem detail and request id; Try again recovers; the other sections work', async (t) => {
  const account = await newAccount(50);
  const { page, problems, close } = await openDashboard(browser());
  let failing = true;
  try {
    await intercept(page, (req) =>
      failing && isGet(req, '/api/v1/account/webhooks')
        ? {
            status: 503,
            body: problem(503, 'unavailable', 'The service cannot reach its database right now; retry shortly.'),
            headers: { 'retry-after': '5' },
          }
        : undefined,
    );
    await signIn(page, account.ownerToken);
    t.regex(await textOf(page, '#balance'), /^50 credits$/, 'the other views are shown');
    await goTo(page, 'keys');
    t.regex(await textOf(page, '#keys-body'), /1 active/);
    await goTo(page, 'webhooks');
    const box = await waitForText(page, '#webhooks-body [role=alert]', /retry shortly/);
    t.regex(box, /Could not load the webhook endpoints\. The service cannot reach its database right now; retry shortly\./);
    t.regex(box, /Request id: req_fromTheTest/);
    await screenshot(page, 'state-section-error');

    failing = false;
    await page.click('#webhooks-body [role=alert] button');
    await waitForText(page, '#webhooks-body', /No webhook endpoints yet/);
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('sections say they are loading while their data is on its way', async (t) => {
  const account = await newAccount(50);
  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/usage' });
  try {
    // The usage answers are held back until the loading state has been seen (not for a fixed while:
    // a slow page could then miss it); the real answer follows.
    const held: HTTPRequest[] = [];
    let holding = true;
    await page.setRequestInterception(true);
    page.on('request', (req) => {
      if (holding && isGet(req, '/api/v1/account/usage')) held.push(req);
      else void req.continue();
    });
    await submitToken(page, account.ownerToken);
    const loading = await page.waitForSelector('#usage-body .loading[role=status]');
    t.regex(await loading!.evaluate((el) => (el as HTMLElement).innerText), /Loading usage…/);
    t.is(await page.$eval('#usage', (el) => el.getAttribute('aria-busy')), 'true');
    await screenshot(page, 'state-loading', { fullPage: false });
    holding = false;
    for (const req of held) void req.continue();
    await waitForIdle(page);
    t.regex(await textOf(page, '#used-total'), /^0 credits$/);
    await goTo(page, 'overview');
    t.regex(await textOf(page, '#balance'), /^50 credits$/);
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a read answered 429 is repeated after its Retry-After instead of showing an error', async (t) => {
  const account = await newAccount(50);
  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/keys' });
  let limited = 0;
  try {
    await intercept(page, (req) => {
      if (!isGet(req, '/api/v1/account/keys') || limited >= 1) return undefined;
      limited++;
      return {
        status: 429,
        body: problem(429, 'rate_limited', 'Over 20 calls per second; retry after 1 s.'),
        headers: { 'retry-after': '1' },
      };
    });
    const started = Date.now();
    await signIn(page, account.ownerToken);
    await waitForText(page, '#keys-body', /1 active/);
    t.is(limited, 1);
    t.true(Date.now() - started >= 1000, 'it waited the Retry-After');
    t.is(await page.$('#keys-body [role=alert]'), null);
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a reload while the service is unreachable keeps the session and shows the errors, not the sign-in', async (t) => {
  const person = await signUp(client(), { name: 'test person' });
  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/usage', origin: serviceOrigin() });
  let down = false;
  try {
    await intercept(page, (req) => (down && new URL(req.url()).pathname.startsWith('/api/') ? 'fail' : undefined));
    await signInWithPassword(page, person.email, person.password);
    down = true;
    await page.reload({ waitUntil: 'domcontentloaded' });
    const box = await waitForText(page, '#usage-body [role=alert]', /could not be reached/);
    t.regex(box, /The service could not be reached\. Check your connection and try again\./);
    t.false(await page.$eval('#usage', (el) => (el as HTMLElement).hidden));
    t.false(await page.$eval('#account-bar', (el) => (el as HTMLElement).hidden), 'still signed in');
    await screenshot(page, 'state-unreachable');

    down = false;
    await page.click('#refresh');
    await waitForText(page, '#used-total', /^0 credits$/);
    await waitForIdle(page);
    // Refresh also found out who is signed in.
    await waitForText(page, '#person-name', new RegExp(person.email.replace(/[.+]/g, '\\$&')));
    await goTo(page, 'overview');
    await waitForText(page, '#balance', /^100 credits$/);
    t.regex(await textOf(page, '#account-name'), /Signed in to test person/);
    // Chromium logs each refused request as a console error; the page itself raised nothing.
    t.deepEqual(
      problems.filter((p) => !p.includes('net::ERR_CONNECTION_REFUSED')),
      [],
    );
  } finally {
    await close();
  }
});
