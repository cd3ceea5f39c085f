//! Webhooks (`/dashboard/webhooks`): the form that adds an endpoint (its signing secret is shown
//! once), the endpoint cards (view-endpoint.js: each endpoint's details, actions and delivery
//! attempts), kept across reloads, and the event log (view-events.js) with where each event went.
import {
  announce,
  clearFormError,
  code,
  empty,
  errorBox,
  focusOn,
  formatInt,
  h,
  loading,
  replace,
  showFormError,
  viewSection,
} from './dom.js';
import { field, postForm } from './forms.js';
import { createShownOnce, hideSecret } from './secret.js';
import { createEndpointCard } from './view-endpoint.js';
import { createEventLog } from './view-events.js';

/** The API's cap (domain/webhooks/service.ts), shown so the user knows before the 21st fails. */
const MAX_ENDPOINTS = 20;

/** @type {Promise<readonly string[]> | undefined} */
let subscribable;
/**
 * The event types an endpoint may choose: the service's own list (contracts/event-kinds.ts), which
 * the dashboard's route writes as an asset of the page's version; read once, again after a failure.
 */
function eventTypes() {
  // A computed specifier: the file is an asset the route writes, not a module of this folder.
  subscribable ??= import(new URL('./event-kinds.js', import.meta.url).href).then(
    (module) => module.EVENT_TYPES,
    (err) => {
      subscribable = undefined;
      throw err;
    },
  );
  return subscribable;
}

/** @param {import('./app.js').ViewContext} context */
export function createWebhooksView({ client }) {
  const container = h('div', { id: 'webhooks-body' });
  const adding = createAddForm({ client, onAdded: () => load() });
  const events = createEventLog({ client, urlOf: (endpointId) => cards.get(endpointId)?.endpoint.url });
  const section = h(
    'section',
    { id: 'endpoints', 'aria-labelledby': 'endpoints-title' },
    h('h2', { id: 'endpoints-title' }, 'Endpoints'),
    h(
      'p',
      { class: 'help' },
      "Signed notifications about your balance, keys and asynchronous calls are posted to these URLs, each endpoint receiving the event types it chose. An endpoint's signing secret is shown once, when it is added or rotated.",
    ),
    adding.form,
    adding.secretBox,
    container,
  );
  const element = viewSection('webhooks', 'Webhooks', section, events.element);
  /** endpoint id -> its card, kept across reloads */
  const cards = new Map();
  const list = h('ul', { class: 'endpoint-list', 'aria-labelledby': 'endpoints-title' });
  const count = h('p', { class: 'muted small' });
  let loaded = false;

  /**
   * Reads the endpoints and every card's attempts, then draws them together: a card never shows
   * new facts above old attempts. The attempts are read one endpoint after another (up to 20
   * lists, and the account's rate limit is shared with its tools).
   */
  async function load() {
    if (!loaded) replace(container, loading('webhook endpoints'));
    section.setAttribute('aria-busy', 'true');
    try {
      const [endpoints, types] = await Promise.all([client.webhooks(), eventTypes()]);
      const attempts = [];
      for (const endpoint of endpoints) {
        const card = cardFor(endpoint, types);
        attempts.push([card, await card.attempts.read()]);
      }
      loaded = true;
      render(endpoints, types);
      for (const [card, result] of attempts) card.attempts.show(result);
    } catch (err) {
      if (err.name === 'AbortError') return;
      loaded = false;
      cards.clear();
      list.replaceChildren();
      replace(container, errorBox(err, { what: 'the webhook endpoints', retry: () => load() }));
    } finally {
      section.removeAttribute('aria-busy');
    }
  }

  /** The endpoint's card, made on first sight and kept across reloads (with its focus and paging). */
  function cardFor(endpoint, types) {
    let card = cards.get(endpoint.id);
    if (!card) {
      card = createEndpointCard({ client, endpoint, eventTypes: types, onDeleted });
      cards.set(endpoint.id, card);
    }
    return card;
  }

  /** After a card's Delete: the list without it, focus on the section (the card is gone). */
  async function onDeleted(endpoint) {
    await load();
    focusOn(element.querySelector('#webhooks-title'));
    announce(`Endpoint ${endpoint.url} deleted.`);
  }

  function render(endpoints, types) {
    for (const [id, card] of cards) {
      if (!endpoints.some((e) => e.id === id)) {
        card.element.remove();
        cards.delete(id);
      }
    }
    endpoints.forEach((endpoint, i) => {
      const card = cardFor(endpoint, types);
      card.update(endpoint);
      if (list.children[i] !== card.element) list.insertBefore(card.element, list.children[i] ?? null);
    });
    count.textContent = `${formatInt(endpoints.length)} of ${MAX_ENDPOINTS} endpoints.`;
    if (endpoints.length === 0) replace(container, empty('No webhook endpoints yet. Add one to receive signed notifications.'));
    else if (!container.contains(list)) replace(container, count, list);
  }

  return {
    element,
    // The events after the endpoints: their deliveries are shown by the endpoints' URLs.
    load: () => load().then(() => events.load()),
    close() {
      adding.close();
      events.close();
      cards.clear();
      list.replaceChildren();
      container.replaceChildren();
    },
  };
}

/** The form that adds an endpoint and shows its signing secret once; `onAdded` reloads the list. */
function createAddForm({ client, onAdded }) {
  const secretBox = h('div', { id: 'webhook-secret' });
  const url = field({
    id: 'webhook-url',
    label: 'Endpoint URL',
    help: ['An ', code('https'), ' URL with a public address.'],
    attrs: {
      name: 'url',
      type: 'url',
      inputmode: 'url',
      maxlength: '2048',
      autocomplete: 'off',
      spellcheck: 'false',
      placeholder: 'https://example.com/hooks/utility-tools',
    },
  });
  const { input: urlInput, error: formError } = url;
  const form = postForm(
    { id: 'webhook-form', class: 'inline-form', send: add },
    url.element,
    h('button', { type: 'submit', class: 'primary' }, 'Add endpoint'),
  );

  async function add() {
    const address = urlInput.value.trim();
    if (!address) {
      showFormError(formError, urlInput, { detail: 'Enter the URL to post events to.' });
      urlInput.focus();
      return;
    }
    await createShownOnce({
      box: secretBox,
      field: url,
      make: async () => {
        const endpoint = await client.createWebhook(address);
        return {
          shown: {
            title: `Signing secret for ${endpoint.url}`,
            label: 'Signing secret',
            copyLabel: 'Copy secret',
            note: 'Copy this secret now and keep it with your receiver: it verifies the X-Service-Signature of every delivery. It is shown only once.',
            secret: endpoint.secret,
          },
          announcement: 'Endpoint added. Copy its signing secret now: it is shown only once.',
        };
      },
      reload: onAdded,
    });
  }

  return {
    form,
    secretBox,
    close() {
      hideSecret(secretBox);
      clearFormError(formError, urlInput);
      urlInput.value = '';
    },
  };
}
