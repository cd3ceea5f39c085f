//! The browser half of `npm run bench:heavy`. Latency, one capture at a time (the rows take turns,
//! see measureInterleaved), of a 1440x900 PNG:
//! - website-screenshot of the same fixture page through the platform (HTTP -> workflow ->
//!   browser worker: warm pool, filtering proxy, settling, claim check), by the handler on a warm
//!   pool in this process (the tool without the platform), by raw puppeteer on one warm page
//!   (goto until load, screenshot: the floor) and with a browser launched per capture;
//! - html-to-image of a small document the same ways (raw: setContent + screenshot).
//! Then what settling costs on a page whose resources arrive late (a font 400 ms and an image
//! 200 ms after load): how long after its last resource arrives the capture is back; and
//! throughput of the handler at BROWSER_CONCURRENCY 1, 2 and 4 with as many calls in flight.
//! Figures, never assertions.
//!
//! Library: bench/heavy.ts calls `benchBrowser` and prints its tables with `printBrowserBench`.
//! Alone: `node scripts/node.mjs --import tsx bench/heavy-browser.ts [--calls N]`, against the stack bench/stack.ts
//! names (API_URL and ADMIN_TOKEN) or a throwaway one.
import { loadAdHostList } from '../activities/browser/ad-hosts.js';
import { createBrowserPool, type BrowserPoolHandle } from '../activities/browser/browser-pool.js';
import { createFilteringProxy } from '../activities/browser/filtering-proxy.js';
import type { CaptureSteps } from '../activities/browser/capture.js';
import { createHtmlToImage } from '../activities/tools/html-to-image.js';
import { createWebsiteScreenshot } from '../activities/tools/website-screenshot.js';
import type { WebsiteScreenshotInput } from '../domain/tools/website-screenshot.js';
import { chromiumPath } from '../lib/config.js';
import { createNetworkAccess } from '../lib/network-access.js';
import { standaloneContext } from '../domain/tools/index.js';
import { BROWSER_ROUTES, LATE_FONT_MARKUP, LATE_IMAGE_MARKUP, startBrowserPages } from '../test/fixtures/browser-pages.js';
import { htmlDocument, send, startPageServer, type Handler, type PageServer } from '../test/fixtures/http-pages.js';
import { callAnatomy, printHops, timedCall, type TimedCall } from './call-anatomy.js';
import { measureInterleaved, percentile, printTable, type Contender, type Figures } from './measure.js';
import { withBenchStack } from './stack.js';
import { RAW, SMALL_DOCUMENT, TALL_PX, VIEWPORT, rawCold, withRawPage } from './raw-browser.js';
import type { TemporalSettings } from '../lib/config-temporal.js';

export interface BrowserBenchOptions {
  /** Captures per warm row. @default 20; a quarter of that (at least 3) for a launch per capture */
  calls?: number;
  /** @default the pool's browser (chromiumPath: CHROMIUM_PATH or the headless shell) */
  chromiumPath?: string;
  /** BROWSER_CONCURRENCY settings the throughput table tries. @default [1, 2, 4] */
  concurrencies?: number[];
  /** The stack's Temporal: the platform rows' calls are then read hop by hop (bench/call-anatomy.ts). */
  temporal?: TemporalSettings;
}

export interface BrowserBench {
  latency: Figures[];
  /** Per platform row, where its calls' time went (with `temporal`). */
  anatomy: { label: string; hops: Awaited<ReturnType<typeof callAnatomy>> }[];
  /** The html-to-image handler's measured calls step by step, and the raw warm page's two steps beside them. */
  steps: StepFigures[];
  throughput: Figures[];
  late: LateFigures;
}

/** One step of a capture: its p50 and p95 over the measured calls, milliseconds. */
export interface StepFigures {
  step: string;
  p50Ms: number;
  p95Ms: number;
}

/** Settling on a page whose resources arrive late, one capture at a time. */
export interface LateFigures {
  captures: number;
  /** From the last resource's last byte leaving the server to the capture being back. */
  afterLastResourceP50Ms: number;
  afterLastResourceMaxMs: number;
  /** The whole capture, for scale. */
  captureP50Ms: number;
}

const TALL_PAGE = `/browser/tall?height=${TALL_PX}`;
const IMAGE = { ...VIEWPORT, fullPage: false, deviceScaleFactor: 1, format: 'png', quality: 85 } as const;

/** The rows the targets compare: each platform row against its raw warm page. */
const PLATFORM = {
  screenshot: 'website-screenshot through the platform (HTTP, warm pool)',
  htmlToImage: 'html-to-image of a small document through the platform',
  fullPage: `website-screenshot, full page ${TALL_PX.toLocaleString('en')} px tall, through the platform`,
};

/** A pool as the browser worker builds one, with the bench's fixture address allowed, and the tools on it. */
async function startPool(
  executablePath: string,
  concurrency: number,
  steps?: CaptureSteps[],
): Promise<{ tools: ReturnType<typeof handlers>; close(): Promise<void> }> {
  const net = createNetworkAccess({ dnsServers: [], targetAllowlist: ['127.0.0.2/32'] });
  const pool = createBrowserPool({
    executablePath,
    concurrency,
    proxy: createFilteringProxy({ guard: net.guard, adHosts: loadAdHostList() }),
  });
  await pool.ready;
  return { tools: handlers(pool, net, steps), close: () => pool.close() };
}

async function withPool<T>(
  executablePath: string,
  concurrency: number,
  run: (tools: ReturnType<typeof handlers>) => Promise<T>,
  steps?: CaptureSteps[],
): Promise<T> {
  const { tools, close } = await startPool(executablePath, concurrency, steps);
  try {
    return await run(tools);
  } finally {
    await close();
  }
}

function handlers(pool: BrowserPoolHandle, net: ReturnType<typeof createNetworkAccess>, steps?: CaptureSteps[]) {
  const screenshot = createWebsiteScreenshot({ pool, guard: net.guard });
  const htmlToImage = createHtmlToImage({ pool, steps: steps && ((s) => steps.push(s)) });
  return {
    screenshot: (url: string, fullPage = false) =>
      screenshot(
        { url, ...IMAGE, fullPage, blockAds: true, hideOverlays: false } satisfies WebsiteScreenshotInput,
        standaloneContext('bench'),
      ),
    htmlToImage: (html: string) => htmlToImage({ html, ...IMAGE }, standaloneContext('bench')),
  };
}

/** The tools' handlers on a warm pool in this process, proxy and settling included. */
function handlerRows(url: string, tallUrl: string, tools: ReturnType<typeof handlers>): Contender[] {
  return [
    { label: 'website-screenshot handler, warm pool (no platform)', op: () => tools.screenshot(url) },
    {
      label: `website-screenshot handler, full page ${TALL_PX.toLocaleString('en')} px (no platform)`,
      op: () => tools.screenshot(tallUrl, true),
    },
    { label: 'html-to-image handler, warm pool (no platform)', op: () => tools.htmlToImage(SMALL_DOCUMENT) },
  ];
}

/**
 * website-screenshot on a pool of each BROWSER_CONCURRENCY with that many calls in flight, the
 * pools taking turns (three calls per lane each turn) so they share the machine's drift.
 */
async function throughput(url: string, executablePath: string, calls: number, concurrencies: number[]): Promise<Figures[]> {
  const pools = await Promise.all(concurrencies.map((concurrency) => startPool(executablePath, concurrency)));
  try {
    const rows = pools.map(({ tools }, i) => ({
      label: `website-screenshot handler, BROWSER_CONCURRENCY ${concurrencies[i]}`,
      concurrency: concurrencies[i]!,
      op: () => tools.screenshot(url),
    }));
    return await measureInterleaved(rows, { turns: Math.max(2, Math.round(calls / 4)), callsPerLane: 3, warmupTurns: 1 });
  } finally {
    await Promise.all(pools.map((p) => p.close()));
  }
}

/**
 * A page with a font arriving 400 ms and an image 200 ms after its load event, served by a page
 * server that notes when each resource's last byte left: how long after the last one the
 * handler's capture is back (settling's reaction, the screenshot and its encoding).
 */
async function lateResources(executablePath: string, calls: number): Promise<LateFigures> {
  let lastArrival = 0;
  const noted =
    (handler: Handler): Handler =>
    (req, res, url, server) => {
      res.once('finish', () => (lastArrival = performance.now()));
      return handler(req, res, url, server);
    };
  const server = await startPageServer({
    routes: {
      '/bench/late': (_req, res) =>
        send(
          res,
          200,
          'text/html; charset=utf-8',
          htmlDocument('<title>Late</title>', LATE_FONT_MARKUP('/browser/font.ttf?delay=400') + LATE_IMAGE_MARKUP('/browser/image.png')),
        ),
      '/browser/font.ttf': noted(BROWSER_ROUTES['/browser/font.ttf']!),
      '/browser/image.png': noted(BROWSER_ROUTES['/browser/image.png']!),
    },
  });
  try {
    return await withPool(executablePath, 2, async (tools) => {
      const after: number[] = [];
      const whole: number[] = [];
      for (let i = -2; i < calls; i++) {
        const started = performance.now();
        await tools.screenshot(server.url('/bench/late'));
        if (i < 0) continue; // warm-up
        whole.push(performance.now() - started);
        after.push(performance.now() - lastArrival);
      }
      after.sort((a, b) => a - b);
      whole.sort((a, b) => a - b);
      return {
        captures: calls,
        afterLastResourceP50Ms: percentile(after, 50),
        afterLastResourceMaxMs: after.at(-1)!,
        captureP50Ms: percentile(whole, 50),
      };
    });
  } finally {
    await server.close();
  }
}

/** The tools through the running platform, each call timed for its hop table; none without a stack. */
async function platformRows(pages: PageServer, calls: number, timed: Map<string, TimedCall[]>): Promise<Contender[]> {
  if (!process.env.API_URL || !process.env.ADMIN_TOKEN) {
    console.log('(no API_URL and ADMIN_TOKEN: the rows through the platform are left out)');
    return [];
  }
  const { callTool, newAccount } = await import('../test/helpers/api.js');
  const account = await newAccount(25 * 5 * (calls + 5), 'bench');
  const row = (label: string, tool: string, input: Record<string, unknown>): Contender => ({
    label,
    op: async () => {
      const call = await timedCall(tool, () => callTool(account.apiKey, tool, input));
      timed.set(label, [...(timed.get(label) ?? []), call]);
    },
  });
  return [
    row(PLATFORM.screenshot, 'website-screenshot', { url: pages.url(PAGE), ...VIEWPORT }),
    // A page whose PNG answers inline (under 32 KiB): the platform without the blob store.
    row('  the same, small PNG (inline output)', 'website-screenshot', { url: pages.url('/browser/title'), ...VIEWPORT }),
    row(PLATFORM.htmlToImage, 'html-to-image', { html: SMALL_DOCUMENT, ...VIEWPORT }),
    row(PLATFORM.fullPage, 'website-screenshot', { url: pages.url(TALL_PAGE), ...VIEWPORT, fullPage: true }),
  ];
}

/** Each step's p50 and p95 over the calls that took it, in the order the steps came. */
function stepFigures(calls: CaptureSteps[]): StepFigures[] {
  const byStep = new Map<string, number[]>();
  for (const call of calls) for (const [step, ms] of Object.entries(call)) byStep.set(step, [...(byStep.get(step) ?? []), ms]);
  return [...byStep].map(([step, list]) => {
    list.sort((a, b) => a - b);
    return { step, p50Ms: percentile(list, 50), p95Ms: percentile(list, 95) };
  });
}

/** The last calls of each platform row read hop by hop. */
const ANATOMY_CALLS = 10;

/** The fixture page of the latency and throughput rows: gradients and text. */
const PAGE = '/browser/colourful';

/**
 * Every browser figure: the latency rows (platform, handlers, raw warm page; taking turns, see
 * measureInterleaved), a browser launched per capture, late resources, throughput.
 */
export async function benchBrowser(options: BrowserBenchOptions = {}): Promise<BrowserBench> {
  const calls = options.calls ?? 20;
  const executablePath = options.chromiumPath ?? chromiumPath();
  const pages = await startBrowserPages();
  try {
    const url = pages.url(PAGE);
    const timed = new Map<string, TimedCall[]>();
    const platform = await platformRows(pages, calls, timed);
    const handlerSteps: CaptureSteps[] = [];
    const rawSteps: CaptureSteps[] = [];
    const latency = await withPool(
      executablePath,
      2,
      (tools) =>
        withRawPage(url, pages.url(TALL_PAGE), executablePath, rawSteps, (raw) =>
          measureInterleaved([...platform, ...handlerRows(url, pages.url(TALL_PAGE), tools), ...raw], {
            turns: calls,
            warmupTurns: 3,
            pauseMs: 100,
          }),
        ),
      handlerSteps,
    );
    const steps = stepFigures([...handlerSteps.slice(-calls), ...rawSteps.slice(-calls)]);
    latency.push(await rawCold(url, executablePath, Math.max(3, Math.round(calls / 4))));
    const late = await lateResources(executablePath, Math.max(5, Math.round(calls / 2)));
    const anatomy = [];
    for (const [label, list] of options.temporal ? timed : [])
      anatomy.push({ label, hops: await callAnatomy(options.temporal!, list.slice(-ANATOMY_CALLS)) });
    return { latency, anatomy, steps, throughput: await throughput(url, executablePath, calls, options.concurrencies ?? [1, 2, 4]), late };
  } finally {
    await pages.close();
  }
}

export function printBrowserBench(bench: BrowserBench): void {
  printTable('website-screenshot and html-to-image: 1440x900 PNG of a local page or a small document, one at a time', bench.latency);
  const p50 = (label: string) => bench.latency.find((f) => f.label === label)?.p50Ms;
  for (const [what, platform, raw] of [
    ['website-screenshot', PLATFORM.screenshot, RAW.goto],
    ['html-to-image', PLATFORM.htmlToImage, RAW.setContent],
    ['full page', PLATFORM.fullPage, RAW.fullPage],
  ] as const) {
    const [a, b] = [p50(platform), p50(raw)];
    if (a !== undefined && b !== undefined)
      console.log(`platform / raw  ${what}: ${(a / b).toFixed(2)}x (p50 ${a.toFixed(1)} vs ${b.toFixed(1)} ms)`);
  }
  for (const { label, hops } of bench.anatomy) printHops(label, hops);
  console.log(
    '\nWhere the time of the html-to-image handler (no platform) goes, step by step, beside the raw warm page (setContent + PNG):',
  );
  console.table(bench.steps.map((s) => ({ step: s.step, 'p50 ms': +s.p50Ms.toFixed(1), 'p95 ms': +s.p95Ms.toFixed(1) })));
  const { late } = bench;
  console.log(
    `\nSettling on late resources (a font 400 ms and an image 200 ms after load), ${late.captures} captures: back ${late.afterLastResourceP50Ms.toFixed(1)} ms (p50; max ${late.afterLastResourceMaxMs.toFixed(1)}) after the last resource arrived; the whole capture ${late.captureP50Ms.toFixed(1)} ms p50`,
  );
  printTable('website-screenshot handler throughput by BROWSER_CONCURRENCY (as many calls in flight; this machine)', bench.throughput);
}

async function main() {
  const callsArg = process.argv.indexOf('--calls');
  const calls = callsArg > 0 ? Number(process.argv[callsArg + 1]) : 20;
  await withBenchStack(async (stack) => printBrowserBench(await benchBrowser({ calls, temporal: stack.temporal })));
  process.exit(0);
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
