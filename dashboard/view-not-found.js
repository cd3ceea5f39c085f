//! The view of a dashboard path no view has (`/dashboard/nope`): says so, names the path, and
//! links to where the visitor can go on from (the overview, or sign-in when signed out).
import { h, viewSection } from './dom.js';
import { APP_ROOT } from './router.js';

/** @param {import('./app.js').ViewContext} context */
export function createNotFoundView({ signedIn }) {
  const path = h('code', { id: 'not-found-path' });
  const onwards = h('a', { id: 'not-found-link' });
  const element = viewSection(
    'not-found',
    'Page not found',
    h('p', {}, 'There is no page at ', path, ' in the dashboard. The link may be old or mistyped.'),
    h('p', {}, onwards),
  );

  return {
    element,
    load(route) {
      path.textContent = route.path;
      const home = signedIn();
      onwards.href = home ? APP_ROOT : `${APP_ROOT}/sign-in`;
      onwards.textContent = home ? 'Go to the overview' : 'Go to sign-in';
    },
  };
}
