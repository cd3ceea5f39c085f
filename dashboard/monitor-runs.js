//! One monitor's runs, newest first, under the monitors list: when each ran, its outcome, how long
//! its tool took, what it was charged, its checks as found and, for a change that fired, the share
//! of pixels with the diff image itself (its signed link, shown on this origin). Paged with the
//! API's cursor.
import { badge, credits, dataTable, formatDuration, h, time } from './dom.js';
import { createPagedList } from './paged-list.js';

const OUTCOMES = { pass: ['up', 'Passed'], degraded: ['degraded', 'Degraded'], fail: ['down', 'Failed'], error: ['down', 'Error'] };

/** A check as the run found it: `/status eq 200 ✓` or `/status eq 200: got 503 ✗`. */
function checkText(a) {
  const expected = a.op === 'changed' ? '' : ` ${JSON.stringify(a.value)}`;
  const got = a.op === 'visual_change' ? `${((a.actual ?? 0) * 100).toFixed(2)}% of pixels` : JSON.stringify(a.actual);
  return `${a.path} ${a.op}${expected}: ${a.pass ? 'passed' : 'failed'} (${got})`;
}

/** The diff image by its link's path, so the page's own origin serves it (img-src 'self'). */
const local = (url) => {
  const u = new URL(url, location.href);
  return u.pathname + u.search;
};

function changeCell(change) {
  if (!change) return h('span', { class: 'muted' }, 'None');
  const what = `Changed: ${change.paths.join(', ')}${change.ratio !== undefined ? ` (${(change.ratio * 100).toFixed(2)}% of pixels)` : ''}`;
  if (!change.diffUrl) return what;
  return h(
    'span',
    {},
    what,
    h('br'),
    h(
      'a',
      { href: local(change.diffUrl), target: '_blank', rel: 'noopener' },
      h('img', { class: 'diff-image', src: local(change.diffUrl), alt: `Diff image: ${what}` }),
    ),
  );
}

/** @param {{ client: any }} deps */
export function createMonitorRuns({ client }) {
  let monitorId = null;
  const heading = h('h2', { id: 'monitor-runs-title', tabindex: '-1' }, 'Runs');
  const container = h('div', { id: 'monitor-runs-body' });
  const element = h('section', { class: 'monitor-runs', 'aria-labelledby': 'monitor-runs-title', hidden: true }, heading, container);
  const list = createPagedList({
    section: element,
    container,
    what: 'runs',
    pageSize: 20,
    fetchPage: (page) => client.monitorRuns(monitorId, page),
    emptyText: 'No runs yet: the first one starts at its schedule’s next time.',
    focusKey: 'more-runs',
    table: (items) =>
      dataTable({
        name: 'monitor-runs',
        columns: ['Ran', 'Outcome', { label: 'Duration', class: 'num' }, { label: 'Charged', class: 'num' }, 'Checks', 'Change'],
        rows: items.map((r) => ({
          attrs: { dataset: { runId: r.id } },
          cells: [
            time(r.at),
            badge(OUTCOMES, r.outcome, 'down', r.error ? `: ${r.error.code}` : ''),
            formatDuration(r.durationMs),
            credits(r.charged),
            r.assertions.length
              ? h(
                  'ul',
                  { class: 'plain small' },
                  r.assertions.map((a) => h('li', {}, checkText(a))),
                )
              : '–',
            changeCell(r.change),
          ],
        })),
      }),
  });

  return {
    element,
    /** Shows the runs of `monitor` (read afresh). */
    async show(monitor) {
      monitorId = monitor.id;
      heading.textContent = `Runs of ${monitor.name}`;
      element.hidden = false;
      list.close();
      await list.load();
    },
    reload: () => (monitorId ? list.load() : Promise.resolve()),
    close() {
      monitorId = null;
      element.hidden = true;
      list.close();
    },
  };
}
