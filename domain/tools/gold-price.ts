//! gold-price: spot gold or silver in one of 32 currencies, per troy ounce, gram and tola, with a
//! per-karat breakdown for gold. No precheck: the schema's enums say everything.
import { defineTool } from './definition.js';

/** The 32 currencies gold-price quotes in, in the order its schema lists them. */
export const CURRENCIES = [
  'USD',
  'GBP',
  'EUR',
  'CAD',
  'AUD',
  'JPY',
  'CNY',
  'PKR',
  'INR',
  'AED',
  'SAR',
  'TRY',
  'BDT',
  'NGN',
  'ZAR',
  'CHF',
  'SGD',
  'HKD',
  'MYR',
  'THB',
  'IDR',
  'EGP',
  'PHP',
  'KRW',
  'MXN',
  'BRL',
  'NZD',
  'SEK',
  'NOK',
  'DKK',
  'PLN',
  'CZK',
] as const;
export type Currency = (typeof CURRENCIES)[number];

export const METALS = ['gold', 'silver'] as const;
export type Metal = (typeof METALS)[number];

export interface UnitPrices {
  pricePerOunce: number;
  pricePerGram: number;
  pricePerTola: number;
}

export interface KaratPrice extends UnitPrices {
  karat: number;
  /** Fraction of pure gold, karat / 24, to 4 decimals (22K: 0.9167). */
  purity: number;
}

export interface GoldPriceInput {
  metal: Metal;
  currency: Currency;
}

export interface GoldPriceOutput {
  metal: Metal;
  currency: Currency;
  pricePerOunce: number;
  pricePerGram: number;
  pricePerTola: number;
  /** Gold only (empty for silver): 24K down to 10K. */
  karats: KaratPrice[];
  /** When the metal price was published. */
  asOfUtc: string;
  /** Additive: when the exchange rate was published; null for USD (no conversion). */
  fxAsOfUtc: string | null;
  stale: boolean;
}

export const goldPrice = defineTool<GoldPriceInput, GoldPriceOutput>()({
  name: 'gold-price',
  group: 'market',
  cost: 1,
  pool: 'network',
  timeoutMs: 20_000,
  failures: ['upstream_error'],
});
