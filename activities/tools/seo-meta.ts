//! seo-meta: the raw values search engines read from a page (title, description, canonical,
//! robots, og: and twitter: properties, the heading outline, the word count), with no score.
import { precheck, type SeoMetaInput, type SeoMetaOutput } from '../../domain/tools/seo-meta.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { createPageReader, type PageReadingDeps } from '../network/page-reading.js';

export type SeoMetaDeps = PageReadingDeps;

export function createSeoMeta(deps: SeoMetaDeps): ToolHandler<SeoMetaInput, SeoMetaOutput> {
  const readPage = createPageReader(deps);
  return async (input, ctx) => {
    precheck(input);
    const read = await readPage(input.url, ctx.signal, (source) => deps.reader('seo', [source], ctx.signal));
    return { url: input.url, ...read };
  };
}
