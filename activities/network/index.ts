//! The network pool's tools, keyed by tool name (typed by domain/tools: one handler per listed
//! network tool, no other). Each reaches out only through `net` (the resolver, target guard and
//! guarded clients of lib/network-access.ts).
import type { Db } from 'mongodb';
import type { Config } from '../../lib/config.js';
import type { NetworkAccess } from '../../lib/network-access.js';
import { createHandlers, type HandlerFactories, type PoolHandlers } from '../../domain/tools/index.js';
import type { Reader } from './readings.js';
import { createBrokenLinks } from '../tools/broken-links.js';
import { createHttpRequest } from '../tools/http-request.js';
import { createPdfMetadata } from '../tools/pdf-metadata.js';
import { createSeoMeta } from '../tools/seo-meta.js';
import { createWebScrape } from '../tools/web-scrape.js';
import { createDnsLookup } from '../tools/dns-lookup.js';
import { createGoldPrice } from '../tools/gold-price.js';
import { createPing } from '../tools/ping.js';
import { createSmtpTest } from '../tools/smtp-test.js';
import { createSslCheck } from '../tools/ssl-check.js';

export interface NetworkToolDeps {
  net: NetworkAccess;
  db: Db;
  config: Config;
  /** Parses and reads fetched pages: the worker's page-reading thread pool. */
  reader: Reader;
}

export const NETWORK_HANDLERS: HandlerFactories<'network', NetworkToolDeps> = {
  'http-request': (deps) => createHttpRequest({ http: deps.net.http }),
  'web-scrape': (deps) => createWebScrape({ http: deps.net.http, reader: deps.reader }),
  'seo-meta': (deps) => createSeoMeta({ http: deps.net.http, reader: deps.reader }),
  'broken-links': (deps) => createBrokenLinks({ http: deps.net.http, reader: deps.reader }),
  'pdf-metadata': (deps) => createPdfMetadata({ http: deps.net.http, reader: deps.reader }),
  ping: (deps) => createPing({ net: deps.net, method: deps.config.pingMethod }),
  'dns-lookup': (deps) => createDnsLookup({ resolver: deps.net.resolver }),
  'ssl-check': (deps) => createSslCheck({ net: deps.net }),
  'smtp-test': (deps) => createSmtpTest({ net: deps.net }),
  'gold-price': (deps) => createGoldPrice({ db: deps.db, goldFeedUrl: deps.config.goldFeedUrl, fxFeedUrl: deps.config.fxFeedUrl }),
};

export function createNetworkTools(deps: NetworkToolDeps): PoolHandlers<'network'> {
  return createHandlers(NETWORK_HANDLERS, deps);
}
