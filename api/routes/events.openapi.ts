//! The OpenAPI operations of the account's event log (`api/routes/events.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { EVENT_RETENTION_MS } from '../../contracts/event-kinds.js';
import { json, paramRef } from '../docs/openapi-parts.js';
import { operation, owner, withRateLimit, OWNER_CODES, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function eventOperations(): RouteOperation[] {
  return [
    operation('get', '/api/v1/account/events', {
      tag: 'account',
      operationId: 'listEvents',
      summary: 'List events',
      ...owner(),
      description:
        `Every event the account produced in the last ${EVENT_RETENTION_MS / 86_400_000} days, newest first, with the endpoints each went to and what became of it there. ` +
        'Page with `cursor`; filter with `type`.',
      parameters: [paramRef('UsageLimit'), paramRef('UsageCursor'), paramRef('EventType')],
      ok: withRateLimit('A page of events.', json(ref('EventPage'))),
      codes: [...OWNER_CODES, 'validation_failed'],
    }),
  ];
}
