//! The dashboard's views and their URLs. views.js registers each view (path, title, navigation
//! label, how to make it); the router shows the view of the address bar's path, moves between views
//! with the History API (links, Back and Forward, no reload), keeps the document title, the
//! navigation's aria-current and the focus in step, and sends a signed-out visit of a signed-in view
//! to sign-in and back to it afterwards. A view is made when first shown and kept, hidden, until
//! the session ends; it loads its data each time it is shown, so only the current view reads.
import { focusOn, h } from './dom.js';

/** The app's root; its pages are this path and the paths under it (but not its files). */
export const APP_ROOT = '/dashboard';
const SITE_NAME = 'Utility Tools';

/**
 * Who sees a view. `signed-in`: the account's views; a signed-out visit goes to sign-in, which
 * comes back to it. `signed-out`: sign-in and its kin; a signed-in visit goes on to where sign-in
 * was asked for, or home. `any`: either way (the not-found view).
 * @typedef {'signed-in' | 'signed-out' | 'any'} Access
 */

/**
 * Where the router is: the path (without a trailing slash) and the query.
 * @typedef {{ path: string, query: URLSearchParams }} Route
 */

/**
 * What a view's `create` returns.
 * @typedef {object} View
 * @property {HTMLElement} element the view's root, holding its one h1 (dom.js `viewSection`)
 * @property {HTMLElement} [heading] what takes the focus when the view is navigated to (default: its h1)
 * @property {(route: Route) => unknown} [load] reads and shows the view's data: each time the view is shown, and on Refresh; the view is aria-busy until it settles
 * @property {() => void} [leave] the view was hidden: stop what only matters on screen (a timer)
 * @property {() => void} [close] the session ended: forget what was shown (the element is removed)
 */

/**
 * One line of views.js.
 * @typedef {object} ViewSpec
 * @property {string} id names the view: its nav link's `data-view`, by convention its root's id
 * @property {string} path the exact path, e.g. `/dashboard/keys`
 * @property {string} title the document title's first part (`API keys · Utility Tools`)
 * @property {string} [nav] its link's label in the navigation; without it the view has no link
 * @property {string} [description] one line for the overview's list of areas
 * @property {Access} [access] default `signed-in`
 * @property {(context: any) => boolean} [hidden] true hides the navigation link (a view only some roles use); the path still works
 * @property {boolean} [autoRefresh] loaded again every minute while shown (numbers that change on their own)
 * @property {(context: any) => View} create makes the view's element once; `context` comes from app.js
 */

/** Whether `pathname` is one of the app's pages rather than one of its files or another page. */
export const isAppPath = (pathname) =>
  pathname === APP_ROOT || (pathname.startsWith(`${APP_ROOT}/`) && !pathname.startsWith(`${APP_ROOT}/assets/`));

/** `/dashboard/keys/` is `/dashboard/keys`. */
const normalize = (pathname) => pathname.replace(/(.)\/+$/, '$1');

/** @param {ViewSpec} spec @param {boolean} signedIn */
const allowed = (spec, signedIn) => {
  const access = spec.access ?? 'signed-in';
  return access === 'any' || (access === 'signed-in') === signedIn;
};

/**
 * The navigation's entries: views with a label that this state may see and that are not hidden.
 * @param {ViewSpec[]} views
 * @param {{ signedIn: boolean, context: any }} state
 */
export function navEntries(views, { signedIn, context }) {
  return views.filter((spec) => spec.nav && allowed(spec, signedIn) && !spec.hidden?.(context));
}

/**
 * The page outside this app a sign-in was asked for (`?next=`): only an authorization's consent
 * page of this origin (an agent asking to act on the account), which the server renders itself.
 * @param {URLSearchParams} query
 */
function consentPage(query) {
  const next = query.get('next');
  if (!next) return null;
  try {
    const url = new URL(next, location.origin);
    if (url.origin === location.origin && /^\/oauth\/interaction\/[A-Za-z0-9_-]+$/.test(url.pathname) && !url.search) return url.pathname;
  } catch {
    // not a URL
  }
  return null;
}

/**
 * @param {{ views: ViewSpec[], notFound: ViewSpec, home: string, signIn: string, container: HTMLElement,
 *           nav: { element: HTMLElement, list: HTMLElement, toggle: HTMLButtonElement, account: HTMLElement },
 *           signedIn: () => boolean, context: () => any, beforeShow?: () => void }} options
 * `nav.account`: the header's account bar, which narrow screens fold into the Menu with the links.
 * `home`: where a signed-in visitor goes by default; `signIn`: the signed-out view a signed-in view
 * sends its visitors to; `context`: what views are made with; `beforeShow`: runs before any view
 * change (closes a dialog that belongs to the view being left).
 */
export function createRouter(options) {
  const { views, notFound, container, nav, signedIn, context, beforeShow = () => {} } = options;
  const byPath = new Map(views.map((spec) => [spec.path, spec]));
  /** View id -> the view made for it, kept until `closeAll`. @type {Map<string, View>} */
  const made = new Map();
  /** A view -> its load under way and the URL it is for (a second show or Refresh joins it). */
  const loading = new Map();
  /** @type {{ spec: ViewSpec, view: View, route: Route, url: string } | null} */
  let current = null;

  /** @param {string} pathname */
  const match = (pathname) => byPath.get(normalize(pathname)) ?? notFound;
  const here = () => ({ path: normalize(location.pathname), query: new URLSearchParams(location.search) });

  /** Where a signed-in visitor of a signed-out view goes: `?next=` when it names a signed-in view, else home. */
  function onwards(query) {
    const next = query.get('next');
    if (!next) return options.home;
    try {
      const url = new URL(next, location.origin);
      const spec = match(url.pathname);
      // Only a view of this app: never another origin, whatever `next` says.
      if (url.origin === location.origin && spec !== notFound && allowed(spec, true)) return spec.path + url.search;
    } catch {
      // not a URL: home
    }
    return options.home;
  }

  /** Shows the view of the address bar, after the redirect the sign-in state asks for (replacing the entry). */
  function render({ focus = true } = {}) {
    let route = here();
    let spec = match(route.path);
    const state = signedIn();
    const consent = state && !allowed(spec, state) ? consentPage(route.query) : null;
    if (consent) {
      location.replace(consent);
      return;
    }
    if (!allowed(spec, state)) {
      const back = route.path === options.home && !location.search ? '' : `?next=${encodeURIComponent(route.path + location.search)}`;
      history.replaceState(null, '', state ? onwards(route.query) : `${options.signIn}${back}`);
      route = here();
      spec = match(route.path);
    }
    show(spec, route, focus);
  }

  /** @param {ViewSpec} spec @param {Route} route @param {boolean} focus */
  function show(spec, route, focus) {
    beforeShow();
    if (current && current.spec !== spec) {
      current.view.leave?.();
      current.view.element.hidden = true;
    }
    let view = made.get(spec.id);
    if (!view) {
      view = spec.create(context());
      view.element.classList.add('view');
      view.element.dataset.view = spec.id;
      container.append(view.element);
      made.set(spec.id, view);
    }
    current = { spec, view, route, url: route.path + location.search };
    view.element.hidden = false;
    document.title = `${spec.title} · ${SITE_NAME}`;
    showNav();
    if (focus) {
      // A new page starts at its top; the heading is announced as the page's name.
      window.scrollTo(0, 0);
      focusOn(view.heading ?? view.element.querySelector('h1'));
    }
    void load();
  }

  /** Loads the current view, aria-busy meanwhile; resolves once it is shown. */
  function load() {
    if (!current?.view.load) return Promise.resolve();
    const { view, route, url } = current;
    const under = loading.get(view);
    if (under?.url === url) return under.promise;
    const entry = { url, promise: Promise.resolve() };
    loading.set(view, entry);
    view.element.setAttribute('aria-busy', 'true');
    entry.promise = (async () => {
      try {
        await view.load(route);
      } finally {
        // A load for another URL of the same view may have taken over; the last one clears the mark.
        if (loading.get(view) === entry) {
          loading.delete(view);
          view.element.removeAttribute('aria-busy');
        }
      }
    })();
    return entry.promise;
  }

  function showNav() {
    const state = signedIn();
    const entries = navEntries(views, { signedIn: state, context: context() });
    nav.list.replaceChildren(
      ...entries.map((spec) =>
        h('li', {}, h('a', { href: spec.path, 'data-view': spec.id, 'aria-current': spec === current?.spec ? 'page' : null }, spec.nav)),
      ),
    );
    nav.element.hidden = entries.length === 0;
    nav.toggle.hidden = entries.length === 0;
    setMenuOpen(false);
  }

  /**
   * The Menu button of narrow screens: dashboard.css shows the account bar and the links only
   * while it is expanded, so the header is one line above the view.
   */
  function setMenuOpen(open) {
    nav.toggle.setAttribute('aria-expanded', String(open));
    nav.element.classList.toggle('open', open);
    nav.account.classList.toggle('open', open);
  }

  /** Escape inside the open menu closes it and gives the focus back to its button. */
  function closeOnEscape(/** @type {KeyboardEvent} */ event) {
    if (event.key !== 'Escape' || nav.toggle.getAttribute('aria-expanded') !== 'true') return;
    setMenuOpen(false);
    nav.toggle.focus();
  }

  /** Goes to `url` (a path of this app) as a new history entry, or in place of the current one. */
  function navigate(url, { replace = false, focus = true } = {}) {
    const same = url === location.pathname + location.search;
    history[replace || same ? 'replaceState' : 'pushState'](null, '', url);
    render({ focus });
  }

  /** A plain click on a link to one of the app's pages moves there without a reload. */
  function onClick(event) {
    if (event.defaultPrevented || event.button !== 0 || event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const link = event.target instanceof Element ? event.target.closest('a[href]') : null;
    if (!(link instanceof HTMLAnchorElement) || link.target || link.hasAttribute('download')) return;
    const url = new URL(link.href);
    if (url.origin !== location.origin || !isAppPath(url.pathname)) return;
    // A link to a part of this page (#main) is the browser's to follow.
    if (url.hash && url.pathname + url.search === location.pathname + location.search) return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  }

  function onPopState() {
    // Following a #fragment also fires popstate; the page is the same, so nothing changes.
    if (current && normalize(location.pathname) + location.search === current.url) return;
    render({ focus: true });
  }

  return {
    /** Listens for link clicks, Back and Forward, and the Menu button; call once, then `render`. */
    start() {
      document.addEventListener('click', onClick);
      window.addEventListener('popstate', onPopState);
      nav.toggle.addEventListener('click', () => setMenuOpen(nav.toggle.getAttribute('aria-expanded') !== 'true'));
      nav.element.addEventListener('keydown', closeOnEscape);
      nav.account.addEventListener('keydown', closeOnEscape);
    },
    render,
    navigate,
    /** Loads the current view again (Refresh, the tab shown again, the minute's timer). */
    refresh: load,
    /** The view shown now, if any. */
    current: () => current && { spec: current.spec, heading: current.view.heading ?? current.view.element.querySelector('h1') },
    /** The navigation's entries now (for the overview's list of areas). */
    entries: () => navEntries(views, { signedIn: signedIn(), context: context() }),
    /** Forgets every view made (the session ended): each is closed and removed, and made afresh when next shown. */
    closeAll() {
      current?.view.leave?.();
      for (const view of made.values()) {
        view.close?.();
        view.element.remove();
      }
      made.clear();
      loading.clear();
      current = null;
    },
  };
}
