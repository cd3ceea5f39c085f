//! A section that lists what an account API page returns (`{ items, nextCursor }`), newest first:
//! loading and error states, a reload that keeps as many rows as were shown, and "Load more" with
//! the API's cursor, the focus going to the first new row. The event log and the asynchronous
//! calls are such lists; each says only how to fetch a page and how to draw the rows.
import { busy, empty, errorBox, focusOn, h, loading, replace } from './dom.js';

/**
 * @param {{ section: HTMLElement, container: HTMLElement, what: string, pageSize: number,
 *           fetchPage: (page: { limit: number, cursor?: string }) => Promise<{ items: any[], nextCursor: string | null }>,
 *           table: (items: any[]) => HTMLElement, emptyText: string, moreLabel?: string, focusKey?: string }} spec
 * The "Load more" button says `moreLabel` (`Load more <what>` unless given) and keeps the focus
 * across redraws by `focusKey` (`more-<section's id>` unless given).
 */
export function createPagedList(spec) {
  const { section, container, what, pageSize, fetchPage, table, emptyText } = spec;
  const { moreLabel = `Load more ${what}`, focusKey = `more-${section.id}` } = spec;
  let items = null;
  let nextCursor = null;

  async function load() {
    if (items === null) replace(container, loading(what));
    section.setAttribute('aria-busy', 'true');
    try {
      const page = await fetchPage({ limit: Math.max(pageSize, items?.length ?? 0) });
      items = page.items;
      nextCursor = page.nextCursor;
      render();
    } catch (err) {
      if (err.name === 'AbortError') return;
      items = null;
      replace(container, errorBox(err, { what: `the ${what}`, retry: () => load() }));
    } finally {
      section.removeAttribute('aria-busy');
    }
  }

  function render() {
    if (items.length === 0) {
      replace(container, empty(emptyText));
      return;
    }
    replace(
      container,
      table(items),
      nextCursor
        ? h(
            'button',
            { type: 'button', class: 'load-more', 'data-focus-key': focusKey, onclick: (e) => loadMore(e.currentTarget) },
            moreLabel,
          )
        : null,
    );
  }

  async function loadMore(button) {
    await busy(button, async () => {
      const before = items.length;
      try {
        const page = await fetchPage({ limit: pageSize, cursor: nextCursor });
        items = [...items, ...page.items];
        nextCursor = page.nextCursor;
        render();
        focusOn(container.querySelectorAll('tbody tr')[before] ?? container.querySelector('table'));
      } catch (err) {
        if (err.name === 'AbortError') return;
        container.append(errorBox(err, { what: `more ${what}`, retry: () => loadMore(button) }));
      }
    });
  }

  return {
    load,
    close() {
      items = null;
      nextCursor = null;
      container.replaceChildren();
    },
  };
}
