//! A list a view reads from the account API and shows in a container: "Loading …" the first time,
//! the error box with Try again in its place when the read fails, the rows otherwise. Keys,
//! passkeys, sessions, credit packs and link secrets are such lists; each says only how to read
//! its items and how to draw them. (A list with pages and "Load more" is paged-list.js.)
import { errorBox, loading, replace } from './dom.js';

/**
 * @param {{ body: HTMLElement, loadingWhat: string, failedWhat: string, read: () => Promise<any[]>, render: (items: any[]) => void }} spec
 * `loadingWhat` follows "Loading" (`API keys`), `failedWhat` follows "Could not load" (`the API keys`).
 */
export function createList({ body, loadingWhat, failedWhat, read, render }) {
  /** @type {any[] | null} the items last read; null before the first read and after a failed one */
  let items = null;

  async function load() {
    if (items === null) replace(body, loading(loadingWhat));
    try {
      items = await read();
      render(items);
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
      if (items) render(items);
    },
    /** Forgets the items and empties the container. */
    close() {
      items = null;
      body.replaceChildren();
    },
  };
}
