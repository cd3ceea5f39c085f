//! The tool catalogue: every tool that works, with its group, cost and worker pool.
//! A tool that is not listed here does not exist for clients (404 `unknown_tool`).

export const POOLS = ['core', 'cpu', 'network', 'browser'] as const;
export type Pool = (typeof POOLS)[number];
/** Pools that run tool activities (the core pool runs workflows, ledger and webhooks). */
export type ToolPool = Exclude<Pool, 'core'>;

export const GROUPS = {
  network: 'Network probes',
  web: 'Web pages',
  files: 'Files and images',
  hashing: 'Hashing and passwords',
  market: 'Market data',
} as const;
export type Group = keyof typeof GROUPS;

export interface ToolSpec {
  readonly name: string;
  readonly group: Group;
  /** Credits charged for a call that answers 200. */
  readonly cost: number;
  readonly pool: ToolPool;
  /** Deadline for the tool's work, all attempts included; past it the call answers 504. */
  readonly timeoutMs: number;
  /** Input fields sealed with the per-call key before the workflow starts (never in history). */
  readonly secretFields?: readonly string[];
  /** Request body limit when it differs from the default 1 MiB. */
  readonly maxBodyBytes?: number;
}

const tools = [
  { name: 'hash-text', group: 'hashing', cost: 1, pool: 'cpu', timeoutMs: 10_000 },
  { name: 'bcrypt-hash', group: 'hashing', cost: 2, pool: 'cpu', timeoutMs: 20_000, secretFields: ['password'] },
  { name: 'bcrypt-verify', group: 'hashing', cost: 2, pool: 'cpu', timeoutMs: 20_000, secretFields: ['password'] },
  { name: 'argon2-verify', group: 'hashing', cost: 3, pool: 'cpu', timeoutMs: 30_000, secretFields: ['password'] },
  { name: 'qr-generate', group: 'files', cost: 1, pool: 'cpu', timeoutMs: 10_000 },
  // The file tools download up to 10/20 MiB (20 s at most), may queue for a thread or listener,
  // then work for seconds; word-to-pdf's own hard limit per conversion is OFFICE_CONVERSION_TIMEOUT_MS.
  { name: 'watermark-image', group: 'files', cost: 2, pool: 'cpu', timeoutMs: 60_000 },
  { name: 'image-upscale', group: 'files', cost: 30, pool: 'cpu', timeoutMs: 60_000 },
  { name: 'word-to-pdf', group: 'files', cost: 15, pool: 'cpu', timeoutMs: 60_000 },
  { name: 'http-request', group: 'network', cost: 2, pool: 'network', timeoutMs: 25_000 },
  { name: 'web-scrape', group: 'web', cost: 3, pool: 'network', timeoutMs: 30_000 },
  { name: 'seo-meta', group: 'web', cost: 2, pool: 'network', timeoutMs: 30_000 },
  { name: 'broken-links', group: 'web', cost: 10, pool: 'network', timeoutMs: 75_000 },
  { name: 'pdf-metadata', group: 'files', cost: 2, pool: 'network', timeoutMs: 60_000 },
  { name: 'ping', group: 'network', cost: 2, pool: 'network', timeoutMs: 30_000 },
  { name: 'dns-lookup', group: 'network', cost: 1, pool: 'network', timeoutMs: 15_000 },
  { name: 'ssl-check', group: 'network', cost: 2, pool: 'network', timeoutMs: 20_000 },
  { name: 'smtp-test', group: 'network', cost: 3, pool: 'network', timeoutMs: 45_000, secretFields: ['username', 'password'] },
  { name: 'gold-price', group: 'market', cost: 1, pool: 'network', timeoutMs: 20_000 },
  // Browser tools: a page lives at most this long, its settling waits included (capture.ts).
  { name: 'website-screenshot', group: 'web', cost: 25, pool: 'browser', timeoutMs: 60_000 },
  { name: 'html-to-image', group: 'web', cost: 25, pool: 'browser', timeoutMs: 60_000, maxBodyBytes: 3 * 1024 * 1024 },
] as const satisfies readonly ToolSpec[];

export type ToolName = (typeof tools)[number]['name'];

export const CATALOGUE: ReadonlyMap<string, ToolSpec> = new Map(tools.map((t) => [t.name, t]));

export function findTool(name: string): ToolSpec | undefined {
  return CATALOGUE.get(name);
}

export function toolsOfPool(pool: ToolPool): ToolSpec[] {
  return [...CATALOGUE.values()].filter((t) => t.pool === pool);
}
