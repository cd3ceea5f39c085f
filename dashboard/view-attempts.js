//! One webhook endpoint's delivery attempts, newest first, each with a Resend button (a replay of
//! its event). The API pages them by `limit` only (at most 200), so "Load more" asks again for a
//! longer list.
import { busy, dataTable, errorBox, focusOn, formatDuration, h, loading, replace, sleep, time } from './dom.js';

const FIRST = 10;
const STEP = 20;
const MAX = 200;

/** Why an attempt was made, when not for the event's arrival. */
const TRIGGERS = { replay: 'Resent on request', recovery: 'Recovered' };

/**
 * @param {{ client: any, endpointId: string, headingId: string, onReplay: (attempt: any, button: HTMLElement) => unknown }} options
 * `onReplay`: the row's Resend button (the card sends the event again and reports how it went).
 */
export function createAttempts({ client, endpointId, headingId, onReplay }) {
  let limit = FIRST;
  let rows = null;
  /** Set once a request was aborted: the session ended, so polling stops. */
  let ended = false;
  const body = h('div', { class: 'attempts-body' });
  const element = h(
    'div',
    { class: 'attempts' },
    h(
      'div',
      { class: 'attempts-head' },
      h('h4', { id: headingId }, 'Delivery attempts'),
      h('button', { type: 'button', class: 'small-button', onclick: (e) => busy(e.currentTarget, load) }, 'Refresh attempts'),
    ),
    body,
  );

  /**
   * Reads the attempts without showing them, so the endpoints view can read every card's before
   * it draws any. Only an AbortError (the session ended) is thrown; other failures are returned.
   * @returns {Promise<{ rows?: any[], error?: Error }>}
   */
  async function read() {
    try {
      return { rows: await client.attempts(endpointId, limit) };
    } catch (err) {
      if (err.name !== 'AbortError') return { error: err };
      ended = true;
      throw err;
    }
  }

  /** @param {{ rows?: any[], error?: Error }} result */
  function show(result) {
    if (result.error) {
      replace(body, errorBox(result.error, { what: 'the delivery attempts', retry: () => load() }));
      return;
    }
    rows = result.rows ?? [];
    render();
  }

  /** Reads and shows; resolves to the rows shown (null once the session ended). */
  async function load() {
    if (rows === null) replace(body, loading('delivery attempts'));
    try {
      show(await read());
    } catch {
      return null; // aborted
    }
    return rows;
  }

  function render() {
    if (rows.length === 0) {
      replace(body, h('p', { class: 'empty' }, 'No delivery attempts yet. Press Send test to post a test event.'));
      return;
    }
    const full = rows.length >= limit;
    replace(
      body,
      dataTable({
        attrs: { class: 'attempts-table', 'aria-labelledby': headingId },
        columns: ['Time', 'Event', { label: 'Status code', class: 'num' }, { label: 'Duration', class: 'num' }, 'Result', 'Actions'],
        rows: rows.map((a) => ({
          attrs: { dataset: { eventId: a.eventId } },
          cells: [
            time(a.attemptedAt),
            [
              a.event,
              h('br'),
              h('code', { class: 'small' }, a.eventId),
              TRIGGERS[a.trigger] ? [h('br'), h('span', { class: 'muted small' }, TRIGGERS[a.trigger])] : null,
            ],
            a.statusCode ?? h('span', { class: 'muted' }, 'No answer'),
            formatDuration(a.durationMs),
            [
              a.success ? h('span', { class: 'badge active' }, 'Delivered') : h('span', { class: 'badge failed' }, 'Failed'),
              a.error ? h('span', { class: 'attempt-error' }, ` ${a.error}`) : null,
            ],
            h(
              'button',
              {
                type: 'button',
                class: 'small-button',
                'aria-label': `Resend ${a.event} ${a.eventId}`,
                'data-focus-key': `replay-${a.id}`,
                onclick: (e) => onReplay(a, e.currentTarget),
              },
              'Resend',
            ),
          ],
        })),
      }),
      full && limit < MAX
        ? h(
            'button',
            { type: 'button', class: 'load-more', 'data-focus-key': 'more-attempts', onclick: (e) => loadMore(e.currentTarget) },
            'Load more attempts',
          )
        : null,
      full && limit >= MAX ? h('p', { class: 'muted small' }, `Showing the latest ${MAX} attempts.`) : null,
    );
  }

  async function loadMore(button) {
    await busy(button, async () => {
      const before = rows.length;
      limit = Math.min(MAX, limit + STEP);
      await load();
      const next = body.querySelectorAll('tbody tr')[before];
      focusOn(next ?? body.querySelector('table'));
    });
  }

  /**
   * Polls until an attempt for `eventId` is listed (a test or resent event is posted at once),
   * other than those in `known` (the attempts of it already shown before a resend).
   */
  async function watch(eventId, timeoutMs = 30_000, known = new Set()) {
    const until = Date.now() + timeoutMs;
    while (Date.now() < until && !ended) {
      const found = (await load())?.find((a) => a.eventId === eventId && !known.has(a.id));
      if (found) return found;
      await sleep(1000);
    }
    return null;
  }

  /** Ids of the attempts of `eventId` shown now. */
  const shownFor = (eventId) => new Set((rows ?? []).filter((a) => a.eventId === eventId).map((a) => a.id));

  return { element, load, read, show, watch, shownFor };
}
