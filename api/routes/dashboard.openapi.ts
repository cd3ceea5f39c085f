//! The OpenAPI operations of the dashboard pages (`api/routes/dashboard.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { shippedDashboard } from './dashboard.js';
import { open, operation, plain, type RouteOperation } from '../docs/operations.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function dashboardOperations(): RouteOperation[] {
  return [
    operation('get', '/dashboard', {
      tag: 'service',
      operationId: 'dashboard',
      ...open(),
      summary: 'Account dashboard',
      description:
        "The account's web page over the account API: sign up, sign in (password, passkey, or an owner token), then the overview (balance, plan, grants); each other area has its own path (`/dashboard/{view}`: `sign-up`, `verify`, `reset`, `invitation`, `security`, `keys`, ...).",
      ok: plain('An HTML page.', { 'text/html': { schema: { type: 'string' } } }),
      codes: ['internal_error'],
    }),
    operation('get', '/dashboard/{view}', {
      tag: 'service',
      operationId: 'dashboardView',
      ...open(),
      summary: 'A view of the account dashboard',
      description:
        'The same page as `/dashboard`, which then shows the view its path names (`/dashboard/keys`, `/dashboard/webhooks`, ..., as its navigation links them). A path no view has is answered the page too, which says the view was not found.',
      parameters: [
        {
          name: 'view',
          in: 'path',
          required: true,
          description: "The view's name, as the page's navigation links to it.",
          schema: { type: 'string', examples: ['keys'] },
        },
      ],
      ok: plain('An HTML page.', { 'text/html': { schema: { type: 'string' } } }),
      codes: ['internal_error'],
    }),
    operation('get', '/dashboard/assets/{version}/{file}', {
      tag: 'service',
      operationId: 'dashboardAsset',
      ...open(),
      summary: 'Dashboard script or style',
      description:
        "A file `/dashboard` loads (`simplewebauthn-browser.js` is `@simplewebauthn/browser`'s bundle, served from here so the page runs scripts of this origin only; `event-kinds.js` lists the event types an endpoint may choose). Cached for a year: `version` is a digest of the files.",
      parameters: [
        {
          name: 'version',
          in: 'path',
          required: true,
          description: "The digest in the page's links; any other is served too, not cached.",
          schema: { type: 'string' },
        },
        { name: 'file', in: 'path', required: true, schema: { type: 'string', enum: [...shippedDashboard().assets.keys()] } },
      ],
      ok: plain(
        'JavaScript, CSS or SVG.',
        Object.fromEntries(['text/javascript', 'text/css', 'image/svg+xml'].map((type) => [type, { schema: { type: 'string' } }])),
      ),
      codes: ['not_found', 'internal_error'],
    }),
  ];
}
