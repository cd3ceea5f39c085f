//! web-scrape: the structure of a page (title, meta, headings, links, images, og: tags), the text
//! of the nodes a simple selector matches, and the readable text.
import { precheck, type WebScrapeInput, type WebScrapeOutput } from '../../domain/tools/web-scrape.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { createPageReader, type PageReadingDeps } from '../network/page-reading.js';

export type WebScrapeDeps = PageReadingDeps;

export function createWebScrape(deps: WebScrapeDeps): ToolHandler<WebScrapeInput, WebScrapeOutput> {
  const readPage = createPageReader(deps);
  return async (input, ctx) => {
    precheck(input);
    const options = { selector: input.selector, includeText: input.includeText };
    return readPage(input.url, ctx.signal, (source) => deps.reader('scrape', [source, options], ctx.signal));
  };
}
