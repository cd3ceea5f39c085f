//! Every view of the dashboard, one line each: its path, its title, its label in the navigation,
//! and the function that makes it (router.js says what each field means). A new view is one
//! module exporting its `create…View(context)` plus a line here; the navigation lists the views in
//! this order. Grouping: the overview holds what an owner checks first (balance, plan, grants);
//! usage holds what was spent and how (chart, calls, CSV, asynchronous calls); webhooks holds the
//! endpoints with their deliveries and the event log those deliveries come from; destinations
//! serve every tool that writes a file, so they are not filed under render links. The team follows
//! billing: both are the account's people and money rather than its build; every role reads it
//! (the view hides the changes a role may not make), an owner token included. Security is a
//! person's (a session); attaching a person is for an owner-token sign-in. The signed-out views
//! (sign-in, sign-up, reset) and the links of mails (verify, invitation) come last.
import { createAttachView } from './view-attach.js';
import { createBatchesView } from './view-batches.js';
import { createBillingView } from './view-billing.js';
import { createDestinationsView } from './view-destinations.js';
import { createConnectedAppsView } from './view-connected-apps.js';
import { createKeysView } from './view-keys.js';
import { createMonitorsView } from './view-monitors.js';
import { createNotFoundView } from './view-not-found.js';
import { createOverviewView } from './view-overview.js';
import { createRenderLinksView } from './view-render-links.js';
import { createInvitationView } from './view-invitation.js';
import { createResetView } from './view-reset.js';
import { createSecurityView } from './view-security.js';
import { createSignInView } from './view-sign-in.js';
import { createSignUpView } from './view-sign-up.js';
import { createTeamView } from './view-team.js';
import { createUsageView } from './view-usage.js';
import { createVerifyView } from './view-verify.js';
import { createWebhooksView } from './view-webhooks.js';

/** @type {import('./router.js').ViewSpec[]} */
export const VIEWS = [
  { id: 'overview', path: '/dashboard', title: 'Overview', nav: 'Overview', autoRefresh: true, create: createOverviewView },
  {
    id: 'usage',
    path: '/dashboard/usage',
    title: 'Usage',
    nav: 'Usage',
    description: 'Credits per day and tool, every call with its request id, a month as CSV, asynchronous calls.',
    autoRefresh: true,
    create: createUsageView,
  },
  {
    id: 'billing',
    path: '/dashboard/billing',
    title: 'Billing',
    nav: 'Billing',
    description: 'Buy credits, see purchases and refunds, recharge automatically with a saved card.',
    create: createBillingView,
  },
  {
    id: 'team',
    path: '/dashboard/team',
    title: 'Team',
    nav: 'Team',
    description: 'Who is on the account and their roles, invitations, and handing the account on.',
    create: createTeamView,
  },
  {
    id: 'keys',
    path: '/dashboard/keys',
    title: 'API keys',
    nav: 'API keys',
    description: 'Create the keys your code calls the tools with, limit what each may do, revoke them.',
    create: createKeysView,
  },
  {
    id: 'webhooks',
    path: '/dashboard/webhooks',
    title: 'Webhooks',
    nav: 'Webhooks',
    description: 'Endpoints that receive signed events, their delivery attempts, and the event log.',
    create: createWebhooksView,
  },
  {
    id: 'batches',
    path: '/dashboard/batches',
    title: 'Batches',
    nav: 'Batches',
    description: 'Many calls of one tool at once, with their progress; cancel one that runs.',
    create: createBatchesView,
  },
  {
    id: 'monitors',
    path: '/dashboard/monitors',
    title: 'Monitors',
    nav: 'Monitors',
    description: 'Tools run on a schedule and judged: up, down or changed, their runs, uptime and diff images.',
    autoRefresh: true,
    create: createMonitorsView,
  },
  {
    id: 'render-links',
    path: '/dashboard/render-links',
    title: 'Render links',
    nav: 'Render links',
    description: 'Signed image links for an <img src>, their link secrets, and the render cache.',
    create: createRenderLinksView,
  },
  {
    id: 'destinations',
    path: '/dashboard/destinations',
    title: 'Destinations',
    nav: 'Destinations',
    description: 'Your own buckets that calls write their files to.',
    create: createDestinationsView,
  },
  {
    id: 'connected-apps',
    path: '/dashboard/connected-apps',
    title: 'Connected apps',
    nav: 'Connected apps',
    description: 'AI agents and other apps members let act on this account.',
    create: createConnectedAppsView,
  },
  {
    id: 'security',
    path: '/dashboard/security',
    title: 'Security',
    nav: 'Security',
    description: 'Your password, passkeys and sessions.',
    hidden: (c) => c.kind() !== 'session',
    create: createSecurityView,
  },
  {
    id: 'attach',
    path: '/dashboard/attach',
    title: 'Attach yourself',
    nav: 'Attach yourself',
    description: 'Sign in as a person, with a password or a passkey, instead of the owner token.',
    hidden: (c) => c.kind() !== 'token',
    create: createAttachView,
  },
  { id: 'sign-in', path: '/dashboard/sign-in', title: 'Sign in', access: 'signed-out', create: createSignInView },
  { id: 'sign-up', path: '/dashboard/sign-up', title: 'Create your account', access: 'signed-out', create: createSignUpView },
  { id: 'reset', path: '/dashboard/reset', title: 'Reset your password', access: 'any', create: createResetView },
  { id: 'verify', path: '/dashboard/verify', title: 'Confirm your address', access: 'any', create: createVerifyView },
  { id: 'invitation', path: '/dashboard/invitation', title: 'Accept the invitation', access: 'any', create: createInvitationView },
];

/** Shown for a path no view has, signed in or not. */
export const NOT_FOUND = /** @type {import('./router.js').ViewSpec} */ ({
  id: 'not-found',
  path: '',
  title: 'Page not found',
  access: 'any',
  create: createNotFoundView,
});

/** Where a signed-in visitor lands, and where signed-out visitors of the account's views are sent. */
export const HOME = '/dashboard';
export const SIGN_IN = '/dashboard/sign-in';
