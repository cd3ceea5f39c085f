//! A render link's query string read as its parts: the tool's input, converted by the tool's
//! schema (numbers, booleans), and the link's own `expires` and `maxAge`. Problems name the
//! parameter as `query:<name>`.
import { MAX_RENDER_AGE_S } from '../domain/render-cache.js';
import { ServiceError } from '../contracts/errors.js';
import type { JsonSchema } from './docs/schema-parts.js';
import { validationProblem, type FieldError } from './validation.js';

/** How old a stored render a link accepts when it does not say: 4 hours. */
export const DEFAULT_LINK_MAX_AGE_S = 4 * 60 * 60;
/** Parameters of the link itself, never of the tool's input. */
export const LINK_PARAMETERS = ['expires', 'maxAge', 'signature'] as const;

export interface LinkQuery {
  input: Record<string, unknown>;
  /** Unix seconds; undefined: the link does not expire. */
  expires?: number;
  maxAgeS: number;
}

const WHOLE = /^\d{1,12}$/;
const NUMBER = /^-?\d+(\.\d+)?$/;

/** A query value as the schema's type for it wants it; left a string when it cannot be (Ajv then names it). */
function converted(value: string, property: JsonSchema | undefined): unknown {
  const type = property?.type;
  if ((type === 'integer' || type === 'number') && NUMBER.test(value)) return Number(value);
  if (type === 'boolean' && (value === 'true' || value === 'false')) return value === 'true';
  return value;
}

/** Reads the query (signature already split off, `rawQuery` as sent); throws 400 naming each bad parameter. */
export function readLinkQuery(rawQuery: string, inputSchema: JsonSchema): LinkQuery {
  const properties = (inputSchema.properties ?? {}) as Record<string, JsonSchema>;
  const errors: FieldError[] = [];
  const input: Record<string, unknown> = {};
  const seen = new Set<string>();
  let expires: number | undefined;
  let maxAgeS = DEFAULT_LINK_MAX_AGE_S;
  for (const [name, value] of new URLSearchParams(rawQuery)) {
    if (seen.has(name)) {
      errors.push({ field: `query:${name}`, message: 'is given more than once' });
      continue;
    }
    seen.add(name);
    if (name === 'expires') {
      if (WHOLE.test(value)) expires = Number(value);
      else errors.push({ field: 'query:expires', message: 'must be a time in Unix seconds' });
    } else if (name === 'maxAge') {
      if (WHOLE.test(value) && Number(value) <= MAX_RENDER_AGE_S) maxAgeS = Number(value);
      else errors.push({ field: 'query:maxAge', message: `must be 0 to ${MAX_RENDER_AGE_S} seconds` });
    } else if (name === 'signature') {
      errors.push({ field: 'query:signature', message: 'must be the last parameter, once' });
    } else {
      input[name] = converted(value, properties[name]);
    }
  }
  if (errors.length) throw validationProblem(errors);
  return { input, expires, maxAgeS };
}

/** A validation problem of the input, its fields named as the query parameters they came from. */
export function asQueryProblem(err: unknown): unknown {
  if (!(err instanceof ServiceError) || err.code !== 'validation_failed' || !Array.isArray(err.extras.errors)) return err;
  const errors = (err.extras.errors as FieldError[]).map((e) => ({
    ...e,
    field: e.field === '/' ? 'query' : `query:${e.field.replace(/^\//, '')}`,
  }));
  return validationProblem(errors);
}
