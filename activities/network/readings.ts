//! What the network tools read from what they fetched, by name: a page's structure (web-scrape,
//! seo-meta), its links (broken-links), a PDF's metadata (pdf-metadata). Parsing is CPU work of
//! up to seconds (a 5 MiB page, a PDF of 20 MiB and thousands of objects), so the network worker
//! runs readings on a thread pool (reading-pool.ts) and never on its event loop, where ping times
//! handshakes and fifty other activities heartbeat. `readInline` runs them in the calling thread.
import { ToolError, type ErrorCode, type ProblemExtras, ServiceError } from '../../contracts/errors.js';
import { pageLinks, parseSource, type PageSource } from './page-extract.js';
import { createPdfReader } from './pdf-info.js';
import { readScrape, readSeo } from './markup-readings.js';

/** One pdf.js per thread, loaded on its first PDF. */
const readPdf = createPdfReader();

export const READINGS = {
  scrape: readScrape,
  seo: readSeo,
  links: (source: PageSource) => pageLinks(parseSource(source)),
  pdf: (bytes: Uint8Array) => readPdf(bytes),
} as const;

export type Readings = typeof READINGS;
export type ReadingName = keyof Readings;

/** Runs the reading `name` on `args`; an aborted `signal` abandons it (a pool stops its thread). */
export type Reader = <K extends ReadingName>(
  name: K,
  args: Parameters<Readings[K]>,
  signal?: AbortSignal,
) => Promise<Awaited<ReturnType<Readings[K]>>>;

const byName = READINGS as Record<ReadingName, (...args: unknown[]) => unknown>;

/** In the calling thread: for unit tests, and anywhere the input is known to be small. */
export const readInline: Reader = async (name, args) => (await byName[name](...args)) as never;

/**
 * A reading's outcome as plain data, for crossing a thread: an exception crosses as a plain
 * Error, losing the ToolError class and its code, so a refusal (not a PDF, say) travels as data
 * and is thrown again on the other side. Anything else is a bug and is thrown as it is.
 */
export type ReadingOutcome = { ok: true; value: unknown } | { ok: false; code: ErrorCode; message: string; extras: ProblemExtras };

export async function runReading(name: ReadingName, args: unknown[]): Promise<ReadingOutcome> {
  try {
    return { ok: true, value: await byName[name](...args) };
  } catch (err) {
    if (err instanceof ServiceError) return { ok: false, code: err.code, message: err.message, extras: err.extras };
    throw err;
  }
}

export function settleReading(outcome: ReadingOutcome): unknown {
  if (outcome.ok) return outcome.value;
  throw new ToolError(outcome.code, outcome.message, outcome.extras);
}
