//! API keys and usage on the dashboard: a key created on the page (shown once, copied) calls a
//! tool; the page then shows the lower balance, the call with its request id in the ledger and
//! in the chart; revoking the key on the page makes its next call fail with 401.
import type { AddressInfo } from 'node:net';
import net from 'node:net';
import test from 'ava';
import { callTool, newAccount } from '../helpers/api.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { testEnv } from '../helpers/env.js';
import { FIXTURE_NAMES } from '../fixtures/dns-server.js';
import { browserForFile } from './browser-for-file.js';
import { button, buttonIn, focused, goTo, keyRow, openDashboard, screenshot, signIn, textOf, waitForIdle, waitForText } from './page.js';

const browser = browserForFile();

test.serial('create a key, call a tool with it, watch balance, chart and ledger change, revoke it and see 401', async (t) => {
  const account = await newAccount(30, 'Keys & Co');
  const { page, context, problems, close } = await openDashboard(browser());
  try {
    await context.overridePermissions(testEnv.apiUrl(), ['clipboard-read', 'clipboard-write', 'clipboard-sanitized-write']);
    await signIn(page, account.ownerToken);
    t.regex(await textOf(page, '#balance'), /^30 credits$/);

    // Create: the key is shown once, with a copy button that puts it on the clipboard.
    await goTo(page, 'keys');
    await page.locator('#key-name').fill('ci runner');
    await page.click('#key-form button[type=submit]');
    await page.waitForSelector('#key-secret .secret-value');
    const key = await page.$eval('#key-secret .secret-value', (el) => (el as HTMLInputElement).value);
    t.regex(key, /^utk_[0-9A-Za-z]{40}$/);
    t.like(await focused(page), { tag: 'h3', inside: 'key-secret' }, 'focus moves to the new key');
    await (await button(page, '#key-secret', 'Copy key')).click();
    await waitForText(page, '#key-secret .copy-status', /Copied/);
    t.is(await page.evaluate(() => navigator.clipboard.readText()), key);
    await waitForText(page, '#keys-body', /ci runner/);
    t.regex(await textOf(page, '#keys-body'), new RegExp(`${key.slice(0, 12)}…`));
    await screenshot(page, 'key-created');

    // The key calls a tool (outside the page); the overview and usage, shown again, show the charge.
    const call = await callTool(key, 'hash-text', { text: 'dashboard' });
    t.is(call.status, 200);
    const requestId = call.headers.get('x-request-id')!;
    t.truthy(requestId);
    await goTo(page, 'overview');
    await waitForText(page, '#balance', /^29 credits$/);
    await goTo(page, 'usage');
    t.regex(await textOf(page, '#used-total'), /^1 credit$/);
    const ledger = await textOf(page, '#calls');
    t.true(ledger.includes(requestId), 'the ledger row shows the request id');
    t.regex(ledger, /hash-text/);
    t.false(
      await page.$$eval('#usage-body a', (links) => links.some((a) => /8233|temporal/i.test((a as HTMLAnchorElement).href))),
      'no link to the Temporal UI',
    );
    // The chart is an SVG image with a summary, and the same numbers are in its table. It is drawn once
    // its own read answers, which may come after the total's.
    await page.waitForSelector('#usage-body svg[role=img]');
    const chart = await page.$eval('#usage-body svg[role=img]', (svg) => ({
      label: svg.getAttribute('aria-labelledby'),
      desc: svg.querySelector('desc')?.textContent ?? '',
      bars: svg.querySelectorAll('rect.segment').length,
    }));
    t.truthy(chart.label);
    t.regex(chart.desc, /1 credit used over the last 14 days.*hash-text 1/);
    t.is(chart.bars, 1);
    await page.click('.chart-details summary');
    t.regex(await textOf(page, '.chart-table tbody tr:first-child'), /1\s+hash-text 1/);
    // Last use is shown for the key (written on its first call).
    await goTo(page, 'keys');
    await eventually(
      async () => {
        await page.click('#refresh');
        await waitForIdle(page);
        return textOf(page, `#keys-body tbody tr:first-child`);
      },
      (row) => !/Never/.test(row),
      10_000,
      'last use shown',
    );
    await screenshot(page, 'overview-with-usage');

    // Done hides the key for good: it is nowhere on the page any more.
    await (await button(page, '#key-secret', "Done, I've saved it")).click();
    t.is(await page.$('#key-secret .secret-panel'), null);
    t.false(
      await page.evaluate(
        (k) => document.body.innerHTML.includes(k) || [...Array.from(document.querySelectorAll('input'))].some((i) => i.value === k),
        key,
      ),
    );
    t.is((await focused(page)).id, 'key-name');

    // Revoke, after confirming in the dialog.
    const revoke = await page.waitForSelector('#keys-body tr:first-child button.danger');
    t.is(await revoke!.evaluate((b) => b.getAttribute('aria-label')), 'Revoke key ci runner');
    await revoke!.click();
    await page.waitForSelector('#confirm-dialog[open]');
    t.regex(await textOf(page, '#confirm-title'), /Revoke key “ci runner”/);
    t.is((await focused(page)).id, 'confirm-cancel', 'the safe choice has focus');
    await screenshot(page, 'revoke-dialog');
    await page.click('#confirm-ok');
    await waitForText(page, '#keys-body tbody tr:first-child', /Revoked/);
    t.is((await focused(page)).id, 'keys-title');
    await waitForText(page, '#announcer', /revoked/);
    await screenshot(page, 'key-revoked');

    const refused = await eventually(
      () => callTool(key, 'hash-text', { text: 'again' }),
      (r) => r.status !== 200,
      2_000,
      'the revoked key refused',
    );
    t.is(refused.status, 401);
    t.is(refused.body.code, 'unauthorized');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial('the ledger pages with "Load more calls", and a refunded call shows as refunded', async (t) => {
  const account = await newAccount(100);
  // A call that fails once started (nothing listens on the port) is in the ledger, refunded.
  const closedPort = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.2', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
  t.is((await callTool(account.apiKey, 'ssl-check', { host: FIXTURE_NAMES.fixture, port: closedPort })).status, 502);
  for (let i = 0; i < 26; i++) t.is((await callTool(account.apiKey, 'hash-text', { text: `n${i}` })).status, 200);
  const { page, problems, close } = await openDashboard(browser());
  try {
    await signIn(page, account.ownerToken);
    t.regex(await textOf(page, '#balance'), /^74 credits$/);
    await goTo(page, 'usage');
    t.is(await page.$$eval('#calls tbody tr', (rows) => rows.length), 25);
    await (await button(page, '#usage-body', 'Load more calls')).click();
    await page.waitForFunction(() => document.querySelectorAll('#calls tbody tr').length === 27);
    t.is(await page.$('#calls button.load-more'), null, 'nothing more to load');
    // Focus lands on the first new row, where reading goes on.
    t.is(
      await page.evaluate(() =>
        Array.from(document.querySelectorAll('#calls tbody tr')).indexOf(document.activeElement as HTMLTableRowElement),
      ),
      25,
    );
    t.regex(await textOf(page, '#used-total'), /^26 credits$/, 'the refunded call costs nothing');
    const oldest = await textOf(page, '#calls tbody tr:last-child');
    t.regex(oldest, /ssl-check\s+0\s+Refunded/);
    await screenshot(page, 'ledger-all-rows');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial('asynchronous calls are listed newest first with their tool, request id, status and charge', async (t) => {
  const account = await newAccount(30);
  const ok = await callTool(account.apiKey, 'hash-text', { text: 'later' }, { prefer: 'respond-async' });
  t.is(ok.status, 202);
  // A failed one: refunded, shown with its code.
  const closedPort = await new Promise<number>((resolve) => {
    const server = net.createServer().listen(0, '127.0.0.2', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
  const failed = await callTool(
    account.apiKey,
    'ssl-check',
    { host: FIXTURE_NAMES.fixture, port: closedPort },
    { prefer: 'respond-async' },
  );
  t.is(failed.status, 202);
  for (const id of [ok.body.requestId, failed.body.requestId]) {
    await eventually(
      () => fetchCall(account.apiKey, id),
      (c) => c.status !== 'running',
      60_000,
      `call ${id}`,
    );
  }
  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/usage' });
  try {
    await signIn(page, account.ownerToken);
    await page.waitForSelector('#async-calls-body tbody tr');
    const rows = await page.$$eval('#async-calls-body tbody tr', (trs) => trs.map((tr) => (tr as HTMLElement).innerText));
    t.is(rows.length, 2);
    t.regex(rows[0]!, new RegExp(`ssl-check[\\s\\S]*${failed.body.requestId}[\\s\\S]*Failed upstream_error[\\s\\S]*0 credits`));
    t.regex(rows[1]!, new RegExp(`hash-text[\\s\\S]*${ok.body.requestId}[\\s\\S]*Succeeded[\\s\\S]*1 credit`));
    await screenshot(page, 'async-calls');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

async function fetchCall(apiKey: string, requestId: string): Promise<{ status: string }> {
  const res = await fetch(`${testEnv.apiUrl()}/api/v1/calls/${requestId}`, { headers: { authorization: `Bearer ${apiKey}` } });
  return (await res.json()) as { status: string };
}

test.serial("a key's limits are edited on the page: shown in its row, in force for its calls, and a bad value is named", async (t) => {
  const account = await newAccount(30, 'Limits Ltd');
  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/keys' });
  try {
    await signIn(page, account.ownerToken);
    const prefix = account.apiKey.slice(0, 12);
    await buttonIn(await keyRow(page, prefix), 'Edit limits').then((b) => b.click());
    await page.waitForSelector('#key-settings:not([hidden])');
    t.like(await focused(page), { id: 'key-settings-title' }, 'focus moves to the editor');
    await page.locator('#key-tools').fill('hash-text');
    await page.locator('#key-monthly').fill('5');
    await page.locator('#key-rate').fill('10');
    await page.click('#key-settings button[type=submit]');
    await page.waitForSelector('#key-settings[hidden]');
    const row = await waitForText(page, '#keys-body', /Tools: hash-text/);
    t.regex(row, /10\/s/);
    t.regex(row, /0 credits of 5 this month/);
    // In force for the key's calls.
    t.is((await callTool(account.apiKey, 'hash-text', { text: 'x' })).status, 200);
    const refused = await callTool(account.apiKey, 'dns-lookup', { hostname: FIXTURE_NAMES.fixture, recordType: 'A' });
    t.is(refused.status, 403);
    t.is(refused.body.code, 'tool_not_allowed');
    await page.click('#refresh');
    await waitForText(page, '#keys-body', /1 credit of 5 this month/);

    // A malformed address is refused and its field marked; nothing changes.
    await buttonIn(await keyRow(page, prefix), 'Edit limits').then((b) => b.click());
    t.is(await page.$eval('#key-tools', (el) => (el as HTMLInputElement).value), 'hash-text', 'the editor shows what is set');
    await page.locator('#key-ips').fill('10.0.0.1/8');
    await page.click('#key-settings button[type=submit]');
    await waitForText(page, '#key-settings-error', /allowedIps/);
    t.is(await page.$eval('#key-ips', (el) => el.getAttribute('aria-invalid')), 'true');
    // Cleared limits: every tool again.
    await page.locator('#key-ips').fill('');
    await page.locator('#key-tools').fill('');
    await page.click('#key-settings button[type=submit]');
    await page.waitForSelector('#key-settings[hidden]');
    await page.waitForFunction(() => !document.querySelector('#keys-body')!.textContent!.includes('Tools:'), { timeout: 20_000 });
    t.regex(await textOf(page, '#keys-body'), /1 credit of 5 this month/, 'the other limits stay');
    t.is((await callTool(account.apiKey, 'dns-lookup', { hostname: FIXTURE_NAMES.fixture, recordType: 'A' })).status, 200);
    await screenshot(page, 'key-limits');
    t.deepEqual(
      problems.filter((p) => !/403|400/.test(p)),
      [],
    );
  } finally {
    await close();
  }
});
