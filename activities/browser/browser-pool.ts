//! A warm pool of isolated pages on the system Chromium, run by puppeteer-cluster. Every capture
//! gets a page in a browser context of its own (no cookies, storage or cache shared between
//! callers) whose traffic goes through a proxy session of its own; spare contexts, their pages
//! ready for a capture (page-activity.ts), are opened ahead of time so a capture does not wait
//! for one (nor for the renderer a new one starts), and a used one closes after the capture has
//! answered. The browser is replaced after a number of captures (new captures go to a fresh
//! browser while the old one finishes what it holds) and when it dies (the captures it held run
//! once more on the new one).
import puppeteer, { type Browser, type BrowserContext, type LaunchOptions, type Page } from 'puppeteer-core';
import { Cluster } from 'puppeteer-cluster';
import type {
  ConcurrencyImplementationClassType,
  JobInstance,
  WorkerInstance,
} from 'puppeteer-cluster/dist/concurrency/ConcurrencyImplementation.js';
import type { Logger } from '../../lib/logger.js';
import type { FilteringProxy, ProxySession } from './filtering-proxy.js';
import { prepareForCapture } from './page-activity.js';

export interface BrowserPoolOptions {
  /** The Chromium binary (`CHROMIUM_PATH`). */
  executablePath: string;
  /** Captures at once (`BROWSER_CONCURRENCY`); one spare page more than that is kept warm (see QUIET_SPARES). */
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
  viewport?: { width: number; height: number; deviceScaleFactor: number };
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

export interface PoolStats {
  /** Browsers started (the first one included). */
  launches: number;
  /** Browsers that died without being asked to. */
  crashes: number;
  /** Tasks that ran again on a new browser after theirs died. */
  retries: number;
  /** Pages handed to tasks. */
  captures: number;
  /** Pages handed out and not yet closed. */
  openPages: number;
  /** Pages opened ahead of time, ready for the next tasks. */
  sparePages: number;
}

export interface BrowserPool {
  /**
   * Runs `task` on a fresh page, queueing while every slot is busy. `signal` abandons the task
   * and closes its page at once (queued tasks never start). A task whose browser dies under it
   * runs once more on a new browser.
   */
  withPage<T>(task: (lease: PageLease) => Promise<T>, signal: AbortSignal): Promise<T>;
  stats(): PoolStats;
  close(): Promise<void>;
}

/**
 * Chromium's flags. Puppeteer adds its own defaults (no first run, no background networking,
 * no sync, no component updates ...); these add what a multi-tenant screenshot service needs.
 */
export function chromiumArgs(options: { fallbackProxy: string; runningAsRoot: boolean; extraArgs?: readonly string[] }): string[] {
  return [
    // Chromium refuses to start as root with its sandbox on; anywhere else it keeps it.
    ...(options.runningAsRoot ? ['--no-sandbox'] : []),
    '--disable-gpu',
    '--hide-scrollbars',
    '--mute-audio',
    // Every browser context gets its own proxy; anything outside one (the default context) goes
    // to a session that carries nothing. Loopback goes through the proxy too (Chromium would
    // otherwise connect to it directly), so the guard decides on 127.0.0.0/8 like on the rest.
    `--proxy-server=${options.fallbackProxy}`,
    '--proxy-bypass-list=<-loopback>',
    // QUIC and WebRTC's UDP would leave without the proxy.
    '--disable-quic',
    '--force-webrtc-ip-handling-policy=disable_non_proxied_udp',
    // Nothing may open windows, ask for permissions or upgrade the scheme the user asked for.
    '--block-new-web-contents',
    '--deny-permission-prompts',
    '--disable-notifications',
    '--disable-features=HttpsUpgrades,HttpsFirstBalancedModeAutoEnable,PrivacySandboxSettings4',
    ...(options.extraArgs ?? []),
  ];
}

interface Generation {
  readonly id: number;
  readonly browser: Browser;
  captures: number;
  open: number;
  /** Takes no new pages; closes once its open pages are done. */
  retired: boolean;
  /** The browser is gone (closed or crashed). */
  lost: boolean;
}

interface Slot {
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

class BrowserLostError extends Error {
  override readonly name = 'BrowserLostError';
}

const CLOSE_TIMEOUT_MS = 5_000;

/**
 * Spare pages kept beyond one per capture slot, opened while the pool is quiet. With one per slot
 * a capture finishing reopens its spare, and a new renderer is slow to start on a loaded machine,
 * so the next call would land on a page still being opened. One more is enough for that; a
 * second set (twice the slots) costs throughput where other work shares the machine.
 */
const QUIET_SPARES = 1;

/**
 * Quiet time, milliseconds, before the pool opens spares beyond one per slot. Opening a context
 * starts a renderer process, which beside a running capture slows it down: right after a
 * capture only the spares the next `concurrency` captures need are reopened.
 */
const IDLE_BEFORE_REFILL_MS = 300;

/**
 * How long after a capture its context closes and its spare reopens: both start or end a
 * renderer process, which on a small machine slowed the rest of the capture's call (its commit and
 * answer) when done at once.
 */
const AFTER_CAPTURE_MS = 100;

function withTimeout<T>(work: Promise<T>, ms: number): Promise<T | undefined> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([work, new Promise<undefined>((resolve) => (timer = setTimeout(() => resolve(undefined), ms)))]).finally(() => clearTimeout(timer));
}

/** Rejects with the signal's reason when it aborts first. */
function abortable<T>(work: Promise<T>, signal: AbortSignal, lost: Promise<never>): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const stop = () => reject(signal.reason);
    signal.addEventListener('abort', stop, { once: true });
    Promise.race([work, lost]).then(resolve, reject).finally(() => signal.removeEventListener('abort', stop));
  });
}

/**
 * The puppeteer-cluster concurrency model behind the pool: one browser at a time (plus a retiring
 * one while it drains), one context per job, spare contexts kept warm. puppeteer-cluster builds
 * it with `new (options, puppeteer)`, so the pool's dependencies come in through this closure.
 */
function warmContexts(pool: {
  options: Required<Pick<BrowserPoolOptions, 'concurrency' | 'recycleAfter' | 'proxy' | 'viewport'>>;
  stats: PoolStats;
  leases: Map<Page, Slot>;
  log?: Logger;
}) {
  const { options, stats, leases, log } = pool;

  return class WarmContexts {
    private current?: Generation;
    private launching?: Promise<Generation>;
    private readonly generations = new Set<Generation>();
    private readonly spares: Slot[] = [];
    private warming = 0;
    /** Opens the spares beyond one per slot once the pool has been quiet (see IDLE_BEFORE_REFILL_MS). */
    private idleRefill?: ReturnType<typeof setTimeout>;
    /** Called when a spare being opened is ready or failed. */
    private onWarmed: Array<() => void> = [];
    private closed = false;
    private nextId = 1;

    constructor(
      private readonly launchOptions: LaunchOptions,
      private readonly driver: typeof puppeteer,
    ) {}

    async init(): Promise<void> {
      await this.live();
      this.refill();
    }

    async close(): Promise<void> {
      this.closed = true;
      clearTimeout(this.idleRefill);
      await Promise.allSettled(this.spares.splice(0).map((s) => this.dispose(s)));
      await Promise.allSettled([...this.generations].map((g) => withTimeout(g.browser.close(), CLOSE_TIMEOUT_MS)));
      stats.sparePages = 0;
    }

    async workerInstance(): Promise<WorkerInstance> {
      return {
        jobInstance: () => this.jobInstance(),
        close: async () => {},
        // puppeteer-cluster calls this when a page could not be opened or closed: start afresh.
        repair: async () => {
          if (this.current) this.retire(this.current);
        },
      };
    }

    private async jobInstance(): Promise<JobInstance> {
      clearTimeout(this.idleRefill); // a capture is starting: the pool is not quiet
      // A spare being opened is nearly ready: wait for it rather than open another beside it.
      while (this.warming > 0 && !this.spares.some((s) => s.gen === this.current && !s.isLost())) await this.warmed();
      const gen = await this.live();
      gen.open++;
      let slot: Slot;
      try {
        slot = this.takeSpare(gen) ?? (await this.openSlot(gen));
      } catch (err) {
        gen.open--;
        this.closeIfDrained(gen);
        throw err;
      }
      gen.captures++;
      stats.captures++;
      stats.openPages++;
      if (gen.captures >= options.recycleAfter) this.retire(gen);
      leases.set(slot.page, slot);
      return {
        resources: { page: slot.page },
        close: async () => {
          leases.delete(slot.page);
          stats.openPages--;
          // The capture's answer waits neither for its context to close nor for the next spare,
          // and neither competes with the rest of its call (commit, answer) for the machine.
          setTimeout(() => this.release(slot), AFTER_CAPTURE_MS);
        },
      };
    }

    /** Closes a used page's context (its browser closes once drained) and opens the next spare. */
    private release(slot: Slot): void {
      void this.dispose(slot).finally(() => {
        slot.gen.open--;
        this.closeIfDrained(slot.gen);
      });
      this.refill();
    }

    /** The browser taking new pages, launched when there is none. */
    private live(): Promise<Generation> {
      const gen = this.current;
      if (gen && !gen.lost && !gen.retired) return Promise.resolve(gen);
      this.launching ??= this.launch().finally(() => (this.launching = undefined));
      return this.launching;
    }

    private async launch(): Promise<Generation> {
      const browser = await this.driver.launch(this.launchOptions);
      const gen: Generation = { id: this.nextId++, browser, captures: 0, open: 0, retired: false, lost: false };
      stats.launches++;
      this.generations.add(gen);
      browser.once('disconnected', () => {
        gen.lost = true;
        this.generations.delete(gen);
        if (!gen.retired && !this.closed) {
          stats.crashes++;
          log?.warn({ browser: gen.id, captures: gen.captures }, 'browser died; the next capture starts a new one');
        }
        this.refill();
      });
      if (this.closed) {
        await browser.close();
        throw new Error('the browser pool is closed');
      }
      this.current = gen;
      log?.debug({ browser: gen.id }, 'browser started');
      return gen;
    }

    /** New pages go to a new browser from now on; this one closes when its pages are done. */
    private retire(gen: Generation): void {
      if (gen.retired) return;
      gen.retired = true;
      if (this.current === gen) this.current = undefined;
      log?.debug({ browser: gen.id, captures: gen.captures }, 'recycling browser');
      if (!this.closed) void this.live().catch(() => {}); // its successor starts while it drains
      this.closeIfDrained(gen);
    }

    private closeIfDrained(gen: Generation): void {
      if ((gen.retired || gen.lost) && gen.open === 0) void withTimeout(gen.browser.close(), CLOSE_TIMEOUT_MS).catch(() => {});
    }

    private takeSpare(gen: Generation): Slot | undefined {
      while (this.spares.length) {
        const slot = this.spares.shift()!;
        stats.sparePages = this.spares.length;
        if (slot.gen === gen && !slot.isLost()) return slot;
        void this.dispose(slot);
      }
      return undefined;
    }

    private warmed(): Promise<void> {
      return new Promise((resolve) => this.onWarmed.push(resolve));
    }

    /**
     * Keeps spare pages warm on the current browser: `concurrency` of them at once, QUIET_SPARES
     * more once no capture has run for IDLE_BEFORE_REFILL_MS. Called when the
     * pool starts and when a page is done, not when one is taken: opening a context starts a
     * renderer process, which beside a running capture on a small machine slows that capture down.
     */
    private refill(): void {
      if (this.closed) return;
      this.openSpares(options.concurrency);
      clearTimeout(this.idleRefill);
      this.idleRefill = setTimeout(() => {
        if (stats.openPages === 0) this.openSpares(options.concurrency + QUIET_SPARES);
      }, IDLE_BEFORE_REFILL_MS);
    }

    /** Opens spare pages until `count` are ready or being opened. */
    private openSpares(count: number): void {
      while (!this.closed && this.spares.length + this.warming < count) {
        this.warming++;
        this.live()
          .then((gen) => this.openSlot(gen))
          .then(
            (slot) => {
              if (this.closed || slot.gen !== this.current) void this.dispose(slot);
              else this.spares.push(slot);
              stats.sparePages = this.spares.length;
            },
            (err: unknown) => log?.warn({ err }, 'could not open a spare page'),
          )
          .finally(() => {
            this.warming--;
            for (const wake of this.onWarmed.splice(0)) wake();
          });
      }
    }

    private async openSlot(gen: Generation): Promise<Slot> {
      const session = await options.proxy.openSession();
      let context: BrowserContext | undefined;
      try {
        context = await gen.browser.createBrowserContext({
          proxyServer: session.url,
          proxyBypassList: ['<-loopback>'],
          downloadBehavior: { policy: 'deny' },
        });
        const page = await context.newPage();
        await page.setViewport(options.viewport);
        await prepareForCapture(page);
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

    private async dispose(slot: Slot): Promise<void> {
      slot.detach();
      await withTimeout(slot.context.close(), CLOSE_TIMEOUT_MS).catch(() => {});
      await slot.session.close();
    }
  };
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
  const recycleAfter = options.recycleAfter ?? 200;
  const maxPageLifetimeMs = options.maxPageLifetimeMs ?? 120_000;
  const viewport = options.viewport ?? { width: 1440, height: 900, deviceScaleFactor: 1 };
  let closed = false;
  let fallback: ProxySession | undefined;

  async function start(): Promise<Cluster> {
    // A session no capture ever configures: it refuses everything (see chromiumArgs).
    fallback ??= await options.proxy.openSession();
    const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
    const launchOptions: LaunchOptions = {
      executablePath: options.executablePath,
      headless: true,
      // CDP over a pipe: no debugging port on localhost for anything else to reach.
      pipe: true,
      args: chromiumArgs({ fallbackProxy: fallback.url, runningAsRoot, extraArgs: options.extraArgs }),
      defaultViewport: null,
      // The worker shuts down in order on signals; Chromium must not die before it has drained.
      handleSIGINT: false,
      handleSIGTERM: false,
      handleSIGHUP: false,
      protocolTimeout: maxPageLifetimeMs,
    };
    return Cluster.launch({
      // Structurally what puppeteer-cluster calls; its abstract base class is not exported as ESM.
      concurrency: warmContexts({ options: { concurrency: options.concurrency, recycleAfter, proxy: options.proxy, viewport }, stats, leases, log }) as unknown as ConcurrencyImplementationClassType,
      maxConcurrency: options.concurrency,
      puppeteer,
      puppeteerOptions: launchOptions,
      timeout: maxPageLifetimeMs,
      retryLimit: 0,
      monitor: false,
    });
  }

  let cluster: Promise<Cluster> | undefined;
  const started = () => {
    if (closed) return Promise.reject(new Error('the browser pool is closed'));
    cluster ??= start().catch((err: unknown) => {
      cluster = undefined;
      throw err;
    });
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
      const work = task({ page, session: slot.session });
      work.catch(() => {}); // once abandoned, closing the page fails whatever the task still awaits
      return abortable(work, signal, slot.lost);
    }) as Promise<T>;
  }

  return {
    ready,
    async withPage(task, signal) {
      signal.throwIfAborted();
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
    },
    stats: () => ({ ...stats }),
    async close() {
      closed = true;
      const c = await cluster?.catch(() => undefined);
      await c?.close();
      await fallback?.close();
    },
  };
}
