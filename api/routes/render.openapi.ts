//! The OpenAPI operations of render links: a capture answered as the image (`api/routes/render.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import type { ErrorCode } from '../../contracts/errors.js';
import { DEFAULT_LINK_MAX_AGE_S } from '../render-query.js';
import { ANSWER_HEADERS, headerRef, paramRef, RATE_LIMIT_HEADERS } from '../docs/openapi-parts.js';
import { RENDER_TOOL_NAMES } from '../bodies/render-links.js';
import { MAX_RENDER_AGE_S } from '../../domain/render-cache.js';
import { open, operation, type RouteOperation } from '../docs/operations.js';

const LINK_CODES: readonly ErrorCode[] = [
  'invalid_signature',
  'link_expired',
  'validation_failed',
  'unknown_tool',
  'method_not_allowed',
  'insufficient_credits',
  'rate_limited',
  'target_not_allowed',
  'upstream_error',
  'unavailable',
  'tool_timeout',
  'internal_error',
];

const image = { schema: { type: 'string', format: 'binary' } };

/** The operations this router serves, as the OpenAPI document lists them. */
export function renderOperations(): RouteOperation[] {
  const cacheHeaders = {
    ...ANSWER_HEADERS,
    'X-Cache': headerRef('X-Cache'),
    Age: headerRef('Age'),
    ETag: headerRef('ETag'),
    'Cache-Control': {
      description: "`public, max-age=<seconds>`: what is left of the link's `maxAge`, never past its `expires`.",
      schema: { type: 'string' },
    },
    'X-Credits-Charged': headerRef('X-Credits-Charged'),
    ...RATE_LIMIT_HEADERS,
  };
  return [
    operation('get', '/api/v1/render/{lksId}/{tool}', {
      tag: 'render-links',
      operationId: 'renderLink',
      summary: 'Open a render link',
      ...open(),
      description:
        'The image of a call of `tool` with the input in the query, answered as `image/png` or `image/jpeg` so that an `<img src>` shows it; `HEAD` answers the same headers without the image. ' +
        "The signature is the credential: see *Render links and the render cache* above. The call is the account's like any other (charged only when it answers 200; the same 402, 422 and rate limit), " +
        'unless a stored render of the same input is at most `maxAge` seconds old: then it is answered from the render cache, free (`X-Cache: HIT`, `X-Credits-Charged: 0`). ' +
        "Query values are converted by the tool's input schema (`width=800` is a number, `fullPage=true` a boolean); a bad one is 400 naming `query:<name>`.",
      parameters: [
        {
          name: 'lksId',
          in: 'path',
          required: true,
          description: 'The id of the link secret that signed the link (`lks_...`).',
          schema: { type: 'string' },
        },
        { name: 'tool', in: 'path', required: true, description: 'The tool.', schema: { type: 'string', enum: RENDER_TOOL_NAMES } },
        {
          name: 'input',
          in: 'query',
          required: false,
          style: 'form',
          explode: true,
          description: "The tool's input, one parameter per field (as in its POST body).",
          schema: { type: 'object', additionalProperties: { type: 'string' } },
        },
        {
          name: 'expires',
          in: 'query',
          required: false,
          description: 'Unix seconds after which the link answers 403 `link_expired`.',
          schema: { type: 'integer', minimum: 0 },
        },
        {
          name: 'maxAge',
          in: 'query',
          required: false,
          description: `How old a stored render may be, in seconds (default ${DEFAULT_LINK_MAX_AGE_S}, at most ${MAX_RENDER_AGE_S}; 0: always a fresh one).`,
          schema: { type: 'integer', minimum: 0, maximum: MAX_RENDER_AGE_S },
        },
        {
          name: 'signature',
          in: 'query',
          required: true,
          description:
            'Lowercase hex HMAC-SHA256 of the path after `/api/v1/render/`, `?`, and the query up to `&signature=`; the last parameter.',
          schema: { type: 'string', pattern: '^[0-9a-f]{64}$' },
        },
        paramRef('If-None-Match'),
      ],
      ok: {
        '200': {
          description: 'The image. Fresh renders also carry `X-Credits-Remaining`.',
          headers: { ...cacheHeaders, 'X-Credits-Remaining': headerRef('X-Credits-Remaining') },
          content: { 'image/png': image, 'image/jpeg': image },
        },
        '304': { description: "`If-None-Match` names the stored render's ETag: not modified, free.", headers: cacheHeaders },
      },
      codes: LINK_CODES,
    }),
  ];
}
