//! Every form of every view sent empty and half-filled, in Chromium: what the page refuses itself
//! (a required field left empty, a choice not made, input that cannot be sent) and what the
//! service refuses reads as written words, each problem under its field and a summary that says
//! what to check; never "null", "undefined" or "[object ...]" where a value was never turned into
//! words. The other dashboard tests fill their forms correctly and never see these paths.
import test, { type ExecutionContext } from 'ava';
import type { Page } from 'puppeteer-core';
import { newAccount } from '../helpers/api.js';
import { client, serviceOrigin, signUp } from '../helpers/people.js';
import { receiverForFile } from '../helpers/receiver-for-file.js';
import { browserForFile } from './browser-for-file.js';
import {
  goTo,
  lastAnnouncement,
  openDashboard,
  openSignedIn,
  signIn,
  textOf,
  waitForText,
  waitForView,
  type SIGNED_OUT_VIEWS,
  type ViewId,
} from './page.js';

const browser = browserForFile();
const receiver = receiverForFile();

/** What a page shows when a value reached the text unconverted. */
const NOT_WORDS = /\bnull\b|\bundefined\b|\[object|\bNaN\b/;
/** A field's own error line: its label, then what is wrong with it. */
const FIELD_ERROR = /^[A-Z][\w ’]* (is required|is not chosen)\.$/;
const ONE = 'Check the field marked below.';
const BOTH = 'Check the fields marked below.';

/** Sets the fields as a person leaves them (`''` clears one), then sends `form` with its submit button. */
async function send(page: Page, form: string, values: Record<string, string> = {}) {
  for (const [selector, value] of Object.entries(values)) {
    await page.$eval(
      selector,
      (el, v) => {
        (el as HTMLInputElement).value = v;
      },
      value,
    );
  }
  await page.locator(`${form} button[type=submit]`).click();
}

/**
 * A form of forms.js sent as `values` leaves it: its summary reads `summary` exactly, each id of
 * `marked` has its error line and is marked invalid, the other fields are not; nothing in the form
 * reads as an unconverted value.
 */
async function refusedByForm(
  t: ExecutionContext,
  page: Page,
  form: string,
  values: Record<string, string>,
  summary: string,
  marked: string[],
) {
  await send(page, form, values);
  const said = await waitForText(page, `${form} .form-problem`, /\S/);
  t.is(said, summary, `${form} ${JSON.stringify(values)}`);
  const invalid = await page.$$eval(`${form} [aria-invalid="true"]`, (els) => els.map((el) => el.id));
  t.deepEqual(invalid.sort(), [...marked].sort(), `${form} ${JSON.stringify(values)}: the fields marked`);
  for (const id of marked) t.regex(await textOf(page, `#${id}-error`), FIELD_ERROR, id);
  t.notRegex(await textOf(page, form), NOT_WORDS, `${form} ${JSON.stringify(values)}`);
}

/** A form sent as `values` that the service answers: waits for the answer at `where`; it reads as words. */
async function answered(
  t: ExecutionContext,
  page: Page,
  form: string,
  values: Record<string, string>,
  where: string,
  pattern: RegExp = /\S/,
) {
  await send(page, form, values);
  const said = await waitForText(page, where, pattern);
  t.notRegex(said, NOT_WORDS, `${form} ${JSON.stringify(values)}`);
  t.notRegex(await textOf(page, form), NOT_WORDS, `${form} ${JSON.stringify(values)}`);
  return said;
}

async function open(path: string, view: ViewId | keyof typeof SIGNED_OUT_VIEWS) {
  const opened = await openDashboard(browser(), { origin: serviceOrigin(), path });
  await waitForView(opened.page, view);
  return opened;
}

test.serial('sign-in: the password form and the owner-token form, empty and half-filled', async (t) => {
  const { page, problems, close } = await open('/dashboard/sign-in', 'sign-in');
  try {
    await refusedByForm(t, page, '#sign-in-form', {}, BOTH, ['sign-in-email', 'sign-in-password']);
    await refusedByForm(t, page, '#sign-in-form', { '#sign-in-email': 'someone@example.com' }, ONE, ['sign-in-password']);
    await refusedByForm(t, page, '#sign-in-form', { '#sign-in-email': '', '#sign-in-password': 'a password of some length' }, ONE, [
      'sign-in-email',
    ]);
    // Both filled, nobody has them: the service's words.
    await answered(t, page, '#sign-in-form', { '#sign-in-email': 'nobody-here@example.com' }, '#sign-in-form .form-problem', /\w+/);

    await page.click('#token-sign-in summary');
    await answered(t, page, '#token-form', { '#token': '' }, '#token-error', /^Enter your owner token\.$/);
    await answered(t, page, '#token-form', { '#token': 'uto_' }, '#token-error', /^An owner token starts with uto_/);
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial('sign-up: empty, only the address, only the password and name', async (t) => {
  const { page, problems, close } = await open('/dashboard/sign-up', 'sign-up');
  try {
    await refusedByForm(t, page, '#sign-up-form', {}, BOTH, ['sign-up-email', 'sign-up-password']);
    await refusedByForm(t, page, '#sign-up-form', { '#sign-up-email': 'someone@example.com' }, ONE, ['sign-up-password']);
    await refusedByForm(
      t,
      page,
      '#sign-up-form',
      { '#sign-up-email': '', '#sign-up-password': 'a password of some length', '#sign-up-name': 'Half' },
      ONE,
      ['sign-up-email'],
    );
    // A password the service refuses: its words under the field.
    await answered(
      t,
      page,
      '#sign-up-form',
      { '#sign-up-email': 'someone@example.com', '#sign-up-password': 'short' },
      '#sign-up-form .form-problem',
      /\w+/,
    );
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial("reset: asking with no address; a link's new password left empty, then refused with a link that does not work", async (t) => {
  const asking = await open('/dashboard/reset', 'reset');
  try {
    await refusedByForm(t, asking.page, '#reset-request-form', {}, ONE, ['reset-email']);
    t.deepEqual(asking.problems, []);
  } finally {
    await asking.close();
  }
  const { page, problems, close } = await open('/dashboard/reset?token=not-a-real-token', 'reset');
  try {
    await refusedByForm(t, page, '#reset-form', {}, ONE, ['reset-password']);
    await answered(
      t,
      page,
      '#reset-form',
      { '#reset-password': 'a new password of some length' },
      '#reset-form .form-problem',
      /This link does not work/,
    );
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial("an invitation's newcomer form: empty, only the name, then a password for a link that does not work", async (t) => {
  const { page, problems, close } = await open('/dashboard/invitation?token=not-a-real-token', 'invitation');
  try {
    await refusedByForm(t, page, '#invitation-new-form', {}, ONE, ['invitation-password']);
    await refusedByForm(t, page, '#invitation-new-form', { '#invitation-name': 'Half' }, ONE, ['invitation-password']);
    await answered(
      t,
      page,
      '#invitation-new-form',
      { '#invitation-password': 'a password of some length' },
      '#invitation-new-form .form-problem',
      /\w+/,
    );
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial(
  'an owner token: Team invite, Attach, API keys, Webhooks, Render links, Usage and Billing forms, empty and half-filled',
  async (t) => {
    const account = await newAccount(10);
    const { page, problems, close } = await open('/dashboard/sign-in', 'sign-in');
    try {
      await signIn(page, account.ownerToken);

      // Team: the invite form without its role said "null" once.
      await goTo(page, 'team');
      await refusedByForm(t, page, '#invite-form', {}, BOTH, ['invite-email', 'invite-role']);
      await refusedByForm(t, page, '#invite-form', { '#invite-email': 'someone@example.com' }, ONE, ['invite-role']);
      t.is(await textOf(page, '#invite-role-error'), 'Role is not chosen.');
      await page.select('#invite-role', 'viewer');
      await refusedByForm(t, page, '#invite-form', { '#invite-email': '' }, ONE, ['invite-email']);
      await answered(t, page, '#invite-form', { '#invite-email': 'not an address' }, '#invite-form .form-problem', /\w+/);

      await goTo(page, 'attach');
      await refusedByForm(t, page, '#attach-form', {}, ONE, ['attach-email']);

      // API keys: the name is optional (an empty form makes an unnamed key); the limits' editor
      // with one value the service refuses and the rest left empty.
      await goTo(page, 'keys');
      await send(page, '#key-form');
      await lastAnnouncement(page, /API key created/);
      // The list reads again after the announcement: clicked before it shows the new key, a button
      // moves under the pointer as the row is added.
      await waitForText(page, '#keys-count', /^2 active/);
      await page.locator('#keys-body button[aria-label^="Edit limits"]').click();
      await answered(t, page, '#key-settings', { '#key-rate': '0' }, '#key-settings-error', /\w+/);
      await send(page, '#key-settings', { '#key-rate': '' });
      await lastAnnouncement(page, /^Limits of key .+ saved\.$/);

      // Webhooks: no URL; half a URL; an endpoint's event types all unchecked.
      await goTo(page, 'webhooks');
      await answered(t, page, '#webhook-form', {}, '#webhook-url-error', /^Enter the URL to post events to\.$/);
      await answered(t, page, '#webhook-form', { '#webhook-url': 'https://' }, '#webhook-url-error', /\w+/);
      await send(page, '#webhook-form', { '#webhook-url': receiver.url('/refusals') });
      await lastAnnouncement(page, /Endpoint added/);
      await page.waitForSelector('#webhooks-body li.endpoint details.event-types summary');
      await page.locator('#webhooks-body li.endpoint details.event-types summary').click();
      await page.$$eval('#webhooks-body li.endpoint .event-types-form input[type=checkbox]', (boxes) => {
        for (const box of boxes) (box as HTMLInputElement).checked = false;
      });
      await answered(
        t,
        page,
        '#webhooks-body li.endpoint .event-types-form',
        {},
        '#webhooks-body li.endpoint .event-types-form .field-error',
        /^Choose at least one event type\.$/,
      );

      // Render links: no input, half an object, JSON that is not an object, a cache age out of range.
      await goTo(page, 'render-links');
      const notAnObject = /^The input must be a JSON object/;
      await answered(t, page, '#link-form', { '#link-input': '' }, '#link-input-error', notAnObject);
      await answered(t, page, '#link-form', { '#link-input': '{"text": ' }, '#link-input-error', notAnObject);
      await answered(t, page, '#link-form', { '#link-input': '5' }, '#link-input-error', notAnObject);
      await answered(
        t,
        page,
        '#link-form',
        { '#link-input': '{"text": "https://example.com/"}', '#link-max-age': '-1' },
        '#link-input-error',
        /\w+/,
      );

      // Usage: the month left empty is this month.
      await goTo(page, 'usage');
      await send(page, '#export-form', { '#export-month': '' });
      t.notRegex(await lastAnnouncement(page, /^Usage of \d{4}-\d{2} downloaded/), NOT_WORDS);

      // Billing: auto-recharge with its numbers left empty.
      await goTo(page, 'billing');
      await page.waitForSelector('#recharge-card');
      await answered(t, page, '#recharge-form', { '#recharge-threshold': '', '#recharge-limit': '' }, '#recharge-error', /\w+/);
      await answered(t, page, '#recharge-form', { '#recharge-threshold': '100', '#recharge-limit': '' }, '#recharge-error', /\w+/);
      t.deepEqual(problems, []);
    } finally {
      await close();
    }
  },
);

test.serial(
  "a person's Security page: the password form empty and half-filled, a passkey added unnamed and renamed to nothing",
  async (t) => {
    const person = await signUp(client(), { name: 'Refusals person' });
    const { page, problems, close } = await openSignedIn(browser(), person, 'security');
    try {
      await refusedByForm(t, page, '#password-form', {}, BOTH, ['current-password', 'new-password']);
      await refusedByForm(t, page, '#password-form', { '#current-password': person.password }, ONE, ['new-password']);
      await refusedByForm(t, page, '#password-form', { '#current-password': '', '#new-password': 'a new password of some length' }, ONE, [
        'current-password',
      ]);
      // Both filled, the current one wrong: the service's words.
      await answered(t, page, '#password-form', { '#current-password': 'not the password at all' }, '#password-form .form-problem', /\w+/);

      // A passkey added with the optional name left empty, then renamed to nothing.
      const cdp = await page.createCDPSession();
      await cdp.send('WebAuthn.enable');
      await cdp.send('WebAuthn.addVirtualAuthenticator', {
        options: { protocol: 'ctap2', transport: 'internal', hasResidentKey: true, hasUserVerification: true, isUserVerified: true },
      });
      await send(page, '#passkey-form', { '#passkey-name': '' });
      await lastAnnouncement(page, /^Passkey “.+” added\.$/);
      await page.locator('#passkeys-body button[aria-label^="Rename passkey"]').click();
      await send(page, '#passkeys-body .rename-form', { '#passkeys-body .rename-form input': '' });
      t.is(await waitForText(page, '#passkeys-body .rename-form .field-error', /\S/), 'Enter a name.');
      t.notRegex(await textOf(page, '#passkeys'), NOT_WORDS);
      t.deepEqual(problems, []);
    } finally {
      await close();
    }
  },
);
