//! Units and purity for gold-price. Pure: a spot price per troy ounce in, the spec's breakdown out.
import type { KaratPrice, UnitPrices } from '../../domain/tools/gold-price.js';

/** Grams in one troy ounce (exact by definition: 480 grains of 64.79891 mg). */
export const TROY_OUNCE_GRAMS = 31.1034768;
/** Grams in one tola, the South Asian unit (11.6638 g). */
export const TOLA_GRAMS = 11.6638;
/** Karats reported for gold, 24K (pure) down to 10K, the common hallmarked finenesses. */
export const KARATS = [24, 22, 21, 20, 18, 16, 14, 12, 10] as const;

/** Prices are kept to 4 decimals: enough for a gram of silver in any of the 32 currencies. */
export const roundPrice = (value: number) => Math.round(value * 10_000) / 10_000;

export function unitPrices(perOunce: number): UnitPrices {
  const perGram = perOunce / TROY_OUNCE_GRAMS;
  return { pricePerOunce: roundPrice(perOunce), pricePerGram: roundPrice(perGram), pricePerTola: roundPrice(perGram * TOLA_GRAMS) };
}

/** Each karat's price: the pure metal's price times karat/24 (rounded once, at the end). */
export function karatBreakdown(perOunce: number): KaratPrice[] {
  return KARATS.map((karat) => ({ karat, purity: Math.round((karat / 24) * 10_000) / 10_000, ...unitPrices((perOunce * karat) / 24) }));
}
