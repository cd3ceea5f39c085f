//! Reading Prometheus text exposition: the sum of a series over matching labels, and a quantile
//! from the difference of two scrapes of a histogram, as PromQL's histogram_quantile over rate().

/** Labels of one sample line as a map. */
function labelsOf(text: string): Record<string, string> {
  return Object.fromEntries([...text.matchAll(/(\w+)="([^"]*)"/g)].map((m) => [m[1]!, m[2]!]));
}

/** Each sample of `name` whose labels include all of `labels`. */
export function samples(
  text: string,
  name: string,
  labels: Record<string, string> = {},
): Array<{ labels: Record<string, string>; value: number }> {
  const found = [];
  for (const m of text.matchAll(new RegExp(`^${name}(?:\\{([^}]*)\\})? ([0-9.e+-]+|NaN|\\+Inf)$`, 'gm'))) {
    const own = labelsOf(m[1] ?? '');
    if (Object.entries(labels).every(([k, v]) => own[k] === v)) found.push({ labels: own, value: Number(m[2]) });
  }
  return found;
}

/** The sum of the matching samples of `name` (0 when none). */
export function sample(text: string, name: string, labels: Record<string, string> = {}): number {
  return samples(text, name, labels).reduce((sum, s) => sum + s.value, 0);
}

/**
 * The q-quantile (0..1) of what a histogram observed between two scrapes, by linear
 * interpolation inside the bucket, like PromQL; NaN when nothing was observed.
 */
export function quantileBetween(before: string, after: string, name: string, labels: Record<string, string>, q: number): number {
  const buckets = (text: string) => {
    const byLe = new Map<number, number>();
    for (const s of samples(text, `${name}_bucket`, labels)) {
      const le = s.labels.le === '+Inf' ? Infinity : Number(s.labels.le);
      byLe.set(le, (byLe.get(le) ?? 0) + s.value);
    }
    return byLe;
  };
  const b0 = buckets(before);
  const rows = [...buckets(after)].map(([le, count]) => ({ le, count: count - (b0.get(le) ?? 0) })).sort((a, b) => a.le - b.le);
  const total = rows.at(-1)?.count ?? 0;
  if (!total) return NaN;
  const rank = q * total;
  let lower = 0;
  let below = 0;
  for (const { le, count } of rows) {
    if (count >= rank) return le === Infinity ? lower : lower + ((le - lower) * (rank - below)) / Math.max(1, count - below);
    lower = le;
    below = count;
  }
  return NaN;
}
