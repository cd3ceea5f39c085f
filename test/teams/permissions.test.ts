//! The role table, walked: every route of the account API, taken from the app's own routers (so a
//! new route is walked too), asked by a member of each of the five roles and by the owner token,
//! and each answer compared with domain/teams/permissions.ts (the roles table of docs/API.md, "Teams"):
//! refused with 403 `forbidden_for_role` naming the role it needs, or let through to the handler
//! (any answer but that refusal: a dummy body's 400 or an id's 404 prove the check passed).
import test from 'ava';
import type Router from '@koa/router';
import { Client as TemporalClient } from '@temporalio/client';
import { MongoClient } from 'mongodb';
import { createApp } from '../../api/app.js';
import { loadConfig } from '../../lib/config.js';
import { createLogger } from '../../lib/logger.js';
import { createMetrics } from '../../lib/metrics.js';
import { ACCOUNT_PREFIX, AREAS, GROUPS, ROLES, areaOf, groupFor, permits, requiredRole } from '../../domain/teams/permissions.js';
import type { Role } from '../../domain/membership/documents.js';
import { isProblem } from '../helpers/api.js';
import { client } from '../helpers/people.js';
import { teamAccount } from '../helpers/team.js';

const mongo = new MongoClient('mongodb://127.0.0.1:9/walk', { serverSelectionTimeoutMS: 100 });
const temporal = new TemporalClient(); // lazy: connects on first use, which never comes
test.after.always(async () => {
  await temporal.connection.close().catch(() => {});
  await mongo.close();
});

/** Every route the app serves under /api/v1/account, method by method, from its routers (no database or Temporal reached). */
function accountRoutes(): { method: string; path: string }[] {
  const app = createApp({
    config: loadConfig({ MONGODB_URL: 'mongodb://127.0.0.1:9/walk', SECRET_KEY: '0'.repeat(64), ADMIN_TOKEN: 'admin' }),
    db: mongo.db(),
    client: temporal,
    log: createLogger({ name: 'walk', level: 'silent' }),
    metrics: createMetrics(),
  });
  const layers = app.middleware
    .map((m) => (m as { router?: Router }).router)
    .filter((r): r is Router => !!r)
    .flatMap((r) => r.stack);
  const routes = layers
    .filter((l) => l.methods.length > 0 && typeof l.path === 'string' && areaOf(l.path) !== null)
    .flatMap((l) => l.methods.filter((m) => m !== 'HEAD').map((method) => ({ method, path: l.path as string })));
  return [...new Map(routes.map((r) => [`${r.method} ${r.path}`, r])).values()];
}

const routes = accountRoutes();

test('every route of the account API is in an area of the role table: a new one cannot be forgotten', (t) => {
  t.true(routes.length > 40, `only ${routes.length} account routes found`);
  const unlisted = routes.filter((r) => !Object.hasOwn(AREAS, areaOf(r.path)!)).map((r) => `${r.method} ${r.path}`);
  t.deepEqual(unlisted, [], 'add each to AREAS in domain/teams/permissions.ts');
  // The billing group is named for the purchase routes, whichever router serves them.
  for (const area of ['checkout', 'purchases', 'auto-recharge', 'credit-packs']) t.is(AREAS[area]!.changes, 'billing', area);
});

test("the table is docs/API.md's: who may read, build, buy, manage the team and own", (t) => {
  t.deepEqual(GROUPS, {
    read: ['owner', 'admin', 'developer', 'billing', 'viewer'],
    build: ['owner', 'admin', 'developer'],
    billing: ['owner', 'admin', 'billing'],
    team: ['owner', 'admin'],
    ownership: ['owner'],
  });
  t.is(groupFor('GET', `${ACCOUNT_PREFIX}/keys`), 'read', 'a viewer reads keys (their metadata: no route shows a secret after creation)');
  t.is(groupFor('POST', `${ACCOUNT_PREFIX}/keys`), 'build');
  t.is(groupFor('PUT', `${ACCOUNT_PREFIX}/auto-recharge`), 'billing');
  t.is(groupFor('DELETE', `${ACCOUNT_PREFIX}/members/usr_1`), 'team');
  t.is(groupFor('POST', `${ACCOUNT_PREFIX}/transfer-ownership`), 'ownership');
  t.is(groupFor('POST', `${ACCOUNT_PREFIX}/something-new`), 'ownership', "an area the table does not know is the owner's alone");
  t.is(groupFor('GET', ACCOUNT_PREFIX), 'read');
  t.deepEqual(
    ROLES.map((r) => permits(r, 'DELETE', `${ACCOUNT_PREFIX}/webhooks/whe_1`).allowed),
    [true, true, true, false, false],
  );
  t.deepEqual(
    ROLES.map((r) => permits(r, 'POST', `${ACCOUNT_PREFIX}/checkout`).allowed),
    [true, true, false, true, false],
  );
});

test('every role walks every account route: refused with 403 forbidden_for_role exactly where the table says, the owner token as the owner', async (t) => {
  const c = client();
  const { account, members } = await teamAccount(c, ROLES, 'Walk');
  const principals: { role: Role; label: string; auth: { cookie?: string; token?: string } }[] = [
    ...ROLES.map((role) => ({ role, label: role, auth: { cookie: members[role]!.cookie } })),
    { role: 'owner' as Role, label: 'owner token', auth: { token: account.ownerToken } },
  ];
  const expected: string[] = [];
  const answered: string[] = [];
  for (const { method, path } of routes) {
    const concrete = path.replace(/:[A-Za-z]+/g, 'x1');
    const body = ['GET', 'DELETE'].includes(method) ? undefined : {};
    await Promise.all(
      principals.map(async ({ role, label, auth }) => {
        const verdict = permits(role, method, concrete);
        const res = await c.request(method, concrete, { ...auth, body });
        const refused = isProblem(res, 403, 'forbidden_for_role');
        expected.push(`${label} ${method} ${path}: ${verdict.allowed ? 'allowed' : `refused, needs ${verdict.requiredRole}`}`);
        answered.push(
          `${label} ${method} ${path}: ${refused ? `refused, needs ${res.body.requiredRole}` : res.status === 403 && res.body?.code === 'forbidden_for_role' ? 'refused (malformed)' : 'allowed'}`,
        );
        if (refused) t.is(res.body.role, role);
      }),
    );
  }
  expected.sort();
  answered.sort();
  t.deepEqual(answered, expected);
  // The walk saw both verdicts for every role but the owner's.
  for (const role of ROLES.filter((r) => r !== 'owner'))
    t.true(
      answered.some((a) => a.startsWith(`${role} `) && a.includes('refused')),
      role,
    );
  t.is(requiredRole('team'), 'admin');
});
