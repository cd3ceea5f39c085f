//! The puppeteer-cluster concurrency model behind the browser pool: one browser at a time (plus a
//! retiring one while it drains), one context per job, spare contexts kept warm so a capture does
//! not wait for one (nor for the renderer a new one starts).
import type puppeteer from 'puppeteer-core';
import type { LaunchOptions, Page } from 'puppeteer-core';
import type {
  ConcurrencyImplementationClassType,
  JobInstance,
  WorkerInstance,
} from 'puppeteer-cluster/dist/concurrency/ConcurrencyImplementation.js';
import type { Logger } from '../../lib/logger.js';
import type { FilteringProxy } from './filtering-proxy.js';
import { CLOSE_TIMEOUT_MS, disposeSlot, openSlot, withTimeout, type Generation, type Slot, type Viewport } from './page-slot.js';

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
 * answer) when done at once. Just past that answer (about 20 ms after the page is done, 30 at
 * p95), not later: the work takes about 100 ms, and a call arriving meanwhile has no capture under
 * way yet for it to give way to (docs/BENCHMARKS.md).
 */
const AFTER_CAPTURE_MS = 50;

/**
 * Longest the pool's own work (closing a used context, opening a spare) gives way to captures
 * (giveWay), milliseconds: long enough for a small document's capture to finish first; under a
 * steady stream of captures the pool is never quiet, and a spare opened beside the capture before
 * the next call is ready for it.
 */
const GIVE_WAY_MAX_MS = 150;

/** What the pool counts (BrowserPool.stats), most of it here. */
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

/** What the pool shares with its concurrency model (BrowserPoolOptions says what each means). */
export interface WarmPool {
  options: {
    concurrency: number;
    recycleAfter: number;
    proxy: FilteringProxy;
    viewport: Viewport;
  };
  stats: PoolStats;
  /** Whether a browser is up to take new pages (the worker's health endpoint reads it). */
  state: { browserUp: boolean };
  /** The slot behind each page handed out, for the pool to find its session and its fate. */
  leases: Map<Page, Slot>;
  /** Calls for a page not yet ended, queued or running: spares give way to them (giveWay). */
  calls: { active: number };
  log?: Logger;
}

class WarmContexts {
  private current?: Generation;
  private launching?: Promise<Generation>;
  private readonly generations = new Set<Generation>();
  private readonly spares: Slot[] = [];
  private warming = 0;
  /** Opens the spares beyond one per slot once the pool has been quiet (see IDLE_BEFORE_REFILL_MS). */
  private idleRefill?: ReturnType<typeof setTimeout>;
  /** Called when a spare being opened is ready or failed. */
  private onWarmed: Array<() => void> = [];
  /** Captures ended less than AFTER_CAPTURE_MS ago. */
  private justEnded = 0;
  /** Captures waiting for a spare being opened. */
  private waitingForSpare = 0;
  /** Spares being opened that wait for the pool to be quiet (giveWay). */
  private givingWay: Array<() => void> = [];
  private closed = false;
  private nextId = 1;
  private readonly options: WarmPool['options'];
  private readonly stats: PoolStats;
  private readonly state: WarmPool['state'];
  private readonly leases: Map<Page, Slot>;
  private readonly calls: WarmPool['calls'];
  private readonly log?: Logger;

  constructor(
    pool: WarmPool,
    private readonly launchOptions: LaunchOptions,
    private readonly driver: typeof puppeteer,
  ) {
    ({ options: this.options, stats: this.stats, state: this.state, leases: this.leases, calls: this.calls, log: this.log } = pool);
  }

  async init(): Promise<void> {
    await this.live();
    this.refill();
  }

  async close(): Promise<void> {
    this.closed = true;
    clearTimeout(this.idleRefill);
    this.wakeGivingWay();
    await Promise.allSettled(this.spares.splice(0).map((s) => disposeSlot(s)));
    await Promise.allSettled([...this.generations].map((g) => withTimeout(g.browser.close(), CLOSE_TIMEOUT_MS)));
    this.stats.sparePages = 0;
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
    const { stats } = this;
    clearTimeout(this.idleRefill); // a capture is starting: the pool is not quiet
    // A spare being opened is nearly ready: wait for it rather than open another beside it.
    while (this.warming > 0 && !this.hasSpare()) {
      this.waitingForSpare++;
      this.wakeGivingWay();
      await this.warmed().finally(() => this.waitingForSpare--);
    }
    const gen = await this.live();
    gen.open++;
    let slot: Slot;
    try {
      slot = this.takeSpare(gen) ?? (await openSlot(gen, this.options));
    } catch (err) {
      gen.open--;
      this.closeIfDrained(gen);
      throw err;
    }
    gen.captures++;
    stats.captures++;
    stats.openPages++;
    if (gen.captures >= this.options.recycleAfter) this.retire(gen);
    this.leases.set(slot.page, slot);
    return {
      resources: { page: slot.page },
      close: async () => {
        this.leases.delete(slot.page);
        stats.openPages--;
        // The capture's answer waits neither for its context to close nor for the next spare,
        // and neither competes with the rest of its call (commit, answer) for the machine.
        this.justEnded++;
        setTimeout(() => {
          this.justEnded--;
          this.release(slot);
        }, AFTER_CAPTURE_MS);
      },
    };
  }

  /** Closes a used page's context (its browser closes once drained) and opens the next spare. */
  private release(slot: Slot): void {
    // Closing a context beside a capture slows it as much as opening one (giveWay).
    void this.giveWay(performance.now() + GIVE_WAY_MAX_MS)
      .then(() => disposeSlot(slot))
      .finally(() => {
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
    this.stats.launches++;
    this.generations.add(gen);
    browser.once('disconnected', () => {
      gen.lost = true;
      this.generations.delete(gen);
      if (this.current === gen) this.state.browserUp = false;
      if (!gen.retired && !this.closed) {
        this.stats.crashes++;
        this.log?.warn({ browser: gen.id, captures: gen.captures }, 'browser died; the next capture starts a new one');
      }
      this.refill();
    });
    if (this.closed) {
      await browser.close();
      throw new Error('the browser pool is closed');
    }
    this.current = gen;
    this.state.browserUp = true;
    this.log?.debug({ browser: gen.id }, 'browser started');
    return gen;
  }

  /** New pages go to a new browser from now on; this one closes when its pages are done. */
  private retire(gen: Generation): void {
    if (gen.retired) return;
    gen.retired = true;
    if (this.current === gen) this.current = undefined;
    this.log?.debug({ browser: gen.id, captures: gen.captures }, 'recycling browser');
    if (!this.closed) void this.live().catch(() => {}); // its successor starts while it drains
    this.closeIfDrained(gen);
  }

  private closeIfDrained(gen: Generation): void {
    if ((gen.retired || gen.lost) && gen.open === 0) void withTimeout(gen.browser.close(), CLOSE_TIMEOUT_MS).catch(() => {});
  }

  private takeSpare(gen: Generation): Slot | undefined {
    while (this.spares.length) {
      const slot = this.spares.shift()!;
      this.stats.sparePages = this.spares.length;
      if (slot.gen === gen && !slot.isLost()) return slot;
      void disposeSlot(slot);
    }
    return undefined;
  }

  /** A spare on the current browser is ready to be taken. */
  private hasSpare(): boolean {
    return this.spares.some((s) => s.gen === this.current && !s.isLost());
  }

  /**
   * Resolves once no call for a page is under way nor a capture ended less than AFTER_CAPTURE_MS
   * ago, when a capture waits for a spare, or at `until` (GIVE_WAY_MAX_MS after the work was
   * due). Closing a used context or opening a spare (a renderer started, a first frame drawn)
   * beside a capture on two cores took a small document's load step from ~4 ms to ~11-15 ms: each
   * step of that work waits for a quiet pool, so a call arriving meanwhile meets one step at most.
   */
  private async giveWay(until: number): Promise<void> {
    // A call that starts in the same turn of the event loop (its timer due with the one that
    // called this) is counted by then.
    await new Promise((resolve) => setImmediate(resolve));
    if (this.quiet() || performance.now() >= until) return;
    return new Promise((resolve) => {
      const timer = setTimeout(() => done(), until - performance.now());
      const done = () => {
        clearTimeout(timer);
        this.givingWay = this.givingWay.filter((w) => w !== done);
        resolve();
      };
      this.givingWay.push(done);
    });
  }

  private quiet(): boolean {
    return this.closed || this.waitingForSpare > 0 || (this.calls.active === 0 && this.stats.openPages === 0 && this.justEnded === 0);
  }

  private wakeGivingWay(): void {
    if (this.quiet()) for (const wake of [...this.givingWay]) wake();
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
    this.wakeGivingWay();
    const { concurrency } = this.options;
    this.openSpares(concurrency);
    clearTimeout(this.idleRefill);
    this.idleRefill = setTimeout(() => {
      if (this.stats.openPages === 0) this.openSpares(concurrency + QUIET_SPARES);
    }, IDLE_BEFORE_REFILL_MS);
  }

  /** Opens spare pages until `count` are ready or being opened. */
  private openSpares(count: number): void {
    while (!this.closed && this.spares.length + this.warming < count) {
      this.warming++;
      const until = performance.now() + GIVE_WAY_MAX_MS;
      this.live()
        .then((gen) => openSlot(gen, { ...this.options, drawn: true, giveWay: () => this.giveWay(until) }))
        .then(
          (slot) => {
            if (this.closed || slot.gen !== this.current) void disposeSlot(slot);
            else this.spares.push(slot);
            this.stats.sparePages = this.spares.length;
          },
          (err: unknown) => this.log?.warn({ err }, 'could not open a spare page'),
        )
        .finally(() => {
          this.warming--;
          for (const wake of this.onWarmed.splice(0)) wake();
        });
    }
  }
}

/**
 * The concurrency class for `Cluster.launch`. puppeteer-cluster builds it with
 * `new (options, puppeteer)`, so the pool's dependencies come in through this closure.
 */
export function warmContexts(pool: WarmPool): ConcurrencyImplementationClassType {
  class BoundWarmContexts extends WarmContexts {
    constructor(launchOptions: LaunchOptions, driver: typeof puppeteer) {
      super(pool, launchOptions, driver);
    }
  }
  // Structurally what puppeteer-cluster calls; its abstract base class is not exported as ESM.
  return BoundWarmContexts as unknown as ConcurrencyImplementationClassType;
}
