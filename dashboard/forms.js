//! The forms of every view: labelled fields with their help and their own error line, the
//! service's problems shown where they belong, and a submit that runs once at a time. A `validation_failed` answer's `errors[]` name
//! fields by JSON pointer (`/password`): each goes under its field (aria-invalid, described by the
//! error), the form's summary (role=alert, so it is announced) says what went wrong, and the focus
//! moves to the first bad field. A 429 `too_many_attempts` says when to try again.
import { busy, clearFormError, focusOn, h, problemText, replace, showFormError } from './dom.js';

/**
 * A labelled field: `<label>`, the input, its help and its error line, the input described by both.
 * @param {{ id: string, label: string, optional?: boolean, help?: unknown, attrs: Record<string, unknown> }} spec
 * `attrs` are the input's (`type`, `name`, `autocomplete`, ...); `name` is its pointer's last part.
 */
export function field({ id, label, optional = false, help, attrs }) {
  const helpEl = help ? h('p', { class: 'help', id: `${id}-help` }, help) : null;
  const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
  const input = /** @type {HTMLInputElement} */ (
    h('input', {
      id,
      required: optional ? null : true,
      'aria-describedby': [helpEl ? `${id}-help` : null, `${id}-error`].filter(Boolean).join(' '),
      ...attrs,
    })
  );
  const element = h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label, optional ? h('span', { class: 'optional' }, ' (optional)') : null),
    input,
    helpEl,
    error,
  );
  return { element, input, error, label };
}

/**
 * A labelled choice, shaped like `field` (so `formProblems` marks it the same way): `<label>`,
 * the `<select>`, its help and its error line. `placeholder`: a first, empty option that
 * `requireFilled` treats as not chosen.
 * @param {{ id: string, label: string, help?: unknown, name: string, options: { value: string, label: string }[], placeholder?: string }} spec
 */
export function selectField({ id, label, help, name, options, placeholder }) {
  const helpEl = help ? h('p', { class: 'help', id: `${id}-help` }, help) : null;
  const error = h('p', { class: 'field-error', id: `${id}-error`, hidden: true });
  const input = /** @type {HTMLSelectElement} */ (
    h(
      'select',
      { id, name, required: true, 'aria-describedby': [helpEl ? `${id}-help` : null, `${id}-error`].filter(Boolean).join(' ') },
      placeholder ? h('option', { value: '' }, placeholder) : null,
      options.map((o) => h('option', { value: o.value }, o.label)),
    )
  );
  const element = h('div', { class: 'field' }, h('label', { for: id }, label), input, helpEl, error);
  return { element, input, error, label };
}

/**
 * A labelled control the view makes itself (a select, a textarea, an input with a shared error
 * line): `<div class="field">` with its `<label>` (`hint` after it in a lighter type), the control
 * and what follows it (help, an error line).
 * @param {{ id: string, label: string, hint?: string | null, control: HTMLElement, after?: unknown[] }} spec
 */
export function labelled({ id, label, hint, control, after = [] }) {
  return h(
    'div',
    { class: 'field' },
    h('label', { for: id }, label, hint ? [' ', h('span', { class: 'optional' }, hint)] : null),
    control,
    ...after,
  );
}

/**
 * A form's `onsubmit`: the page stays where it is, and `task` runs once at a time with the form's
 * submit button busy (no double sends; dom.js `busy`).
 * @param {() => Promise<unknown>} task
 * @returns {(event: Event) => Promise<unknown>}
 */
export const whenSent = (task) => (event) => {
  event.preventDefault();
  const form = /** @type {HTMLFormElement} */ (event.currentTarget);
  return busy(/** @type {HTMLElement} */ (form.querySelector('button[type=submit]')), task);
};

/**
 * A form the page sends itself: `method=post` and the CSP's `form-action 'none'`, so nothing typed
 * can end up in a URL; `send` runs as `whenSent` runs it.
 * @param {{ send: () => Promise<unknown>, [attribute: string]: unknown }} spec the form's other attributes (`id`, `class`, `hidden`, ...)
 * @param {...unknown} children
 */
export function postForm({ send, ...attrs }, ...children) {
  return h('form', { ...attrs, method: 'post', novalidate: true, onsubmit: whenSent(send) }, ...children);
}

/**
 * A field for an email address: no capitals, no spell check, and the browser offers the person's
 * own unless `autocomplete` says otherwise.
 * @param {{ id: string, label?: string, help?: unknown, autocomplete?: string, maxlength?: number }} spec
 */
export function emailField({ id, label = 'Email address', help, autocomplete = 'email', maxlength }) {
  return field({
    id,
    label,
    help,
    attrs: { type: 'email', name: 'email', autocomplete, autocapitalize: 'off', spellcheck: 'false', maxlength },
  });
}

/**
 * "Check your mail", shown in place of `form` once the service took an address (a link is on its
 * way); its heading takes the focus. `<id>` is the section, `<id>-title` its heading and
 * `<id>-address` the address it names, which `says` places in its paragraphs.
 * @param {{ id: string, form: HTMLElement, says: (address: HTMLElement) => unknown[] }} spec
 */
export function mailSent({ id, form, says }) {
  const address = h('strong', { id: `${id}-address` });
  const title = h('h2', { id: `${id}-title`, tabindex: '-1' }, 'Check your mail');
  const element = h('section', { id, 'aria-labelledby': `${id}-title`, hidden: true }, title, ...says(address));
  return {
    element,
    /** @param {string} to the address the mail went to */
    show(to) {
      address.textContent = to;
      form.hidden = true;
      element.hidden = false;
      focusOn(title);
    },
    /** Back to the form. */
    hide() {
      element.hidden = true;
      form.hidden = false;
    },
  };
}

/** A checkbox that shows the password fields given as plain text (people check what they typed). */
export function showPasswords(id, ...inputs) {
  const box = h('input', {
    id,
    type: 'checkbox',
    onchange: () => {
      for (const input of inputs) input.type = box.checked ? 'text' : 'password';
    },
  });
  return h('div', { class: 'show-password' }, box, h('label', { for: id }, inputs.length > 1 ? 'Show passwords' : 'Show password'));
}

/** What a password must be (domain/identity/password-policy.js says it to the service's callers). */
const PASSWORD_RULES =
  '15 to 256 characters of any kind: spaces, symbols, emoji and any language count. A few unrelated words make a strong one. Not a common or breached password, not your address or name, and not an easy pattern: a word repeated, a row of keys, a sequence, or a word with a year.';

/**
 * A field for a password the person chooses: its rules as help, and the browser told it is a new
 * one (a password manager offers to make and keep it).
 * @param {{ id: string, label?: string, name?: string }} options `name`: the body's field, `password` unless given.
 */
export function newPasswordField({ id, label = 'Password', name = 'password' }) {
  return field({ id, label, help: PASSWORD_RULES, attrs: { type: 'password', name, autocomplete: 'new-password' } });
}

const clock = new Intl.DateTimeFormat(undefined, { timeStyle: 'short' });

/** "in 15 minutes (at 14:32)" for a wait of `seconds`. */
export function waitText(seconds) {
  const minutes = Math.ceil(seconds / 60);
  const at = clock.format(new Date(Date.now() + seconds * 1000));
  return seconds < 60
    ? `in ${Math.max(1, Math.ceil(seconds))} seconds`
    : `in ${minutes} ${minutes === 1 ? 'minute' : 'minutes'} (at ${at})`;
}

/**
 * The problems of a panel of settings whose fields share one error line: the fields the service
 * names (`/threshold`) are marked and the first of them takes the focus; `first` stands for the
 * panel when it names none.
 * @param {{ error: HTMLElement, fields: Record<string, HTMLInputElement | HTMLSelectElement>, first: string }} spec
 */
export function sharedErrorLine({ error, fields, first }) {
  return {
    clear() {
      for (const input of Object.values(fields)) input.removeAttribute('aria-invalid');
      clearFormError(error, fields[first]);
    },
    /** @param {any} err */
    show(err) {
      const named = (err.errors ?? []).map((e) => e.field.split('/')[1]).filter((f) => f in fields);
      for (const f of named) fields[f].setAttribute('aria-invalid', 'true');
      showFormError(error, fields[named[0] ?? first], err);
      if (!named.length) fields[first].removeAttribute('aria-invalid');
      (fields[named[0]] ?? fields[first]).focus();
    },
  };
}

/**
 * The problems of one form.
 * @param {{ fields: Record<string, { input: HTMLInputElement | HTMLSelectElement, error: HTMLElement, label: string }> }} spec
 * `fields` by the pointer the service names them with (`/email`, `/password`).
 */
export function formProblems({ fields }) {
  const summary = h('div', { class: 'form-problem', role: 'alert', hidden: true });
  const all = Object.values(fields);

  function clear() {
    summary.replaceChildren();
    summary.hidden = true;
    for (const f of all) {
      f.error.textContent = '';
      f.error.hidden = true;
      f.input.removeAttribute('aria-invalid');
    }
  }

  /** Marks one field with `message` (which follows its label: "Password must be ..."). */
  function mark(f, message) {
    f.error.textContent = message;
    f.error.hidden = false;
    f.input.setAttribute('aria-invalid', 'true');
  }

  /**
   * Shows `err` (an ApiError, or `{ detail, errors }` made by the page) and moves the focus.
   * @param {any} err
   * @param {{ focus?: HTMLElement }} [options] where the focus goes for a problem of no one field (default: the first field)
   */
  function show(err, { focus } = {}) {
    clear();
    const marked = [];
    for (const e of err?.errors ?? []) {
      const f = fields[e.field];
      if (!f || marked.includes(f)) continue;
      mark(f, `${f.label} ${e.message}.`.replace(/\.\.$/, '.'));
      marked.push(f);
    }
    let text = problemText(err);
    if (err?.code === 'too_many_attempts' && err.retryAfter)
      text = `Too many failed sign-ins with this address or from this network. Try again ${waitText(err.retryAfter)}, or reset your password.`;
    else if (marked.length) text = marked.length === 1 ? 'Check the field marked below.' : 'Check the fields marked below.';
    // replace() (not append) drops an absent part: append() writes null as the word "null".
    replace(
      summary,
      h('p', {}, text),
      err?.requestId ? h('p', { class: 'muted small' }, 'Request id: ', h('code', {}, err.requestId)) : null,
    );
    summary.hidden = false;
    (marked[0]?.input ?? focus ?? all[0]?.input)?.focus();
  }

  /**
   * The page's own check before sending: the required fields that are empty, each with `message`.
   * @param {Record<string, string>} messages pointer -> what to say when that field is empty
   * @returns {boolean} true when every one is filled
   */
  function requireFilled(messages) {
    const errors = Object.entries(messages)
      .filter(([pointer]) => fields[pointer].input.value.trim() === '')
      .map(([pointer, message]) => ({ field: pointer, message }));
    if (!errors.length) return true;
    show({ detail: '', errors });
    return false;
  }

  return { summary, show, clear, requireFilled };
}
