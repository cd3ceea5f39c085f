//! The network pool's tools, keyed by tool name. Each reaches out only through `net` (the
//! resolver, target guard and guarded client of lib/network-access.ts).
import type { Db } from 'mongodb';
import type { Config } from '../../lib/config.js';
import type { NetworkAccess } from '../../lib/network-access.js';
import type { ToolHandler } from '../../lib/tool-handler.js';
import type { Reader } from './readings.js';
import { createBrokenLinks } from './broken-links.js';
import { createHttpRequest } from './http-request.js';
import { createPdfMetadata } from './pdf-metadata.js';
import { createSeoMeta } from './seo-meta.js';
import { createWebScrape } from './web-scrape.js';
import { createDnsLookup } from './dns-lookup.js';
import { createGoldPrice } from './gold-price.js';
import { createPing } from './ping.js';
import { createSmtpTest } from './smtp-test.js';
import { createSslCheck } from './ssl-check.js';

export interface NetworkToolDeps {
  net: NetworkAccess;
  db: Db;
  config: Config;
  /** Parses and reads fetched pages: the worker's page-reading thread pool. */
  reader: Reader;
}

export function createNetworkTools(deps: NetworkToolDeps): Record<string, ToolHandler> {
  return {
    // One line per tool: 'tool-name': createToolName(deps),
    'http-request': createHttpRequest({ http: deps.net.http }),
    'web-scrape': createWebScrape({ http: deps.net.http, reader: deps.reader }),
    'seo-meta': createSeoMeta({ http: deps.net.http, reader: deps.reader }),
    'broken-links': createBrokenLinks({ http: deps.net.http, reader: deps.reader }),
    'pdf-metadata': createPdfMetadata({ http: deps.net.http, reader: deps.reader }),
    ping: createPing({ net: deps.net, method: deps.config.pingMethod }),
    'dns-lookup': createDnsLookup({ resolver: deps.net.resolver }),
    'ssl-check': createSslCheck({ net: deps.net }),
    'smtp-test': createSmtpTest({ net: deps.net }),
    'gold-price': createGoldPrice({ db: deps.db, goldFeedUrl: deps.config.goldFeedUrl, fxFeedUrl: deps.config.fxFeedUrl }),
  };
}
