//! Raw puppeteer, the floor `bench:heavy`'s browser rows are measured against (bench/heavy-browser.ts):
//! one page kept open (goto and a PNG, setContent and a PNG, goto and a full-page PNG), and a
//! browser launched and closed per capture. Figures, never assertions.
import puppeteer, { type LaunchOptions } from 'puppeteer-core';
import type { CaptureSteps } from '../activities/browser/capture.js';
import { measure, type Contender, type Figures } from './measure.js';

export const VIEWPORT = { width: 1440, height: 900 };
/** The full-page row's page height (the fixture's /browser/tall). */
export const TALL_PX = 8000;

/** A small document: a heading, a paragraph, a coloured box. */
export const SMALL_DOCUMENT =
  '<h1>Invoice 1042</h1><p>Thank you for your order. The total is <b>EUR 120.00</b>.</p><div style="width: 300px; height: 80px; background: #3070b0"></div>';

/** The raw rows, each compared with its platform row. */
export const RAW = {
  goto: 'raw puppeteer, warm page (goto + PNG)',
  setContent: 'raw puppeteer, warm page (setContent + PNG)',
  fullPage: `raw puppeteer, warm page (goto + full-page PNG, ${TALL_PX.toLocaleString('en')} px)`,
};

function rawLaunchOptions(executablePath: string): LaunchOptions {
  const asRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return {
    executablePath,
    headless: true,
    pipe: true,
    args: [...(asRoot ? ['--no-sandbox'] : []), '--disable-gpu'],
    defaultViewport: VIEWPORT,
  };
}

/** Raw puppeteer on one page kept open: goto (until load) and a PNG; setContent and a PNG; goto and a full-page PNG. */
export async function withRawPage<T>(
  url: string,
  tallUrl: string,
  executablePath: string,
  rawSteps: CaptureSteps[],
  run: (rows: Contender[]) => Promise<T>,
): Promise<T> {
  const browser = await puppeteer.launch(rawLaunchOptions(executablePath));
  try {
    const page = await browser.newPage();
    return await run([
      {
        label: RAW.goto,
        op: async () => {
          await page.goto(url, { waitUntil: 'load' });
          await page.screenshot({ type: 'png' });
        },
      },
      {
        label: RAW.setContent,
        op: async () => {
          const started = performance.now();
          await page.setContent(SMALL_DOCUMENT, { waitUntil: 'load' });
          const written = performance.now();
          await page.screenshot({ type: 'png' });
          rawSteps.push({ 'raw setContent': written - started, 'raw PNG': performance.now() - written });
        },
      },
      {
        label: RAW.fullPage,
        op: async () => {
          await page.goto(tallUrl, { waitUntil: 'load' });
          await page.screenshot({ type: 'png', fullPage: true });
        },
      },
    ]);
  } finally {
    await browser.close();
  }
}

/** Raw puppeteer, a browser launched and closed per capture. */
export async function rawCold(url: string, executablePath: string, calls: number): Promise<Figures> {
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
