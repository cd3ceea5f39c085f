//! Reads a JSON object request body with a byte limit, before anything else looks at it.
import type { Context } from 'koa';
import { ServiceError } from '../contracts/errors.js';

export const DEFAULT_BODY_LIMIT = 1024 * 1024;

function isJsonType(contentType: string | undefined): boolean {
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[a-z0-9.+-]+\+json$/.test(type);
}

/** The body's bytes as sent, up to `limit` (413 beyond): what a signature over the raw body is checked on. */
export async function readRawBody(ctx: Context, limit = DEFAULT_BODY_LIMIT): Promise<Buffer> {
  return readRaw(ctx, limit);
}

async function readRaw(ctx: Context, limit: number): Promise<Buffer> {
  const declared = Number(ctx.get('Content-Length') || NaN);
  if (declared > limit) throw tooLarge(limit);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of ctx.req as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > limit) {
      ctx.req.destroy();
      throw tooLarge(limit);
    }
    chunks.push(chunk);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number) {
  return new ServiceError('payload_too_large', `The request body is over its limit of ${limit} bytes.`, { limit });
}

/**
 * The parsed body: always a plain JSON object. With `allowEmpty`, a request without a body
 * (account and operator endpoints whose fields are all optional) reads as `{}`.
 */
export async function readJsonObject(
  ctx: Context,
  limit = DEFAULT_BODY_LIMIT,
  options: { allowEmpty?: boolean } = {},
): Promise<Record<string, unknown>> {
  if (options.allowEmpty && !ctx.get('Content-Type') && !(Number(ctx.get('Content-Length')) > 0) && !ctx.get('Transfer-Encoding')) {
    return {};
  }
  if (!isJsonType(ctx.get('Content-Type'))) {
    throw new ServiceError('unsupported_media_type', 'Send the body as JSON with Content-Type: application/json.');
  }
  const raw = await readRaw(ctx, limit);
  let value: unknown;
  try {
    value = JSON.parse(raw.toString('utf8'));
  } catch {
    throw new ServiceError('invalid_json', 'The body is not valid JSON.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new ServiceError('invalid_json', 'The body must be a JSON object.');
  }
  return value as Record<string, unknown>;
}
