//! DOM building without markup strings: the page's CSP enforces Trusted Types, so text from the
//! API (names, URLs, error details) can only ever become text nodes. Also the shared formatters
//! and the live region that announces results to screen readers.

const SVG_NS = 'http://www.w3.org/2000/svg';

function build(el, attrs, children) {
  for (const [name, value] of Object.entries(attrs ?? {})) {
    if (value === undefined || value === null || value === false) continue;
    if (name.startsWith('on') && typeof value === 'function') el.addEventListener(name.slice(2), value);
    else if (name === 'dataset') Object.assign(el.dataset, value);
    else el.setAttribute(name, value === true ? '' : String(value));
  }
  for (const child of children.flat(Infinity)) {
    if (child === undefined || child === null || child === false) continue;
    el.append(child instanceof Node ? child : document.createTextNode(String(child)));
  }
  return el;
}

/** `h('button', { type: 'button', onclick }, 'Label')`: an HTML element with text children. */
export const h = (tag, attrs, ...children) => build(document.createElement(tag), attrs, children);
/** The same for SVG elements. */
export const s = (tag, attrs, ...children) => build(document.createElementNS(SVG_NS, tag), attrs, children);

/** @type {(id: string) => any} The page's element with that id (its type depends on the id). */
export const $ = (id) => document.getElementById(id);

/** @param {number} ms */
export const sleep = (ms) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Replaces the container's content. A re-render must not throw the keyboard user back to the top
 * of the page: when the focused element inside carried `data-focus-key`, its successor with the
 * same key gets the focus back.
 */
export function replace(container, ...children) {
  const active = document.activeElement;
  const key = active && container.contains(active) ? active.getAttribute('data-focus-key') : null;
  container.replaceChildren();
  build(container, {}, children);
  if (key) container.querySelector(`[data-focus-key="${CSS.escape(key)}"]`)?.focus();
}

let announceTimer;
/** Says `message` through the polite live region. */
export function announce(message) {
  const region = $('announcer');
  clearTimeout(announceTimer);
  if (region.textContent !== message) {
    region.textContent = message;
    return;
  }
  // The same words again: emptied first, so screen readers see a change and say them once more.
  region.textContent = '';
  announceTimer = setTimeout(() => {
    region.textContent = message;
  }, 50);
}

/** Moves focus to a heading or panel that is not otherwise focusable (it carries tabindex=-1). */
export function focusOn(el) {
  if (!el) return;
  if (!el.hasAttribute('tabindex') && !el.matches('a, button, input, select, textarea')) el.setAttribute('tabindex', '-1');
  el.focus();
}

const dateTime = new Intl.DateTimeFormat(undefined, { dateStyle: 'medium', timeStyle: 'medium' });
const dayLabel = new Intl.DateTimeFormat(undefined, { month: 'short', day: 'numeric' });
const integer = new Intl.NumberFormat();

/** A `<time>` with the local date and time; `fallback` when there is none. */
export function time(iso, fallback = 'Never') {
  if (!iso) return h('span', { class: 'muted' }, fallback);
  const d = new Date(iso);
  return h('time', { datetime: d.toISOString() }, dateTime.format(d));
}

export const formatDay = (date) => dayLabel.format(date);
export const formatInt = (n) => integer.format(n);
export const credits = (n) => `${formatInt(n)} ${n === 1 ? 'credit' : 'credits'}`;

/** A price in minor units as the currency writes it (`$15.00`, `¥1,500`). */
export function formatPrice(amount, currency) {
  const format = new Intl.NumberFormat(undefined, { style: 'currency', currency: currency.toUpperCase() });
  const digits = format.resolvedOptions().maximumFractionDigits ?? 2;
  return format.format(amount / 10 ** digits);
}

export function formatDuration(ms) {
  if (ms === null || ms === undefined) return '–';
  return ms < 1000 ? `${Math.round(ms)} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 2 : 1)} s`;
}

/** What the service said: the problem's `detail`, or the client's own words when there was no answer. */
export function problemText(err) {
  return err?.detail || err?.message || 'Something went wrong.';
}

/**
 * An error state: what could not be loaded, the problem's `detail`, its request id, and a Try
 * again button when the action can be repeated. role=alert: it is announced when it appears.
 * @param {any} err an ApiError (or any Error)
 * @param {{ what: string, retry?: () => unknown }} options
 */
export function errorBox(err, { what, retry }) {
  return h(
    'div',
    { class: 'error-box', role: 'alert' },
    h('p', {}, h('strong', {}, `Could not load ${what}. `), problemText(err)),
    err?.requestId ? h('p', { class: 'muted small' }, 'Request id: ', h('code', {}, err.requestId)) : null,
    retry ? h('button', { type: 'button', onclick: retry }, 'Try again') : null,
  );
}

export const loading = (what) => h('p', { class: 'loading', role: 'status' }, `Loading ${what}…`);

export const empty = (...children) => h('p', { class: 'empty' }, ...children);

/**
 * Shows a problem next to the form it answered: `detail` in the form's error line and, for
 * `validation_failed`, each `errors[].field` on its input (aria-invalid, described by the error).
 */
export function showFormError(errorEl, input, err) {
  const fieldMessage = err?.errors?.find((e) => e.field === `/${input.name}`)?.message;
  errorEl.textContent =
    problemText(err) + (fieldMessage && !problemText(err).includes(fieldMessage) ? ` (${input.name}: ${fieldMessage})` : '');
  errorEl.hidden = false;
  input.setAttribute('aria-invalid', 'true');
}

export function clearFormError(errorEl, input) {
  errorEl.textContent = '';
  errorEl.hidden = true;
  input.removeAttribute('aria-invalid');
}

/**
 * Runs `task` once at a time per button (no double submits). The button is marked with
 * aria-disabled rather than disabled: a disabled button drops keyboard focus to the page.
 */
export async function busy(button, task) {
  if (button.getAttribute('aria-disabled') === 'true') return undefined;
  button.setAttribute('aria-disabled', 'true');
  button.setAttribute('aria-busy', 'true');
  try {
    return await task();
  } finally {
    button.removeAttribute('aria-disabled');
    button.removeAttribute('aria-busy');
  }
}

/**
 * A data table that turns into one card per row on narrow screens (dashboard.css). The roles are
 * explicit because some browsers drop table semantics once CSS changes a table's display.
 * `name`: the list's, which gives the table its class (`<name>-table`) and its name, the list's
 * heading (`<name>-title`).
 * @param {{ name?: string, columns: (string | { label: string, class?: string })[], rows: { attrs?: object, cells: unknown[] }[],
 *           rowHeader?: number, caption?: string, attrs?: object }} spec
 */
export function dataTable({ name, columns, rows, rowHeader = -1, caption, attrs = {} }) {
  const cols = columns.map((c) => (typeof c === 'string' ? { label: c } : c));
  const named = name ? { class: `${name}-table`, 'aria-labelledby': `${name}-title` } : {};
  const all = { ...named, ...attrs };
  return h(
    'table',
    { ...all, class: `data-table ${all.class ?? ''}`.trim(), role: 'table' },
    caption ? h('caption', {}, caption) : null,
    h(
      'thead',
      { role: 'rowgroup' },
      h(
        'tr',
        { role: 'row' },
        cols.map((c) => h('th', { scope: 'col', role: 'columnheader', class: c.class }, c.label)),
      ),
    ),
    h(
      'tbody',
      { role: 'rowgroup' },
      rows.map((row) =>
        h(
          'tr',
          { ...row.attrs, role: 'row' },
          row.cells.map((cell, i) =>
            i === rowHeader
              ? h(
                  'th',
                  { scope: 'row', role: 'rowheader', 'data-label': cols[i].label, class: cols[i].class },
                  h('span', { class: 'cell' }, cell),
                )
              : h('td', { role: 'cell', 'data-label': cols[i].label, class: cols[i].class }, h('span', { class: 'cell' }, cell)),
          ),
        ),
      ),
    ),
  );
}

/**
 * A view's root: a section named by its one h1 (`<id>-title`), which takes the focus when the
 * view is navigated to (router.js).
 * @param {string} id
 * @param {string} title
 * @param {...unknown} children
 */
export function viewSection(id, title, ...children) {
  return h('section', { id, 'aria-labelledby': `${id}-title` }, h('h1', { id: `${id}-title`, tabindex: '-1' }, title), ...children);
}

/**
 * A part of a view: a section named by its h2 (`<id>-title`), which a change in it may focus.
 * @param {string} id
 * @param {string} title
 * @param {...unknown} children
 */
export function subSection(id, title, ...children) {
  return h('section', { id, 'aria-labelledby': `${id}-title` }, h('h2', { id: `${id}-title`, tabindex: '-1' }, title), ...children);
}

/**
 * A state as a badge: `states[state]` is its badge's class and its label; a state the table does
 * not know shows its own name, with the class `unknown`. `after`: more of the badge's text.
 * @param {Record<string, string[]>} states `[class, label]` by state
 * @param {string} state
 * @param {string} unknown
 * @param {...unknown} after
 */
export function badge(states, state, unknown, ...after) {
  const [kind, label] = states[state] ?? [unknown, state];
  return h('span', { class: `badge ${kind}` }, label, ...after);
}

/**
 * Figures side by side, each a row of a small table: its label, the id of its value, the value
 * (`stats(['Balance', 'balance', credits(n)], ...)`).
 * @param {...[string, string, unknown]} figures
 */
export const stats = (...figures) =>
  h(
    'dl',
    { class: 'stats' },
    figures.map(([label, id, value]) => h('div', { class: 'stat' }, h('dt', {}, label), h('dd', { id }, value))),
  );

/** A help paragraph whose text may hold `code` parts: `help('Send ', code('Prefer'), '.')`. */
export const help = (...children) => h('p', { class: 'help' }, ...children);
export const code = (text) => h('code', {}, text);
