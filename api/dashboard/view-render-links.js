//! Render links (`/dashboard/render-links`): the account's link secrets (create: shown once, with a copy button; retire after
//! confirmation), a link builder (tool, input, expiry, cache age: the service signs the link with
//! the newest live secret), and the render cache's hits per day, which the owner can empty.
import { confirmAction } from './dialogs.js';
import { announce, busy, clearFormError, dataTable, empty, errorBox, focusOn, h, loading, problemText, replace, showFormError, time, viewSection } from './dom.js';
import { hideSecret, showSecret } from './secret.js';

/** A starting input per tool, so the builder shows what a tool takes. */
const EXAMPLE_INPUT = {
  'qr-generate': { text: 'https://example.com/', size: 300 },
  'website-screenshot': { url: 'https://example.com/', width: 1200, height: 630 },
  'html-to-image': { html: '<h1>Hello</h1>', width: 1200, height: 630 },
};

/** Choices of the link's expiry: seconds from now, or never. */
const EXPIRIES = [['', 'Never (until its secret is retired)'], ['3600', 'In an hour'], ['86400', 'In a day'], ['2592000', 'In 30 days']];

/** @param {import('./app.js').ViewContext} context */
export function createRenderLinksView({ client }) {
  const secretsBody = h('div', { id: 'link-secrets-body' });
  const secretBox = h('div', { id: 'link-secret' });
  const secretError = h('p', { class: 'field-error', id: 'link-secret-error', role: 'alert', hidden: true });
  const secretForm = h('form', { id: 'link-secret-form', class: 'inline-form', novalidate: true }, h('button', { type: 'submit', class: 'primary' }, 'Create link secret'), secretError);
  const tool = h('select', { id: 'link-tool', name: 'tool' }, Object.keys(EXAMPLE_INPUT).map((name) => h('option', { value: name }, name)));
  const input = h('textarea', { id: 'link-input', name: 'input', rows: '3', spellcheck: 'false', 'aria-describedby': 'link-input-error' });
  const inputError = h('p', { class: 'field-error', id: 'link-input-error', hidden: true });
  const expiresIn = h('select', { id: 'link-expires', name: 'expiresIn' }, EXPIRIES.map(([value, label]) => h('option', { value }, label)));
  const maxAge = h('input', { id: 'link-max-age', name: 'maxAge', type: 'number', min: '0', max: '2592000', inputmode: 'numeric' });
  const linkForm = h(
    'form',
    { id: 'link-form', class: 'stacked-form', novalidate: true, 'aria-labelledby': 'link-builder-title' },
    h('div', { class: 'field' }, h('label', { for: 'link-tool' }, 'Tool'), tool),
    h('div', { class: 'field' }, h('label', { for: 'link-input' }, 'Input (JSON, as for a call of the tool)'), input, inputError),
    h('div', { class: 'field' }, h('label', { for: 'link-expires' }, 'Expires'), expiresIn),
    h('div', { class: 'field' }, h('label', { for: 'link-max-age' }, 'Cache age in seconds ', h('span', { class: 'optional' }, '(optional, 4 hours when empty)')), maxAge),
    h('button', { type: 'submit', class: 'primary' }, 'Create link'),
  );
  const result = h('div', { id: 'link-result' });
  const cacheBody = h('div', { id: 'render-cache-body' });
  const element = viewSection(
    'render-links',
    'Render links',
    h(
      'p',
      { class: 'help' },
      'A render link answers a capture as the image itself, for an ', h('code', {}, '<img src>'), '. It is signed with a link secret instead of a key, and each fresh render is charged to this account; ',
      'a repeat within the link\'s cache age is answered from the render cache, free.',
    ),
    h('section', { 'aria-labelledby': 'link-secrets-title' }, h('h2', { id: 'link-secrets-title', tabindex: '-1' }, 'Link secrets'), secretForm, secretBox, secretsBody),
    h('section', { 'aria-labelledby': 'link-builder-title' }, h('h2', { id: 'link-builder-title' }, 'Build a link'), linkForm, result),
    h(
      'section',
      { 'aria-labelledby': 'render-cache-title' },
      h('h2', { id: 'render-cache-title', tabindex: '-1' }, 'Render cache'),
      h('p', { class: 'help' }, 'Stored renders are kept 30 days; hits are free.'),
      cacheBody,
    ),
  );
  let secrets = null;

  async function load() {
    if (secrets === null) replace(secretsBody, loading('link secrets'));
    try {
      const [list, cache] = await Promise.all([client.linkSecrets(), client.renderCache()]);
      secrets = list;
      renderSecrets();
      renderCache(cache.days);
    } catch (err) {
      if (err.name === 'AbortError') return;
      secrets = null;
      replace(secretsBody, errorBox(err, { what: 'the link secrets', retry: () => load() }));
    }
  }

  function renderSecrets() {
    if (secrets.length === 0) {
      replace(secretsBody, empty('No link secrets yet. Create one to sign render links.'));
      return;
    }
    replace(
      secretsBody,
      dataTable({
        attrs: { class: 'link-secrets-table', 'aria-labelledby': 'link-secrets-title' },
        columns: ['Secret', 'Created', 'Status', 'Actions'],
        rowHeader: 0,
        rows: secrets.map((s) => ({
          attrs: { dataset: { secretId: s.id }, class: s.retiredAt ? 'revoked' : null },
          cells: [
            h('code', {}, s.id),
            time(s.createdAt),
            s.retiredAt ? [h('span', { class: 'badge revoked' }, 'Retired'), ' ', time(s.retiredAt)] : h('span', { class: 'badge active' }, 'Live'),
            s.retiredAt ? null : h('button', { type: 'button', class: 'danger', 'aria-label': `Retire link secret ${s.id}`, onclick: (e) => retire(s, e.currentTarget) }, 'Retire'),
          ],
        })),
      }),
    );
  }

  function renderCache(days) {
    const button = h('button', { type: 'button', class: 'danger', id: 'render-cache-empty', onclick: (e) => emptyCache(e.currentTarget) }, 'Empty the render cache');
    const table = days.length
      ? dataTable({
          attrs: { class: 'render-cache-table', 'aria-labelledby': 'render-cache-title' },
          columns: ['Day (UTC)', 'Hits', 'Credits saved'],
          rowHeader: 0,
          rows: days.map((d) => ({ cells: [d.day, String(d.hits), String(d.creditsSaved)] })),
        })
      : empty('No render cache hits in the last 31 days.');
    replace(cacheBody, table, button);
  }

  async function createSecret(event) {
    event.preventDefault();
    await busy(secretForm.querySelector('button[type=submit]'), async () => {
      secretError.hidden = true;
      try {
        const created = await client.createLinkSecret();
        showSecret(secretBox, {
          title: `New link secret ${created.id}`,
          label: 'Link secret',
          copyLabel: 'Copy secret',
          note: 'Copy this secret now: it is shown only once. Sign links with it on your server (renderLink in utility-tools/client); never put it in a web page.',
          secret: created.secret,
        });
        announce('Link secret created. Copy it now: it is shown only once.');
        await load();
      } catch (err) {
        if (err.name === 'AbortError') return;
        secretError.textContent = problemText(err);
        secretError.hidden = false;
      }
    });
  }

  async function retire(secret, button) {
    const confirmed = await confirmAction({
      title: `Retire link secret ${secret.id}?`,
      body: 'Every link signed with this secret will be refused with 401 within a second. This cannot be undone.',
      confirmLabel: 'Retire secret',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        await client.retireLinkSecret(secret.id);
        await load();
        focusOn(element.querySelector('#link-secrets-title'));
        announce(`Link secret ${secret.id} retired.`);
      } catch (err) {
        if (err.name === 'AbortError') return;
        button.closest('td').append(h('p', { class: 'field-error', role: 'alert' }, problemText(err)));
        button.focus();
      }
    });
  }

  async function createLink(event) {
    event.preventDefault();
    await busy(linkForm.querySelector('button[type=submit]'), async () => {
      clearFormError(inputError, input);
      let parsed;
      try {
        parsed = JSON.parse(input.value);
      } catch {
        parsed = undefined;
      }
      // A tool's input is an object: other JSON (a number, a list, null) is refused here, in words.
      if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) {
        showFormError(inputError, input, { detail: 'The input must be a JSON object, e.g. {"text": "https://example.com/"}.' });
        input.focus();
        return;
      }
      const body = { tool: tool.value, input: parsed };
      if (expiresIn.value) body.expiresIn = Number(expiresIn.value);
      if (maxAge.value !== '') body.maxAge = Number(maxAge.value);
      try {
        const link = await client.createRenderLink(body);
        showSecret(result, {
          title: 'Render link',
          label: 'Link',
          copyLabel: 'Copy link',
          note: `Put it in an <img src>. Each fresh render is charged to this account; ${link.expiresAt ? `it works until ${new Date(link.expiresAt).toUTCString()}` : 'it works until its secret is retired'}.`,
          secret: link.url,
        });
        announce('Render link created.');
      } catch (err) {
        if (err.name === 'AbortError') return;
        showFormError(inputError, input, err);
        input.focus();
      }
    });
  }

  async function emptyCache(button) {
    const confirmed = await confirmAction({
      title: 'Empty the render cache?',
      body: 'Every stored render of this account is forgotten: the next call of each renders afresh and is charged.',
      confirmLabel: 'Empty cache',
    });
    if (!confirmed) return;
    await busy(button, async () => {
      try {
        const { deleted } = await client.emptyRenderCache();
        announce(`Render cache emptied: ${deleted} stored ${deleted === 1 ? 'render' : 'renders'} dropped.`);
        focusOn(element.querySelector('#render-cache-title'));
      } catch (err) {
        if (err.name === 'AbortError') return;
        cacheBody.append(h('p', { class: 'field-error', role: 'alert' }, problemText(err)));
      }
    });
  }

  function exampleInput() {
    input.value = JSON.stringify(EXAMPLE_INPUT[tool.value] ?? {});
  }

  secretForm.addEventListener('submit', createSecret);
  linkForm.addEventListener('submit', createLink);
  tool.addEventListener('change', exampleInput);
  exampleInput();

  return {
    element,
    load,
    close() {
      secretForm.removeEventListener('submit', createSecret);
      linkForm.removeEventListener('submit', createLink);
      tool.removeEventListener('change', exampleInput);
      hideSecret(secretBox);
      hideSecret(result);
      clearFormError(inputError, input);
      secretsBody.replaceChildren();
      cacheBody.replaceChildren();
    },
  };
}
