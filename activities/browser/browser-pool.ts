//! A warm pool of isolated pages on the system Chromium, run by puppeteer-cluster. Every capture
//! gets a page in a browser context of its own (no cookies, storage or cache shared between
//! callers) whose traffic goes through a proxy session of its own; spare contexts, their pages
//! ready for a capture (page-activity.ts), are opened ahead of time so a capture does not wait
//! for one (nor for the renderer a new one starts), and a used one closes after the capture has
//! answered. The browser is replaced after a number of captures (new captures go to a fresh
//! browser while the old one finishes what it holds) and when it dies (the captures it held run
//! once more on the new one).
import puppeteer, { type Page } from 'puppeteer-core';
import { Cluster } from 'puppeteer-cluster';
import type { Logger } from '../../lib/logger.js';
import { chromiumLaunchOptions } from './chromium-launch.js';
import type { FilteringProxy, ProxySession } from './filtering-proxy.js';
import { BrowserLostError, type Slot, type Viewport } from './page-slot.js';
import { warmContexts, type PoolStats } from './warm-contexts.js';
import { abortable } from '../../lib/abortable.js';

export interface BrowserPoolOptions {
  /** The Chromium binary (`CHROMIUM_PATH`). */
  executablePath: string;
  /** Chromium's own sandbox (`CHROMIUM_SANDBOX`). @default true */
  sandbox?: boolean;
  /** Captures at once (`BROWSER_CONCURRENCY`); one spare page more than that is kept warm (see QUIET_SPARES in warm-contexts.ts). */
  concurrency: number;
  /**
   * Captures one browser serves before it is replaced (`BROWSER_RECYCLE_AFTER`). Bounds what a
   * long-lived Chromium accumulates (memory, caches, leaked renderers). @default 200
   */
  recycleAfter?: number;
  /** Opens the proxy session each browser context sends all its traffic through. */
  proxy: FilteringProxy;
  /**
   * Longest a page may live, milliseconds: a backstop for a task that ignores its deadline. The
   * tools' own deadlines are shorter. @default 120000
   */
  maxPageLifetimeMs?: number;
  /** Extra Chromium flags. Tests use it to trust their own certificates' keys. */
  extraArgs?: readonly string[];
  /**
   * Viewport spare pages are opened with, so a capture of that size skips resizing.
   * @default 1440x900 at scale 1 (the tools' defaults)
   */
  viewport?: Viewport;
  /** When the first browser launches: once this settles, or at the first capture. At once when absent. */
  startAfter?: Promise<unknown>;
  log?: Logger;
}

/** What a task gets: its page and the proxy session the page's traffic goes through. */
export interface PageLease {
  /** Fresh, and ready for a capture: the activity script is in it (page-activity.ts). */
  readonly page: Page;
  readonly session: ProxySession;
}

export interface BrowserPool {
  /**
   * Runs `task` on a fresh page, queueing while every slot is busy. `signal` abandons the task
   * and closes its page at once (queued tasks never start). A task whose browser dies under it
   * runs once more on a new browser.
   */
  withPage<T>(task: (lease: PageLease) => Promise<T>, signal: AbortSignal): Promise<T>;
  stats(): PoolStats;
  /** `null` while a browser is up to take captures, else what is wrong (not started yet, could not start, died). */
  health(): string | null;
  close(): Promise<void>;
}

export interface BrowserPoolHandle extends BrowserPool {
  /** Resolves when the first browser is up and spare pages are being opened. */
  readonly ready: Promise<void>;
}

/**
 * Starts the pool in the background: the first browser launches at once (or once `startAfter`
 * settles, or at the first capture), and calls wait for it. A failed start is retried by the
 * next call.
 */
export function createBrowserPool(options: BrowserPoolOptions): BrowserPoolHandle {
  const log = options.log;
  const stats: PoolStats = { launches: 0, crashes: 0, retries: 0, captures: 0, openPages: 0, sparePages: 0 };
  const leases = new Map<Page, Slot>();
  const calls = { active: 0 };
  const recycleAfter = options.recycleAfter ?? 200;
  const maxPageLifetimeMs = options.maxPageLifetimeMs ?? 120_000;
  const viewport = options.viewport ?? { width: 1440, height: 900, deviceScaleFactor: 1 };
  let closed = false;
  let fallback: ProxySession | undefined;
  const state = { browserUp: false };
  let startFailure: string | undefined;

  async function start(): Promise<Cluster> {
    // A session no capture ever configures: it refuses everything (see chromiumArgs, chromium-launch.ts).
    fallback ??= await options.proxy.openSession();
    return Cluster.launch({
      concurrency: warmContexts({
        options: { concurrency: options.concurrency, recycleAfter, proxy: options.proxy, viewport },
        stats,
        state,
        leases,
        calls,
        log,
      }),
      maxConcurrency: options.concurrency,
      puppeteer,
      puppeteerOptions: chromiumLaunchOptions({
        executablePath: options.executablePath,
        sandbox: options.sandbox,
        fallbackProxy: fallback.url,
        extraArgs: options.extraArgs,
        protocolTimeout: maxPageLifetimeMs,
      }),
      timeout: maxPageLifetimeMs,
      retryLimit: 0,
      monitor: false,
    });
  }

  let cluster: Promise<Cluster> | undefined;
  const started = () => {
    if (closed) return Promise.reject(new Error('the browser pool is closed'));
    cluster ??= start().then(
      (c) => {
        startFailure = undefined;
        return c;
      },
      (err: unknown) => {
        cluster = undefined;
        startFailure = (err as Error).message ?? String(err);
        throw err;
      },
    );
    return cluster;
  };
  const launchDue = async () => {
    await options.startAfter?.catch(() => {});
    if (!closed) await started();
  };
  const ready = launchDue().catch((err: unknown) => log?.error({ err }, 'the browser pool could not start; the next capture tries again'));

  async function runOnce<T>(task: (lease: PageLease) => Promise<T>, signal: AbortSignal, seen: { slot?: Slot }): Promise<T> {
    const c = await started();
    return c.execute(undefined, async ({ page }: { page: Page }) => {
      const slot = leases.get(page);
      if (!slot) throw new Error('page without a lease');
      seen.slot = slot;
      signal.throwIfAborted(); // abandoned while queued
      // Once abandoned, closing the page fails whatever the task still awaits: abortable observes that.
      return abortable(Promise.race([task({ page, session: slot.session }), slot.lost]), signal);
    }) as Promise<T>;
  }

  return {
    ready,
    async withPage(task, signal) {
      signal.throwIfAborted();
      calls.active++; // counted at once: the pool's background work gives way from now on
      try {
        for (let attempt = 1; ; attempt++) {
          const seen: { slot?: Slot } = {};
          try {
            return await runOnce(task, signal, seen);
          } catch (err) {
            const died = err instanceof BrowserLostError || Boolean(seen.slot?.isLost());
            if (attempt === 1 && died && !signal.aborted) {
              stats.retries++;
              log?.warn({ err }, 'browser died under a capture; running it again on a new browser');
              continue;
            }
            throw err;
          }
        }
      } finally {
        calls.active--;
      }
    },
    stats: () => ({ ...stats }),
    health() {
      if (state.browserUp) return null;
      if (startFailure) return `could not start: ${startFailure.split('\n')[0]}`;
      return stats.launches === 0 ? 'not started yet' : 'down (a new one is starting)';
    },
    async close() {
      closed = true;
      const c = await cluster?.catch(() => undefined);
      await c?.close();
      await fallback?.close();
    },
  };
}
