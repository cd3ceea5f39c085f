//! The browser half of `npm run bench:heavy`: one 1440x900 PNG of the same fixture page, taken
//! - through the platform (HTTP -> workflow -> browser worker: warm pool, filtering proxy,
//!   settling waits, claim check), one call at a time;
//! - by the website-screenshot handler on a warm pool in this process (the tool without the platform);
//! - by raw puppeteer on one warm page (goto until load, screenshot): the floor;
//! - by raw puppeteer launching a browser per capture: what a pool saves.
//! Figures, never assertions.
//!
//! Library: bench/heavy.ts calls `benchBrowser` and prints its rows with `printTable`. Alone:
//! `node --import tsx bench/heavy-browser.ts [--calls N]`; the platform row needs API_URL and
//! ADMIN_TOKEN of a running stack whose TARGET_ALLOWLIST lets 127.0.0.2 through.
import puppeteer, { type LaunchOptions } from 'puppeteer-core';
import { loadAdHostList } from '../activities/browser/ad-hosts.js';
import { createBrowserPool } from '../activities/browser/browser-pool.js';
import { createFilteringProxy } from '../activities/browser/filtering-proxy.js';
import { createWebsiteScreenshot } from '../activities/browser/website-screenshot.js';
import type { WebsiteScreenshotInput } from '../domain/tools/website-screenshot.js';
import { createNetworkAccess } from '../lib/network-access.js';
import { standaloneContext } from '../lib/tool-handler.js';
import { startBrowserPages } from '../test/fixtures/browser-pages.js';
import { measure, printTable, type Figures } from './measure.js';

export interface BrowserBenchOptions {
  /** Captures per warm row. @default 20; a quarter of that (at least 3) for a launch per capture */
  calls?: number;
  /** @default CHROMIUM_PATH or /usr/lib/chromium/chromium */
  chromiumPath?: string;
  /** The fixture page captured. @default /browser/colourful (gradients and text) */
  pagePath?: string;
}

const VIEWPORT = { width: 1440, height: 900 };

function rawLaunchOptions(executablePath: string): LaunchOptions {
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return { executablePath, headless: true, pipe: true, args: [...(asRoot ? ['--no-sandbox'] : []), '--disable-gpu'], defaultViewport: VIEWPORT };
}

/** Raw puppeteer, one page kept open: goto (until load) and a PNG. */
async function rawWarm(url: string, executablePath: string, calls: number): Promise<Figures> {
  const browser = await puppeteer.launch(rawLaunchOptions(executablePath));
  try {
    const page = await browser.newPage();
    return await measure(
      'raw puppeteer, warm page (goto + PNG)',
      async () => {
        await page.goto(url, { waitUntil: 'load' });
        await page.screenshot({ type: 'png' });
      },
      { calls, concurrency: 1, warmup: 3 },
    );
  } finally {
    await browser.close();
  }
}

/** Raw puppeteer, a browser launched and closed per capture. */
async function rawCold(url: string, executablePath: string, calls: number): Promise<Figures> {
  return measure(
    'raw puppeteer, browser launched per capture',
    async () => {
      const browser = await puppeteer.launch(rawLaunchOptions(executablePath));
      try {
        const page = await browser.newPage();
        await page.goto(url, { waitUntil: 'load' });
        await page.screenshot({ type: 'png' });
      } finally {
        await browser.close();
      }
    },
    { calls, concurrency: 1, warmup: 1 },
  );
}

/** The website-screenshot handler on a warm pool in this process, proxy and settling included. */
async function handlerWarm(url: string, executablePath: string, calls: number): Promise<Figures> {
  const net = createNetworkAccess({ dnsServers: [], targetAllowlist: ['127.0.0.2/32'] });
  const pool = createBrowserPool({ executablePath, concurrency: 2, proxy: createFilteringProxy({ guard: net.guard, adHosts: loadAdHostList() }) });
  try {
    await pool.ready;
    const screenshot = createWebsiteScreenshot({ pool, guard: net.guard });
    const input: WebsiteScreenshotInput = { url, ...VIEWPORT, fullPage: false, deviceScaleFactor: 1, format: 'png', quality: 85, blockAds: true, hideOverlays: false };
    return await measure('website-screenshot handler, warm pool (no platform)', () => screenshot(input, standaloneContext('bench')), { calls, concurrency: 1, warmup: 3 });
  } finally {
    await pool.close();
  }
}

/** website-screenshot through the running platform, one call at a time; null without a stack. */
async function platformWarm(label: string, url: string, calls: number): Promise<Figures | null> {
  if (!process.env.API_URL || !process.env.ADMIN_TOKEN) return null;
  const { callTool, newAccount } = await import('../test/helpers/api.js');
  const account = await newAccount(25 * (calls + 5), 'bench');
  return measure(
    label,
    async () => {
      const res = await callTool(account.apiKey, 'website-screenshot', { url, ...VIEWPORT });
      if (res.status !== 200) throw new Error(`website-screenshot answered ${res.status}: ${JSON.stringify(res.body)}`);
    },
    { calls, concurrency: 1, warmup: 3 },
  );
}

/** Every browser row, in the order of the table: platform (two pages), handler, raw warm, raw cold. */
export async function benchBrowser(options: BrowserBenchOptions = {}): Promise<Figures[]> {
  const calls = options.calls ?? 20;
  const executablePath = options.chromiumPath ?? (process.env.CHROMIUM_PATH || '/usr/lib/chromium/chromium');
  const pages = await startBrowserPages();
  try {
    const url = pages.url(options.pagePath ?? '/browser/colourful');
    const rows: Figures[] = [];
    const platform = await platformWarm('website-screenshot through the platform (HTTP, warm pool)', url, calls);
    if (platform) {
      rows.push(platform);
      // A page whose PNG stays under the claim check's 128 KiB: the platform without GridFS.
      rows.push((await platformWarm('  the same, small PNG (no claim check)', pages.url('/browser/title'), calls))!);
    } else {
      console.log('(no API_URL and ADMIN_TOKEN: the rows through the platform are left out)');
    }
    rows.push(await handlerWarm(url, executablePath, calls));
    rows.push(await rawWarm(url, executablePath, calls));
    rows.push(await rawCold(url, executablePath, Math.max(3, Math.round(calls / 4))));
    return rows;
  } finally {
    await pages.close();
  }
}

export const BROWSER_TABLE_TITLE = 'website-screenshot: 1440x900 PNG of a local page, one at a time';

async function main() {
  const callsArg = process.argv.indexOf('--calls');
  const calls = callsArg > 0 ? Number(process.argv[callsArg + 1]) : 20;
  printTable(BROWSER_TABLE_TITLE, await benchBrowser({ calls }));
}

if (import.meta.url === `file://${process.argv[1]}`) await main();
