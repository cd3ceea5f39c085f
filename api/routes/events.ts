//! `GET /api/v1/account/events` (owner token): the account's event log, newest first, each event
//! with the endpoints it was delivered to.
import Router from '@koa/router';
import type { Middleware } from 'koa';
import type { Db } from 'mongodb';
import { createEventLog } from '../../domain/events/index.js';
import { EVENT_KINDS } from '../../contracts/event-kinds.js';
import { isoWithOffset } from '../../contracts/webhook-messages.js';
import type { Authenticator } from '../auth.js';
import { cursorOf, pageBody, parseLimit, queryChoice } from '../paging.js';

const parseType = (raw: unknown) => queryChoice(raw, EVENT_KINDS, 'type', 'an event type');

export function eventRoutes(deps: { db: Db; auth: Authenticator; rateLimit: Middleware }): Router {
  const router = new Router({ prefix: '/api/v1/account/events' });
  const log = createEventLog(deps.db);
  router.use(deps.auth.require('owner_token'), deps.rateLimit);

  router.get('/', async (ctx) => {
    const accountId = ctx.state.principal.accountId as string;
    const limit = parseLimit(ctx.query.limit);
    const type = parseType(ctx.query.type);
    const after = cursorOf(ctx.query);
    const { rows, more } = await log.page(accountId, { limit, after, type });
    const deliveries = await log.deliveries(
      accountId,
      rows.map((r) => r._id),
    );
    ctx.body = pageBody({ rows, more }, (r) => ({
      id: r._id,
      event: r.event,
      // As the envelope of its deliveries says it.
      createdAt: isoWithOffset(r.createdAt),
      data: r.data,
      deliveries: deliveries.get(r._id) ?? [],
    }));
  });

  return router;
}
