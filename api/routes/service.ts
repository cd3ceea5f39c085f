//! Service endpoints: liveness, readiness, metrics, the OpenAPI document and the docs.
import Router from '@koa/router';
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import type { Metrics } from '../../lib/metrics.js';
import { ToolError } from '../../lib/errors.js';

export function serviceRoutes(deps: { db: Db; client: Client; metrics: Metrics; openapi: () => unknown }): Router {
  const router = new Router();

  router.get('/healthz', (ctx) => {
    ctx.body = { status: 'ok' };
  });

  router.get('/readyz', async (ctx) => {
    const checks = await Promise.allSettled([
      deps.db.command({ ping: 1 }),
      deps.client.workflowService.getSystemInfo({}),
    ]);
    const [db, temporal] = checks.map((c) => (c.status === 'fulfilled' ? 'ok' : 'unreachable'));
    if (db !== 'ok' || temporal !== 'ok') {
      throw new ToolError('unavailable', 'A dependency is unreachable.', { checks: { database: db, temporal } }, { headers: { 'Retry-After': '5' } });
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
