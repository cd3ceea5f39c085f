//! The OpenAPI operations of the reference, the error guide and its renderer (`api/routes/docs.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { RENDERER_ROUTE } from './docs.js';
import { open, operation, plain, type RouteOperation } from '../docs/operations.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function docsOperations(): RouteOperation[] {
  return [
    operation('get', '/docs', {
      tag: 'service',
      operationId: 'docs',
      ...open(),
      summary: 'API reference',
      description: 'This reference, rendered in the browser.',
      ok: plain('An HTML page.', { 'text/html': { schema: { type: 'string' } } }),
      codes: ['internal_error'],
    }),
    operation('get', '/docs/errors', {
      tag: 'service',
      operationId: 'docsErrors',
      ...open(),
      summary: 'Error reference',
      description: 'Every error code with when it happens and what to do; problem `type` links point into it. Readable without JavaScript.',
      ok: plain('An HTML page.', { 'text/html': { schema: { type: 'string' } } }),
      codes: ['internal_error'],
    }),
    operation('get', RENDERER_ROUTE, {
      tag: 'service',
      operationId: 'docsRenderer',
      ...open(),
      summary: 'Reference renderer script',
      description: 'The script `/docs` loads (Redoc). Cached for a year: its URL carries the version.',
      ok: plain('JavaScript.', { 'text/javascript': { schema: { type: 'string' } } }),
      codes: ['internal_error'],
    }),
  ];
}
