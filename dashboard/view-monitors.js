//! Monitors (`/dashboard/monitors`): the account's monitors, newest first, each with its state
//! (and why it is not up), its uptime, a latency line of its last runs, when it last ran, and
//! Pause or Resume; Runs shows its runs below with their checks and diff images
//! (monitor-runs.js). `?id=mon_...` (the link of a monitor's mail) opens that monitor's runs.
//! Monitors are made through the API or MCP (`POST /api/v1/account/monitors`).
import { announce, busy, dataTable, focusOn, h, problemText, time, viewSection } from './dom.js';
import { latencyLine } from './monitor-latency.js';
import { createMonitorRuns } from './monitor-runs.js';
import { createPagedList } from './paged-list.js';

const STATE_LABELS = { pending: 'Pending', up: 'Up', down: 'Down', degraded: 'Degraded', paused: 'Paused' };
const percent = (n) => (n === null ? '–' : `${n}%`);

/** @param {import('./app.js').ViewContext} context */
export function createMonitorsView({ client }) {
  const container = h('div', { id: 'monitors-body' });
  const runs = createMonitorRuns({ client });
  const element = viewSection(
    'monitors',
    'Monitors',
    h(
      'p',
      { class: 'help' },
      'Tools run on a schedule and judged by checks on their answers. Each run is a call, charged as any call. Make one with ',
      h('code', {}, 'POST /api/v1/account/monitors'),
      '.',
    ),
    container,
    runs.element,
  );
  const list = createPagedList({
    section: element,
    container,
    what: 'monitors',
    pageSize: 20,
    fetchPage: (page) => client.monitors(page),
    emptyText: 'No monitors yet. POST /api/v1/account/monitors with a tool, its input, a schedule and checks to make one.',
    table: (items) =>
      dataTable({
        name: 'monitors',
        columns: ['Name', 'Tool', 'State', 'Uptime 24 h / 7 d / 30 d', 'Latency', 'Last run', 'Actions'],
        rowHeader: 0,
        rows: items.map(row),
      }),
  });

  function row(m) {
    const paused = m.state === 'paused';
    return {
      attrs: { dataset: { monitorId: m.id } },
      cells: [
        m.name,
        m.tool,
        h(
          'span',
          {},
          h('span', { class: `badge ${m.state}` }, STATE_LABELS[m.state] ?? m.state),
          m.stateReason ? h('span', { class: 'small muted' }, ` ${m.stateReason}`) : null,
        ),
        `${percent(m.uptime['24h'])} / ${percent(m.uptime['7d'])} / ${percent(m.uptime['30d'])}`,
        latencyLine(m.recentRuns),
        time(m.lastRunAt),
        h(
          'span',
          { class: 'row-actions' },
          h(
            'button',
            { type: 'button', 'aria-label': `Runs of ${m.name}`, 'data-focus-key': `runs-${m.id}`, onclick: () => showRuns(m) },
            'Runs',
          ),
          h(
            'button',
            {
              type: 'button',
              'aria-label': `${paused ? 'Resume' : 'Pause'} ${m.name}`,
              'data-focus-key': `pause-${m.id}`,
              onclick: (e) => setPaused(m, !paused, e.currentTarget),
            },
            paused ? 'Resume' : 'Pause',
          ),
        ),
      ],
    };
  }

  async function showRuns(monitor) {
    await runs.show(monitor);
    focusOn(runs.element.querySelector('h2'));
  }

  async function setPaused(monitor, paused, button) {
    await busy(button, async () => {
      try {
        await client.updateMonitor(monitor.id, { paused });
        await list.load();
        focusOn(element.querySelector(`[data-focus-key="pause-${monitor.id}"]`));
        announce(`${monitor.name} ${paused ? 'paused' : 'resumed'}.`);
      } catch (err) {
        if (err.name === 'AbortError') return;
        button.closest('td')?.append(h('p', { class: 'field-error', role: 'alert' }, problemText(err)));
        button.focus();
      }
    });
  }

  return {
    element,
    /** @param {import('./router.js').Route} route */
    async load(route) {
      await Promise.all([list.load(), runs.reload()]);
      const id = route?.query.get('id');
      if (id) await runs.show(await client.monitor(id)).catch(() => undefined);
    },
    close() {
      list.close();
      runs.close();
    },
  };
}
