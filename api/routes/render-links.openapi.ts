//! The OpenAPI operations of render-link secrets and the render cache (`api/routes/render-links.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { MAX_LIVE_LINK_SECRETS } from '../../domain/link-secrets.js';
import { CreateRenderLinkBody } from '../bodies/render-links.js';
import { json } from '../docs/openapi-parts.js';
import { operation, owner, withRateLimit, linked, example, OWNER_CODES, BODY_CODES, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function renderLinkOperations(): RouteOperation[] {
  return [
    operation('post', '/api/v1/account/link-secrets', {
      tag: 'render-links',
      operationId: 'createLinkSecret',
      summary: 'Create a link signing secret',
      ...owner(),
      description:
        `A new secret that signs render links (\`lksec_...\`), shown only in this answer. Up to ${MAX_LIVE_LINK_SECRETS} may be live at once, ` +
        'so a secret is rotated by creating its successor, moving links to it, then retiring it. The body may be left out.',
      ok: linked(withRateLimit('The new secret.', json(ref('NewLinkSecret')), '201'), { retireLinkSecret: { id: '$response.body#/id' } }),
      codes: [...OWNER_CODES, ...BODY_CODES, 'already_exists'],
    }),
    operation('get', '/api/v1/account/link-secrets', {
      tag: 'render-links',
      operationId: 'listLinkSecrets',
      summary: 'List link signing secrets',
      ...owner(),
      description: 'Every link secret of the account, retired ones included, newest first, without the secrets.',
      ok: withRateLimit('The secrets.', json({ type: 'array', items: ref('LinkSecret') })),
      codes: OWNER_CODES,
    }),
    operation('delete', '/api/v1/account/link-secrets/{id}', {
      tag: 'render-links',
      operationId: 'retireLinkSecret',
      summary: 'Retire a link signing secret',
      ...owner(),
      description:
        'Links signed with it answer 401 `invalid_signature` within one second, on every API instance. Retiring again answers the same.',
      parameters: [{ name: 'id', in: 'path', required: true, description: 'Link secret id (`lks_...`).', schema: { type: 'string' } }],
      ok: withRateLimit('The secret, retired.', json(ref('LinkSecret'))),
      codes: [...OWNER_CODES, 'not_found'],
    }),
    operation('post', '/api/v1/account/render-links', {
      tag: 'render-links',
      operationId: 'createRenderLink',
      summary: 'Sign a render link',
      ...owner(),
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
      ok: withRateLimit('The link.', json(ref('RenderLink'))),
      codes: [...OWNER_CODES, ...BODY_CODES, 'not_found'],
    }),
    operation('get', '/api/v1/account/render-cache', {
      tag: 'render-links',
      operationId: 'getRenderCacheUsage',
      summary: 'Render cache hits per day',
      ...owner(),
      description:
        'The days (UTC) of the last 31 with render cache hits, newest first: how many, and the credits they did not cost. The usage answer (`GET /api/v1/account/usage`) carries the same days, for any period.',
      ok: withRateLimit('The days.', json(ref('RenderCacheUsage'))),
      codes: OWNER_CODES,
    }),
    operation('delete', '/api/v1/account/render-cache', {
      tag: 'render-links',
      operationId: 'purgeRenderCache',
      summary: 'Empty the render cache',
      ...owner(),
      description: 'Every stored render of the account is forgotten at once: the next call of each input renders afresh (and is charged).',
      ok: withRateLimit('How many stored renders were dropped.', json(ref('RenderCachePurged'))),
      codes: OWNER_CODES,
    }),
  ];
}
