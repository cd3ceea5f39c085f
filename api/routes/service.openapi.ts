//! The OpenAPI operations of liveness, readiness and the OpenAPI document (`api/routes/service.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { json } from '../docs/openapi-parts.js';
import { open, operation, plain, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function serviceOperations(): RouteOperation[] {
  return [
    operation('get', '/healthz', {
      tag: 'service',
      operationId: 'healthz',
      ...open(),
      summary: 'Liveness',
      description: 'Answers while the process is up; checks nothing else.',
      ok: plain('Up.', json(ref('Health'))),
      codes: [],
    }),
    operation('get', '/readyz', {
      tag: 'service',
      operationId: 'readyz',
      ...open(),
      summary: 'Readiness',
      description: 'Answers 200 when Temporal and the database are reachable, 503 `unavailable` (with `checks`) when one is not.',
      ok: plain('Ready.', json(ref('Readiness'))),
      codes: ['unavailable', 'internal_error'],
    }),
    operation('get', '/api/v1/openapi.json', {
      tag: 'service',
      operationId: 'openapi',
      ...open(),
      summary: 'This document',
      description: 'OpenAPI 3.1; the tool schemas are JSON Schema 2020-12.',
      ok: plain('The OpenAPI document.', json({ type: 'object' })),
      codes: ['internal_error'],
    }),
  ];
}
