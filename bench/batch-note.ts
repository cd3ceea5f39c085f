//! `node scripts/node.mjs --import tsx bench/batch-note.ts [out-dir]`: one batch as its owner sees it, for the
//! notes (not a test, not a benchmark). On a throwaway stack (or API_URL/ADMIN_TOKEN's): an account
//! with a small hash-text batch completed and a 3,000-item one in progress; writes the dashboard
//! in Chromium (batch-dashboard.png) and the API's answers for the running batch: the POST, a GET,
//! a page of its items and the first lines of its results (batch-api.txt). Default out-dir /work/notes.
import { mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { withBenchStack } from './stack.js';
import { launchBrowser, openDashboard, signIn, waitForText } from '../test/dashboard/page.js';
import { newAccount, request } from '../test/helpers/api.js';

const OUT = process.argv[2] ?? '/work/notes';
const BIG = 3_000;

await withBenchStack(async () => {
  mkdirSync(OUT, { recursive: true });
  const account = await newAccount(10_000, 'Batch & Co');
  const lines: string[] = [];
  /** One exchange as curl would show it: the request, then the status, the headers that matter and the body. */
  const note = (what: string, status: number, headers: Headers, body: unknown) => {
    const shown = ['location', 'content-type'].filter((h) => headers.get(h)).map((h) => `${h}: ${headers.get(h)}`);
    lines.push(`$ ${what}`, `HTTP ${status}`, ...shown, typeof body === 'string' ? body : JSON.stringify(body, null, 2), '');
  };
  const api = (method: string, p: string, body?: unknown) => request(method, p, { token: account.apiKey, body });

  const small = await api('POST', '/api/v1/batches', {
    tool: 'hash-text',
    items: ['alpha', 'beta', 'gamma'].map((text) => ({ text })),
    defaults: { algorithm: 'sha256' },
  });
  for (;;) {
    if ((await api('GET', `/api/v1/batches/${small.body.id}`)).body.completedAt) break;
    await new Promise((r) => setTimeout(r, 200));
  }
  const items = Array.from({ length: BIG }, (_, i) => ({ text: `page ${i}` }));
  const made = await api('POST', '/api/v1/batches', { tool: 'hash-text', items });
  note(
    `curl -X POST /api/v1/batches -d '{"tool":"hash-text","items":[{"text":"page 0"}, ... ${BIG} items]}'`,
    made.status,
    made.headers,
    made.body,
  );
  const id = made.body.id as string;
  // Under way: some items ended, most still to run.
  for (;;) {
    const now = await api('GET', `/api/v1/batches/${id}`);
    if (now.body.counts.succeeded >= 40) break;
    await new Promise((r) => setTimeout(r, 200));
  }

  const browser = await launchBrowser();
  try {
    const { page, close } = await openDashboard(browser);
    await signIn(page, account.ownerToken);
    await waitForText(page, `tr[data-batch-id="${id}"]`, /Running/);
    const row = await page.$('#batches');
    const shot = path.join(OUT, 'batch-dashboard.png');
    if (row) await row.screenshot({ path: shot });
    else await page.screenshot({ path: shot, fullPage: true });
    await close();
    console.log(`wrote ${shot}`);
  } finally {
    await browser.close();
  }

  const got = await api('GET', `/api/v1/batches/${id}`);
  note(`curl /api/v1/batches/${id}`, got.status, got.headers, got.body);
  const page = await api('GET', `/api/v1/batches/${id}/items?limit=3`);
  note(`curl '/api/v1/batches/${id}/items?limit=3'`, page.status, page.headers, page.body);
  const results = await fetch(`${process.env.API_URL}/api/v1/batches/${id}/results`, {
    headers: { authorization: `Bearer ${account.apiKey}` },
  });
  const reader = results.body!.getReader();
  let text = '';
  while (text.split('\n').length <= 3) {
    const { value, done } = await reader.read();
    if (done) break;
    text += new TextDecoder().decode(value);
  }
  await reader.cancel();
  note(
    `curl /api/v1/batches/${id}/results   (first 3 lines; it streams on as items end)`,
    results.status,
    results.headers,
    text.split('\n').slice(0, 3).join('\n'),
  );
  const cancelled = await api('DELETE', `/api/v1/batches/${id}`);
  note(`curl -X DELETE /api/v1/batches/${id}`, cancelled.status, cancelled.headers, cancelled.body);
  writeFileSync(path.join(OUT, 'batch-api.txt'), lines.join('\n'));
  console.log(`wrote ${path.join(OUT, 'batch-api.txt')}`);
});
