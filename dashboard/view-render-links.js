//! Render links (`/dashboard/render-links`): the account's link secrets (create: shown once, with a copy button; retire after
//! confirmation), a link builder (tool, input, expiry, cache age: the service signs the link with
//! the newest live secret; render-link-builder.js), and the render cache's hits per day, which the
//! owner can empty (render-cache.js).
import { confirmedRowAction } from './row-action.js';
import { announce, dataTable, empty, errorBox, h, loading, problemText, replace, time, viewSection } from './dom.js';
import { whenSent } from './forms.js';
import { createRenderCache } from './render-cache.js';
import { createLinkBuilder } from './render-link-builder.js';
import { hideSecret, showSecret } from './secret.js';

/** @param {import('./app.js').ViewContext} context */
export function createRenderLinksView({ client }) {
  const secretsBody = h('div', { id: 'link-secrets-body' });
  const secretBox = h('div', { id: 'link-secret' });
  const secretError = h('p', { class: 'field-error', id: 'link-secret-error', role: 'alert', hidden: true });
  const secretForm = h(
    'form',
    { id: 'link-secret-form', class: 'inline-form', novalidate: true, onsubmit: whenSent(() => createSecret()) },
    h('button', { type: 'submit', class: 'primary' }, 'Create link secret'),
    secretError,
  );
  const builder = createLinkBuilder({ client });
  const cache = createRenderCache({ client });
  const element = viewSection(
    'render-links',
    'Render links',
    h(
      'p',
      { class: 'help' },
      'A render link answers a capture as the image itself, for an ',
      h('code', {}, '<img src>'),
      '. It is signed with a link secret instead of a key, and each fresh render is charged to this account; ',
      "a repeat within the link's cache age is answered from the render cache, free.",
    ),
    h(
      'section',
      { 'aria-labelledby': 'link-secrets-title' },
      h('h2', { id: 'link-secrets-title', tabindex: '-1' }, 'Link secrets'),
      secretForm,
      secretBox,
      secretsBody,
    ),
    builder.section,
    cache.section,
  );
  let secrets = null;

  async function load() {
    if (secrets === null) replace(secretsBody, loading('link secrets'));
    try {
      const [list, days] = await Promise.all([client.linkSecrets(), client.renderCache()]);
      secrets = list;
      renderSecrets();
      cache.render(days.days);
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
            s.retiredAt
              ? [h('span', { class: 'badge revoked' }, 'Retired'), ' ', time(s.retiredAt)]
              : h('span', { class: 'badge active' }, 'Live'),
            s.retiredAt
              ? null
              : h(
                  'button',
                  {
                    type: 'button',
                    class: 'danger',
                    'aria-label': `Retire link secret ${s.id}`,
                    onclick: (e) => retire(s, e.currentTarget),
                  },
                  'Retire',
                ),
          ],
        })),
      }),
    );
  }

  async function createSecret() {
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
  }

  function retire(secret, button) {
    return confirmedRowAction({
      button,
      confirm: {
        title: `Retire link secret ${secret.id}?`,
        body: 'Every link signed with this secret will be refused with 401 within a second. This cannot be undone.',
        confirmLabel: 'Retire secret',
      },
      act: () => client.retireLinkSecret(secret.id),
      reload: load,
      heading: element.querySelector('#link-secrets-title'),
      announcement: `Link secret ${secret.id} retired.`,
    });
  }

  return {
    element,
    load,
    close() {
      hideSecret(secretBox);
      builder.close();
      secretsBody.replaceChildren();
      cache.close();
    },
  };
}
