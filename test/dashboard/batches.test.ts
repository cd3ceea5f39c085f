//! Batches on the dashboard: each batch with its status, a progress bar of the items that ended,
//! its counts and charge, followed while it runs; Cancel (after confirmation) skips what is pending
//! while the running items finish and are charged.
import test from 'ava';
import type http from 'node:http';
import { newAccount, request } from '../helpers/api.js';
import { eventually } from '../helpers/webhook-receiver.js';
import { send, startPageServer, type PageServer } from '../fixtures/http-pages.js';
import { browserForFile } from './browser-for-file.js';
import { button, focused, openDashboard, screenshot, signIn, textOf, waitForText } from './page.js';

/** BATCH_CONCURRENCY of the test stack (scripts/stack/test-stack.ts). */
const BATCH_CONCURRENCY = 4;

const browser = browserForFile();
let pages: PageServer;
const held: http.ServerResponse[] = [];
test.before(async () => {
  pages = await startPageServer({ routes: { '/hold': (_req, res) => void held.push(res) } });
});
test.after.always(async () => {
  await pages?.close();
});

const progressOf = (page: import('puppeteer-core').Page, id: string) =>
  page.$eval(`tr[data-batch-id="${id}"] progress`, (p) => [(p as HTMLProgressElement).value, (p as HTMLProgressElement).max]);

test.serial(
  'batches show their progress and counts, followed while they run; Cancel skips the pending items and the running ones finish',
  async (t) => {
    const account = await newAccount(100, 'Batch & Co');
    const post = (body: unknown) => request('POST', '/api/v1/batches', { token: account.apiKey, body });
    const small = await post({ tool: 'hash-text', items: [{ text: 'a' }, { text: 'b' }, { text: 'c' }] });
    await eventually(
      () => request('GET', `/api/v1/batches/${small.body.id}`, { token: account.apiKey }),
      (r) => r.body.completedAt !== null,
      60_000,
      'the small batch to end',
    );
    const big = await post({ tool: 'http-request', items: Array.from({ length: 6 }, (_, i) => ({ url: pages.url(`/hold?dash=${i}`) })) });
    await eventually(
      async () => held.length,
      (n) => n >= BATCH_CONCURRENCY,
      60_000,
      'the big batch to hold its slots',
    );

    const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/batches' });
    try {
      await signIn(page, account.ownerToken);
      const bigRow = `tr[data-batch-id="${big.body.id}"]`;
      await waitForText(page, bigRow, /Running/);
      t.regex(
        await textOf(page, `tr[data-batch-id="${small.body.id}"]`),
        /hash-text[\s\S]*Completed[\s\S]*3 of 3 ended: 3 succeeded, 0 failed, 0 skipped[\s\S]*3 credits/,
      );
      t.deepEqual(await progressOf(page, small.body.id), [3, 3]);
      t.regex(await textOf(page, bigRow), /0 of 6 ended: 0 succeeded, 0 failed, 0 skipped, 4 running, 2 pending/);
      t.deepEqual(await progressOf(page, big.body.id), [0, 6]);
      t.is(await page.$(`tr[data-batch-id="${small.body.id}"] button`), null, 'an ended batch has no Cancel');
      await screenshot(page, 'batches');

      // Cancel, after confirming in the dialog.
      await (await button(page, bigRow, 'Cancel')).click();
      await page.waitForSelector('#confirm-dialog[open]');
      t.regex(await textOf(page, '#confirm-title'), new RegExp(`Cancel batch ${big.body.id}`));
      t.is((await focused(page)).id, 'confirm-cancel', 'the safe choice has focus');
      await page.click('#confirm-ok');
      await waitForText(page, bigRow, /Cancelled[\s\S]*2 of 6 ended: 0 succeeded, 0 failed, 2 skipped, 4 running, 0 pending/);
      t.is(await page.$(`${bigRow} button`), null, 'no Cancel once cancelled');

      // The running items finish and are charged; the page follows them without a reload.
      for (const r of held.splice(0)) send(r, 200, 'text/plain', 'done');
      await waitForText(page, bigRow, /6 of 6 ended: 4 succeeded, 0 failed, 2 skipped, 0 running, 0 pending[\s\S]*8 credits/, 60_000);
      t.deepEqual(await progressOf(page, big.body.id), [6, 6]);
      t.deepEqual(problems, []);
    } finally {
      await close();
    }
  },
);
