//! The OpenAPI operations of render-link secrets and the render cache (`api/routes/render-links.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { MAX_LIVE_LINK_SECRETS } from '../../domain/link-secrets.js';
import { CreateRenderLinkBody } from '../bodies/render-links.js';
import { json } from '../docs/openapi-parts.js';
import { answer, BODY_CODES, example, linked, listOf, OWNER, resource, type RouteOperation } from '../docs/operations.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function renderLinkOperations(): RouteOperation[] {
  const operation = resource('render-links', OWNER);
  return [
    operation('post', '/api/v1/account/link-secrets', {
      operationId: 'createLinkSecret',
      summary: 'Create a link signing secret',
      description:
        `A new secret that signs render links (\`lksec_...\`), shown only in this answer. Up to ${MAX_LIVE_LINK_SECRETS} may be live at once, ` +
        'so a secret is rotated by creating its successor, moving links to it, then retiring it. The body may be left out.',
      ok: linked(answer('The new secret.', 'NewLinkSecret', '201'), { retireLinkSecret: { id: '$response.body#/id' } }),
      codes: [...BODY_CODES, 'already_exists'],
    }),
    operation('get', '/api/v1/account/link-secrets', {
      operationId: 'listLinkSecrets',
      summary: 'List link signing secrets',
      description: 'Every link secret of the account, retired ones included, newest first, without the secrets.',
      ok: answer('The secrets.', listOf('LinkSecret')),
    }),
    operation('delete', '/api/v1/account/link-secrets/{id}', {
      operationId: 'retireLinkSecret',
      summary: 'Retire a link signing secret',
      description:
        'Links signed with it answer 401 `invalid_signature` within one second, on every API instance. Retiring again answers the same.',
      parameters: [{ name: 'id', in: 'path', required: true, description: 'Link secret id (`lks_...`).', schema: { type: 'string' } }],
      ok: answer('The secret, retired.', 'LinkSecret'),
      codes: ['not_found'],
    }),
    operation('post', '/api/v1/account/render-links', {
      operationId: 'createRenderLink',
      summary: 'Sign a render link',
      description:
        'A render link for the tool and input, signed with the newest live link secret (or `secretId`). The input is checked as a call would check it (400 naming each bad field). ' +
        'Answers 404 when the account has no live link secret.',
      requestBody: {
        required: true,
        content: json(
          CreateRenderLinkBody,
          example({ tool: 'qr-generate', input: { text: 'https://example.com/', size: 256 }, expiresIn: 86400 }),
        ),
      },
      ok: answer('The link.', 'RenderLink'),
      codes: [...BODY_CODES, 'not_found'],
    }),
    operation('get', '/api/v1/account/render-cache', {
      operationId: 'getRenderCacheUsage',
      summary: 'Render cache hits per day',
      description:
        'The days (UTC) of the last 31 with render cache hits, newest first: how many, and the credits they did not cost. The usage answer (`GET /api/v1/account/usage`) carries the same days, for any period.',
      ok: answer('The days.', 'RenderCacheUsage'),
    }),
    operation('delete', '/api/v1/account/render-cache', {
      operationId: 'purgeRenderCache',
      summary: 'Empty the render cache',
      description: 'Every stored render of the account is forgotten at once: the next call of each input renders afresh (and is charged).',
      ok: answer('How many stored renders were dropped.', 'RenderCachePurged'),
    }),
  ];
}
