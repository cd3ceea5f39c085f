//! The memory of a stack's processes over a run (soak and load): sampled every few seconds, judged
//! by whether each part levels off, and written as a CSV and an SVG chart for a person to read.
import { processMemory, type StackControl } from './stack-control.js';

/** One reading of one part's memory. */
export interface MemorySample {
  atMs: number;
  part: string;
  pid: number;
  rssKiB: number;
  groupRssKiB: number;
  /** What the soak judges and draws: the tree's proportional set (see ProcessMemory). */
  groupPssKiB: number;
}

/** A pid read that takes longer is skipped: the control endpoint runs one action at a time. */
const PID_READ_MS = 2_000;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Samples every part's memory until `stop` says so; a fault's pid change is followed. `onRound`
 * sees each round's samples as they are taken (a long run's CSV then survives the run's end).
 */
export async function sampleMemory(
  control: StackControl,
  everyMs: number,
  since: number,
  samples: MemorySample[],
  stop: () => boolean,
  onRound?: (round: MemorySample[]) => void,
): Promise<void> {
  let pids: Record<string, number> = await control.pids();
  while (!stop()) {
    const fresh = await Promise.race([control.pids(), sleep(PID_READ_MS).then(() => undefined)]).catch(() => undefined);
    if (fresh) pids = fresh;
    const atMs = Date.now() - since;
    const round: MemorySample[] = [];
    for (const [part, pid] of Object.entries(pids)) {
      const memory = processMemory(pid);
      // A process just killed reads as nothing: no sample rather than a false drop to zero.
      if (memory.rssKiB > 0)
        round.push({ atMs, part, pid, rssKiB: memory.rssKiB, groupRssKiB: memory.groupRssKiB, groupPssKiB: memory.groupPssKiB });
    }
    samples.push(...round);
    onRound?.(round);
    await sleep(everyMs);
  }
}

/**
 * What a part's memory is judged by: the RSS of its own process, or the proportional set of its
 * process tree (summed RSS would count the pages the tree's processes share once per process).
 */
export type MemoryMeasure = 'rss' | 'treePss';
const READ: Record<MemoryMeasure, (s: MemorySample) => number> = { rss: (s) => s.rssKiB, treePss: (s) => s.groupPssKiB };
export const MEASURE_NAMES: Record<MemoryMeasure, string> = { rss: 'own RSS', treePss: 'tree PSS' };

/** How one part's memory stood over the run: its level at a third of the run and after. */
export interface MemoryLevel {
  part: string;
  measure: MemoryMeasure;
  /** Highest (KiB) held for a minute within a twelfth of the run either side of its third. */
  levelKiB: number;
  /** Highest (KiB) held for a minute in the last third: the most of any minute's median. */
  lastThirdMaxKiB: number;
  /** Minute from which every later sample stayed within 5% of the last third's median. */
  levelledAtMinute: number | undefined;
  /** The last third grew more than 5% over the level. */
  grows: boolean;
}

/** Within 5% of the level: what "levels off" means for the soak. */
export const LEVEL_TOLERANCE = 0.05;

/**
 * Parts sampled, charted and printed but not judged, each with why. The test's fixtures stand in
 * for the sites, DNS and feeds the tools reach and are no part of the service a user runs. Their
 * memory climbs for about half an hour at the soak's rate before it holds (some 8 MiB), across the
 * 5% line at minute 20 one run and not the next: judged, a fixture would decide the service's verdict.
 */
export const UNJUDGED_PARTS: ReadonlyMap<string, string> = new Map([['fixtures', 'the test fixtures']]);

const judged = (l: MemoryLevel) => !UNJUDGED_PARTS.has(l.part);

/** The judged parts that grew. */
export function judgedGrowth(levels: readonly MemoryLevel[]): MemoryLevel[] {
  return levels.filter((l) => l.grows && judged(l));
}

/** One line per part: its level, the highest after, and from when it held. */
export function formatLevels(levels: readonly MemoryLevel[]): string[] {
  const mib = (kib: number) => `${(kib / 1024).toFixed(0)} MiB`;
  const growth = (l: MemoryLevel) => (!l.grows ? '' : judged(l) ? '  GROWS' : `  grows (not judged: ${UNJUDGED_PARTS.get(l.part)})`);
  return levels.map(
    (l) =>
      `  ${l.part.padEnd(14)} ${MEASURE_NAMES[l.measure].padEnd(8)} ${mib(l.levelKiB).padStart(8)} -> max ${mib(l.lastThirdMaxKiB).padStart(8)}  levelled at minute ${l.levelledAtMinute?.toFixed(1) ?? 'never'}${growth(l)}`,
  );
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted.length ? sorted[Math.floor(sorted.length / 2)]! : NaN;
};

/** A stretch a fault disturbed: from its start until the part it struck was back. */
export interface FaultStretch {
  startMs: number;
  backMs: number;
}

/** A predicate: does the stretch from `fromMs` to `toMs` meet a fault, widened by `beforeMs` ahead of its start and `afterMs` past its part's return? */
export function nearFault(
  faults: readonly FaultStretch[],
  reach: { beforeMs: number; afterMs: number },
): (fromMs: number, toMs?: number) => boolean {
  return (fromMs, toMs = fromMs) => faults.some((f) => fromMs <= f.backMs + reach.afterMs && toMs >= f.startMs - reach.beforeMs);
}

/** After a fault's part is back, this long before memory counts again: a restarted process loads its code and warms up. */
export const SETTLE_AFTER_FAULT_MS = 60_000;
const MINUTE_MS = 60_000;

/**
 * Each part's level at a third of the run (minute 20 of 60) against the last third. Growth past
 * the tolerance fails; a drop does not (a fault restarts a part with less memory). Samples from a
 * fault's start until a minute after its part was back are left out: a restart's warm-up is not
 * a level.
 */
export function memoryLevels(
  samples: readonly MemorySample[],
  durationMs: number,
  measure: MemoryMeasure,
  faults: readonly FaultStretch[] = [],
): MemoryLevel[] {
  const third = durationMs / 3;
  const read = READ[measure];
  const disturbed = nearFault(faults, { beforeMs: 0, afterMs: SETTLE_AFTER_FAULT_MS });
  const parts = [...new Set(samples.map((s) => s.part))];
  return parts.map((part) => {
    const mine = samples.filter((s) => s.part === part);
    const quiet = mine.filter((s) => !disturbed(s.atMs));
    const last = quiet.filter((s) => s.atMs >= durationMs - third);
    // A level is what a part holds for a minute, not one sample: a spike shorter than half a minute
    // (a capture's page in the workers' tree) would otherwise fail a run that holds its level. The
    // most held around minute 20 (five minutes either side, of 60) is compared with the most held
    // in the last third: a heap's GC sawtooth (the workers' ~40 MiB every ten minutes) is then
    // peak against peak, and growth that goes on still lifts the later peaks.
    const minutes = minuteMedians(mine, read).filter((m) => !disturbed(m.fromMs, m.fromMs + MINUTE_MS));
    const reach = Math.max(MINUTE_MS, durationMs / 12);
    const aroundThird = minutes.filter((m) => m.fromMs >= third - reach && m.fromMs + MINUTE_MS <= third + reach).map((m) => m.kib);
    const lastThird = minutes.filter((m) => m.fromMs >= durationMs - third).map((m) => m.kib);
    const levelKiB = aroundThird.length
      ? Math.max(...aroundThird)
      : median(quiet.filter((s) => Math.abs(s.atMs - third) <= reach).map(read));
    const lastThirdMaxKiB = lastThird.length ? Math.max(...lastThird) : median(last.map(read));
    const settled = median(last.map(read));
    let levelledAt: number | undefined;
    for (let i = quiet.length - 1; i >= 0 && Math.abs(read(quiet[i]!) - settled) <= settled * LEVEL_TOLERANCE; i--)
      levelledAt = quiet[i]!.atMs / MINUTE_MS;
    return {
      part,
      measure,
      levelKiB,
      lastThirdMaxKiB,
      levelledAtMinute: levelledAt,
      grows: lastThirdMaxKiB > levelKiB * (1 + LEVEL_TOLERANCE),
    };
  });
}

/** The median of every whole minute of samples, one starting at each sample (whatever the sampling pace). */
function minuteMedians(samples: readonly MemorySample[], read: (s: MemorySample) => number): Array<{ fromMs: number; kib: number }> {
  const ends = samples.at(-1)?.atMs ?? 0;
  return samples.flatMap((s, i) => {
    if (s.atMs + MINUTE_MS > ends) return [];
    const minute = [];
    for (let j = i; j < samples.length && samples[j]!.atMs < s.atMs + MINUTE_MS; j++) minute.push(read(samples[j]!));
    return [{ fromMs: s.atMs, kib: median(minute) }];
  });
}

export const MEMORY_CSV_HEADER = 'seconds,part,pid,rss_kib,tree_rss_kib,tree_pss_kib\n';

/** The samples as CSV lines, without the header (for appending as a run goes). */
export function memoryCsvRows(samples: readonly MemorySample[]): string {
  return samples.map((s) => `${(s.atMs / 1000).toFixed(0)},${s.part},${s.pid},${s.rssKiB},${s.groupRssKiB},${s.groupPssKiB}\n`).join('');
}

export function memoryCsv(samples: readonly MemorySample[]): string {
  return MEMORY_CSV_HEADER + memoryCsvRows(samples);
}

const COLOURS = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', '#17becf'];

/** The tree PSS of each part over time as an SVG line chart, faults marked, for a person to look at. */
export function memoryChart(
  samples: readonly MemorySample[],
  faults: ReadonlyArray<{ startMs: number; action: string }>,
  durationMs: number,
): string {
  const [w, h, left, right, top, bottom] = [960, 480, 60, 150, 30, 40];
  const maxMiB = Math.max(64, ...samples.map((s) => s.groupPssKiB / 1024)) * 1.1;
  const x = (ms: number) => left + ((w - left - right) * ms) / durationMs;
  const y = (mib: number) => top + (h - top - bottom) * (1 - mib / maxMiB);
  const parts = [...new Set(samples.map((s) => s.part))];
  const lines = parts.map((part, i) => {
    const points = samples
      .filter((s) => s.part === part)
      .map((s) => `${x(s.atMs).toFixed(1)},${y(s.groupPssKiB / 1024).toFixed(1)}`)
      .join(' ');
    const colour = COLOURS[i % COLOURS.length];
    return (
      `<polyline fill="none" stroke="${colour}" stroke-width="1.5" points="${points}"/>` +
      `<text x="${w - right + 10}" y="${top + 18 * i + 12}" fill="${colour}" font-size="13">${part}</text>`
    );
  });
  const faultMarks = faults.map(
    (f) =>
      `<line x1="${x(f.startMs)}" x2="${x(f.startMs)}" y1="${top}" y2="${h - bottom}" stroke="#999" stroke-dasharray="4 3"/><text x="${x(f.startMs) + 3}" y="${top + 10}" font-size="10" fill="#666">${f.action}</text>`,
  );
  const yTicks = Array.from({ length: 6 }, (_, i) => (maxMiB * i) / 5).map(
    (mib) =>
      `<text x="${left - 6}" y="${y(mib) + 4}" font-size="11" text-anchor="end">${mib.toFixed(0)}</text><line x1="${left}" x2="${w - right}" y1="${y(mib)}" y2="${y(mib)}" stroke="#eee"/>`,
  );
  const minutes = Math.ceil(durationMs / 60_000);
  const step = Math.max(1, Math.ceil(minutes / 12));
  const xTicks = Array.from({ length: Math.floor(minutes / step) + 1 }, (_, i) => i * step).map(
    (m) => `<text x="${x(m * 60_000)}" y="${h - bottom + 16}" font-size="11" text-anchor="middle">${m}</text>`,
  );
  return `<svg xmlns="http://www.w3.org/2000/svg" width="${w}" height="${h}" font-family="sans-serif">
<rect width="100%" height="100%" fill="white"/>
<text x="${left}" y="18" font-size="14">Memory of each process and its descendants (proportional set, MiB) over the run (minutes)</text>
${yTicks.join('\n')}
${xTicks.join('\n')}
${faultMarks.join('\n')}
${lines.join('\n')}
</svg>
`;
}
