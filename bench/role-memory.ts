//! `npm run bench:memory`: the memory each role's process tree holds, at rest and under its own
//! tools' calls, on a stack run as production runs it (one process per pool, bench/stack.ts): what
//! deploy/kubernetes/ sizes each container's memory request and limit from (docs/SCALING.md). For
//! BENCH_SECONDS (default 45) every pool is kept busy at once with its tools on small inputs (the
//! browser pool capturing a fixture page and small documents, the cpu pool hashing, drawing QR
//! codes and converting a letter with LibreOffice, the network pool reading fixture pages), and
//! every process tree (Chromium's and LibreOffice's children counted with their worker) is read
//! every 2 s. Proportional set (PSS): each shared page split among the processes sharing it.
import { processMemory } from '../test/disruptive/support/stack-control.js';
import { htmlDocument, startPageServer } from '../test/fixtures/http-pages.js';
import { startFileServer } from '../test/fixtures/file-server.js';
import { sampleDocx } from './heavy-files.js';
import { withBenchStack } from './stack.js';

const seconds = Number(process.env.BENCH_SECONDS ?? 45);
/** Calls each role has in flight: the pools' own concurrency at rest (BROWSER_CONCURRENCY 2) and a queue behind it. */
const IN_FLIGHT = 4;

const mib = (kib: number) => (kib / 1024).toFixed(0);

await withBenchStack(async (stack) => {
  const pages = await startPageServer({ logRequests: false });
  const files = await startFileServer();
  const letterUrl = files.put('/bench/letter.docx', await sampleDocx());
  const key = await stack.newApiKey(10_000_000);
  const call = (tool: string, body: unknown) =>
    fetch(`${stack.apiUrl}/api/v1/tools/${tool}`, {
      method: 'POST',
      headers: { authorization: `Bearer ${key}`, 'content-type': 'application/json' },
      body: JSON.stringify(body),
    }).then(async (res) => {
      await res.arrayBuffer();
      return res.status;
    });
  // Each role's mix, taken in turn by its callers.
  const work: Record<string, Array<() => Promise<number>>> = {
    'worker-cpu': [
      () => call('hash-text', { text: 'memory', algorithm: 'sha256' }),
      () => call('qr-generate', { text: 'https://example.com/memory' }),
      () => call('word-to-pdf', { fileUrl: letterUrl }),
    ],
    'worker-network': [
      () => call('seo-meta', { url: `${pages.origin}/article.html` }),
      () => call('web-scrape', { url: `${pages.origin}/article.html` }),
      () => call('http-request', { url: `${pages.origin}/about` }),
    ],
    'worker-browser': [
      () => call('website-screenshot', { url: `${pages.origin}/article.html` }),
      () => call('html-to-image', { html: htmlDocument('<title>Card</title>', '<h1>A social card</h1>'), width: 1200, height: 630 }),
    ],
  };

  const idle = new Map(stack.processes.map((p) => [p.name, processMemory(p.pid)]));
  const peak = new Map(stack.processes.map((p) => [p.name, { ...processMemory(p.pid) }]));
  const statuses = new Map<string, number>();
  const until = Date.now() + seconds * 1000;
  const callers = Object.entries(work).flatMap(([, mix]) =>
    Array.from({ length: IN_FLIGHT }, async (_, i) => {
      for (let n = i; Date.now() < until; n++) {
        const status = await mix[n % mix.length]!().catch(() => 0);
        statuses.set(String(status), (statuses.get(String(status)) ?? 0) + 1);
      }
    }),
  );
  const sampling = (async () => {
    while (Date.now() < until) {
      for (const p of stack.processes) {
        const m = processMemory(p.pid);
        const high = peak.get(p.name)!;
        high.groupPssKiB = Math.max(high.groupPssKiB, m.groupPssKiB);
        high.groupRssKiB = Math.max(high.groupRssKiB, m.groupRssKiB);
        high.groupSize = Math.max(high.groupSize, m.groupSize);
      }
      await new Promise((resolve) => setTimeout(resolve, 2000));
    }
  })();
  await Promise.all([...callers, sampling]);
  await Promise.all([pages.close(), files.close()]);

  console.log(
    `\nbench:memory: ${seconds} s with ${IN_FLIGHT} calls in flight per tool pool; answers by status: ${JSON.stringify(Object.fromEntries(statuses))}`,
  );
  console.table(
    Object.fromEntries(
      stack.processes.map((p) => [
        p.name,
        {
          'at rest PSS MiB': mib(idle.get(p.name)!.groupPssKiB),
          'busy peak PSS MiB': mib(peak.get(p.name)!.groupPssKiB),
          'busy peak summed RSS MiB': mib(peak.get(p.name)!.groupRssKiB),
          processes: peak.get(p.name)!.groupSize,
        },
      ]),
    ),
  );
});
