//! A pool of warm LibreOffice listeners (office-listener.ts) that converts documents to PDF.
//!
//! Each slot keeps one listener with its own profile; a conversion takes an idle slot (or waits
//! for one), so `listeners` conversions run at once. A conversion past its hard timeout kills its
//! listener; a listener that dies, or has converted `recycleAfter` documents, is replaced with a
//! fresh one, with a growing pause between failed starts. A conversion that fails otherwise (the
//! document would not load, the PDF would not export, the listener died) may have failed for the
//! listener's own state, which no document can tell from outside: that listener is replaced and
//! the document tried once more on a listener started after the failure, whose verdict stands.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ToolError } from '../../lib/errors.js';
import type { Logger } from '../../lib/logger.js';
import { startedOnce } from '../../lib/started-once.js';
import { DOCUMENT_TYPES, type DocumentType } from './document-type.js';
import {
  ConversionTimeoutError,
  DocumentLoadError,
  ListenerExitedError,
  startOfficeListener,
  type OfficeIsolation,
  type OfficeListener,
  type OfficeListenerOptions,
  type ConversionRequest,
} from './office-listener.js';

export interface OfficeConverterOptions {
  /** Listeners kept warm, i.e. conversions at once (~150 MB each). `OFFICE_LISTENERS`, default 2. */
  listeners: number;
  /**
   * Hard limit of one conversion, milliseconds; past it the listener is killed and replaced.
   * `OFFICE_CONVERSION_TIMEOUT_MS`, default 30000. Keep it under the tool's deadline.
   */
  conversionTimeoutMs: number;
  /** `OFFICE_NETWORK_ISOLATION`, default 'namespace' (see office-listener.ts). */
  isolation?: OfficeIsolation;
  /** Replace a listener after this many conversions (LibreOffice's memory grows). @default 500 */
  recycleAfter?: number;
  /** Where profiles and job files go. @default a fresh folder under the OS temp dir, removed on close */
  workDir?: string;
  /** Passed to each listener (python, soffice paths, start timeout). */
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

export interface OfficeConverter {
  /** The PDF of a document whose type was decided from its bytes. */
  convert(document: Buffer, type: DocumentType, signal?: AbortSignal): Promise<Buffer>;
  /** Starts the listeners if they were not yet; resolves once each is ready and idle (benchmarks, tests). */
  whenReady(): Promise<void>;
  status(): SlotStatus[];
  /** Stops every listener (cleanly, killing any that does not stop within 3 s) and removes the work folder. */
  close(): Promise<void>;
}

interface Slot {
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

/** One try's end: failed, and whether a fresh listener could decide otherwise. */
type Attempt = { ok: true } | { ok: false; err: unknown; listenerMayBeAtFault: boolean; startedBefore: number };

/** Pause before the n-th consecutive failed start is retried: 1 s doubling to 30 s. */
export function restartDelayMs(failedStarts: number): number {
  return Math.min(30_000, 1_000 * 2 ** Math.max(0, failedStarts - 1));
}

export function createOfficeConverter(options: OfficeConverterOptions): OfficeConverter {
  if (!Number.isInteger(options.listeners) || options.listeners < 1) throw new RangeError(`listeners must be a positive integer, got ${options.listeners}`);
  const log = options.log;
  const recycleAfter = options.recycleAfter ?? 500;
  const workDir = options.workDir ?? mkdtempSync(path.join(os.tmpdir(), 'utility-tools-office-'));
  const slots: Slot[] = Array.from({ length: options.listeners }, (_, index) => ({ index, state: 'starting', serial: 0, starts: 0, conversions: 0, failedStarts: 0 }));
  let serials = 0;
  const waiters: Waiter[] = [];
  const readyWatchers: Array<() => void> = [];
  let closed = false;

  /** Every slot is between failed starts: LibreOffice cannot run here right now. */
  const allFailing = () => slots.every((s) => s.state === 'waiting-to-restart');
  let lastStartError = '';
  const unavailable = () => new Error(`no office listener could be started; the last attempt failed with: ${lastStartError}`);

  function dispatch() {
    for (const slot of slots) {
      if (slot.state !== 'idle') continue;
      const at = waiters.findIndex((w) => slot.serial > w.after);
      if (at < 0) continue;
      const [waiter] = waiters.splice(at, 1);
      slot.state = 'busy';
      waiter!.resolve(slot);
    }
    if (slots.every((s) => s.state === 'idle') && readyWatchers.length) readyWatchers.splice(0).forEach((notify) => notify());
  }

  async function start(slot: Slot) {
    if (closed) return;
    slot.state = 'starting';
    slot.starts++;
    slot.serial = ++serials;
    slot.conversions = 0;
    const profileDir = path.join(workDir, `profile-${slot.index}`);
    // The slot's profile is reused (a restart then takes ~0.1-1 s instead of ~1.3 s for a fresh
    // one); after a failed start it is wiped, since a killed soffice can leave it half-written.
    if (slot.failedStarts > 0) await rm(profileDir, { recursive: true, force: true });
    const listener = startOfficeListener({
      ...options.listener,
      profileDir,
      pipeName: `utility-tools-office-${process.pid}-${slot.index}-${slot.starts}-${randomUUID().slice(0, 8)}`,
      isolation: options.isolation ?? 'namespace',
      log,
    });
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
      if (allFailing()) waiters.splice(0).forEach((w) => w.reject(unavailable()));
      setTimeout(() => void start(slot), delay).unref();
    }
  }

  function acquire(signal: AbortSignal | undefined, after: number): Promise<Slot> {
    if (closed) return Promise.reject(new Error('the office converter is closed'));
    listeners.get();
    // Fail now rather than at the call's deadline (Temporal retries it while the deadline allows).
    if (allFailing()) return Promise.reject(unavailable());
    signal?.throwIfAborted();
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
      dispatch();
    });
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

  /**
   * One try on a listener started after `after`. A first try's listener that may be at fault is
   * replaced; on the last try, a fresh listener's verdict on the document stands and it stays.
   */
  async function attempt(job: ConversionRequest, signal: AbortSignal | undefined, after: number): Promise<Attempt> {
    const slot = await acquire(signal, after);
    const listener = slot.listener!;
    const lastTry = after > 0;
    // Cancellation (activity cancelled or past its deadline) abandons the conversion like a timeout.
    const onAbort = () => listener.kill();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      slot.conversions++;
      await listener.convert(job, options.conversionTimeoutMs);
      release(slot, true);
      return { ok: true };
    } catch (err) {
      // A timeout or an abandoned call has killed the listener already, and a document that runs
      // past its time is not tried again.
      const listenerMayBeAtFault = !(err instanceof ConversionTimeoutError || signal?.aborted);
      const alive = !(err instanceof ConversionTimeoutError || err instanceof ListenerExitedError || signal?.aborted);
      const startsBeforeTheFailure = serials; // read before release() starts a replacement
      release(slot, lastTry && alive);
      return { ok: false, err, listenerMayBeAtFault, startedBefore: startsBeforeTheFailure };
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async function convert(document: Buffer, type: DocumentType, signal?: AbortSignal): Promise<Buffer> {
    const jobDir = path.join(workDir, 'jobs', randomUUID());
    await mkdir(jobDir, { recursive: true });
    try {
      const job = { input: path.join(jobDir, `source.${DOCUMENT_TYPES[type].extension}`), output: path.join(jobDir, 'converted.pdf'), filter: DOCUMENT_TYPES[type].filter };
      await writeFile(job.input, document);
      let result = await attempt(job, signal, 0);
      if (!result.ok && result.listenerMayBeAtFault) {
        log?.warn({ err: result.err, type }, 'office conversion failed; its listener is replaced and the document tried once more on a fresh one');
        result = await attempt(job, signal, result.startedBefore);
      }
      if (!result.ok) throw translate(result.err, type, signal);
      return await readFile(job.output);
    } finally {
      await rm(jobDir, { recursive: true, force: true });
    }
  }

  function translate(err: unknown, type: DocumentType, signal?: AbortSignal): unknown {
    if (signal?.aborted) return signal.reason ?? err;
    if (err instanceof ConversionTimeoutError) {
      log?.warn({ timeoutMs: options.conversionTimeoutMs }, 'office conversion timed out; listener killed');
      return new ToolError('tool_timeout', `The conversion did not finish within ${options.conversionTimeoutMs / 1000} s and was stopped.`, {
        timeoutMs: options.conversionTimeoutMs,
      });
    }
    if (err instanceof DocumentLoadError) {
      return new ToolError(
        'unsupported_source',
        `The document looks like ${DOCUMENT_TYPES[type].label} but LibreOffice could not open it: it may be damaged or password-protected.`,
        { detected: type },
        { cause: err },
      );
    }
    return err; // export failure, listener crash: an internal error, retried by Temporal
  }

  const listeners = startedOnce(() => slots.forEach((slot) => void start(slot)), options.startAfter);

  return {
    convert,
    whenReady() {
      listeners.get();
      return slots.every((s) => s.state === 'idle') ? Promise.resolve() : new Promise((resolve) => readyWatchers.push(resolve));
    },
    status: () => slots.map((s) => ({ slot: s.index, state: s.state, pid: s.listener?.pid, starts: s.starts, conversions: s.conversions })),
    async close() {
      closed = true;
      listeners.stop();
      waiters.splice(0).forEach((w) => w.reject(new Error('the office converter is closed')));
      // A conversion still running is abandoned: the worker only closes after its activities end.
      await Promise.all(
        slots.map((slot) => {
          slot.state = 'closed';
          return slot.listener?.stop();
        }),
      );
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
