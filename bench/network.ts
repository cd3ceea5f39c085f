//! `npm run bench:network`: web-scrape and broken-links through the platform (HTTP API ->
//! Temporal -> network worker) side by side with the same handler functions called directly,
//! against local fixture pages on 127.0.0.2. Prints p50/p95 latency and calls/s per concurrency.
//! Then reading (parsing) a page of almost 5 MiB, the largest read: in the calling thread vs on
//! the reading threads, with how long the caller's event loop stalls meanwhile.
//!
//! Options: `--calls N` (per row, default 60), `--concurrency 1,8` (levels, default 1 and 8),
//! `--links N` (links on the broken-links page, default 10). The stack: see bench/stack.ts.
import { monitorEventLoopDelay } from 'node:perf_hooks';
import { parseArgs } from 'node:util';
import { createBrokenLinks } from '../activities/tools/broken-links.js';
import type { PageSource } from '../activities/network/page-extract.js';
import { createReadingPool } from '../activities/network/reading-pool.js';
import { readInline, type ReadingName, type Readings } from '../activities/network/readings.js';
import { PDFDocument } from 'pdf-lib';
import { createWebScrape } from '../activities/tools/web-scrape.js';
import { createNetworkAccess } from '../lib/network-access.js';
import { standaloneContext, type ToolHandler } from '../domain/tools/index.js';
import { htmlDocument, largeArticlePage, send, startPageServer } from '../test/fixtures/http-pages.js';
import { measure, postJson, printTable, type Figures } from './measure.js';
import { withBenchStack } from './stack.js';

const { values: args } = parseArgs({
  options: {
    calls: { type: 'string', default: '60' },
    concurrency: { type: 'string', default: '1,8' },
    links: { type: 'string', default: '10' },
  },
});
const CALLS = Number(args.calls);
const LEVELS = args.concurrency.split(',').map(Number);
const LINKS = Number(args.links);
const WARMUP = 5;

/** `reading` run `times` times: ms per reading, and the longest stall of this thread's event loop. */
async function readingStall(what: string, reading: () => Promise<unknown>, times = 3) {
  const delay = monitorEventLoopDelay({ resolution: 5 });
  delay.enable();
  let spent = 0;
  for (let i = 0; i < times; i++) {
    const started = performance.now();
    await reading();
    spent += performance.now() - started;
    // Let the loop turn, so that a stall the reading caused is sampled before the next one.
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  delay.disable();
  return { what, 'ms per reading': Math.round(spent / times), 'longest event-loop stall ms': Math.round(delay.max / 1e6) };
}

/** `read` and `name` side by side on one input: in the calling thread, then on the reading threads. */
async function stalls<K extends ReadingName>(title: string, name: K, args: Parameters<Readings[K]>): Promise<void> {
  console.log(`\n${title}, 3 times`);
  console.table([
    await readingStall('in the calling thread', () => readInline(name, args)),
    await readingStall('on the reading threads', () => readers.read(name, args)),
  ]);
}

/** A PDF of `pages` one-line pages with a classic xref table: megabytes of objects to parse. */
async function largePdf(pages: number): Promise<Buffer> {
  const doc = await PDFDocument.create();
  for (let i = 0; i < pages; i++) doc.addPage([200, 200]).drawText(`page ${i + 1}`, { x: 10, y: 10 });
  return Buffer.from(await doc.save({ useObjectStreams: false }));
}

/** The article fixture repeated to just under the 5 MiB page limit. */
const largePage = (): PageSource => ({
  body: Buffer.from(largeArticlePage('http://127.0.0.2', 5 * 1024 * 1024)),
  url: 'http://127.0.0.2/large.html',
  contentType: 'text/html; charset=utf-8',
});

// The handlers read pages as the network worker does: on a reading thread pool.
const readers = createReadingPool({ threads: 2 });
const pages = await startPageServer({
  routes: {
    '/links.html': (_req, res) =>
      send(
        res,
        200,
        'text/html; charset=utf-8',
        htmlDocument('<title>Links</title>', Array.from({ length: LINKS }, (_, i) => `<a href="/about?n=${i}">link ${i}</a>`).join('\n')),
      ),
  },
});
try {
  await withBenchStack(async (stack) => {
    const apiKey = await stack.newApiKey(1_000_000);
    // The handlers exactly as the network worker builds them, with their own guarded client.
    const net = createNetworkAccess({ dnsServers: [], targetAllowlist: ['127.0.0.2/32'] });
    const scenarios: { tool: string; handler: ToolHandler; input: Record<string, unknown> }[] = [
      {
        tool: 'web-scrape',
        handler: createWebScrape({ http: net.http, reader: readers.read }),
        input: { url: pages.url('/article.html'), includeText: true },
      },
      {
        tool: 'broken-links',
        handler: createBrokenLinks({ http: net.http, reader: readers.read }),
        input: { url: pages.url('/links.html'), maxLinks: 30 },
      },
    ];
    console.log(
      `\n${CALLS} calls per row after ${WARMUP} warm-up calls; fixture pages at ${pages.origin}; broken-links page with ${LINKS} links`,
    );
    const rows: Figures[] = [];
    for (const { tool, handler, input } of scenarios) {
      const paths = {
        direct: () => handler(structuredClone(input), standaloneContext('bench')),
        platform: () => postJson(`${stack.apiUrl}/api/v1/tools/${tool}`, input, apiKey),
      };
      for (const [name, op] of Object.entries(paths)) {
        for (const concurrency of LEVELS) rows.push(await measure(`${tool} ${name}`, op, { calls: CALLS, concurrency, warmup: WARMUP }));
      }
    }
    printTable('web-scrape and broken-links: called directly vs through the platform', rows);
    console.log(
      'direct = the handler called in this process; platform = HTTP API -> Temporal workflow (reserve, activity on the network pool, commit) -> answer.',
    );
  });

  const large = largePage();
  await stalls(
    `web-scrape's reading of a ${(large.body.length / 1024 / 1024).toFixed(1)} MiB page (parse, text, links, headings)`,
    'scrape',
    [large, { includeText: true }],
  );
  const pdf = await largePdf(20_000);
  await stalls(`pdf-metadata's reading of a ${(pdf.length / 1024 / 1024).toFixed(1)} MiB PDF of 20000 pages`, 'pdf', [pdf]);
} finally {
  await Promise.all([pages.close(), readers.close()]);
}
process.exit(0);
