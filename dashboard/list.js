//! A list a view reads from the account API and shows in a container: "Loading …" the first time,
//! the error box with Try again in its place when the read fails, the rows otherwise. Keys,
//! passkeys, sessions, credit packs and link secrets are such lists; each says only how to read
//! its items and how to draw them: its own `render`, or the common shape of a table with a line
//! in its place when there are no rows (`emptyText`, `table`). (A list with pages and "Load more"
//! is paged-list.js.)
import { empty, errorBox, loading, replace } from './dom.js';

/**
 * Shows `items` in `body`: `emptyText` when there are none, `table(items)` otherwise.
 * @param {HTMLElement} body
 * @param {any[]} items
 * @param {{ emptyText: unknown, table: (items: any[]) => unknown }} shape
 */
export function drawRows(body, items, { emptyText, table }) {
  replace(body, items.length ? table(items) : empty(emptyText));
}

/**
 * @param {{ body: HTMLElement, loadingWhat: string, failedWhat?: string, read: () => Promise<any[]>,
 *           render?: (items: any[]) => void, emptyText?: unknown, table?: (items: any[]) => unknown }} spec
 * `loadingWhat` follows "Loading" (`API keys`), `failedWhat` follows "Could not load" (`the API
 * keys`, the default). Without `render` the items are drawn by `drawRows` with `emptyText` and `table`.
 */
export function createList({ body, loadingWhat, failedWhat = `the ${loadingWhat}`, read, render, emptyText, table }) {
  const draw = render ?? ((items) => drawRows(body, items, { emptyText, table: /** @type {(items: any[]) => unknown} */ (table) }));
  /** @type {any[] | null} the items last read; null before the first read and after a failed one */
  let items = null;

  async function load() {
    if (items === null) replace(body, loading(loadingWhat));
    try {
      items = await read();
      draw(items);
    } catch (err) {
      if (err?.name === 'AbortError') return;
      items = null;
      replace(body, errorBox(err, { what: failedWhat, retry: () => load() }));
    }
  }

  return {
    load,
    items: () => items,
    /** Draws the items again (a row's state changed on the page), when there are any. */
    redraw() {
      if (items) draw(items);
    },
    /** Forgets the items and empties the container. */
    close() {
      items = null;
      body.replaceChildren();
    },
  };
}

/**
 * A list its view reads and draws when it chooses: the Team page reads its members and its
 * invitations together, then draws both with the controls the signed-in role has. "Loading …"
 * the first time; a failed read is drawn as the error box with `retry`.
 * @param {{ body: HTMLElement, loadingWhat: string, failedWhat?: string, read: () => Promise<any[]>, retry: () => unknown }} spec
 */
export function createHeldList({ body, loadingWhat, failedWhat = `the ${loadingWhat}`, read, retry }) {
  /** @type {any[] | null} */
  let items = null;
  /** Why the last read failed, to show in the list's place. */
  let error = null;

  return {
    items: () => items,
    async read() {
      if (items === null) replace(body, loading(loadingWhat));
      try {
        items = await read();
        error = null;
      } catch (err) {
        if (err?.name === 'AbortError') return;
        items = null;
        error = err;
      }
    },
    /** @param {{ emptyText: unknown, table: (items: any[]) => unknown }} shape as `drawRows` takes it */
    draw(shape) {
      if (error) replace(body, errorBox(error, { what: failedWhat, retry }));
      else if (items) drawRows(body, items, shape);
    },
    close() {
      items = null;
    },
  };
}
