//! The dashboard's entry point: the signed-in session (one API client, ended with its views),
//! the router over views.js, Refresh, the minute's refresh and sign-out. A 401 from any request
//! ends the session and returns to sign-in with the service's reason, and from there, after
//! signing in again, to the view the person was on.
import { createClient, verifyToken } from './api.js';
import { dismissDialog } from './dialogs.js';
import { $, announce, busy, focusOn, problemText } from './dom.js';
import { createRouter } from './router.js';
import { clearToken, loadToken, saveToken } from './session.js';
import { HOME, NOT_FOUND, SIGN_IN, VIEWS } from './views.js';

/** How often a view with `autoRefresh` (balance, usage) is read again while the tab is visible. */
const AUTO_REFRESH_MS = 60_000;

/**
 * What every view's `create` is given. Signed-in views are made only while a session lasts and
 * are thrown away with it, so their `client` is always that session's.
 * @typedef {object} ViewContext
 * @property {ReturnType<typeof createClient> | null} client the session's API client; null while signed out
 * @property {() => boolean} signedIn
 * @property {(url: string, options?: { replace?: boolean }) => void} navigate to a path of the app, as a link would
 * @property {(account: any) => void} showAccount the account as just read: its name goes in the header
 * @property {() => import('./router.js').ViewSpec[]} areas the navigation's views (the overview lists them)
 * @property {() => string | null} notice why the last session ended, for sign-in to show
 * @property {(token: string, account: any) => void} signedInWith sign-in succeeded with this owner token
 */

/** @type {{ client: ReturnType<typeof createClient> } | null} */
let session = null;
/** Why the last session ended (sign-in shows it), until the next sign-in. */
let notice = null;

const router = createRouter({
  views: VIEWS,
  notFound: NOT_FOUND,
  home: HOME,
  signIn: SIGN_IN,
  container: $('views'),
  nav: { element: $('app-nav'), list: $('nav-list'), toggle: $('nav-toggle') },
  signedIn: () => session !== null,
  context,
  beforeShow: dismissDialog,
});

/** @returns {ViewContext} */
function context() {
  return {
    client: session?.client ?? null,
    signedIn: () => session !== null,
    navigate: (url, options) => router.navigate(url, options),
    showAccount,
    areas: () => router.entries(),
    notice: () => notice,
    signedInWith,
  };
}

/**
 * Starts the session for `token` and shows the view the address bar names (sign-in goes on to
 * where it was asked for). `account` is null when it could not be read (the service unreachable).
 */
function startSession(token, account, { focus }) {
  const onUnauthorized = (err) => {
    if (session === current) endSession(`Your session has ended: ${problemText(err)} Sign in again.`);
  };
  const current = { client: createClient({ token, onUnauthorized }) };
  router.closeAll();
  session = current;
  notice = null;
  $('account-bar').hidden = false;
  showAccount(account);
  router.render({ focus });
}

function showAccount(account) {
  if (account) $('account-name').textContent = `Signed in to ${account.name || account.id}`;
}

function signedInWith(token, account) {
  saveToken(token);
  startSession(token, account, { focus: true });
  announce(`Signed in to ${account.name || account.id}.`);
}

/**
 * Forgets the token and every view made for it, and shows sign-in with `notice`; the view the
 * person was on is where sign-in returns. Focus moves to sign-in's heading, except on page load,
 * where the reader starts at the top anyway.
 */
function endSession(why, { focus = true } = {}) {
  clearToken();
  session?.client.close();
  session = null;
  router.closeAll();
  notice = why ?? null;
  $('account-bar').hidden = true;
  $('account-name').textContent = '';
  $('announcer').textContent = '';
  router.render({ focus });
}

function init() {
  router.start();
  $('sign-out').addEventListener('click', () => {
    endSession('You have signed out. The token is no longer kept in this tab.');
  });
  $('refresh').addEventListener('click', (e) =>
    busy(e.currentTarget, async () => {
      await router.refresh();
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

  const token = loadToken();
  if (!token) {
    endSession(null, { focus: false });
    return;
  }
  // A reload of a signed-in tab: the stored token is checked first; a 401 ends it. Any other
  // failure (service restarting, network down) keeps the session, and each view shows its
  // error with a Try again button instead of signing the person out.
  verifyToken(token).then(
    (account) => startSession(token, account, { focus: false }),
    (err) => (err.status === 401 ? endSession(`Your session has ended: ${problemText(err)} Sign in again.`) : startSession(token, null, { focus: false })),
  );
}

init();
