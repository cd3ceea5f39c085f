//! Service endpoints: liveness, readiness, metrics, the OpenAPI document and the docs.
import Router from '@koa/router';
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import type { Metrics } from '../../lib/metrics.js';
import { HttpProblem } from '../problem.js';

/** How long /readyz waits for each dependency before calling it unreachable. */
const READY_PROBE_MS = 3_000;
const NOT_FOUND = 5; // gRPC status

/**
 * Temporal is ready when it answers from its persistence: looking up a workflow that never
 * exists reaches the database behind the history service (NOT_FOUND), where server info comes
 * from memory and stays fine with that database gone.
 */
async function temporalReachable(client: Client): Promise<void> {
  try {
    await client.connection.withDeadline(Date.now() + READY_PROBE_MS, () =>
      client.workflowService.describeWorkflowExecution({ namespace: client.options.namespace, execution: { workflowId: 'readyz-probe' } }),
    );
  } catch (err) {
    if ((err as { code?: number }).code !== NOT_FOUND) throw err;
  }
}

export function serviceRoutes(deps: { db: Db; client: Client; metrics: Metrics; openapi: () => unknown }): Router {
  const router = new Router();

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const checks = await Promise.allSettled([
      deps.db.command({ ping: 1 }, { timeoutMS: READY_PROBE_MS }),
      temporalReachable(deps.client),
    ]);
    const [db, temporal] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unreachable'));
    if (db !== 'ok' || temporal !== 'ok') {
      throw new HttpProblem('unavailable', 'A dependency is unreachable.', { checks: { database: db, temporal } }, { 'Retry-After': '5' });
    }
    ctx.body = { status: 'ready', checks: { database: db, temporal } };
  });

  router.get('/metrics', async (ctx) => {
    ctx.type = deps.metrics.registry.contentType;
    ctx.body = await deps.metrics.registry.metrics();
  });

  router.get('/api/v1/openapi.json', (ctx) => {
    ctx.body = deps.openapi();
  });

  return router;
}
