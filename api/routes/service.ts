//! Service endpoints: liveness, readiness, the OpenAPI document and the docs. The metrics are not
//! here: they are served on METRICS_PORT only (lib/operator-port.ts), never on the public port.
import Router from '@koa/router';
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import { ServiceError } from '../../contracts/errors.js';

/** How long /readyz waits for each dependency before calling it unreachable. */
const READY_PROBE_MS = 3_000;
const NOT_FOUND = 5; // gRPC status

/** `promise`, or a rejection once `ms` have passed (the work itself is left to finish). */
function within<T>(ms: number, promise: Promise<T>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`no answer within ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

/**
 * Temporal is ready when it answers from its persistence: looking up a workflow that never
 * exists reaches the database behind the history service (NOT_FOUND), where server info comes
 * from memory and stays fine with that database gone. Bounded by a timer too: the client's own
 * retries of an unavailable server outlast a call deadline.
 */
async function temporalReachable(client: Client): Promise<void> {
  try {
    await within(
      READY_PROBE_MS,
      client.connection.withDeadline(Date.now() + READY_PROBE_MS, () =>
        client.workflowService.describeWorkflowExecution({
          namespace: client.options.namespace,
          execution: { workflowId: 'readyz-probe' },
        }),
      ),
    );
  } catch (err) {
    if ((err as { code?: number }).code !== NOT_FOUND) throw err;
  }
}

export function serviceRoutes(deps: { db: Db; client: Client; openapi: () => unknown }): Router {
  const router = new Router();

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const checks = await Promise.allSettled([
      within(READY_PROBE_MS, deps.db.command({ ping: 1 }, { timeoutMS: READY_PROBE_MS })),
      temporalReachable(deps.client),
    ]);
    const [db, temporal] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unreachable'));
    if (db !== 'ok' || temporal !== 'ok') {
      throw new ServiceError('unavailable', 'A dependency is unreachable.', { checks: { database: db, temporal } });
    }
    ctx.body = { status: 'ready', checks: { database: db, temporal } };
  });

  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = deps.openapi();
  });

  return router;
}
