//! One webhook endpoint's card: its URL, status, consecutive failures, event types and secret
//! rotation; the Send test / Re-enable (optionally resending what it missed) / Rotate secret /
//! End previous secret / Delete actions; the choice of event types; and its delivery attempts,
//! each of which can be resent. The card is updated in place on every reload, so a focused
//! button keeps its focus. What the actions do: endpoint-actions.js.
import { announce, formatInt, h, replace, time } from './dom.js';
import { createAttempts } from './view-attempts.js';
import { deliveryActions, secretActions, settingActions } from './endpoint-actions.js';

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
 * @param {{ client: ReturnType<typeof import('./api.js').createClient>, endpoint: any,
 *           eventTypes: readonly string[], onDeleted: (endpoint: any) => Promise<void> }} options
 * `eventTypes`: the types an endpoint may choose, as the service lists them. `onDeleted` runs once
 * the service deleted the endpoint: the list reloads and takes the focus.
 */
export function createEndpointCard({ client, endpoint, eventTypes, onDeleted }) {
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
  const view = endpointView(endpoint, eventTypes, headingId, attempts, on);
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
function endpointView(endpoint, eventTypes, headingId, attempts, on) {
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
  const typeBoxes = eventTypes.map((type) =>
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
