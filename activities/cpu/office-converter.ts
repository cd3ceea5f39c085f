//! Converts documents to PDF on a converter's warm LibreOffice listeners (office-slots.ts).
//!
//! A conversion takes an idle listener (or waits for one). One past its hard timeout has its
//! listener killed and replaced. One that fails otherwise (the document would not load, the PDF
//! would not export, the listener died) may have failed for the listener's own state, which no
//! document can tell from outside: that listener is replaced and the document tried once more on
//! a listener started after the failure, whose verdict stands.
import { randomUUID } from 'node:crypto';
import { mkdtempSync } from 'node:fs';
import { mkdir, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ToolError } from '../../contracts/errors.js';
import type { Logger } from '../../lib/logger.js';
import { DOCUMENT_TYPES, type DocumentType } from './document-type.js';
import {
  ConversionTimeoutError,
  DocumentLoadError,
  ListenerExitedError,
  type ConversionRequest,
  type OfficeIsolation,
  type OfficeListenerOptions,
} from './office-listener.js';
import { createListenerSlots, type SlotStatus } from './office-slots.js';

export { restartDelayMs, type SlotState, type SlotStatus } from './office-slots.js';

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

export interface OfficeConverter {
  /** The PDF of a document whose type was decided from its bytes. */
  convert(document: Buffer, type: DocumentType, signal?: AbortSignal): Promise<Buffer>;
  /** Starts the listeners if they were not yet; resolves once each is ready and idle (benchmarks, tests). */
  whenReady(): Promise<void>;
  status(): SlotStatus[];
  /** Stops every listener (cleanly, killing any that does not stop within 3 s) and removes the work folder. */
  close(): Promise<void>;
}

/** One try's end: failed, and whether a fresh listener could decide otherwise. */
type Attempt = { ok: true } | { ok: false; err: unknown; listenerMayBeAtFault: boolean; startedBefore: number };

export function createOfficeConverter(options: OfficeConverterOptions): OfficeConverter {
  const log = options.log;
  const workDir = options.workDir ?? mkdtempSync(path.join(os.tmpdir(), 'utility-tools-office-'));
  const slots = createListenerSlots({ ...options, workDir });

  /**
   * One try on a listener started after `after`. A first try's listener that may be at fault is
   * replaced; on the last try, a fresh listener's verdict on the document stands and it stays.
   */
  async function attempt(job: ConversionRequest, signal: AbortSignal | undefined, after: number): Promise<Attempt> {
    const slot = await slots.acquire(signal, after);
    const listener = slot.listener!;
    const lastTry = after > 0;
    // Cancellation (activity cancelled or past its deadline) abandons the conversion like a timeout.
    const onAbort = () => listener.kill();
    signal?.addEventListener('abort', onAbort, { once: true });
    try {
      slot.conversions++;
      await listener.convert(job, options.conversionTimeoutMs);
      slots.release(slot, true);
      return { ok: true };
    } catch (err) {
      // A timeout or an abandoned call has killed the listener already, and a document that runs
      // past its time is not tried again.
      const killed = err instanceof ConversionTimeoutError || Boolean(signal?.aborted);
      const startsBeforeTheFailure = slots.starts(); // read before release() starts a replacement
      slots.release(slot, lastTry && !killed && !(err instanceof ListenerExitedError));
      return { ok: false, err, listenerMayBeAtFault: !killed, startedBefore: startsBeforeTheFailure };
    } finally {
      signal?.removeEventListener('abort', onAbort);
    }
  }

  async function convert(document: Buffer, type: DocumentType, signal?: AbortSignal): Promise<Buffer> {
    const jobDir = path.join(workDir, 'jobs', randomUUID());
    await mkdir(jobDir, { recursive: true });
    try {
      const job = {
        input: path.join(jobDir, `source.${DOCUMENT_TYPES[type].extension}`),
        output: path.join(jobDir, 'converted.pdf'),
        filter: DOCUMENT_TYPES[type].filter,
      };
      await writeFile(job.input, document);
      let result = await attempt(job, signal, 0);
      if (!result.ok && result.listenerMayBeAtFault) {
        log?.warn(
          { err: result.err, type },
          'office conversion failed; its listener is replaced and the document tried once more on a fresh one',
        );
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
      return new ToolError(
        'tool_timeout',
        `The conversion did not finish within ${options.conversionTimeoutMs / 1000} s and was stopped.`,
        {
          timeoutMs: options.conversionTimeoutMs,
        },
      );
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

  return {
    convert,
    whenReady: () => slots.whenReady(),
    status: () => slots.status(),
    async close() {
      await slots.close();
      await rm(workDir, { recursive: true, force: true });
    },
  };
}
