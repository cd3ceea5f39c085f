//! The dashboard's views and their URLs (dashboard/router.js, views.js): a deep link to each
//! view shows it with its title, its h1 and its navigation link marked, reading only that view's
//! data; links, Back and Forward move between views without a reload, focus on the view's h1; a
//! signed-out visit of a view goes through sign-in and back to it; a path no view has says so.
//! The visitor is a person (signed up through the mail, signing in with a password at the
//! service's own origin), whose session outlives the reloads of deep links.
import test from 'ava';
import type { KeyInput, Page } from 'puppeteer-core';
import { client, serviceOrigin, signUp, type SignedUpPerson } from '../helpers/people.js';
import { browserForFile } from './browser-for-file.js';
import { PHONE, VIEWS, focused, goTo, openDashboard, signInWithPassword, textOf, viewsOf, waitForView, type ViewId } from './page.js';

const browser = browserForFile();
/** One person for the file: these tests read, they change nothing but the session. */
let person: SignedUpPerson;
test.before(async () => {
  person = await signUp(client(), { name: 'Router Ltd' });
});

const open = (options: Parameters<typeof openDashboard>[1] = {}) => openDashboard(browser(), { origin: serviceOrigin(), ...options });
const signIn = (page: Page) => signInWithPassword(page, person.email, person.password);

/** What each view of a person reads (besides `GET /api/v1/auth/session`, who is signed in, on every page load). */
const READS: Record<Exclude<ViewId, 'attach'>, string[]> = {
  overview: ['GET /api/v1/account', 'GET /api/v1/account/grants', 'GET /api/v1/account/usage'],
  usage: ['GET /api/v1/account/calls', 'GET /api/v1/account/usage'],
  billing: [
    'GET /api/v1/account/auto-recharge',
    'GET /api/v1/account/credit-packs',
    'GET /api/v1/account/grants',
    'GET /api/v1/account/purchases',
  ],
  team: ['GET /api/v1/account/invitations', 'GET /api/v1/account/members', 'GET /api/v1/account/sign-in-policy'],
  keys: ['GET /api/v1/account/keys'],
  webhooks: ['GET /api/v1/account/events', 'GET /api/v1/account/webhooks'],
  batches: ['GET /api/v1/account/batches'],
  monitors: ['GET /api/v1/account/monitors'],
  'render-links': ['GET /api/v1/account/link-secrets', 'GET /api/v1/account/render-cache'],
  destinations: ['GET /api/v1/account/destinations'],
  'connected-apps': ['GET /api/v1/account/connected-apps'],
  security: ['GET /api/v1/auth/passkeys', 'GET /api/v1/auth/sessions'],
};

/**
 * Where the page is and what it shows: path and query, title, the marked links, the focus, the
 * visible views and their h1s (lists joined with " | ", so that `t.like` compares them whole).
 */
function where(page: Page) {
  return page.evaluate(() => ({
    url: location.pathname + location.search,
    title: document.title,
    current: Array.from(document.querySelectorAll('#nav-list a[aria-current]'))
      .map((a) => `${a.textContent} (${a.getAttribute('aria-current')})`)
      .join(' | '),
    focus: document.activeElement?.id ?? '',
    shown: Array.from(document.querySelectorAll<HTMLElement>('#views > :not([hidden])'))
      .map((v) => v.dataset.view)
      .join(' | '),
    h1: Array.from(document.querySelectorAll<HTMLElement>('#views > :not([hidden]) h1'))
      .map((h) => h.innerText)
      .join(' | '),
  }));
}

/** Where the page is once a person has moved to `view`: at its path, titled, marked current, its heading focused. */
const movedTo = (view: ViewId) => ({
  url: VIEWS[view].path,
  title: `${VIEWS[view].title} · Utility Tools`,
  current: `${VIEWS[view].title} (page)`,
  focus: `${view}-title`,
  shown: view,
});

/** Loads `path` at the service's origin, as an address typed or a link from elsewhere does, and waits until `view` is shown. */
async function load(page: Page, path: string, view: Parameters<typeof waitForView>[1]) {
  await page.goto(`${serviceOrigin()}${path}`, { waitUntil: 'networkidle0' });
  await waitForView(page, view);
}

test('a deep link to each view shows it, titled, marked in the navigation, and reads only its own data', async (t) => {
  const { page, problems, close } = await open();
  try {
    await signIn(page);
    const reads: string[] = [];
    page.on('request', (req) => {
      const url = new URL(req.url());
      if (url.pathname.startsWith('/api/')) reads.push(`${req.method()} ${url.pathname}`);
    });
    for (const view of viewsOf('person') as (keyof typeof READS)[]) {
      const { path, title } = VIEWS[view];
      reads.length = 0;
      await load(page, path, view);
      t.like(await where(page), { url: path, title: `${title} · Utility Tools`, current: `${title} (page)`, shown: view, h1: title }, view);
      t.deepEqual([...new Set(reads)].sort(), ['GET /api/v1/auth/session', ...READS[view]].sort(), `${view} reads only its own data`);
    }
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('links, Back and Forward move between views without a reload; title, aria-current and focus follow; a view shown again reads again', async (t) => {
  const { page, problems, close } = await open();
  const press = (key: KeyInput) => page.keyboard.press(key);
  try {
    await signIn(page);
    t.like(await where(page), movedTo('overview'));
    // Marks the document: a reload would lose it.
    await page.evaluate(() => Object.assign(window, { sameDocument: true }));
    let keyReads = 0;
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/api/v1/account/keys') keyReads++;
    });

    await goTo(page, 'keys');
    t.like(await where(page), movedTo('keys'));
    await goTo(page, 'webhooks');
    t.like(await where(page), movedTo('webhooks'));

    await page.goBack();
    await waitForView(page, 'keys');
    t.like(await where(page), movedTo('keys'));
    t.is(keyReads, 2, 'the keys are read again when their view is shown again');
    await page.goBack();
    await waitForView(page, 'overview');
    t.like(await where(page), movedTo('overview'));
    await page.goForward();
    await waitForView(page, 'keys');
    t.like(await where(page), movedTo('keys'));
    await page.goBack();
    await waitForView(page, 'overview');

    // A link inside a view (the overview's list of the other views) is followed the same way.
    await page.click('#overview a[href="/dashboard/batches"]');
    await waitForView(page, 'batches');
    t.like(await where(page), movedTo('batches'));
    // The skip link takes the focus to the current view's heading, without changing the address.
    await page.focus('#skip-link');
    await press('Enter');
    t.like(await where(page), { url: '/dashboard/batches', focus: 'batches-title' });
    t.true(
      await page.evaluate(() => (window as unknown as { sameDocument?: boolean }).sameDocument === true),
      'no view change reloaded the page',
    );
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('signed out, a view asks for sign-in and comes back to it after; signed in, sign-in goes on to where it was asked for', async (t) => {
  const { page, problems, close } = await open({ path: '/dashboard/webhooks' });
  try {
    await waitForView(page, 'sign-in');
    t.like(await where(page), {
      url: '/dashboard/sign-in?next=%2Fdashboard%2Fwebhooks',
      title: 'Sign in · Utility Tools',
      current: '',
      shown: 'sign-in',
    });
    t.true(await page.$eval('#app-nav', (nav) => (nav as HTMLElement).hidden), 'no navigation while signed out');
    await signIn(page);
    await waitForView(page, 'webhooks');
    t.like(await where(page), movedTo('webhooks'));

    // Signed in, sign-in is skipped: on to `next` when it names a view, else to the overview.
    await load(page, '/dashboard/sign-in?next=%2Fdashboard%2Fkeys', 'keys');
    t.like(await where(page), { url: '/dashboard/keys', shown: 'keys' });
    for (const elsewhere of ['https://example.com/dashboard/keys', '//example.com/dashboard/keys', '/docs', '/dashboard/no-such-view']) {
      await load(page, `/dashboard/sign-in?next=${encodeURIComponent(elsewhere)}`, 'overview');
      t.like(await where(page), { url: '/dashboard', shown: 'overview' }, elsewhere);
    }

    // Signing out on a view keeps the way back to it for the next sign-in.
    await goTo(page, 'destinations');
    await page.click('#sign-out');
    await waitForView(page, 'sign-in');
    t.like(await where(page), { url: '/dashboard/sign-in?next=%2Fdashboard%2Fdestinations', focus: 'sign-in-title', shown: 'sign-in' });
    await signIn(page);
    await waitForView(page, 'destinations');
    t.like(await where(page), movedTo('destinations'));
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('a path no view has shows a "Page not found" view, signed out and signed in, with a way on', async (t) => {
  const { page, problems, close } = await open({ path: '/dashboard/no-such-view' });
  try {
    await waitForView(page, 'not-found');
    t.like(await where(page), {
      url: '/dashboard/no-such-view',
      title: 'Page not found · Utility Tools',
      shown: 'not-found',
      h1: 'Page not found',
    });
    t.is(await textOf(page, '#not-found-path'), '/dashboard/no-such-view');
    t.true(await page.$eval('#app-nav', (nav) => (nav as HTMLElement).hidden));
    t.is(await page.$eval('#not-found-link', (a) => (a as HTMLAnchorElement).pathname), '/dashboard/sign-in');
    await page.click('#not-found-link');
    await waitForView(page, 'sign-in');
    await signIn(page);
    await waitForView(page, 'overview');

    // Signed in: the navigation is there, nothing in it is current; the link goes to the overview.
    await load(page, '/dashboard/nope', 'not-found');
    t.like(await where(page), { url: '/dashboard/nope', title: 'Page not found · Utility Tools', current: '', shown: 'not-found' });
    t.false(await page.$eval('#app-nav', (nav) => (nav as HTMLElement).hidden));
    t.regex(await textOf(page, '#not-found'), /There is no page at \/dashboard\/nope in the dashboard/);
    await page.click('#not-found-link');
    await waitForView(page, 'overview');
    t.like(await where(page), movedTo('overview'));
    // A trailing slash names the same view.
    await load(page, '/dashboard/usage/', 'usage');
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});

test('the navigation lists the views the visitor may see, without hidden ones, and only the app’s pages are routed', async (t) => {
  const { page, close } = await open();
  try {
    // router.js's own functions, imported into the page as app.js imports them.
    const result = await page.evaluate(`(async () => {
      const router = await import(document.querySelector('script[type=module]').src.replace(/app\\.js$/, 'router.js'));
      const create = () => ({ element: document.createElement('section') });
      const views = [
        { id: 'home', path: '/dashboard', title: 'Home', nav: 'Home', create },
        { id: 'team', path: '/dashboard/team', title: 'Team', nav: 'Team', hidden: (context) => context.role !== 'owner', create },
        { id: 'sign-up', path: '/dashboard/sign-up', title: 'Sign up', nav: 'Sign up', access: 'signed-out', create },
        { id: 'verify', path: '/dashboard/verify', title: 'Verify', access: 'signed-out', create },
      ];
      const ids = (state) => router.navEntries(views, state).map((v) => v.id);
      return {
        owner: ids({ signedIn: true, context: { role: 'owner' } }),
        viewer: ids({ signedIn: true, context: { role: 'viewer' } }),
        signedOut: ids({ signedIn: false, context: null }),
        routed: ['/dashboard', '/dashboard/keys', '/dashboard/assets/x/app.js', '/dashboardx', '/docs'].map(router.isAppPath),
      };
    })()`);
    t.deepEqual(result, {
      owner: ['home', 'team'],
      viewer: ['home'],
      signedOut: ['sign-up'],
      routed: [true, true, false, false, false],
    });
  } finally {
    await close();
  }
});

test('on a phone the navigation opens from its Menu button, closes on Escape, and closes once a view is chosen', async (t) => {
  const { page, problems, close } = await open({ viewport: PHONE });
  const linksShown = () => page.$eval('#nav-list', (ul) => (ul as HTMLElement).offsetParent !== null);
  try {
    await signIn(page);
    t.false(await linksShown());
    await page.click('#nav-toggle');
    t.true(await linksShown());
    t.is(await page.$eval('#nav-toggle', (b) => b.getAttribute('aria-expanded')), 'true');
    await page.focus('#nav-list a[data-view="usage"]');
    await page.keyboard.press('Escape');
    t.false(await linksShown());
    t.like(await focused(page), { id: 'nav-toggle' });
    t.is(await page.$eval('#nav-toggle', (b) => b.getAttribute('aria-expanded')), 'false');

    await page.click('#nav-toggle');
    await page.click('#nav-list a[data-view="usage"]');
    await waitForView(page, 'usage');
    t.false(await linksShown());
    t.like(await where(page), movedTo('usage'));
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
