//! The Team page in Chromium at the service's own origin, for one signed-up owner and the people
//! they invite: invitations sent through the page (listed pending with their 7 days, mailed
//! through the real SMTP server and accepted with the mailed token), the members with their roles,
//! a role changed, a member removed and an invitation revoked through the confirmation dialog, a
//! member's address and an unknown role answered under their fields; a viewer who sees the team
//! but no control to change it (the server refusing all the same); axe-core's WCAG rules at
//! desktop and phone width; and ownership handed on after the owner confirms it is them.
import test from 'ava';
import type { Page } from 'puppeteer-core';
import { isProblem } from '../helpers/api.js';
import { withServiceDb } from '../helpers/db.js';
import { tokenFrom, uniqueAddress, waitForMail } from '../helpers/mailbox.js';
import { client, signUp, type SignedUpPerson } from '../helpers/people.js';
import { acceptAsNew, type Member } from '../helpers/team.js';
import { browserForFile } from './browser-for-file.js';
import {
  PHONE,
  axeViolations,
  focused,
  lastAnnouncement,
  lineOf,
  noteShot,
  openSignedIn,
  refresh,
  rowsOf,
  textOf,
  waitForIdle,
  waitForText,
  waitForView,
} from './page.js';

const c = client();
const browser = browserForFile();
/** One owner for the file (each sign-up costs a password hash); the tests run in order on their team. */
let owner: SignedUpPerson;
/** Joined in the first test: a developer (made billing, then removed) and a viewer (the owner at the end). */
let developer: Member;
let viewer: Member;

test.before(async () => {
  owner = await signUp(c, { name: 'Olive Owner' });
});

const memberRow = (userId: string) => `#members-body tr[data-user-id="${userId}"]`;

/** Fills the invite form and sends it. */
async function inviteThroughPage(page: Page, email: string, role: string) {
  await page.locator('#invite-email').fill(email);
  await page.select('#invite-role', role);
  await page.click('#invite-form button[type=submit]');
}

/** The invitation mailed to `email` accepted by a new person with the mailed token; they are signed in. */
const acceptMailed = async (email: string, role: 'developer' | 'viewer') =>
  acceptAsNew(c, tokenFrom(await waitForMail(email, { subject: /invited/ })), role, email);

/** Presses the confirmation dialog's confirm button after checking its title. */
async function confirm(page: Page, title: RegExp) {
  await page.waitForSelector('#confirm-dialog[open]');
  if (!title.test(await textOf(page, '#confirm-title')))
    throw new Error(`the dialog asked ${JSON.stringify(await textOf(page, '#confirm-title'))}`);
  await page.click('#confirm-ok');
}

test.serial(
  'an owner invites through the Team page, the invited join with their roles; a role changed, an invitation revoked and a member removed; problems under their fields',
  async (t) => {
    const { page, problems, close } = await openSignedIn(browser(), owner, 'team');
    try {
      // Alone: the owner, marked as the one signed in, with nothing to change on their own row.
      t.regex(await textOf(page, '#team-role'), /Your role here is Owner/);
      const alone = await rowsOf(page, '#members-body');
      t.is(alone.length, 1);
      t.regex(alone[0]!, new RegExp(`^Olive Owner You ${owner.email.replace(/[.+]/g, '\\$&')} Owner `));
      t.is(await page.$$eval(`${memberRow(owner.userId)} select, ${memberRow(owner.userId)} button`, (els) => els.length), 0);
      t.regex(await textOf(page, '#invitations-body'), /No invitations are waiting/);
      t.regex(await textOf(page, '#transfer'), /invite someone first/);

      // Two invitations through the form: each listed pending with its role, valid for 7 days.
      const developerEmail = uniqueAddress('developer');
      const viewerEmail = uniqueAddress('viewer');
      await inviteThroughPage(page, developerEmail, 'developer');
      t.regex(await waitForText(page, '#invite-status', /Invitation mailed/), new RegExp(`to ${developerEmail} as Developer`));
      t.is((await focused(page)).id, 'invite-email', 'ready for the next address');
      await inviteThroughPage(page, viewerEmail, 'viewer');
      await waitForText(page, '#invite-status', new RegExp(`to ${viewerEmail}`));
      const pending = await rowsOf(page, '#invitations-body');
      t.is(pending.length, 2);
      t.regex(pending[0]!, new RegExp(`^${viewerEmail} Viewer `), 'newest first');
      t.regex(pending[1]!, new RegExp(`^${developerEmail} Developer `));
      const [sent, expires] = await page.$$eval('#invitations-body tbody tr:first-child time', (els) =>
        els.map((el) => Date.parse(el.getAttribute('datetime')!)),
      );
      t.true(Math.abs(expires! - sent! - 7 * 24 * 3600_000) < 60_000, 'expires 7 days after it was sent');

      // Both accept with the mailed link's token; the page, refreshed, lists them with their roles.
      [developer, viewer] = await Promise.all([acceptMailed(developerEmail, 'developer'), acceptMailed(viewerEmail, 'viewer')]);
      await refresh(page);
      t.regex(await lineOf(page, memberRow(developer.userId)), /The developer/);
      t.regex(await lineOf(page, memberRow(viewer.userId)), /The viewer/);
      t.is((await rowsOf(page, '#members-body')).length, 3);
      t.is(await page.$eval(`#role-${developer.userId}`, (s) => (s as HTMLSelectElement).value), 'developer');
      t.is(await page.$eval(`#role-${viewer.userId}`, (s) => (s as HTMLSelectElement).value), 'viewer');
      t.regex(await textOf(page, '#invitations-body'), /No invitations are waiting/, 'accepted: no longer pending');

      // A member's address: the service's 409 under the address field; nothing was sent.
      await inviteThroughPage(page, viewerEmail, 'admin');
      t.regex(await waitForText(page, '#invite-email-error', /./), /^Email address is a member of this account already/);
      t.is(await page.$eval('#invite-email', (el) => el.getAttribute('aria-invalid')), 'true');
      t.regex(await textOf(page, '#invite-form .form-problem'), /Check the field marked below/);
      t.is((await focused(page)).id, 'invite-email');
      t.regex(await textOf(page, '#invitations-body'), /No invitations are waiting/);
      // A role the service does not have (a choice the page does not offer, added here): its 400 under the role.
      await page.$eval('#invite-role', (s) => s.append(new Option('Superuser', 'superuser')));
      await inviteThroughPage(page, uniqueAddress('nobody'), 'superuser');
      t.regex(await waitForText(page, '#invite-role-error', /./), /^Role /);
      t.is(await page.$eval('#invite-email', (el) => el.getAttribute('aria-invalid')), null);
      await page.$eval('#invite-role option[value=superuser]', (o) => o.remove());

      // The developer becomes billing; the service says so too.
      await page.select(`#role-${developer.userId}`, 'billing');
      await page.click(`${memberRow(developer.userId)} .role-form button[type=submit]`);
      await lastAnnouncement(page, /The developer is now Billing/);
      t.is(await page.$eval(`#role-${developer.userId}`, (s) => (s as HTMLSelectElement).value), 'billing');
      const listed = await c.request('GET', '/api/v1/account/members', { cookie: owner.cookie });
      t.is(listed.body.find((m: { userId: string }) => m.userId === developer.userId).role, 'billing');

      // The page as the note shows it: three members of three roles, one invitation pending.
      const extraEmail = uniqueAddress('extra');
      await inviteThroughPage(page, extraEmail, 'admin');
      await waitForText(page, '#invitations-body', new RegExp(extraEmail));
      await noteShot(page, 'shot-team');

      // The invitation revoked after the dialog: gone from the page and from the service.
      await page.click(`#invitations-body tbody tr:first-child button.danger`);
      await confirm(page, new RegExp(`Revoke the invitation of ${extraEmail}`));
      await lastAnnouncement(page, /was revoked/);
      t.regex(await textOf(page, '#invitations-body'), /No invitations are waiting/);
      t.is((await focused(page)).id, 'invitations-title');
      t.deepEqual((await c.request('GET', '/api/v1/account/invitations', { cookie: owner.cookie })).body, []);

      // The billing member removed after the dialog (Cancel first changes nothing): their session on the account ends.
      await page.click(`${memberRow(developer.userId)} button.danger`);
      await page.waitForSelector('#confirm-dialog[open]');
      await page.click('#confirm-cancel');
      t.truthy(await page.$(memberRow(developer.userId)));
      await page.click(`${memberRow(developer.userId)} button.danger`);
      await confirm(page, /Remove The developer from the account/);
      await lastAnnouncement(page, /The developer was removed/);
      t.is(await page.$(memberRow(developer.userId)), null);
      t.is((await rowsOf(page, '#members-body')).length, 2);
      t.is((await focused(page)).id, 'members-title');
      t.true(isProblem(await c.request('GET', '/api/v1/account', { cookie: developer.cookie }), 401, 'unauthenticated'));
      t.deepEqual(problems, []);
    } finally {
      await close();
    }
  },
);

test.serial('a viewer sees the members and invitations but no control to change them; the service refuses them all the same', async (t) => {
  const pendingEmail = uniqueAddress('pending');
  t.is(
    (await c.request('POST', '/api/v1/account/invitations', { cookie: owner.cookie, body: { email: pendingEmail, role: 'billing' } }))
      .status,
    201,
  );
  const { page, problems, close } = await openSignedIn(browser(), viewer, 'team');
  try {
    t.regex(await textOf(page, '#team-role'), /Your role here is Viewer\. The owner and admins invite people/);
    const rows = await rowsOf(page, '#members-body');
    t.is(rows.length, 2);
    t.regex(await lineOf(page, memberRow(owner.userId)), /^Olive Owner .* Owner /);
    t.regex(await lineOf(page, memberRow(viewer.userId)), /^The viewer You \S+ Viewer /);
    t.deepEqual(
      (await rowsOf(page, '#invitations-body')).map((r) => r.split(' ').slice(0, 2).join(' ')),
      [`${pendingEmail} Billing`],
    );
    // No role choice, Remove, Revoke, invite form or transfer: nor a column for them.
    t.is(await page.$$eval('#members-body select, #members-body button, #invitations-body button', (els) => els.length), 0);
    t.false(await page.$$eval('#team th', (ths) => ths.some((th) => (th as HTMLElement).innerText === 'Actions')));
    t.true(await page.$eval('#invite-form', (f) => (f as HTMLElement).hidden));
    t.true(await page.$eval('#transfer', (s) => (s as HTMLElement).hidden));
    // The page only hides: the service is the check.
    const viewerClient = client();
    t.true(
      isProblem(
        await viewerClient.request('POST', '/api/v1/account/invitations', {
          cookie: viewer.cookie,
          body: { email: uniqueAddress('x'), role: 'viewer' },
        }),
        403,
        'forbidden_for_role',
      ),
    );
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test.serial(
  'axe-core finds no WCAG 2.2 A/AA or best-practice violation on the Team page, its problems and its dialog, at desktop and phone width',
  async (t) => {
    const { page, problems, close } = await openSignedIn(browser(), owner, 'team', { bypassCsp: true });
    const filled = () => Promise.all([page.waitForSelector('#members-body tbody tr'), page.waitForSelector('#invitations-body tbody tr')]);
    try {
      await filled();
      t.deepEqual(await axeViolations(page), [], 'desktop');
      await inviteThroughPage(page, viewer.email, 'developer');
      await page.waitForSelector('#invite-email[aria-invalid=true]');
      t.deepEqual(await axeViolations(page), [], 'desktop, the address marked');
      await page.click(`${memberRow(viewer.userId)} button.danger`);
      await page.waitForSelector('#confirm-dialog[open]');
      t.deepEqual(await axeViolations(page), [], 'desktop, the dialog open');
      await page.click('#confirm-cancel');

      // The phone: the same session, the page loaded again at 360 px.
      await page.setViewport(PHONE);
      await page.reload({ waitUntil: 'networkidle0' });
      await waitForView(page, 'team');
      await filled();
      t.deepEqual(await axeViolations(page), [], 'phone');
      t.deepEqual(problems, []);
    } finally {
      await close();
    }
  },
);

test.serial('the owner transfers ownership after confirming it is them: the member is the owner, the owner an admin', async (t) => {
  const { page, problems, close } = await openSignedIn(browser(), owner, 'team');
  try {
    // The sign-in made 11 minutes old: handing the account on then asks for the password.
    await withServiceDb((db) =>
      db
        .collection('sessions')
        .updateMany({ userId: owner.userId, endedAt: null }, { $set: { authenticatedAt: new Date(Date.now() - 11 * 60_000) } }),
    );
    // Sent with no member chosen, then the dialog's password left empty: refused in words.
    await page.click('#transfer-form button[type=submit]');
    t.is(await waitForText(page, '#transfer-form .form-problem', /\S/), 'Check the field marked below.');
    t.is(await textOf(page, '#transfer-to-error'), 'New owner is not chosen.');
    await page.select('#transfer-to', viewer.userId);
    await page.click('#transfer-form button[type=submit]');
    await confirm(page, /Make The viewer the owner/);
    await page.waitForSelector('#reauth-dialog[open]');
    t.regex(await textOf(page, '#reauth-body'), /^Transferring ownership needs a sign-in within the last 10 minutes/);
    await page.click('#reauth-form button[type=submit]');
    t.is(await waitForText(page, '#reauth-form .form-problem', /\S/), 'Check the field marked below.');
    t.is(await textOf(page, '#reauth-password-error'), 'Password is required.');
    await page.locator('#reauth-password').fill(owner.password);
    await page.click('#reauth-form button[type=submit]');
    await lastAnnouncement(page, /The viewer is now the owner; you are an admin/);
    await waitForIdle(page);
    t.regex(await lineOf(page, memberRow(viewer.userId)), /^The viewer \S+ Owner /);
    t.regex(await lineOf(page, memberRow(owner.userId)), /^Olive Owner You \S+ Admin /);
    t.regex(await textOf(page, '#team-role'), /Your role here is Admin/);
    t.true(await page.$eval('#transfer', (s) => (s as HTMLElement).hidden), 'only the owner hands the account on');
    t.false(await page.$eval('#invite-form', (f) => (f as HTMLElement).hidden), 'an admin still invites');
    const roles = (await c.request('GET', '/api/v1/account/members', { cookie: viewer.cookie })).body
      .map((m: { userId: string; role: string }) => `${m.userId}:${m.role}`)
      .sort();
    t.deepEqual(roles, [`${owner.userId}:admin`, `${viewer.userId}:owner`].sort());
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
