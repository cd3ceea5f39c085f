//! The Render links page's render cache: hits per day over the last 31 days with the credits they
//! saved, and emptying it after confirmation.
import { dataTable, empty, h, problemText, replace } from './dom.js';
import { announcedAction } from './row-action.js';

/** @param {{ client: import('./api.js').Client }} deps */
export function createRenderCache({ client }) {
  const cacheBody = h('div', { id: 'render-cache-body' });
  const section = h(
    'section',
    { 'aria-labelledby': 'render-cache-title' },
    h('h2', { id: 'render-cache-title', tabindex: '-1' }, 'Render cache'),
    h('p', { class: 'help' }, 'Stored renders are kept 30 days; hits are free.'),
    cacheBody,
  );

  /** Shows the hits per day (`GET .../render-cache`'s `days`). */
  function render(days) {
    const button = h(
      'button',
      { type: 'button', class: 'danger', id: 'render-cache-empty', onclick: (e) => emptyCache(e.currentTarget) },
      'Empty the render cache',
    );
    const table = days.length
      ? dataTable({
          name: 'render-cache',
          columns: ['Day (UTC)', 'Hits', 'Credits saved'],
          rowHeader: 0,
          rows: days.map((d) => ({ cells: [d.day, String(d.hits), String(d.creditsSaved)] })),
        })
      : empty('No render cache hits in the last 31 days.');
    replace(cacheBody, table, button);
  }

  function emptyCache(button) {
    return announcedAction({
      button,
      confirm: {
        title: 'Empty the render cache?',
        body: 'Every stored render of this account is forgotten: the next call of each renders afresh and is charged.',
        confirmLabel: 'Empty cache',
      },
      act: async () => {
        const { deleted } = await client.emptyRenderCache();
        return `Render cache emptied: ${deleted} stored ${deleted === 1 ? 'render' : 'renders'} dropped.`;
      },
      heading: section.querySelector('#render-cache-title'),
      refused: (err) => cacheBody.append(h('p', { class: 'field-error', role: 'alert' }, problemText(err))),
    });
  }

  return {
    section,
    render,
    close() {
      cacheBody.replaceChildren();
    },
  };
}
