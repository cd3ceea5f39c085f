//! The dashboard's entry point: sign-in, the signed-in session (one API client and its views,
//! ended together), refresh and sign-out. A 401 from any request ends the session and returns
//! to sign-in with the service's reason.
import { createClient, verifyToken } from './api.js';
import { $, announce, busy, clearFormError, focusOn, problemText, showFormError } from './dom.js';
import { clearToken, loadToken, saveToken, tokenProblem } from './session.js';
import { createKeysView } from './view-keys.js';
import { createDestinationsView } from './view-destinations.js';
import { createRenderLinksView } from './view-render-links.js';
import { createCallsView } from './view-calls.js';
import { createBatchesView } from './view-batches.js';
import { createCreditsView } from './view-credits.js';
import { createEventsView } from './view-events.js';
import { createUsageView } from './view-usage.js';
import { createWebhooksView } from './view-webhooks.js';

/** How often the balance and usage are read again while the tab is visible. */
const USAGE_REFRESH_MS = 60_000;

let session = null;

function startSession(token, account) {
  const onUnauthorized = (err) => {
    if (session === current) endSession(`Your session has ended: ${problemText(err)} Sign in again.`);
  };
  const client = createClient({ token, onUnauthorized });
  const usage = createUsageView({ client, container: $('usage-body'), section: $('usage') });
  const keys = createKeysView({ client });
  const destinations = createDestinationsView({ client });
  const renderLinks = createRenderLinksView({ client });
  const webhooks = createWebhooksView({ client });
  const events = createEventsView({ client, urlOf: (endpointId) => webhooks.urlOf(endpointId) });
  const calls = createCallsView({ client });
  const batches = createBatchesView({ client });
  const creditsView = createCreditsView({ client });
  const current = { client, usage, keys, destinations, renderLinks, webhooks, events, calls, batches, credits: creditsView };
  session = current;

  $('sign-in-view').hidden = true;
  $('dashboard-view').hidden = false;
  $('account-bar').hidden = false;
  showAccount(account);
  document.title = 'Dashboard · Utility Tools';
  void refresh();
}

function showAccount(account) {
  if (account) $('account-name').textContent = `Signed in to ${account.name || account.id}`;
}

/** Reloads every section; the usage view also brings the account (name, balance) up to date. */
async function refresh() {
  if (!session) return;
  const current = session;
  // The events after the endpoints: their deliveries are shown by the endpoints' URLs.
  const [account] = await Promise.all([
    current.usage.load().then((a) => {
      if (session === current) current.credits.showPlan(a);
      return a;
    }),
    current.credits.load(),
    current.calls.load(),
    current.batches.load(),
    current.keys.load(),
    current.destinations.load(),
    current.renderLinks.load(),
    current.webhooks.load().then(() => current.events.load()),
  ]);
  if (session === current) showAccount(account);
}

/**
 * Forgets the token and everything shown for it, and returns to sign-in with `notice`. Focus
 * moves to the sign-in heading, except on page load, where the reader starts at the top anyway.
 */
function endSession(notice, { focus = true } = {}) {
  clearToken();
  if (session) {
    session.client.close();
    session.keys.close();
    session.destinations.close();
    session.renderLinks.close();
    session.webhooks.close();
    session.events.close();
    session.calls.close();
    session.batches.close();
    session.credits.close();
    $('usage-body').replaceChildren();
    session = null;
  }
  $('dashboard-view').hidden = true;
  $('account-bar').hidden = true;
  $('account-name').textContent = '';
  $('announcer').textContent = '';
  const noticeEl = $('sign-in-notice');
  noticeEl.textContent = notice ?? '';
  noticeEl.hidden = !notice;
  $('sign-in-view').hidden = false;
  document.title = 'Sign in · Utility Tools';
  if (focus) focusOn($('sign-in-title'));
}

async function signIn(event) {
  event.preventDefault();
  const input = $('token');
  const error = $('token-error');
  const button = event.currentTarget.querySelector('button[type=submit]');
  await busy(button, async () => {
    clearFormError(error, input);
    const token = input.value.trim();
    const problem = tokenProblem(token);
    if (problem) {
      showFormError(error, input, { detail: problem });
      input.focus();
      return;
    }
    try {
      const account = await verifyToken(token);
      input.value = '';
      saveToken(token);
      $('sign-in-notice').hidden = true;
      startSession(token, account);
      focusOn($('dashboard-title'));
      announce(`Signed in to ${account.name || account.id}.`);
    } catch (err) {
      showFormError(error, input, err);
      input.focus();
    }
  });
}

function init() {
  $('sign-in-form').addEventListener('submit', signIn);
  $('sign-out').addEventListener('click', () => {
    endSession('You have signed out. The token is no longer kept in this tab.');
  });
  $('refresh').addEventListener('click', (e) =>
    busy(e.currentTarget, async () => {
      await refresh();
      if (session) announce('Dashboard updated.');
    }),
  );
  // Coming back to the tab (after calling tools elsewhere, say) shows current numbers.
  document.addEventListener('visibilitychange', () => {
    if (document.visibilityState === 'visible' && session) void refresh();
  });
  // The balance, usage and asynchronous calls also follow calls made while the tab stays open; the other sections
  // change only by what is done on this page.
  setInterval(() => {
    if (session && document.visibilityState === 'visible') void Promise.all([session.usage.load(), session.calls.load(), session.credits.load()]);
  }, USAGE_REFRESH_MS);

  const token = loadToken();
  if (!token) {
    endSession(null, { focus: false });
    return;
  }
  // A reload of a signed-in tab: the stored token is checked first; a 401 ends it. Any other
  // failure (service restarting, network down) keeps the session, and each section shows its
  // error with a Try again button instead of signing the user out.
  verifyToken(token).then(
    (account) => startSession(token, account),
    (err) => (err.status === 401 ? endSession(`Your session has ended: ${problemText(err)} Sign in again.`) : startSession(token, null)),
  );
}

init();
