//! One webhook endpoint's card: its URL, status, consecutive failures, event types and secret
//! rotation; the Send test / Re-enable (optionally resending what it missed) / Rotate secret /
//! End previous secret / Delete actions; the choice of event types; and its delivery attempts,
//! each of which can be resent. The card is updated in place on every reload, so a focused
//! button keeps its focus.
import { confirmAction } from './dialogs.js';
import { announce, busy, formatDuration, formatInt, h, problemText, replace, sleep, time } from './dom.js';
import { showSecret } from './secret.js';
import { createAttempts } from './view-attempts.js';

/** The event types an endpoint can choose (contracts/event-kinds.ts SUBSCRIBABLE_EVENT_KINDS; a dashboard test keeps them equal). */
export const EVENT_TYPES = [
  'credits.low',
  'credits.exhausted',
  'credits.granted',
  'credits.voided',
  'credits.recharge_failed',
  'api_key.created',
  'api_key.revoked',
  'call.completed',
  'batch.completed',
  'batch.paused',
  'member.joined',
  'member.removed',
  'monitor.down',
  'monitor.degraded',
  'monitor.up',
  'monitor.changed',
  'monitor.paused',
];

const HOUR_MS = 3_600_000;
/** How far back Re-enable may resend missed events (the event log keeps 30 days). */
const RECOVER_CHOICES = [
  ['', 'Resend nothing'],
  [String(HOUR_MS), 'From the last hour'],
  [String(24 * HOUR_MS), 'From the last 24 hours'],
  [String(7 * 24 * HOUR_MS), 'From the last 7 days'],
  // A minute short of 30 days, so the time is still inside the log when the request arrives.
  [String(30 * 24 * HOUR_MS - 60_000), 'From the last 30 days'],
];

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
  // The card's buttons call the actions through `on`, which is filled once the card exists.
  const on = {};
  const attempts = createAttempts({
    client,
    endpointId: id,
    headingId: `${headingId}-attempts`,
    onReplay: (a, button) => on.replay(a, button),
  });
  const view = endpointView(endpoint, headingId, attempts, on);
  const card = { id, element: view.element, attempts, endpoint, update };

  function update(next) {
    card.endpoint = next;
    showEndpoint(view, next);
  }

  /** Shows an action's outcome under the buttons and says it. */
  function report(text) {
    view.result.textContent = text;
    announce(text);
  }

  const context = { client, id, card, view, attempts, update, report };
  Object.assign(on, deliveryActions(context), secretActions(context), settingActions(context, onDeleted));
  update(endpoint);
  return card;
}

/** The card's elements, empty of the endpoint's changing facts (`showEndpoint` fills them in). */
function endpointView(endpoint, headingId, attempts, on) {
  const status = h('dd');
  const failures = h('dd');
  const actions = h('div', { class: 'actions' });
  const result = h('p', { class: 'test-result', role: 'status' });
  const disabledNote = h(
    'p',
    { class: 'disabled-note' },
    'Disabled after 20 failed deliveries in a row: nothing is posted to this URL until you re-enable it.',
  );
  const types = h('dd');
  const secretFact = h('dd');
  const described = { type: 'button', 'aria-describedby': headingId };
  const testButton = h('button', { ...described, class: 'primary', onclick: (e) => on.sendTest(e.currentTarget) }, 'Send test');
  const enableButton = h('button', { ...described, class: 'primary', onclick: (e) => on.enable(e.currentTarget) }, 'Re-enable');
  const rotateButton = h('button', { ...described, onclick: (e) => on.rotate(e.currentTarget) }, 'Rotate secret');
  const endOverlapButton = h('button', { ...described, onclick: (e) => on.endOverlap(e.currentTarget) }, 'End previous secret');
  const deleteButton = h('button', { ...described, class: 'danger', onclick: (e) => on.remove(e.currentTarget) }, 'Delete');
  const secretBox = h('div', { class: 'endpoint-secret' });
  const recoverId = `${headingId}-recover`;
  const recoverSelect = h(
    'select',
    { id: recoverId, name: 'recover' },
    RECOVER_CHOICES.map(([value, label]) => h('option', { value }, label)),
  );
  const recoverField = h(
    'div',
    { class: 'field recover-field' },
    h('label', { for: recoverId }, 'On re-enable, also resend the events it missed'),
    recoverSelect,
  );
  const typeBoxes = EVENT_TYPES.map((type) =>
    h('input', { type: 'checkbox', name: 'eventTypes', value: type, id: `${headingId}-type-${type}` }),
  );
  const typesError = h('p', { class: 'field-error', role: 'alert', hidden: true });
  const typesForm = h(
    'form',
    { class: 'event-types-form', novalidate: true, onsubmit: (e) => on.saveTypes(e) },
    h(
      'fieldset',
      {},
      h('legend', {}, 'Deliver these events'),
      h(
        'ul',
        { class: 'checkbox-list' },
        typeBoxes.map((box) => h('li', {}, box, ' ', h('label', { for: box.id }, h('code', {}, box.value)))),
      ),
    ),
    typesError,
    h('button', { type: 'submit', class: 'small-button' }, 'Save event types'),
  );
  const typesPanel = h('details', { class: 'event-types' }, h('summary', {}, 'Choose event types'), typesForm);
  const element = h(
    'li',
    { class: 'endpoint', dataset: { endpointId: endpoint.id } },
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
        h('div', { class: 'wide-fact' }, h('dt', {}, 'Event types'), types),
        h('div', { class: 'wide-fact' }, h('dt', {}, 'Signing secret'), secretFact),
      ),
      disabledNote,
      recoverField,
      actions,
      result,
      secretBox,
      typesPanel,
      attempts.element,
    ),
  );
  return {
    element,
    status,
    failures,
    actions,
    result,
    disabledNote,
    types,
    secretFact,
    secretBox,
    recoverSelect,
    recoverField,
    typeBoxes,
    typesError,
    typesForm,
    testButton,
    enableButton,
    rotateButton,
    endOverlapButton,
    deleteButton,
  };
}

/** Shows `next`, the endpoint as the service has it now, in the card's elements. */
function showEndpoint(view, next) {
  const disabled = next.status === 'disabled';
  replace(
    view.status,
    disabled ? h('span', { class: 'badge failed' }, 'Disabled') : h('span', { class: 'badge active' }, 'Active'),
    next.disabledAt ? [' since ', time(next.disabledAt)] : null,
  );
  view.failures.textContent = formatInt(next.consecutiveFailures);
  view.disabledNote.hidden = !disabled;
  view.recoverField.hidden = !disabled;
  view.types.textContent = next.eventTypes.join(', ');
  for (const box of view.typeBoxes) box.checked = next.eventTypes.includes(box.value);
  const overlap = next.previousSecretExpiresAt;
  replace(view.secretFact, overlap ? ['Rotated: the previous secret also signs until ', time(overlap)] : 'One secret');
  // A disabled endpoint is sent nothing, tests included: Re-enable takes Send test's place,
  // and the focus passes from one to the other when they swap (End previous secret likewise
  // hands it to Rotate secret when it goes).
  const { testButton, enableButton, rotateButton, endOverlapButton, deleteButton } = view;
  const focused = document.activeElement;
  view.actions.replaceChildren(
    ...[disabled ? enableButton : testButton, rotateButton, overlap ? endOverlapButton : null, deleteButton].filter((b) => b !== null),
  );
  if (focused === enableButton && !disabled) testButton.focus();
  if (focused === testButton && disabled) enableButton.focus();
  if (focused === endOverlapButton && !overlap) rotateButton.focus();
}

/** Send test, Re-enable and Resend: what is delivered to the endpoint, and how it went. */
function deliveryActions({ client, id, card, view, attempts, update, report }) {
  const { result, recoverSelect } = view;

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
        const back = Number(recoverSelect.value);
        const since = back ? new Date(Date.now() - back).toISOString() : undefined;
        update(await client.enableWebhook(id, since));
        recoverSelect.value = '';
        announce(`Endpoint ${card.endpoint.url} re-enabled.${since ? ' The events it missed are being resent, oldest first.' : ''}`);
      } catch (err) {
        if (err.name === 'AbortError') return;
        result.textContent = `Could not re-enable: ${problemText(err)}`;
      }
    });
  }

  async function replay(attempt, button) {
    await busy(button, async () => {
      try {
        const known = attempts.shownFor(attempt.eventId);
        await client.replay(id, attempt.eventId);
        result.textContent = `Event ${attempt.eventId} resent; waiting for its delivery attempt…`;
        const next = await attempts.watch(attempt.eventId, 30_000, known);
        if (!next) report(`Event ${attempt.eventId} resent; no delivery attempt yet. Refresh the attempts in a moment.`);
        else
          report(
            next.success
              ? `Event ${attempt.eventId} delivered again: HTTP ${next.statusCode}.`
              : `Resending ${attempt.eventId} failed: ${(next.error ?? 'no answer').replace(/\.$/, '')}.`,
          );
      } catch (err) {
        if (err.name === 'AbortError') return;
        report(`Could not resend ${attempt.eventId}: ${problemText(err)}`);
      }
    });
  }

  return { sendTest, enable, replay };
}

/** Rotate secret and End previous secret. */
function secretActions({ client, id, card, view, update, report }) {
  const { result, secretBox, rotateButton } = view;

  async function rotate(button) {
    const confirmed = await confirmAction({
      title: `Rotate the signing secret of ${card.endpoint.url}?`,
      body:
        'You get a new secret, shown once. For 24 hours every delivery is signed with both the new and the current secret, ' +
        'so you can move your receiver without missing a delivery; then only the new one signs. Rotating again ends the older secret at once.',
      confirmLabel: 'Rotate secret',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        const rotated = await client.rotateSecret(id);
        update(rotated);
        showSecret(secretBox, {
          title: `New signing secret for ${rotated.url}`,
          label: 'New signing secret',
          copyLabel: 'Copy secret',
          note: 'Copy this secret now and give it to your receiver: it is shown only once. Deliveries carry both signatures until the previous secret stops signing.',
          secret: rotated.secret,
          onDone: () => rotateButton.focus(),
        });
        announce('Secret rotated. Copy the new secret now: it is shown only once.');
      } catch (err) {
        if (err.name === 'AbortError') return;
        result.textContent = `Could not rotate the secret: ${problemText(err)}`;
        button.focus();
      }
    });
  }

  async function endOverlap(button) {
    const confirmed = await confirmAction({
      title: `Stop signing with the previous secret of ${card.endpoint.url}?`,
      body: 'From now on deliveries are signed with the new secret only: a receiver still checking the previous one will refuse them.',
      confirmLabel: 'End previous secret',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        update(await client.endPreviousSecret(id));
        rotateButton.focus();
        report('The previous secret no longer signs deliveries.');
      } catch (err) {
        if (err.name === 'AbortError') return;
        result.textContent = `Could not end the previous secret: ${problemText(err)}`;
        button.focus();
      }
    });
  }

  return { rotate, endOverlap };
}

/** Choose event types and Delete. */
function settingActions({ client, id, card, view, update, report }, onDeleted) {
  const { result, typeBoxes, typesError, typesForm } = view;

  async function saveTypes(event) {
    event.preventDefault();
    const button = typesForm.querySelector('button[type=submit]');
    await busy(button, async () => {
      typesError.hidden = true;
      const chosen = typeBoxes.filter((b) => b.checked).map((b) => b.value);
      if (chosen.length === 0) {
        typesError.textContent = 'Choose at least one event type.';
        typesError.hidden = false;
        typeBoxes[0].focus();
        return;
      }
      try {
        update(await client.setEventTypes(id, chosen));
        report(`Event types saved: ${chosen.join(', ')}.`);
      } catch (err) {
        if (err.name === 'AbortError') return;
        typesError.textContent = `Could not save: ${problemText(err)}`;
        typesError.hidden = false;
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

  return { saveTypes, remove };
}
