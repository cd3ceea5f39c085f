//! Webhook endpoints: the form that adds one (its signing secret is shown once) and the list of
//! endpoint cards (view-endpoint.js), kept across reloads.
import { $, announce, busy, clearFormError, empty, errorBox, focusOn, formatInt, h, loading, replace, showFormError } from './dom.js';
import { hideSecret, showSecret } from './secret.js';
import { createEndpointCard } from './view-endpoint.js';

/** The API's cap (domain/webhooks/service.ts), shown so the user knows before the 21st fails. */
const MAX_ENDPOINTS = 20;

export function createWebhooksView({ client }) {
  const section = $('webhooks');
  const container = $('webhooks-body');
  /** endpoint id -> its card, kept across reloads */
  const cards = new Map();
  const list = h('ul', { class: 'endpoint-list', 'aria-labelledby': 'webhooks-title' });
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
      const endpoints = await client.webhooks();
      const attempts = [];
      for (const endpoint of endpoints) {
        const card = cardFor(endpoint);
        attempts.push([card, await card.attempts.read()]);
      }
      loaded = true;
      render(endpoints);
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
  function cardFor(endpoint) {
    let card = cards.get(endpoint.id);
    if (!card) {
      card = createEndpointCard({ client, endpoint, onDeleted });
      cards.set(endpoint.id, card);
    }
    return card;
  }

  /** After a card's Delete: the list without it, focus on the section (the card is gone). */
  async function onDeleted(endpoint) {
    await load();
    focusOn($('webhooks-title'));
    announce(`Endpoint ${endpoint.url} deleted.`);
  }

  function render(endpoints) {
    for (const [id, card] of cards) {
      if (!endpoints.some((e) => e.id === id)) {
        card.element.remove();
        cards.delete(id);
      }
    }
    endpoints.forEach((endpoint, i) => {
      const card = cardFor(endpoint);
      card.update(endpoint);
      if (list.children[i] !== card.element) list.insertBefore(card.element, list.children[i] ?? null);
    });
    count.textContent = `${formatInt(endpoints.length)} of ${MAX_ENDPOINTS} endpoints.`;
    if (endpoints.length === 0) replace(container, empty('No webhook endpoints yet. Add one to receive signed notifications.'));
    else if (!container.contains(list)) replace(container, count, list);
  }

  const adding = createAddForm({ client, onAdded: () => load() });

  return {
    load,
    /** The URL of an endpoint shown now. */
    urlOf: (endpointId) => cards.get(endpointId)?.endpoint.url,
    close() {
      adding.close();
      cards.clear();
      list.replaceChildren();
      container.replaceChildren();
    },
  };
}

/** The form that adds an endpoint and shows its signing secret once; `onAdded` reloads the list. */
function createAddForm({ client, onAdded }) {
  const secretBox = $('webhook-secret');
  const form = $('webhook-form');
  const urlInput = $('webhook-url');
  const formError = $('webhook-url-error');

  async function add(event) {
    event.preventDefault();
    const button = form.querySelector('button[type=submit]');
    await busy(button, async () => {
      clearFormError(formError, urlInput);
      const url = urlInput.value.trim();
      if (!url) {
        showFormError(formError, urlInput, { detail: 'Enter the URL to post events to.' });
        urlInput.focus();
        return;
      }
      try {
        const endpoint = await client.createWebhook(url);
        urlInput.value = '';
        showSecret(secretBox, {
          title: `Signing secret for ${endpoint.url}`,
          label: 'Signing secret',
          copyLabel: 'Copy secret',
          note: 'Copy this secret now and keep it with your receiver: it verifies the X-Service-Signature of every delivery. It is shown only once.',
          secret: endpoint.secret,
          onDone: () => urlInput.focus(),
        });
        announce('Endpoint added. Copy its signing secret now: it is shown only once.');
        await onAdded();
      } catch (err) {
        if (err.name === 'AbortError') return;
        showFormError(formError, urlInput, err);
        urlInput.focus();
      }
    });
  }

  form.addEventListener('submit', add);

  return {
    close() {
      form.removeEventListener('submit', add);
      hideSecret(secretBox);
      clearFormError(formError, urlInput);
      urlInput.value = '';
    },
  };
}
