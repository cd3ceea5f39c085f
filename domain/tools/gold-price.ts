//! gold-price: spot gold or silver in one of 32 currencies, per troy ounce, gram and tola, with a
//! per-karat breakdown for gold. No precheck: the schema's enums say everything.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, ISO_UTC_PATTERN, OrNull, StringEnum, type Validated } from '../../lib/schema-types.js';
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

export const GoldPriceInput = ClosedObject(
  {
    metal: Defaulted(StringEnum(METALS, { description: 'gold or silver.' }), 'gold'),
    currency: Defaulted(
      StringEnum(CURRENCIES, {
        description: `One of ${CURRENCIES.length} ISO 4217 codes: ${CURRENCIES.join(', ')}.`,
      }),
      'USD',
    ),
  },
  { description: 'The metal and the currency to price it in.', examples: [{ metal: 'gold', currency: 'EUR' }] },
);
export type GoldPriceInput = Validated<typeof GoldPriceInput>;
export const GoldPriceOutput = ClosedObject(
  {
    metal: StringEnum(METALS, { description: 'gold or silver.' }),
    currency: StringEnum(CURRENCIES, { description: 'Currency of the prices.' }),
    pricePerOunce: Type.Number({ minimum: 0, description: 'Per troy ounce (31.1034768 g).' }),
    pricePerGram: Type.Number({ minimum: 0, description: 'Per gram.' }),
    pricePerTola: Type.Number({ minimum: 0, description: 'Per tola (11.6638 g).' }),
    karats: Type.Array(
      ClosedObject({
        karat: Type.Integer({ minimum: 10, maximum: 24 }),
        purity: Type.Number({ minimum: 0, maximum: 1 }),
        pricePerGram: Type.Number({ minimum: 0 }),
        pricePerTola: Type.Number({ minimum: 0 }),
        pricePerOunce: Type.Number({ minimum: 0 }),
      }),
      {
        description:
          'For gold, 24K, 22K, 21K, 20K, 18K, 16K, 14K, 12K and 10K: karat, purity (karat/24, 4 decimals) and the price per gram, tola and ounce of metal of that fineness. Empty for silver.',
      },
    ),
    asOfUtc: Type.String({
      pattern: ISO_UTC_PATTERN,
      description: 'When the metal quote was published, ISO 8601 UTC.',
    }),
    fxAsOfUtc: OrNull(Type.String({ pattern: ISO_UTC_PATTERN }), {
      description: 'Additive: when the exchange rate used was published, ISO 8601 UTC; null for USD (no conversion).',
    }),
    stale: Type.Boolean({ description: 'True when a stored value was served because a feed was unreachable.' }),
  },
  {
    description:
      'Spot price from the metal feed (USD per troy ounce) converted with the exchange-rate feed. Quotes are reused for up to 60 s (less when the provider says so). When a feed cannot be reached, the last good value is served with stale true; with no earlier value at all the call is 502 upstream_error. Prices are rounded to 4 decimals.',
    examples: [
      {
        metal: 'gold',
        currency: 'USD',
        pricePerOunce: 2400.5,
        pricePerGram: 77.1779,
        pricePerTola: 900.1872,
        karats: [
          { karat: 24, purity: 1, pricePerOunce: 2400.5, pricePerGram: 77.1779, pricePerTola: 900.1872 },
          { karat: 22, purity: 0.9167, pricePerOunce: 2200.4583, pricePerGram: 70.7464, pricePerTola: 825.1716 },
          { karat: 18, purity: 0.75, pricePerOunce: 1800.375, pricePerGram: 57.8834, pricePerTola: 675.1404 },
        ],
        asOfUtc: '2025-06-02T14:30:00.000Z',
        fxAsOfUtc: null,
        stale: false,
      },
    ],
  },
);
export type GoldPriceOutput = Static<typeof GoldPriceOutput>;
/** One karat's row: its purity (karat / 24, to 4 decimals: 22K is 0.9167) and prices. */
export type KaratPrice = GoldPriceOutput['karats'][number];
export type UnitPrices = Pick<KaratPrice, 'pricePerOunce' | 'pricePerGram' | 'pricePerTola'>;

export const goldPrice = defineTool<GoldPriceInput, GoldPriceOutput>()({
  name: 'gold-price',
  group: 'market',
  cost: 1,
  pool: 'network',
  schemas: { input: GoldPriceInput, output: GoldPriceOutput },
  timeoutMs: 20_000,
  failures: ['upstream_error'],
});
