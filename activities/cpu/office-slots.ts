//! The warm LibreOffice listeners of a converter (office-listener.ts), one per slot with a profile
//! of its own: started once `startAfter` settles (or at the first conversion), lent to one
//! conversion at a time, and replaced when one dies, is killed, may be at fault or has done its
//! share, with a growing pause between failed starts.
import { randomUUID } from 'node:crypto';
import { rm } from 'node:fs/promises';
import path from 'node:path';
import type { Logger } from '../../lib/logger.js';
import { startedOnce } from '../../lib/started-once.js';
import { startOfficeListener, type OfficeIsolation, type OfficeListener, type OfficeListenerOptions } from './office-listener.js';

export interface ListenerSlotsOptions {
  /** Listeners kept warm, i.e. conversions at once. */
  listeners: number;
  isolation?: OfficeIsolation;
  /** Replace a listener after this many conversions (LibreOffice's memory grows). @default 500 */
  recycleAfter?: number;
  /** Where the slots' profiles go. */
  workDir: string;
  listener?: Pick<OfficeListenerOptions, 'python' | 'soffice' | 'startTimeoutMs'>;
  log?: Logger;
  /** When the listeners start: once this settles, or at the first conversion. At once when absent. */
  startAfter?: Promise<unknown>;
}

export type SlotState = 'starting' | 'idle' | 'busy' | 'waiting-to-restart' | 'closed';

export interface SlotStatus {
  slot: number;
  state: SlotState;
  /** Process group of the current listener. */
  pid?: number;
  /** Listeners started in this slot so far. */
  starts: number;
  conversions: number;
}

export interface Slot {
  index: number;
  state: SlotState;
  listener?: OfficeListener;
  /** Order of the current listener's start among all the converter's starts. */
  serial: number;
  starts: number;
  conversions: number;
  failedStarts: number;
}

interface Waiter {
  /** Only a listener started after this serial will do. */
  after: number;
  resolve: (slot: Slot) => void;
  reject: (err: unknown) => void;
}

/** Pause before the n-th consecutive failed start is retried: 1 s doubling to 30 s. */
export function restartDelayMs(failedStarts: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.max(0, failedStarts - 1));
}

/** Conversions waiting for a listener: first come, first served among those a slot suits. */
function createWaitQueue() {
  const waiters: Waiter[] = [];
  return {
    /** Resolves with the slot `offer` hands over; an abort gives the place up. */
    wait(after: number, signal?: AbortSignal): Promise<Slot> {
      return new Promise<Slot>((resolve, reject) => {
        const waiter: Waiter = {
          after,
          resolve: (slot) => {
            signal?.removeEventListener('abort', onAbort);
            resolve(slot);
          },
          reject,
        };
        const onAbort = () => {
          const at = waiters.indexOf(waiter);
          if (at >= 0) waiters.splice(at, 1);
          reject(signal!.reason);
        };
        signal?.addEventListener('abort', onAbort, { once: true });
        waiters.push(waiter);
      });
    },
    /** Hands an idle slot to the first waiter whose listener it may be; false when none. */
    offer(slot: Slot): boolean {
      const at = waiters.findIndex((w) => slot.serial > w.after);
      if (at < 0) return false;
      const [waiter] = waiters.splice(at, 1);
      slot.state = 'busy';
      waiter!.resolve(slot);
      return true;
    },
    rejectAll(err: () => unknown): void {
      waiters.splice(0).forEach((w) => w.reject(err()));
    },
  };
}

/** A slot's next listener, on the slot's profile (kept across restarts, wiped after a failed start). */
async function spawnListener(slot: Slot, options: ListenerSlotsOptions): Promise<OfficeListener> {
  const profileDir = path.join(options.workDir, `profile-${slot.index}`);
  // A reused profile restarts several times faster than a fresh one; after a failed start it is
  // wiped, since a killed soffice can leave it half-written.
  if (slot.failedStarts > 0) await rm(profileDir, { recursive: true, force: true });
  return startOfficeListener({
    ...options.listener,
    profileDir,
    pipeName: `utility-tools-office-${process.pid}-${slot.index}-${slot.starts}-${randomUUID().slice(0, 8)}`,
    isolation: options.isolation ?? 'namespace',
    log: options.log,
  });
}

export interface ListenerSlots {
  /** An idle slot for one conversion, whose listener is among those started after the first `after`. */
  acquire(signal: AbortSignal | undefined, after: number): Promise<Slot>;
  /** Back to idle when `keep`, else (or when it has done its share) its listener is replaced. */
  release(slot: Slot, keep: boolean): void;
  /** Listeners started so far: one started later is fresh. */
  starts(): number;
  /** Starts the listeners if they were not yet; resolves once each is ready and idle. */
  whenReady(): Promise<void>;
  status(): SlotStatus[];
  /** Stops every listener (cleanly, killing any that does not stop within 3 s). */
  close(): Promise<void>;
}

export function createListenerSlots(options: ListenerSlotsOptions): ListenerSlots {
  if (!Number.isInteger(options.listeners) || options.listeners < 1)
    throw new RangeError(`listeners must be a positive integer, got ${options.listeners}`);
  const log = options.log;
  const recycleAfter = options.recycleAfter ?? 500;
  const slots: Slot[] = Array.from({ length: options.listeners }, (_, index) => ({
    index,
    state: 'starting',
    serial: 0,
    starts: 0,
    conversions: 0,
    failedStarts: 0,
  }));
  let serials = 0;
  const waiters = createWaitQueue();
  const readyWatchers: Array<() => void> = [];
  let closed = false;

  /** Every slot is between failed starts: LibreOffice cannot run here right now. */
  const allFailing = () => slots.every((s) => s.state === 'waiting-to-restart');
  let lastStartError = '';
  const unavailable = () => new Error(`no office listener could be started; the last attempt failed with: ${lastStartError}`);

  function dispatch() {
    for (const slot of slots) if (slot.state === 'idle') waiters.offer(slot);
    if (slots.every((s) => s.state === 'idle') && readyWatchers.length) readyWatchers.splice(0).forEach((notify) => notify());
  }

  async function start(slot: Slot) {
    if (closed) return;
    slot.state = 'starting';
    slot.starts++;
    slot.serial = ++serials;
    slot.conversions = 0;
    const listener = await spawnListener(slot, options);
    if (closed) return listener.kill();
    slot.listener = listener;
    void listener.exited.then(() => {
      // A death while starting is handled below, one while converting by release(); this is a
      // listener that died while idle.
      if (slot.listener !== listener || closed || slot.state !== 'idle') return;
      log?.warn({ slot: slot.index, listenerPid: listener.pid }, 'office listener exited while idle; restarting');
      slot.listener = undefined;
      void start(slot);
    });
    try {
      const { startMs } = await listener.ready;
      if (slot.listener !== listener || closed) return;
      slot.failedStarts = 0;
      slot.state = 'idle';
      log?.info({ slot: slot.index, listenerPid: listener.pid, startMs }, 'office listener ready');
      dispatch();
    } catch (err) {
      if (slot.listener !== listener || closed) return;
      slot.failedStarts++;
      const delay = restartDelayMs(slot.failedStarts);
      const hint = (options.isolation ?? 'namespace') === 'namespace' ? ' (its network namespace needs unshare to be permitted)' : '';
      log?.error({ slot: slot.index, err: String(err), retryInMs: delay }, `office listener failed to start${hint}`);
      slot.state = 'waiting-to-restart';
      listener.kill();
      slot.listener = undefined;
      lastStartError = String(err instanceof Error ? err.message : err);
      if (allFailing()) waiters.rejectAll(unavailable);
      setTimeout(() => void start(slot), delay).unref();
    }
  }

  function acquire(signal: AbortSignal | undefined, after: number): Promise<Slot> {
    if (closed) return Promise.reject(new Error('the office converter is closed'));
    listeners.get();
    // Fail now rather than at the call's deadline (Temporal retries it while the deadline allows).
    if (allFailing()) return Promise.reject(unavailable());
    signal?.throwIfAborted();
    const slot = waiters.wait(after, signal);
    dispatch();
    return slot;
  }

  /** Back to idle, or replaced when it was killed or has done its share. */
  function release(slot: Slot, listenerAlive: boolean) {
    if (closed) return;
    if (listenerAlive && slot.conversions < recycleAfter) {
      slot.state = 'idle';
      dispatch();
      return;
    }
    const old = slot.listener;
    slot.listener = undefined;
    slot.state = 'starting';
    old?.kill();
    void start(slot);
  }

  const listeners = startedOnce(() => slots.forEach((slot) => void start(slot)), options.startAfter);

  return {
    acquire,
    release,
    starts: () => serials,
    whenReady() {
      listeners.get();
      return slots.every((s) => s.state === 'idle') ? Promise.resolve() : new Promise((resolve) => readyWatchers.push(resolve));
    },
    status: () => slots.map((s) => ({ slot: s.index, state: s.state, pid: s.listener?.pid, starts: s.starts, conversions: s.conversions })),
    async close() {
      closed = true;
      listeners.stop();
      waiters.rejectAll(() => new Error('the office converter is closed'));
      // A conversion still running is abandoned: the worker only closes after its activities end.
      await Promise.all(
        slots.map((slot) => {
          slot.state = 'closed';
          return slot.listener?.stop();
        }),
      );
    },
  };
}
