//! gold-price: spot gold or silver in one of 32 currencies, per troy ounce, gram and tola, with a
//! per-karat breakdown for gold. Metal prices (USD per ounce) and currency rates come from two
//! feeds (market-feeds.ts); each is cached briefly in memory and its last good answer is kept in
//! MongoDB, served with `stale: true` while the feed is down. No quote at all is 502.
import type { Db } from 'mongodb';
import { ToolError } from '../../contracts/errors.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import type { GoldPriceInput, GoldPriceOutput, Metal } from '../../domain/tools/gold-price.js';
import { karatBreakdown, unitPrices } from '../network/gold-math.js';
import { createMarketFeeds, FeedError, type FxRates, type MarketFeeds, type MetalQuote } from '../network/market-feeds.js';
import { createQuoteSource, type QuoteSource } from '../network/quote-source.js';
import { createQuoteStore, type QuoteStore } from '../network/quote-store.js';

export interface GoldPriceDeps {
  /** Where last good quotes are kept; or give `store` directly. */
  db?: Db;
  store?: QuoteStore;
  goldFeedUrl?: string;
  fxFeedUrl?: string;
  /** The feeds; built from the URLs when absent. */
  feeds?: MarketFeeds;
  /** Longest a quote is reused from memory. @default 60000 */
  maxCacheMs?: number;
}

function unavailable(err: FeedError): ToolError {
  return new ToolError(
    'upstream_error',
    'The market data feed is unavailable and no earlier quote is stored; try again shortly.',
    { reason: 'feed_unavailable' },
    { cause: err },
  );
}

export function createGoldPrice(deps: GoldPriceDeps): ToolHandler<GoldPriceInput, GoldPriceOutput> {
  const store = deps.store ?? createQuoteStore(deps.db ?? missing('db or store'));
  const feeds = deps.feeds ?? createMarketFeeds({ goldFeedUrl: deps.goldFeedUrl, fxFeedUrl: deps.fxFeedUrl });
  const common = { store, maxCacheMs: deps.maxCacheMs };
  const metals: Record<Metal, QuoteSource<MetalQuote>> = {
    gold: createQuoteSource({ ...common, key: 'metal:gold', fetch: () => feeds.metal('gold') }),
    silver: createQuoteSource({ ...common, key: 'metal:silver', fetch: () => feeds.metal('silver') }),
  };
  const fx: QuoteSource<FxRates> = createQuoteSource({ ...common, key: 'fx', fetch: () => feeds.fx() });

  async function read<T>(source: QuoteSource<T>) {
    try {
      return await source.get();
    } catch (err) {
      throw err instanceof FeedError ? unavailable(err) : err;
    }
  }

  return async ({ metal, currency }) => {
    const [quote, rates] = await Promise.all([read(metals[metal]), currency === 'USD' ? undefined : read(fx)]);
    const rate = rates ? rates.value.perUsd[currency] : 1;
    if (rate === undefined) {
      throw new ToolError('upstream_error', `The exchange rate feed has no rate for ${currency}.`, { reason: 'feed_missing_currency' });
    }
    const perOunce = quote.value.usdPerOunce * rate;
    return {
      metal,
      currency,
      ...unitPrices(perOunce),
      karats: metal === 'gold' ? karatBreakdown(perOunce) : [],
      asOfUtc: quote.value.asOfUtc,
      fxAsOfUtc: rates?.value.asOfUtc ?? null,
      stale: quote.stale || Boolean(rates?.stale),
    };
  };
}

function missing(what: string): never {
  throw new TypeError(`createGoldPrice needs ${what}`);
}
