//! Plan and credits on the dashboard: the account's plan, its next allowance, every grant with what
//! is left of it and its expiry, an expiry in the ledger, and a month's usage downloaded as CSV.
import { existsSync, mkdirSync, readFileSync, readdirSync } from 'node:fs';
import path from 'node:path';
import test from 'ava';
import { periodStart } from '../../domain/plans/periods.js';
import { randomBase62 } from '../../lib/ids.js';
import { adminToken, callTool, request } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { browserForFile } from './browser-for-file.js';
import { goTo, openDashboard, screenshot, signIn, textOf, waitForText } from './page.js';

const browser = browserForFile();

const DAY = 24 * 3600 * 1000;
const admin = (method: string, path: string, body?: unknown) => request(method, `/api/v1/admin${path}`, { token: adminToken(), body });

test.serial(
  'the owner sees the plan, the next allowance, the grants with what is left of each, and downloads the month as CSV',
  async (t) => {
    const planId = `dash-${randomBase62(6).toLowerCase()}`;
    t.is((await admin('POST', '/plans', { id: planId, name: 'Starter', monthlyAllowance: 300, rollover: 'none' })).status, 201);
    const joined = new Date(Date.now() - 3 * DAY);
    const opened = await admin('POST', '/accounts', {
      name: 'Monthly Ltd',
      credits: 100,
      plan: planId,
      planStartsAt: joined.toISOString(),
    });
    t.is(opened.status, 201);
    const accountId = opened.body.account.id as string;
    const purchase = await admin('POST', `/accounts/${accountId}/credits`, {
      amount: 50,
      reason: 'purchase',
      expiresAt: new Date(Date.now() + 60 * DAY).toISOString(),
      idempotencyKey: `pi_${randomBase62(8)}`,
    });
    t.is(purchase.status, 200);
    for (const text of ['one', 'two', 'three']) t.is((await callTool(opened.body.apiKey.key, 'hash-text', { text })).status, 200);

    const { page, context, problems, close } = await openDashboard(browser());
    try {
      const downloads = path.join(testEnv.outputDir(), 'dashboard', `downloads-${accountId}`);
      mkdirSync(downloads, { recursive: true });
      const cdp = await page.createCDPSession();
      await cdp.send('Browser.setDownloadBehavior', {
        behavior: 'allow',
        downloadPath: downloads,
        ...(context.id ? { browserContextId: context.id } : {}),
      });

      await signIn(page, opened.body.ownerToken);
      await waitForText(page, '#plan-name', /^Starter$/);
      t.regex(await textOf(page, '#plan-allowance'), /^300 credits$/);
      const next = periodStart(joined, 1);
      const nextText = await textOf(page, '#next-allowance');
      t.regex(nextText, /^300 credits on /);
      t.is(await page.$eval('#next-allowance time', (el) => el.getAttribute('datetime')), next.toISOString());
      t.regex(await textOf(page, '#plan-note'), /unused part lapses/);
      t.regex(await textOf(page, '#balance'), /^447 credits$/);

      // Newest first: the purchase, then the allowance (spent first: it expires first) and the welcome grant.
      await waitForText(page, '#grants-body', /Purchase/);
      const rows = await page.$$eval('#grants-body tbody tr', (trs) =>
        trs.map((tr) => Array.from(tr.querySelectorAll('td')).map((td) => (td as HTMLElement).innerText.trim())),
      );
      t.is(rows.length, 3);
      const byReason = Object.fromEntries(rows.map((r) => [r[1], r]));
      t.deepEqual(byReason.Purchase!.slice(2, 4), ['50', '50']);
      t.deepEqual(byReason['Monthly allowance']!.slice(2, 4), ['300', '297']);
      t.regex(byReason['Monthly allowance']![4]!, /^Expires /);
      t.deepEqual(byReason.Welcome!.slice(2, 5), ['100', '100', 'Never expires']);
      await screenshot(page, 'plan-and-credits');

      await goTo(page, 'usage');
      await page.click('#export-form button[type=submit]');
      await waitForText(page, '#announcer', /downloaded as usage-/);
      const file = await eventually(
        async () => readdirSync(downloads).find((f) => f.endsWith('.csv')),
        (f) =>
          f !== undefined && existsSync(path.join(downloads, f)) && readFileSync(path.join(downloads, f), 'utf8').split('\r\n').length >= 5,
        20_000,
        'the CSV download',
      );
      const month = new Date().toISOString().slice(0, 7);
      t.regex(file!, new RegExp(`^usage-${month}-01-to-\\d{4}-\\d{2}-01\\.csv$`));
      const lines = readFileSync(path.join(downloads, file!), 'utf8').trim().split('\r\n');
      t.is(lines[0], 'at,requestId,tool,outcome,credits,grantId,keyId');
      t.is(lines.filter((l) => l.includes(',hash-text,charged,1,')).length, 3);
      t.deepEqual(problems, []);
    } finally {
      await close();
    }
  },
);
