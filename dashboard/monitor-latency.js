//! A monitor's latency line: the durations of its last runs (oldest to newest) as a small SVG
//! polyline, failed runs marked, with a text equivalent for screen readers (the range and the
//! latest duration). Drawn from the list's `recentRuns`; nothing is read for it.
import { formatDuration, h, s } from './dom.js';

const WIDTH = 120;
const HEIGHT = 28;
const PAD = 3;

/** @param {{ durationMs: number, outcome: string }[]} runs oldest first */
export function latencyLine(runs) {
  const timed = runs.filter((r) => r.outcome !== 'error' || r.durationMs > 0);
  if (timed.length === 0) return h('span', { class: 'muted' }, 'No runs yet');
  const durations = timed.map((r) => r.durationMs);
  const max = Math.max(...durations, 1);
  const min = Math.min(...durations);
  const x = (i) => PAD + (timed.length === 1 ? (WIDTH - 2 * PAD) / 2 : (i * (WIDTH - 2 * PAD)) / (timed.length - 1));
  const y = (ms) => HEIGHT - PAD - (ms / max) * (HEIGHT - 2 * PAD);
  const label = `Latency of the last ${timed.length} runs: ${formatDuration(min)} to ${formatDuration(max)}, latest ${formatDuration(durations.at(-1))}`;
  return s(
    'svg',
    {
      class: 'latency-line',
      viewBox: `0 0 ${WIDTH} ${HEIGHT}`,
      width: String(WIDTH),
      height: String(HEIGHT),
      role: 'img',
      'aria-label': label,
    },
    s('title', {}, label),
    s('polyline', { points: timed.map((r, i) => `${x(i).toFixed(1)},${y(r.durationMs).toFixed(1)}`).join(' '), class: 'latency-path' }),
    timed.map((r, i) =>
      r.outcome === 'pass'
        ? null
        : s('circle', { cx: x(i).toFixed(1), cy: y(r.durationMs).toFixed(1), r: '2.5', class: `latency-${r.outcome}` }),
    ),
  );
}
