//! Who may do what on an account: every rule in one table (docs/API.md, "Teams"). A route
//! of the account API (`/api/v1/account/<area>/...`) belongs to an area; an area names the group
//! of roles that may read it and the group that may change it. One middleware (api/permissions.ts)
//! consults this before any handler runs, and test/teams/permissions.test.ts walks every route of
//! every router through it for each role. Pure data and two pure functions.
import type { Role } from '../membership/index.js';

/** Every role, from the one that may do most to the one that may do least. */
export const ROLES = ['owner', 'admin', 'developer', 'billing', 'viewer'] as const satisfies readonly Role[];

/** The rows of the roles table of docs/API.md: a group of actions and the roles allowed them. */
export const GROUPS = {
  /** Read the account, usage, events, calls, batches, the audit log, the team; never a secret (nothing read here returns one). */
  read: ['owner', 'admin', 'developer', 'billing', 'viewer'],
  /** Keys, webhooks, destinations, link secrets, render links, the render cache, batches, monitors, connected apps. */
  build: ['owner', 'admin', 'developer'],
  /** Purchases, checkout, auto-recharge, credit packs, grants. */
  billing: ['owner', 'admin', 'billing'],
  /** Members and invitations. */
  team: ['owner', 'admin'],
  /** Transferring ownership, the account's sign-in policy, closing the account. */
  ownership: ['owner'],
} as const satisfies Record<string, readonly Role[]>;

export type Group = keyof typeof GROUPS;

/** An area of the account API: the group that may read it (GET, HEAD) and the group that may change it (any other method). */
export interface AreaRule {
  reads: Group;
  changes: Group;
}

/** `changes` left out: the area has no route that changes anything; one added later is the owner's until the table says otherwise. */
const area = (reads: Group, changes: Group = 'ownership'): AreaRule => ({ reads, changes });

/**
 * Every area of `/api/v1/account`, by the first segment of the path after it (`''`: the account
 * itself). A route under an area not listed here is refused to all but the owner, and fails the
 * route walk, so a new area cannot be forgotten.
 */
export const AREAS: Readonly<Record<string, AreaRule>> = {
  '': area('read', 'ownership'),
  usage: area('read'),
  calls: area('read'),
  events: area('read'),
  'audit-log': area('read'),
  keys: area('read', 'build'),
  webhooks: area('read', 'build'),
  destinations: area('read', 'build'),
  'link-secrets': area('read', 'build'),
  'render-links': area('read', 'build'),
  'render-cache': area('read', 'build'),
  batches: area('read', 'build'),
  monitors: area('read', 'build'),
  grants: area('read'),
  checkout: area('read', 'billing'),
  purchases: area('read', 'billing'),
  'auto-recharge': area('read', 'billing'),
  'credit-packs': area('read', 'billing'),
  members: area('read', 'team'),
  invitations: area('read', 'team'),
  'transfer-ownership': area('ownership'),
  'sign-in-policy': area('read'),
  'connected-apps': area('read', 'build'),
  close: area('ownership'),
};

/** Where every account route starts. */
export const ACCOUNT_PREFIX = '/api/v1/account';

const READS = new Set(['GET', 'HEAD', 'OPTIONS']);

/** The area of a path under ACCOUNT_PREFIX (`/api/v1/account/keys/key_1` -> `keys`), or null for a path outside it. */
export function areaOf(path: string): string | null {
  if (path !== ACCOUNT_PREFIX && !path.startsWith(`${ACCOUNT_PREFIX}/`)) return null;
  return path.slice(ACCOUNT_PREFIX.length + 1).split('/')[0]!;
}

/** The group a request needs: by its area and whether it reads; `ownership` for an area the table does not know. */
export function groupFor(method: string, path: string): Group {
  const name = areaOf(path);
  const rule = name !== null && Object.hasOwn(AREAS, name) ? AREAS[name]! : undefined;
  if (!rule) return 'ownership';
  return READS.has(method.toUpperCase()) ? rule.reads : rule.changes;
}

/** The role a refusal names: the one that may do least among those allowed (what to ask for). */
export const requiredRole = (group: Group): Role => GROUPS[group].at(-1)!;

/** Whether `role` may make this request; when not, the role it needs and every role that may. */
export function permits(
  role: Role,
  method: string,
  path: string,
): { allowed: true } | { allowed: false; requiredRole: Role; allowedRoles: readonly Role[] } {
  const group = groupFor(method, path);
  const allowedRoles: readonly Role[] = GROUPS[group];
  return allowedRoles.includes(role) ? { allowed: true } : { allowed: false, requiredRole: requiredRole(group), allowedRoles };
}
