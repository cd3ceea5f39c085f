//! The OpenAPI operations of the MCP clients a member let act on the account (`api/routes/connected-apps.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { PREFIX } from './connected-apps.js';
import { json } from '../docs/openapi-parts.js';
import { answer, operation, owner, OWNER, OWNER_CODES, resource, withRateLimit, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations `connectedAppRoutes` serves, as the OpenAPI document lists them. */
export function connectedAppOperations(): RouteOperation[] {
  const account = resource('account', OWNER);
  return [
    operation('get', PREFIX, {
      tag: 'account',
      operationId: 'listConnectedApps',
      summary: 'List connected apps',
      ...owner(),
      description:
        'The apps (AI agents, MCP clients) members connected to the account through OAuth, newest first: each acts on the account with the role of the member who connected it, as that role is now. docs/MCP.md tells how an app connects.',
      ok: withRateLimit('The connected apps.', json({ type: 'array', items: ref('ConnectedApp') })),
      codes: OWNER_CODES,
    }),
    account('delete', `${PREFIX}/{id}`, {
      operationId: 'disconnectApp',
      summary: 'Disconnect an app',
      description:
        "Ends the app's access: its tokens are refused from the next request on, on every replica, and it must ask a member again. Recorded in the audit log (`oauth_app.revoked`).",
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' }, description: "The connected app's id." }],
      ok: answer('Disconnected.', undefined, '204'),
      codes: ['not_found'],
    }),
  ];
}
