//! What the page tools read from a fetched page, by name, and the two places a reading runs:
//! the calling thread (`readInline`), or a worker-thread pool (page-reading-pool.ts) so that
//! parsing a 5 MiB page, seconds of CPU, never stalls the network worker's event loop, where
//! ping times handshakes and fifty other activities heartbeat.
import { pageLinks, parseSource, type PageSource } from './page-extract.js';
import { readScrape } from './web-scrape.js';
import { readSeo } from './seo-meta.js';

export const PAGE_READINGS = {
  scrape: readScrape,
  seo: readSeo,
  links: (source: PageSource) => pageLinks(parseSource(source)),
} as const;

export type PageReadings = typeof PAGE_READINGS;
export type ReadingName = keyof PageReadings;

/** Runs the reading `name` on `args`; an aborted `signal` abandons it (a pool stops its thread). */
export type PageReader = <K extends ReadingName>(
  name: K,
  args: Parameters<PageReadings[K]>,
  signal?: AbortSignal,
) => Promise<ReturnType<PageReadings[K]>>;

/**
 * Runs one reading by name. Readings refuse nothing (the tools' prechecks did that before the
 * fetch), so only bugs throw, and those are internal errors on either side of a thread.
 */
export function runReading(name: ReadingName, args: unknown[]): unknown {
  return (PAGE_READINGS as Record<ReadingName, (...a: unknown[]) => unknown>)[name](...args);
}

/** In the calling thread: for unit tests, and anywhere pages are known to be small. */
export const readInline: PageReader = async (name, args) => runReading(name, args) as never;

