//! The Render links page's link builder: a tool, its input (JSON, an example per tool to start
//! from), an expiry and a cache age; the service signs the link with the newest live secret, and
//! the link is shown with a copy button.
import { announce, clearFormError, h, showFormError } from './dom.js';
import { labelled, whenSent } from './forms.js';
import { hideSecret, showSecret } from './secret.js';

/** A starting input per tool, so the builder shows what a tool takes. */
const EXAMPLE_INPUT = {
  'qr-generate': { text: 'https://example.com/', size: 300 },
  'website-screenshot': { url: 'https://example.com/', width: 1200, height: 630 },
  'html-to-image': { html: '<h1>Hello</h1>', width: 1200, height: 630 },
};

/** Choices of the link's expiry: seconds from now, or never. */
const EXPIRIES = [
  ['', 'Never (until its secret is retired)'],
  ['3600', 'In an hour'],
  ['86400', 'In a day'],
  ['2592000', 'In 30 days'],
];

/** @param {{ client: import('./api.js').Client }} deps */
export function createLinkBuilder({ client }) {
  const tool = h(
    'select',
    { id: 'link-tool', name: 'tool', onchange: () => exampleInput() },
    Object.keys(EXAMPLE_INPUT).map((name) => h('option', { value: name }, name)),
  );
  const input = h('textarea', { id: 'link-input', name: 'input', rows: '3', spellcheck: 'false', 'aria-describedby': 'link-input-error' });
  const inputError = h('p', { class: 'field-error', id: 'link-input-error', hidden: true });
  const expiresIn = h(
    'select',
    { id: 'link-expires', name: 'expiresIn' },
    EXPIRIES.map(([value, label]) => h('option', { value }, label)),
  );
  const maxAge = h('input', { id: 'link-max-age', name: 'maxAge', type: 'number', min: '0', max: '2592000', inputmode: 'numeric' });
  const linkForm = h(
    'form',
    {
      id: 'link-form',
      class: 'stacked-form',
      novalidate: true,
      'aria-labelledby': 'link-builder-title',
      onsubmit: whenSent(() => createLink()),
    },
    labelled({ id: 'link-tool', label: 'Tool', control: tool }),
    labelled({ id: 'link-input', label: 'Input (JSON, as for a call of the tool)', control: input, after: [inputError] }),
    labelled({ id: 'link-expires', label: 'Expires', control: expiresIn }),
    labelled({ id: 'link-max-age', label: 'Cache age in seconds', hint: '(optional, 4 hours when empty)', control: maxAge }),
    h('button', { type: 'submit', class: 'primary' }, 'Create link'),
  );
  const result = h('div', { id: 'link-result' });
  const section = h(
    'section',
    { 'aria-labelledby': 'link-builder-title' },
    h('h2', { id: 'link-builder-title' }, 'Build a link'),
    linkForm,
    result,
  );

  async function createLink() {
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
  }

  function exampleInput() {
    input.value = JSON.stringify(EXAMPLE_INPUT[tool.value] ?? {});
  }
  exampleInput();

  return {
    section,
    close() {
      hideSecret(result);
      clearFormError(inputError, input);
    },
  };
}
