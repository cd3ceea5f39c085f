//! The account routes' request bodies (api/routes/account.ts): an API key's name and settings
//! (domain/accounts/key-settings.ts), validation, OpenAPI and types in one.
import { type Static, type TOptional, type TSchema, type TUnsafe, Type } from '@sinclair/typebox';
import { GROUPS } from '../../domain/tools/index.js';
import { MAX_ALLOWED_IPS, TOOL_SCOPES } from '../../domain/accounts/index.js';
import { ClosedObject, DateTime, Nullable, StringEnum } from '../../lib/schema-types.js';
import { label } from './labels.js';

/** A key's settings; on a change (`clearable`), null clears one. */
function keySettings<C extends boolean>(clearable: C) {
  const unset = clearable ? ' null removes it.' : ' Unset: no limit.';
  type Field<T extends TSchema> = TOptional<C extends true ? TUnsafe<Static<T> | null> : T>;
  const field = <T extends TSchema>(schema: T) => Type.Optional(clearable ? Nullable(schema) : schema) as Field<T>;
  return {
    tools: field(
      Type.Array(StringEnum(TOOL_SCOPES), {
        minItems: 1,
        maxItems: TOOL_SCOPES.length,
        uniqueItems: true,
        description: `Tool names and group names (${Object.keys(GROUPS)
          .map((g) => `\`${g}\``)
          .join(', ')}) the key may call; another tool answers 403 \`tool_not_allowed\`.${unset}`,
      }),
    ),
    expiresAt: field(
      DateTime(`When the key stops working (in the future); after it, 401 \`unauthorized\` with \`reason: "expired"\`.${unset}`),
    ),
    rateLimit: field(
      Type.Integer({
        minimum: 1,
        description: `Calls per second for this key (bursts of twice that), at most the account's rate (RATE_LIMIT_PER_SECOND); over it, 429 \`rate_limited\`.${unset}`,
      }),
    ),
    monthlyCreditLimit: field(
      Type.Integer({
        minimum: 1,
        maximum: 1_000_000_000,
        description: `Credits the key may spend per calendar month (UTC), held like the balance: a call that would pass it answers 402 \`key_credit_limit\`, a refunded call gives its credits back.${unset}`,
      }),
    ),
    allowedIps: field(
      Type.Array(Type.String({ maxLength: 64 }), {
        minItems: 1,
        maxItems: MAX_ALLOWED_IPS,
        uniqueItems: true,
        description: `IPv4 and IPv6 CIDRs (a bare address is its /32 or /128) the key may be used from; another address answers 403 \`ip_not_allowed\`.${unset}`,
      }),
    ),
  };
}

export const CreateKeyBody = ClosedObject({ name: Type.Optional(label), ...keySettings(false) });
export type CreateKeyBody = Static<typeof CreateKeyBody>;

export const UpdateKeyBody = ClosedObject({ name: Type.Optional(Nullable(label)), ...keySettings(true) }, { minProperties: 1 });
export type UpdateKeyBody = Static<typeof UpdateKeyBody>;
