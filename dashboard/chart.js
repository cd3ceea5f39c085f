//! Credits used per day and per tool: the aggregation of ledger rows, a stacked bar chart drawn
//! in SVG, and the same numbers as a table (the chart's accessible alternative).
import { credits, dataTable, formatDay, formatInt, h, s } from './dom.js';

/** The chart shows the most used tools by name; the rest share one "other tools" colour. */
const NAMED_TOOLS = 6;
/** Each at least 3:1 against the white background (WCAG 1.4.11, non-text contrast). */
const COLORS = ['#1d4f91', '#b4441c', '#2a7a3b', '#7b3fa0', '#8a6d00', '#0f7c85'];
/** Room for a day label ("Nov 22" at 12 px) on the x axis. */
const LABEL_W = 44;
const OTHER = { name: 'other tools', color: '#666666' };

const dayKey = (d) => `${d.getFullYear()}-${String(d.getMonth() + 1).padStart(2, '0')}-${String(d.getDate()).padStart(2, '0')}`;

/** Local midnight `days - 1` days before `now`: the first day the chart shows. */
export function windowStart(days, now = new Date()) {
  return new Date(now.getFullYear(), now.getMonth(), now.getDate() - (days - 1));
}

/**
 * Sums the charged credits of `items` (ledger rows, any order) per local day and tool over the
 * last `days` days. Refunded rows cost nothing and are left out.
 */
export function aggregateUsage(items, { days = 14, now = new Date() } = {}) {
  const start = windowStart(days, now);
  const series = Array.from({ length: days }, (_, i) => {
    const date = new Date(start.getFullYear(), start.getMonth(), start.getDate() + i);
    return { date, key: dayKey(date), total: 0, byTool: new Map() };
  });
  const index = new Map(series.map((d) => [d.key, d]));
  const toolTotals = new Map();
  for (const item of items) {
    if (item.outcome !== 'charged' || !item.credits) continue;
    const day = index.get(dayKey(new Date(item.at)));
    if (!day) continue;
    day.total += item.credits;
    day.byTool.set(item.tool, (day.byTool.get(item.tool) ?? 0) + item.credits);
    toolTotals.set(item.tool, (toolTotals.get(item.tool) ?? 0) + item.credits);
  }
  const ranked = [...toolTotals].sort((a, b) => b[1] - a[1] || a[0].localeCompare(b[0]));
  /** @type {{ name: string, total: number, color: string, members?: Set<string> }[]} */
  const tools = ranked.slice(0, NAMED_TOOLS).map(([name, total], i) => ({ name, total, color: COLORS[i] }));
  const rest = ranked.slice(NAMED_TOOLS);
  if (rest.length) tools.push({ ...OTHER, total: rest.reduce((sum, [, n]) => sum + n, 0), members: new Set(rest.map(([n]) => n)) });
  const total = series.reduce((sum, d) => sum + d.total, 0);
  return { days: series, tools, total };
}

/** Credits of `tool` (a legend entry) on `day`; "other tools" sums its members. */
function amount(day, tool) {
  if (!tool.members) return day.byTool.get(tool.name) ?? 0;
  let sum = 0;
  for (const name of tool.members) sum += day.byTool.get(name) ?? 0;
  return sum;
}

const breakdown = (day) =>
  [...day.byTool]
    .sort((a, b) => b[1] - a[1])
    .map(([tool, n]) => `${tool} ${formatInt(n)}`)
    .join(', ');

/** A round axis maximum (1, 2, 5 × 10^n) at or above `max`, and its step for four ticks. */
function axis(max) {
  const raw = Math.max(max, 4) / 4;
  const magnitude = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((m) => m * magnitude).find((v) => v >= raw);
  return { step, top: step * 4 };
}

function summary(data) {
  const busiest = data.days.reduce((a, b) => (b.total > a.total ? b : a));
  const tools = data.tools.map((t) => `${t.name} ${formatInt(t.total)}`).join(', ');
  return `${credits(data.total)} used over the last ${data.days.length} days; the busiest day was ${formatDay(busiest.date)} with ${formatInt(busiest.total)}. By tool: ${tools}.`;
}

/** Draws the bars for the wrapper's current width, so text keeps its size on a phone. */
function draw(wrapper, data, ids) {
  const width = Math.max(280, Math.floor(wrapper.clientWidth));
  const height = 220;
  const m = { top: 12, right: 8, bottom: 28, left: 44 };
  const plotW = width - m.left - m.right;
  const plotH = height - m.top - m.bottom;
  const { step, top } = axis(Math.max(...data.days.map((d) => d.total)));
  const y = (v) => m.top + plotH - (v / top) * plotH;
  const band = plotW / data.days.length;
  const barW = Math.max(4, band * 0.68);
  // Label every k-th day so labels never overlap.
  const every = Math.ceil(LABEL_W / band);

  const grid = [];
  for (let v = 0; v <= top; v += step) {
    grid.push(
      s('line', { x1: m.left, x2: width - m.right, y1: y(v), y2: y(v), class: v === 0 ? 'axis-line' : 'grid-line' }),
      s('text', { x: m.left - 6, y: y(v), class: 'tick', 'text-anchor': 'end', 'dominant-baseline': 'middle' }, formatInt(v)),
    );
  }
  const bars = data.days.map((day, i) => {
    const x = m.left + i * band + (band - barW) / 2;
    let base = 0;
    const segments = data.tools.map((tool) => {
      const n = amount(day, tool);
      if (!n) return null;
      const rect = s('rect', {
        x,
        width: barW,
        y: y(base + n),
        height: Math.max(1, y(base) - y(base + n)),
        fill: tool.color,
        class: 'segment',
      });
      base += n;
      return rect;
    });
    // Today is always labelled; centred under its bar unless that would run past the right edge.
    const centre = x + barW / 2;
    const clipped = centre + LABEL_W / 2 > width - 2;
    const label =
      i % every === (data.days.length - 1) % every
        ? s(
            'text',
            { x: clipped ? width - 2 : centre, y: height - 8, class: 'tick', 'text-anchor': clipped ? 'end' : 'middle' },
            formatDay(day.date),
          )
        : null;
    const tip = `${formatDay(day.date)}: ${credits(day.total)}${day.total ? ` (${breakdown(day)})` : ''}`;
    return s('g', { class: 'day' }, s('title', {}, tip), segments, label);
  });

  wrapper.replaceChildren(
    s(
      'svg',
      { width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-labelledby': `${ids.title} ${ids.desc}`, class: 'chart-svg' },
      s('title', { id: ids.title }, `Credits used per day, last ${data.days.length} days`),
      s('desc', { id: ids.desc }, summary(data)),
      grid,
      bars,
    ),
  );
}

/**
 * The chart, its legend and its table, in one figure. `tableOpen` and `onTableToggle` keep the
 * table open across refreshes once the reader opened it.
 * @param {ReturnType<typeof aggregateUsage>} data
 * @param {{ tableOpen?: boolean, onTableToggle?: (open: boolean) => void }} [options]
 */
export function usageChart(data, { tableOpen = false, onTableToggle = () => {} } = {}) {
  const ids = { title: 'usage-chart-title', desc: 'usage-chart-desc' };
  const wrapper = h('div', { class: 'chart' });
  let drawnWidth = -1;
  // Redrawn when the layout width changes (rotation, resize); the first call comes once attached
  // and shown (a hidden view's chart has no width yet).
  new ResizeObserver(() => {
    if (!wrapper.isConnected || wrapper.clientWidth === 0 || wrapper.clientWidth === drawnWidth) return;
    drawnWidth = wrapper.clientWidth;
    draw(wrapper, data, ids);
  }).observe(wrapper);

  const legend = h(
    'ul',
    { class: 'legend', 'aria-label': 'Tools in the chart' },
    data.tools.map((t) =>
      h('li', {}, h('span', { class: 'swatch', 'aria-hidden': 'true', dataset: { color: t.color } }), `${t.name}: ${credits(t.total)}`),
    ),
  );
  // The swatch colour is set through the CSSOM (allowed by the CSP, unlike a style attribute).
  for (const swatch of legend.querySelectorAll('.swatch')) swatch.style.backgroundColor = swatch.dataset.color;

  const table = dataTable({
    attrs: { class: 'chart-table' },
    caption: `Credits used per day, last ${data.days.length} days`,
    columns: ['Day', { label: 'Credits', class: 'num' }, 'By tool'],
    rowHeader: 0,
    rows: [...data.days].reverse().map((d) => ({ cells: [formatDay(d.date), formatInt(d.total), breakdown(d) || '–'] })),
  });

  return h(
    'figure',
    { class: 'usage-figure' },
    h('figcaption', {}, `Credits used per day (your local time), last ${data.days.length} days`),
    wrapper,
    legend,
    h(
      'details',
      { class: 'chart-details', open: tableOpen, ontoggle: (e) => onTableToggle(e.currentTarget.open) },
      h('summary', { 'data-focus-key': 'chart-table' }, 'Show the chart as a table'),
      table,
    ),
  );
}
