//! Every tool that works, in the order the catalogue lists them, and the types the compiler
//! reads from that list: a tool's name, input and output, and the handlers each pool must have.
//! Adding a tool here makes its pool's handler map (`activities/<pool>/index.ts`) fail to compile
//! until the handler is there; a handler for a tool not listed here fails to compile too.
import type { ToolHandler } from './handler.js';
import type { ToolPool } from '../../contracts/temporal-names.js';
import { argon2Verify } from './argon2-verify.js';
import { bcryptHash } from './bcrypt-hash.js';
import { bcryptVerify } from './bcrypt-verify.js';
import { brokenLinks } from './broken-links.js';
import { dnsLookup } from './dns-lookup.js';
import { goldPrice } from './gold-price.js';
import { hashText } from './hash-text.js';
import { htmlToImage } from './html-to-image.js';
import { httpRequest } from './http-request.js';
import { imageUpscale } from './image-upscale.js';
import { pdfMetadata } from './pdf-metadata.js';
import { ping } from './ping.js';
import { qrGenerate } from './qr-generate.js';
import { seoMeta } from './seo-meta.js';
import { smtpTest } from './smtp-test.js';
import { sslCheck } from './ssl-check.js';
import { watermarkImage } from './watermark-image.js';
import { webScrape } from './web-scrape.js';
import { websiteScreenshot } from './website-screenshot.js';
import { wordToPdf } from './word-to-pdf.js';

export const TOOLS = [
  hashText,
  bcryptHash,
  bcryptVerify,
  argon2Verify,
  qrGenerate,
  watermarkImage,
  imageUpscale,
  wordToPdf,
  httpRequest,
  webScrape,
  seoMeta,
  brokenLinks,
  pdfMetadata,
  ping,
  dnsLookup,
  sslCheck,
  smtpTest,
  goldPrice,
  websiteScreenshot,
  htmlToImage,
] as const;

export type Tool = (typeof TOOLS)[number];
export type ToolName = Tool['name'];
export type ToolNamed<N extends ToolName> = Extract<Tool, { readonly name: N }>;
export type ToolInput<N extends ToolName> = NonNullable<ToolNamed<N>['types']>['input'];
export type ToolOutput<N extends ToolName> = NonNullable<ToolNamed<N>['types']>['output'];
/** The names of the tools a pool runs. */
export type PoolToolName<P extends ToolPool> = Extract<Tool, { readonly pool: P }>['name'];

/** One factory per tool of pool `P`, keyed by tool name, each making its handler from `Deps`. */
export type HandlerFactories<P extends ToolPool, Deps> = {
  readonly [N in PoolToolName<P>]: (deps: Deps) => ToolHandler<ToolInput<N>, ToolOutput<N>>;
};

/** The handler of every tool of pool `P`, keyed by tool name. */
export type PoolHandlers<P extends ToolPool> = { readonly [N in PoolToolName<P>]: ToolHandler<ToolInput<N>, ToolOutput<N>> };

/** Each factory called with `deps`: the pool's handlers. */
export function createHandlers<P extends ToolPool, Deps>(factories: HandlerFactories<P, Deps>, deps: Deps): PoolHandlers<P> {
  const entries = Object.entries(factories) as [string, (deps: Deps) => ToolHandler][];
  return Object.fromEntries(entries.map(([name, create]) => [name, create(deps)])) as PoolHandlers<P>;
}
