//! The render link routes' request bodies (api/routes/render-links.ts): validation, OpenAPI and types in one.
import { type Static, Type } from '@sinclair/typebox';
import { CATALOGUE } from '../../domain/tools/index.js';
import { MAX_RENDER_AGE_S } from '../../domain/render-cache.js';
import { ClosedObject, StringEnum } from '../../lib/schema-types.js';

/** The tools render links call: those whose answer is an image. */
export const RENDER_TOOL_NAMES = [...CATALOGUE.values()].filter((t) => t.image).map((t) => t.name);
/** The longest `expiresIn` of a link the API signs: 10 years. */
export const MAX_LINK_LIFETIME_S = 10 * 365 * 24 * 60 * 60;

export const CreateRenderLinkBody = ClosedObject({
  tool: StringEnum(RENDER_TOOL_NAMES, { description: 'The tool the link calls: one whose answer is an image.' }),
  input: Type.Unsafe<Record<string, string | number | boolean>>({
    type: 'object',
    additionalProperties: { type: ['string', 'number', 'boolean'] },
    description: "The tool's input, as for a POST of the tool (its schema); each field becomes a query parameter.",
  }),
  expiresIn: Type.Optional(
    Type.Integer({
      minimum: 1,
      maximum: MAX_LINK_LIFETIME_S,
      description: 'Seconds until the link answers 403 `link_expired`; without it the link works until its secret is retired.',
    }),
  ),
  maxAge: Type.Optional(
    Type.Integer({
      minimum: 0,
      maximum: MAX_RENDER_AGE_S,
      description: 'How old a stored render the link accepts, in seconds (default 4 hours; 0: always a fresh one).',
    }),
  ),
  secretId: Type.Optional(
    Type.String({ pattern: '^lks_[0-9A-Za-z]{22}$', description: 'The live link secret to sign with; the newest when left out.' }),
  ),
});
export type CreateRenderLinkBody = Static<typeof CreateRenderLinkBody>;
