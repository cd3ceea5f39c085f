//! One capture, step by step, shared by website-screenshot and html-to-image once their page has
//! its content: let it settle (load, network, web fonts: each wait bounded, so one slow resource
//! delays a capture but never sinks it), remove overlays, scroll through a full page so lazy
//! content loads, measure, and take the image. The pure parts (sizes, clip) are exported.
import { TimeoutError, type Page } from 'puppeteer-core';
import type { ImageOptions } from '../../domain/tools/website-screenshot.js';
import { hideOverlays } from './overlays.js';
import { imageSize } from './image-size.js';

/** Full-page captures stop at this many image pixels high (CONTRACT.md); `truncated` says so. */
export const HEIGHT_CEILING_PX = 16_384;

/** How long each settling step may wait, milliseconds. Tests shorten them. */
export interface SettleLimits {
  /** The load event (every image, script and frame of the document). @default 15000 */
  loadMs: number;
  /**
   * Quiet time after which the network counts as settled; any request restarts it. @default 300
   * (puppeteer's networkidle0 uses 500: most of a capture's fixed cost, for little more fidelity).
   */
  networkQuietMs: number;
  /** Longest wait for that quiet. @default 5000 */
  networkMs: number;
  /** Web fonts (`document.fonts.ready`). @default 3000 */
  fontsMs: number;
  /** Pause at each scroll step of a full-page capture, for lazy content to start loading. @default 150 */
  scrollStepMs: number;
  /** Longest the scroll through a full page may take. @default 10000 */
  scrollMs: number;
}

export const DEFAULT_SETTLE: SettleLimits = {
  loadMs: 15_000,
  networkQuietMs: 300,
  networkMs: 5_000,
  fontsMs: 3_000,
  scrollStepMs: 150,
  scrollMs: 10_000,
};

export interface Captured {
  image: Buffer;
  mimeType: 'image/png' | 'image/jpeg';
  /** Pixel size of `image`, read from it. */
  width: number;
  height: number;
  truncated: boolean;
}

/** Tallest document part a full-page capture takes, CSS pixels: the ceiling in image pixels over the scale. */
export function maxCaptureHeight(deviceScaleFactor: number): number {
  return Math.floor(HEIGHT_CEILING_PX / deviceScaleFactor);
}

/** What a full-page capture takes of a document `documentHeight` CSS pixels tall. */
export function fullPageClip(options: Pick<ImageOptions, 'width' | 'deviceScaleFactor'>, documentHeight: number) {
  const ceiling = maxCaptureHeight(options.deviceScaleFactor);
  const height = Math.max(1, Math.min(Math.ceil(documentHeight), ceiling));
  return { clip: { x: 0, y: 0, width: options.width, height }, truncated: Math.ceil(documentHeight) > ceiling };
}

/** Runs a bounded wait; running out of time is fine (the capture goes on), anything else is not. */
async function bounded(wait: Promise<unknown>): Promise<void> {
  try {
    await wait;
  } catch (err) {
    if (!(err instanceof TimeoutError)) throw err;
  }
}

/** Waits for the load event, a quiet network and web fonts, each within its limit. */
export async function settle(page: Page, limits: SettleLimits): Promise<void> {
  await bounded(page.waitForFunction('document.readyState === "complete"', { timeout: limits.loadMs, polling: 50 }));
  await bounded(page.waitForNetworkIdle({ idleTime: limits.networkQuietMs, timeout: limits.networkMs, concurrency: 0 }));
  // Each face rather than `document.fonts.ready`, which stays pending until the load event.
  await bounded(page.waitForFunction('!document.fonts || Array.from(document.fonts).every((f) => f.status !== "loading")', { timeout: limits.fontsMs, polling: 50 }));
}

export async function documentHeight(page: Page): Promise<number> {
  return (await page.evaluate(
    'Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0, document.documentElement.getBoundingClientRect().height)',
  )) as number;
}

/**
 * Scrolls down a viewport at a time to `maxHeight` (or the end, whichever comes first), so that
 * lazy images and content triggered by scrolling load, then back to the top. The page may grow
 * as it goes (infinite scroll); the ceiling stops that.
 */
export async function scrollThrough(page: Page, maxHeight: number, limits: SettleLimits): Promise<void> {
  const script = `(async () => {
    const deadline = Date.now() + ${Math.round(limits.scrollMs)};
    const step = Math.max(200, Math.floor(window.innerHeight * 0.9));
    const height = () => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
    for (let y = 0; y < Math.min(height(), ${Math.round(maxHeight)}) && Date.now() < deadline; y += step) {
      window.scrollTo(0, y);
      await new Promise((r) => setTimeout(r, ${Math.round(limits.scrollStepMs)}));
    }
    window.scrollTo(0, Math.min(height(), ${Math.round(maxHeight)}));
    await new Promise((r) => setTimeout(r, ${Math.round(limits.scrollStepMs)}));
    window.scrollTo(0, 0);
    return true;
  })()`;
  await page.evaluate(script);
}

async function screenshot(page: Page, options: ImageOptions, clip?: { x: number; y: number; width: number; height: number }): Promise<Buffer> {
  const bytes = await page.screenshot({
    type: options.format,
    ...(options.format === 'jpeg' ? { quality: options.quality } : {}),
    ...(clip ? { clip, captureBeyondViewport: true } : { captureBeyondViewport: false }),
  });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Sets the viewport (CSS pixels, at the requested density) unless the page already has it. */
export async function applyViewport(page: Page, options: ImageOptions): Promise<void> {
  const current = page.viewport();
  if (current?.width === options.width && current.height === options.height && (current.deviceScaleFactor ?? 1) === options.deviceScaleFactor) return;
  await page.setViewport({ width: options.width, height: options.height, deviceScaleFactor: options.deviceScaleFactor });
}

/**
 * Settles the page, removes overlays when asked, and takes the image: the viewport, or the whole
 * document up to the height ceiling after scrolling through it.
 */
export async function capture(page: Page, options: ImageOptions, limits: SettleLimits, extra: { hideOverlays: boolean }): Promise<Captured> {
  await settle(page, limits);
  if (extra.hideOverlays) await hideOverlays(page);
  let image: Buffer;
  let truncated = false;
  if (options.fullPage) {
    const ceiling = maxCaptureHeight(options.deviceScaleFactor);
    await scrollThrough(page, ceiling, limits);
    // What the scroll started loading, and overlays that scrolling brought up.
    await bounded(page.waitForNetworkIdle({ idleTime: limits.networkQuietMs, timeout: limits.networkMs, concurrency: 0 }));
    if (extra.hideOverlays) await hideOverlays(page);
    const area = fullPageClip(options, await documentHeight(page));
    truncated = area.truncated;
    image = await screenshot(page, options, area.clip);
  } else {
    image = await screenshot(page, options);
  }
  const size = imageSize(image);
  return { image, mimeType: options.format === 'png' ? 'image/png' : 'image/jpeg', width: size.width, height: size.height, truncated };
}
