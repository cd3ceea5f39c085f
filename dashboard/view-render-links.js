//! Render links (`/dashboard/render-links`): the account's link secrets (create: shown once, with a copy button; retire after
//! confirmation), a link builder (tool, input, expiry, cache age: the service signs the link with
//! the newest live secret; render-link-builder.js), and the render cache's hits per day, which the
//! owner can empty (render-cache.js).
import { announce, code, dataTable, h, help, problemText, time, viewSection } from './dom.js';
import { whenSent } from './forms.js';
import { createList } from './list.js';
import { confirmedRowButton } from './row-action.js';
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
    help(
      'A render link answers a capture as the image itself, for an ',
      code('<img src>'),
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
  const secrets = createList({
    body: secretsBody,
    loadingWhat: 'link secrets',
    read: async () => {
      const [list, days] = await Promise.all([client.linkSecrets(), client.renderCache()]);
      cache.render(days.days);
      return list;
    },
    emptyText: 'No link secrets yet. Create one to sign render links.',
    table: (items) =>
      dataTable({ name: 'link-secrets', columns: ['Secret', 'Created', 'Status', 'Actions'], rowHeader: 0, rows: items.map(row) }),
  });
  const load = secrets.load;

  function row(s) {
    return {
      attrs: { dataset: { secretId: s.id }, class: s.retiredAt ? 'revoked' : null },
      cells: [
        code(s.id),
        time(s.createdAt),
        s.retiredAt
          ? [h('span', { class: 'badge revoked' }, 'Retired'), ' ', time(s.retiredAt)]
          : h('span', { class: 'badge active' }, 'Live'),
        s.retiredAt
          ? null
          : confirmedRowButton({
              label: 'Retire',
              name: `Retire link secret ${s.id}`,
              confirm: {
                body: 'Every link signed with this secret will be refused with 401 within a second. This cannot be undone.',
                confirmLabel: 'Retire secret',
              },
              act: () => client.retireLinkSecret(s.id),
              reload: load,
              announcement: `Link secret ${s.id} retired.`,
            }),
      ],
    };
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

  return {
    element,
    load,
    close() {
      hideSecret(secretBox);
      builder.close();
      secrets.close();
      cache.close();
    },
  };
}
