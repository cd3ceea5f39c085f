//! How every property test draws its inputs. One fixed seed by default, so a run's verdict is
//! the code's and not the draw's: a counterexample fails every run until it is fixed, and a
//! pass is the same pass on any machine. PROPERTY_SEED=random draws new inputs (the failure
//! report names the seed, which PROPERTY_SEED=<n> replays); PROPERTY_RUNS scales every count.
import fc from 'fast-check';

const DEFAULT_SEED = 20_261_125;

function seedFrom(value: string | undefined): number | undefined {
  if (value === 'random') return undefined;
  if (value === undefined || value === '') return DEFAULT_SEED;
  const seed = Number(value);
  if (!Number.isSafeInteger(seed)) throw new Error(`PROPERTY_SEED must be an integer or "random", not ${value}`);
  return seed;
}

fc.configureGlobal({ seed: seedFrom(process.env.PROPERTY_SEED) });

/** The number of inputs a property tries: `base` unless PROPERTY_RUNS says otherwise. */
export function propertyRuns(base: number): number {
  return Number(process.env.PROPERTY_RUNS ?? base);
}
