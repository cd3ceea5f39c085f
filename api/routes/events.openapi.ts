//! The OpenAPI operations of the account's event log (`api/routes/events.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { EVENT_RETENTION_MS } from '../../contracts/event-kinds.js';
import { paramRef } from '../docs/openapi-parts.js';
import { answer, OWNER, resource, type RouteOperation } from '../docs/operations.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function eventOperations(): RouteOperation[] {
  const operation = resource('account', OWNER);
  return [
    operation('get', '/api/v1/account/events', {
      operationId: 'listEvents',
      summary: 'List events',
      description:
        `Every event the account produced in the last ${EVENT_RETENTION_MS / 86_400_000} days, newest first, with the endpoints each went to and what became of it there. ` +
        'Page with `cursor`; filter with `type`.',
      parameters: [paramRef('UsageLimit'), paramRef('UsageCursor'), paramRef('EventType')],
      ok: answer('A page of events.', 'EventPage'),
      codes: ['validation_failed'],
    }),
  ];
}
