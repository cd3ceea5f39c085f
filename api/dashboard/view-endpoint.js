//! One webhook endpoint's card: its URL, status and consecutive failures, the Send test /
//! Re-enable / Delete actions, and its delivery attempts. The card is updated in place on every
//! reload, so a focused button keeps its focus.
import { confirmAction } from './dialogs.js';
import { announce, busy, formatDuration, formatInt, h, problemText, replace, sleep, time } from './dom.js';
import { createAttempts } from './view-attempts.js';

/**
 * The endpoint's failure count is mirrored by its workflow just after the attempt is recorded,
 * so right after an attempt appears the endpoint may still show the count from before it.
 */
const MIRROR_READS = 6;
const MIRROR_PAUSE_MS = 500;

/** Whether `endpoint` already counts `attempt`: a failure counts at least one, a success resets to zero. */
const counts = (endpoint, attempt) =>
  attempt.success ? endpoint.consecutiveFailures === 0 : endpoint.consecutiveFailures > 0 || endpoint.status === 'disabled';

/** What a test delivery came to, in one sentence. */
function outcome(attempt) {
  if (attempt.success) return `Test event delivered: HTTP ${attempt.statusCode} in ${formatDuration(attempt.durationMs)}.`;
  const status = attempt.statusCode ? ` with HTTP ${attempt.statusCode}` : '';
  return `Test delivery failed${status}: ${(attempt.error ?? 'no answer').replace(/\.$/, '')}.`;
}

/**
 * @param {{ client: ReturnType<typeof import('./api.js').createClient>, endpoint: any,
 *           onDeleted: (endpoint: any) => Promise<void> }} options
 * `onDeleted` runs once the service deleted the endpoint: the list reloads and takes the focus.
 */
export function createEndpointCard({ client, endpoint, onDeleted }) {
  const id = endpoint.id;
  const headingId = `endpoint-${id}`;
  const status = h('dd');
  const failures = h('dd');
  const actions = h('div', { class: 'actions' });
  const result = h('p', { class: 'test-result', role: 'status' });
  const disabledNote = h('p', { class: 'disabled-note' }, 'Disabled after 20 failed deliveries in a row: nothing is posted to this URL until you re-enable it.');
  const attempts = createAttempts({ client, endpointId: id, headingId: `${headingId}-attempts` });
  const described = { type: 'button', 'aria-describedby': headingId };
  const testButton = h('button', { ...described, class: 'primary', onclick: (e) => sendTest(e.currentTarget) }, 'Send test');
  const enableButton = h('button', { ...described, class: 'primary', onclick: (e) => enable(e.currentTarget) }, 'Re-enable');
  const deleteButton = h('button', { ...described, class: 'danger', onclick: (e) => remove(e.currentTarget) }, 'Delete');
  const element = h(
    'li',
    { class: 'endpoint', dataset: { endpointId: id } },
    h(
      'article',
      { 'aria-labelledby': headingId },
      h('h3', { id: headingId, class: 'endpoint-url', tabindex: '-1' }, endpoint.url),
      h(
        'dl',
        { class: 'endpoint-facts' },
        h('div', {}, h('dt', {}, 'Status'), status),
        h('div', {}, h('dt', {}, 'Consecutive failures'), failures),
        h('div', {}, h('dt', {}, 'Added'), h('dd', {}, time(endpoint.createdAt))),
      ),
      disabledNote,
      actions,
      result,
      attempts.element,
    ),
  );

  const card = { id, element, attempts, endpoint, update };

  function update(next) {
    card.endpoint = next;
    const disabled = next.status === 'disabled';
    replace(status, disabled ? h('span', { class: 'badge failed' }, 'Disabled') : h('span', { class: 'badge active' }, 'Active'), next.disabledAt ? [' since ', time(next.disabledAt)] : null);
    failures.textContent = formatInt(next.consecutiveFailures);
    disabledNote.hidden = !disabled;
    // A disabled endpoint is sent nothing, tests included: Re-enable takes Send test's place,
    // and the focus passes from one to the other when they swap.
    const focused = document.activeElement;
    actions.replaceChildren(disabled ? enableButton : testButton, deleteButton);
    if (focused === enableButton && !disabled) testButton.focus();
    if (focused === testButton && disabled) enableButton.focus();
  }

  /** Reads the endpoint again until it counts `attempt` (a few reads at most), showing each read. */
  async function rereadAfter(attempt) {
    for (let read = 1; ; read++) {
      const next = (await client.webhooks()).find((e) => e.id === id);
      if (next) update(next);
      if (!next || counts(next, attempt) || read === MIRROR_READS) return;
      await sleep(MIRROR_PAUSE_MS);
    }
  }

  async function sendTest(button) {
    await busy(button, async () => {
      try {
        const { eventId } = await client.testWebhook(id);
        result.textContent = `Test event ${eventId} sent; waiting for its delivery attempt…`;
        const attempt = await attempts.watch(eventId);
        if (!attempt) {
          result.textContent = `Test event ${eventId} sent; no delivery attempt yet. Refresh the attempts in a moment.`;
          return;
        }
        // The count of failures first, so the outcome is announced with the card up to date and
        // the button free again; a failed re-read leaves the old count, not an error.
        await rereadAfter(attempt).catch((err) => {
          if (err.name === 'AbortError') throw err;
        });
        result.textContent = outcome(attempt);
      } catch (err) {
        if (err.name === 'AbortError') return;
        result.textContent = `Could not send the test: ${problemText(err)}`;
      }
    });
  }

  async function enable(button) {
    await busy(button, async () => {
      try {
        update(await client.enableWebhook(id));
        announce(`Endpoint ${card.endpoint.url} re-enabled.`);
      } catch (err) {
        if (err.name === 'AbortError') return;
        result.textContent = `Could not re-enable: ${problemText(err)}`;
      }
    });
  }

  async function remove(button) {
    const confirmed = await confirmAction({
      title: `Delete endpoint ${card.endpoint.url}?`,
      body: 'Nothing more will be posted to this URL, including deliveries still waiting for a retry. This cannot be undone.',
      confirmLabel: 'Delete endpoint',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        await client.deleteWebhook(id);
      } catch (err) {
        if (err.name === 'AbortError') return;
        result.textContent = `Could not delete: ${problemText(err)}`;
        button.focus();
        return;
      }
      await onDeleted(card.endpoint);
    });
  }

  update(endpoint);
  return card;
}
