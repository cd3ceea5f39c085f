//! The dashboard's entry point: who is signed in (a person's session, or an owner token), the
//! router over views.js, the header (the person, the account and the switch to their others),
//! Refresh, the minute's refresh and sign-out. A person's session is the service's HttpOnly
//! cookie: on load the page asks `GET /api/v1/auth/session` who it is. An owner token lives in the
//! API client's memory only. A 401 from any request ends the session and returns to sign-in with
//! the service's reason, and from there, after signing in again, to the view the person was on.
import { anonymousClient, createClient } from './api.js';
import { dismissDialog } from './dialogs.js';
import { $, announce, busy, focusOn, h, problemText } from './dom.js';
import { dismissReauthentication } from './reauth.js';
import { createRouter } from './router.js';
import { HOME, NOT_FOUND, SIGN_IN, VIEWS } from './views.js';

/** How often a view with `autoRefresh` (balance, usage) is read again while the tab is visible. */
const AUTO_REFRESH_MS = 60_000;

/**
 * What `GET /api/v1/auth/session` and every sign-in answer: the person, the account the session
 * acts on, their accounts, the session.
 * @typedef {{ user: { id: string, email: string, name: string | null }, account: { id: string, name: string | null, role: string },
 *             accounts: { id: string, name: string | null, role: string }[], session: { id: string, authenticatedAt: string, method: string } }} SignedIn
 */

/**
 * What every view's `create` is given. Signed-in views are made only while a session lasts and
 * are thrown away with it, so their `client` is always that session's.
 * @typedef {object} ViewContext
 * @property {ReturnType<typeof createClient> | null} client the session's API client; null while signed out
 * @property {() => boolean} signedIn
 * @property {() => 'session' | 'token' | null} kind how the visitor signed in: as a person (the cookie), or with an owner token
 * @property {() => SignedIn | null} me the person signed in (null for an owner token, or while the service could not say)
 * @property {(url: string, options?: { replace?: boolean }) => void} navigate to a path of the app, as a link would
 * @property {(account: any) => void} showAccount the account as just read: its name goes in the header
 * @property {() => import('./router.js').ViewSpec[]} areas the navigation's views (the overview lists them)
 * @property {() => string | null} notice why the last session ended, for sign-in to show
 * @property {(token: string, account: any) => void} signedInWith sign-in succeeded with this owner token
 * @property {(answer: SignedIn, options?: { to?: string, message?: string }) => void} signedInAsPerson a person signed in (the cookie is set): the app starts afresh for them, at `to` (default: where sign-in was asked for)
 * @property {(answer: SignedIn) => boolean} signedInAgain the person confirmed it is them (a new session of the same account): false when the answer is someone else, whom the app then starts for
 * @property {(answer: SignedIn, options?: { to?: string }) => void} accountChanged the session now acts on another account: every view is made afresh (at `to`, default here)
 * @property {(why: string) => Promise<void>} toSignIn sign-in, showing `why`; a session of this tab is signed out first (a password reset ends them)
 * @property {(options?: { to?: string }) => Promise<void>} signOut end the session on the service too, then go to sign-in (or `to`)
 */

/** @type {{ kind: 'session' | 'token', client: ReturnType<typeof createClient>, me: SignedIn | null } | null} */
let session = null;
/** Why the last session ended (sign-in shows it), until the next sign-in. */
let notice = null;

const router = createRouter({
  views: VIEWS,
  notFound: NOT_FOUND,
  home: HOME,
  signIn: SIGN_IN,
  container: $('views'),
  nav: { element: $('app-nav'), list: $('nav-list'), toggle: $('nav-toggle'), account: $('account-bar') },
  signedIn: () => session !== null,
  context,
  beforeShow: () => {
    dismissDialog();
    dismissReauthentication();
  },
});

/** @returns {ViewContext} */
function context() {
  return {
    client: session?.client ?? null,
    signedIn: () => session !== null,
    kind: () => session?.kind ?? null,
    me: () => session?.me ?? null,
    navigate: (url, options) => router.navigate(url, options),
    showAccount,
    areas: () => router.entries(),
    notice: () => notice,
    signedInWith,
    signedInAsPerson,
    signedInAgain,
    accountChanged,
    toSignIn,
    signOut,
  };
}

/**
 * Starts a session and shows the view the address bar names (sign-in goes on to where it was
 * asked for), or `to`.
 * @param {{ kind: 'session' | 'token', token?: string, me?: SignedIn | null, account?: any, focus: boolean, to?: string }} options
 */
function startSession({ kind, token, me = null, account = null, focus, to }) {
  const onUnauthorized = (err) => {
    if (session !== current) return;
    // A session's own words say it ended; a token's refusal says why the token no longer works.
    endSession(err.code === 'unauthenticated' ? `${problemText(err)}` : `Your session has ended: ${problemText(err)} Sign in again.`);
  };
  session?.client.close();
  const current = { kind, client: createClient({ token, onUnauthorized }), me };
  router.closeAll();
  session = current;
  notice = null;
  $('account-bar').hidden = false;
  showPerson();
  showAccount(account ?? me?.account ?? null);
  if (to) router.navigate(to, { replace: true, focus });
  else router.render({ focus });
}

/** The header: who is signed in and, for a person in several accounts, the switch between them. */
function showPerson() {
  const me = session?.me;
  const person = $('person-name');
  person.textContent = me
    ? me.user.name
      ? `${me.user.name} (${me.user.email})`
      : me.user.email
    : session?.kind === 'token'
      ? 'Owner token'
      : '';
  person.hidden = !person.textContent;
  const select = /** @type {HTMLSelectElement} */ ($('account-select'));
  const several = (me?.accounts.length ?? 0) > 1;
  $('account-switch').hidden = !several;
  if (several && me) {
    select.replaceChildren(...me.accounts.map((a) => h('option', { value: a.id, selected: a.id === me.account.id }, a.name || a.id)));
  }
}

function showAccount(account) {
  if (account) $('account-name').textContent = `Signed in to ${account.name || account.id}`;
}

function signedInWith(token, account) {
  startSession({ kind: 'token', token, account, focus: true });
  announce(`Signed in to ${account.name || account.id} with the owner token.`);
}

/** @param {SignedIn} answer @param {{ to?: string, message?: string }} [options] */
function signedInAsPerson(answer, { to, message } = {}) {
  startSession({ kind: 'session', me: answer, focus: true, to });
  announce(message ?? `Signed in as ${answer.user.email}, to ${answer.account.name || answer.account.id}.`);
}

/** @param {SignedIn} answer */
function signedInAgain(answer) {
  if (!session || session.kind !== 'session' || answer.user.id !== session.me?.user.id) {
    signedInAsPerson(answer, { to: HOME });
    return false;
  }
  session.me = answer;
  showPerson();
  showAccount(answer.account);
  return true;
}

/** @param {SignedIn} answer @param {{ to?: string }} [options] */
function accountChanged(answer, { to } = {}) {
  if (!session) return;
  session.me = answer;
  router.closeAll();
  showPerson();
  showAccount(answer.account);
  if (to) router.navigate(to, { replace: true });
  else router.render({ focus: true });
  announce(`Now on ${answer.account.name || answer.account.id}.`);
}

/**
 * Forgets the session and every view made for it, and shows sign-in with `notice`; the view the
 * person was on is where sign-in returns. Focus moves to sign-in's heading, except on page load,
 * where the reader starts at the top anyway.
 */
function endSession(why, { focus = true, to = '' } = {}) {
  session?.client.close();
  session = null;
  router.closeAll();
  notice = why ?? null;
  $('account-bar').hidden = true;
  $('account-name').textContent = '';
  $('person-name').textContent = '';
  $('account-switch').hidden = true;
  $('announcer').textContent = '';
  if (to) router.navigate(to, { replace: true, focus });
  else router.render({ focus });
}

/** @param {string} why */
async function toSignIn(why) {
  if (session?.kind === 'session') await session.client.signOut().catch(() => {});
  endSession(why, { to: SIGN_IN });
}

/**
 * Ends a person's session on the service (a token is only forgotten), then goes to sign-in or `to`.
 * @param {{ to?: string }} [options]
 */
async function signOut({ to } = {}) {
  if (session?.kind === 'session') {
    try {
      await session.client.signOut();
    } catch (err) {
      // Ended already (401): signed out all the same. Anything else: the session may live on.
      if (err?.status !== 401) {
        announce(`Could not sign out: ${problemText(err)}`);
        return;
      }
    }
  }
  endSession(session?.kind === 'token' ? 'You have signed out. The token is forgotten.' : 'You have signed out.', { to });
}

function init() {
  router.start();
  $('sign-out').addEventListener('click', (e) => busy(e.currentTarget, () => signOut()));
  $('account-switch').addEventListener('submit', (event) => {
    event.preventDefault();
    const select = /** @type {HTMLSelectElement} */ ($('account-select'));
    const button = /** @type {HTMLButtonElement} */ ($('account-switch').querySelector('button'));
    void busy(button, async () => {
      if (!session || select.value === session.me?.account.id) return;
      try {
        accountChanged(await session.client.switchAccount(select.value));
      } catch (err) {
        if (err?.name !== 'AbortError') announce(`Could not switch accounts: ${problemText(err)}`);
      }
    });
  });
  $('refresh').addEventListener('click', (e) =>
    busy(e.currentTarget, async () => {
      await Promise.all([router.refresh(), readPersonIfUnknown()]);
      if (session) announce(`${router.current()?.spec.title ?? 'Dashboard'} updated.`);
    }),
  );
  // The skip link goes to the current view's heading (the views share one <main>).
  $('skip-link').addEventListener('click', (event) => {
    const heading = router.current()?.heading;
    if (!heading) return;
    event.preventDefault();
    focusOn(heading);
  });
  // Coming back to the tab (after calling tools elsewhere, say) shows current numbers.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && session) void router.refresh();
  });
  // The balance and usage also follow calls made while the tab stays open; the other views
  // change only by what is done on them.
  setInterval(() => {
    if (session && document.visibilityState === 'visible' && router.current()?.spec.autoRefresh) void router.refresh();
  }, AUTO_REFRESH_MS);

  // Who the cookie signs in, if anyone (the page cannot read the cookie). A 401 is "nobody". Any
  // other failure (service restarting, network down) keeps the person in, and each view shows its
  // error with a Try again button instead of signing them out.
  anonymousClient()
    .session()
    .then(
      (me) => startSession({ kind: 'session', me, focus: false }),
      (err) => (err.status === 401 ? endSession(null, { focus: false }) : startSession({ kind: 'session', focus: false })),
    );
}

/** After a load that could not reach the service, Refresh also finds out who is signed in. */
async function readPersonIfUnknown() {
  const current = session;
  if (!current || current.kind !== 'session' || current.me) return;
  try {
    current.me = await current.client.session();
    if (session === current) {
      showPerson();
      showAccount(current.me.account);
    }
  } catch {
    // The views say what is wrong; a 401 has ended the session already.
  }
}

init();
