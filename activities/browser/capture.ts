//! One capture, step by step, shared by website-screenshot and html-to-image, each saying how its
//! content gets into the page: watch the page's requests while it arrives, let it settle
//! (settle.ts: bounded, so one slow resource delays a capture but never sinks it), remove
//! overlays, scroll through a full page (in a tall viewport) so lazy content loads, measure, and
//! take the image. The pure parts (sizes, clip, scroll viewport) are exported.
import type { Page } from 'puppeteer-core';
import type { ImageOptions } from '../../domain/tools/website-screenshot.js';
import { hideOverlays } from './overlays.js';
import { imageSize } from './image-size.js';
import { callActivity, watchRequests, type PageState, type RequestWatch } from './page-activity.js';
import { settle, stillSettled, whenLoaded, type Reported, type SettleLimits } from './settle.js';
import { inSpan } from '../../lib/trace-context.js';

/** Full-page captures stop at this many image pixels high (docs/API.md, "Formats and limits"); `truncated` says so. */
export const HEIGHT_CEILING_PX = 16_384;

export interface Captured {
  image: Buffer;
  mimeType: 'image/png' | 'image/jpeg';
  /** Pixel size of `image`, read from it. */
  width: number;
  height: number;
  truncated: boolean;
}

/**
 * Where one capture's time went, milliseconds per step, for a bench to read (bench/heavy-browser.ts).
 * A step taken twice (settling and the image again after the check) adds up.
 */
export type CaptureSteps = Record<string, number>;

/** Adds the time since the last mark to the step named; nothing without `steps`. */
export type StepMark = (step: string) => void;

const noMark: StepMark = () => {};

/** A clock that adds each step's time to `steps`, from now on; nothing without `steps`. */
export function stepClock(steps: CaptureSteps | undefined): StepMark {
  if (!steps) return noMark;
  let last = performance.now();
  return (step) => {
    const now = performance.now();
    steps[step] = (steps[step] ?? 0) + now - last;
    last = now;
  };
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

export async function documentHeight(page: Page): Promise<number> {
  return (await page.evaluate(
    'Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0, document.documentElement.getBoundingClientRect().height)',
  )) as number;
}

async function screenshot(
  page: Page,
  options: ImageOptions,
  clip?: { x: number; y: number; width: number; height: number },
): Promise<Buffer> {
  const bytes = await page.screenshot({
    type: options.format,
    ...(options.format === 'jpeg' ? { quality: options.quality } : {}),
    ...(clip ? { clip, captureBeyondViewport: true } : { captureBeyondViewport: false }),
  });
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength);
}

/** Sets the viewport (CSS pixels, at the requested density) unless the page already has it. */
async function applyViewport(page: Page, options: ImageOptions): Promise<void> {
  const current = page.viewport();
  if (
    current?.width === options.width &&
    current.height === options.height &&
    (current.deviceScaleFactor ?? 1) === options.deviceScaleFactor
  )
    return;
  await page.setViewport({ width: options.width, height: options.height, deviceScaleFactor: options.deviceScaleFactor });
}

/**
 * Settles, then takes the image. A page that settled (rather than ran into `until`) is taken at
 * once, then checked: the capture draws a frame, and a frame can start loads of its own (lazy
 * images coming into view, a font first needed to paint). If it started anything, the page
 * settles again, this time a rendering frame before each look, and is taken again.
 */
async function settledShot<T>(
  page: Page,
  requests: RequestWatch,
  limits: SettleLimits,
  until: number,
  reported: Reported | undefined,
  take: () => Promise<T>,
  step: StepMark,
): Promise<T> {
  const settled = await settle(page, requests, limits, until, { frame: false, reported });
  step('settle');
  if (settled === 'bound') return take();
  const mark = requests.started;
  const first = await take();
  const still = await stillSettled(page, requests, limits, mark);
  step('check after the image');
  if (still) return first;
  await settle(page, requests, limits, until, { frame: true });
  step('settle');
  return take();
}

/**
 * How a tool's content gets into the page. Answers nothing when the load event is still to be
 * waited for; a loader that waited for it itself (writeMarkup) answers what the page said of
 * itself then, and settling starts from that if no request has started since the load began.
 */
// biome-ignore lint/suspicious/noConfusingVoidType: a loader that waits for the load event answers nothing (`async () => { ... }`)
type Load = () => Promise<PageState | void>;

/**
 * Captures what `load` puts in a page of the pool (which carries the activity script): sets the
 * viewport, watches the page's requests from before its content arrives (and stops watching
 * however the capture ends), then takes the image once the page has loaded and settled.
 */
export async function capture(
  page: Page,
  load: Load,
  options: ImageOptions,
  limits: SettleLimits,
  extra: { hideOverlays: boolean; step?: StepMark },
): Promise<Captured> {
  const step = extra.step ?? noMark;
  const requests = watchRequests(page);
  try {
    await applyViewport(page, options);
    step('request watch and viewport');
    const mark = requests.started;
    const state = await load();
    step('load');
    return await settleAndTake(page, requests, options, limits, extra, state ? { state, mark } : undefined, step);
  } finally {
    requests.stop();
  }
}

/**
 * Device pixels high of the viewport a full page is scrolled through in: half the capture's own
 * ceiling, so the scroll draws no more than the capture will.
 */
export const SCROLL_VIEWPORT_DEVICE_PX = HEIGHT_CEILING_PX / 2;

/**
 * The viewport height, CSS px, to scroll a document `documentHeight` tall through: as tall as
 * `SCROLL_VIEWPORT_DEVICE_PX` allows, but a requested viewport shorter than the document, so the
 * document still scrolls (scroll handlers see a scroll, at the least back to the top).
 */
export function scrollViewportHeight(options: Pick<ImageOptions, 'height' | 'deviceScaleFactor'>, documentHeight: number): number {
  const tallest = Math.floor(SCROLL_VIEWPORT_DEVICE_PX / options.deviceScaleFactor);
  return Math.max(options.height, Math.min(tallest, Math.floor(documentHeight) - options.height));
}

/**
 * Scrolls down a viewport at a time to the capture's height ceiling (or the end, whichever comes
 * first), so that lazy images and content triggered by scrolling start loading, then back to the
 * top; the page may grow as it goes (infinite scroll), and the ceiling stops that. The viewport is
 * a tall one (`scrollViewportHeight`) for the scroll, the requested one again after: each step
 * waits out the page's throttled scroll handlers (~100 ms), so 900 px steps took ten over 8,000
 * px where this takes one or two, and a tall viewport brings into view what the steps would have.
 */
async function scrollThrough(page: Page, options: ImageOptions, limits: Pick<SettleLimits, 'scrollStepMs' | 'scrollMs'>): Promise<void> {
  // Both settings are no-ops for a document too short to gain from a tall viewport.
  await applyViewport(page, { ...options, height: scrollViewportHeight(options, await documentHeight(page)) });
  try {
    await page.evaluate(
      callActivity(
        'scrollThrough',
        maxCaptureHeight(options.deviceScaleFactor),
        Math.round(limits.scrollStepMs),
        Math.round(limits.scrollMs),
      ),
    );
  } finally {
    await applyViewport(page, options);
  }
}

/**
 * Waits for the load event (unless the loader did, and `reported` what the page said then) and
 * for the page to settle, removes overlays when asked, and takes the image: the viewport, or the
 * whole document up to the height ceiling after scrolling through it.
 */
async function settleAndTake(
  page: Page,
  requests: RequestWatch,
  options: ImageOptions,
  limits: SettleLimits,
  extra: { hideOverlays: boolean },
  reported: Reported | undefined,
  step: StepMark,
): Promise<Captured> {
  if (!reported) {
    await whenLoaded(page, limits.loadMs);
    step('load event');
  }
  let until = Date.now() + limits.idleMs;
  if (options.fullPage) {
    await settle(page, requests, limits, until, { frame: false, reported });
    step('settle');
    reported = undefined; // the scroll below changes what the page would say
    // Modals lock scrolling; remove them before the scroll, and what scrolling brought up after it.
    if (extra.hideOverlays) {
      await hideOverlays(page);
      step('overlays');
    }
    await scrollThrough(page, options, limits);
    step('scroll');
    until = Date.now() + limits.idleMs;
  }
  let truncated = false;
  const take = async () => {
    if (extra.hideOverlays) {
      await hideOverlays(page);
      step('overlays');
    }
    if (!options.fullPage) {
      const shot = await screenshot(page, options);
      step('image');
      return shot;
    }
    const area = fullPageClip(options, await documentHeight(page));
    step('measure');
    truncated = area.truncated;
    const shot = await screenshot(page, options, area.clip);
    step('image');
    return shot;
  };
  const image = await inSpan(
    'chromium capture',
    { 'utility_tools.full_page': Boolean(options.fullPage), 'utility_tools.format': options.format },
    async (span) => {
      const shot = await settledShot(page, requests, limits, until, reported, take, step);
      span.setAttribute('utility_tools.bytes', shot.length);
      return shot;
    },
  );
  const size = imageSize(image);
  step('size');
  return { image, mimeType: options.format === 'png' ? 'image/png' : 'image/jpeg', width: size.width, height: size.height, truncated };
}
