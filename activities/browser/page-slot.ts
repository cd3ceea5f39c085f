//! One capture's page: a browser context of its own whose traffic goes through a proxy session of
//! its own, opened ready for a capture (page-activity.ts), and the signal that its renderer or its
//! browser died under it.
import type { Browser, BrowserContext, Page } from 'puppeteer-core';
import type { FilteringProxy, ProxySession } from './filtering-proxy.js';
import { callActivity, prepareForCapture } from './page-activity.js';

/** One browser the pool started, with what it has served and holds. */
export interface Generation {
  readonly id: number;
  readonly browser: Browser;
  captures: number;
  open: number;
  /** Takes no new pages; closes once its open pages are done. */
  retired: boolean;
  /** The browser is gone (closed or crashed). */
  lost: boolean;
}

export interface Slot {
  readonly gen: Generation;
  readonly context: BrowserContext;
  readonly page: Page;
  readonly session: ProxySession;
  /** Rejects when the page's renderer or its browser dies. */
  readonly lost: Promise<never>;
  isLost(): boolean;
  /** Drops the slot's listeners on the browser (which outlives it). */
  detach(): void;
}

export class BrowserLostError extends Error {
  override readonly name = 'BrowserLostError';
}

export const CLOSE_TIMEOUT_MS = 5_000;

export function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([work, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() =>
    clearTimeout(timer),
  );
}

/** A page's viewport: CSS pixels at a device scale. */
export interface Viewport {
  width: number;
  height: number;
  deviceScaleFactor: number;
}

/** Text in the default fonts, nothing to load: what a renderer draws once before its first capture. */
const FIRST_DOCUMENT =
  '<!doctype html><html><head><meta charset="utf-8"></head><body><h1>Utility Tools</h1><p>ready <b>for</b> <i>capture</i></p></body></html>';

/**
 * Draws a throwaway document once and takes its image: a new renderer's first document, first
 * layout with the default fonts and first frame cost a capture about as much again as its own
 * work (bench:heavy's anatomy of html-to-image). Markup written later replaces the document; a
 * navigation replaces it too.
 */
async function drawFirstFrame(page: Page): Promise<void> {
  await page.evaluate(callActivity('write', FIRST_DOCUMENT, 1_000, 0));
  // The whole frame is drawn; only its top-left pixel is encoded (a PNG of the viewport took 20 ms more).
  await page.screenshot({ type: 'png', captureBeyondViewport: false, clip: { x: 0, y: 0, width: 1, height: 1 } });
}

/** How a page is opened (openSlot). */
export interface OpenOptions {
  proxy: FilteringProxy;
  viewport: Viewport;
  /** The page draws a first frame (drawFirstFrame): for a spare opened off any capture's clock. */
  drawn?: boolean;
  /** Awaited before each step that opens a context, starts its renderer or draws: a spare gives way to captures. */
  giveWay?: () => Promise<void>;
}

/** Opens a page on `gen`'s browser in a context of its own, behind a proxy session of its own. */
export async function openSlot(gen: Generation, options: OpenOptions): Promise<Slot> {
  await options.giveWay?.();
  const session = await options.proxy.openSession();
  let context: BrowserContext | undefined;
  try {
    context = await gen.browser.createBrowserContext({
      proxyServer: session.url,
      proxyBypassList: ['<-loopback>'],
      downloadBehavior: { policy: 'deny' },
    });
    await options.giveWay?.();
    const page = await context.newPage();
    await page.setViewport(options.viewport);
    await prepareForCapture(page);
    if (options.drawn) {
      await options.giveWay?.();
      await drawFirstFrame(page);
    }
    let lost = false;
    let rejectLost!: (err: Error) => void;
    const lostPromise = new Promise<never>((_, reject) => (rejectLost = reject));
    lostPromise.catch(() => {});
    const markLost = (why: string) => {
      if (lost) return;
      lost = true;
      rejectLost(new BrowserLostError(why));
    };
    const onCrash = () => markLost('the page crashed');
    const onDisconnect = () => markLost('the browser died');
    page.once('error', onCrash);
    gen.browser.once('disconnected', onDisconnect);
    const detach = () => {
      page.off('error', onCrash);
      gen.browser.off('disconnected', onDisconnect);
    };
    // A dialog would stop the page until answered; nobody is there to answer.
    page.on('dialog', (dialog) => void dialog.dismiss().catch(() => {}));
    return { gen, context, page, session, lost: lostPromise, isLost: () => lost || gen.lost, detach };
  } catch (err) {
    await withTimeout(context?.close() ?? Promise.resolve(), CLOSE_TIMEOUT_MS).catch(() => {});
    await session.close();
    throw err;
  }
}

/** Closes a slot's context and its proxy session. */
export async function disposeSlot(slot: Slot): Promise<void> {
  slot.detach();
  await withTimeout(slot.context.close(), CLOSE_TIMEOUT_MS).catch(() => {});
  await slot.session.close();
}
