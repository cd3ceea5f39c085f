//! Component schemas of the audit log's answers: an entry, a page of them, a verification.
import { AUDIT_ACTIONS } from '../../domain/audit/index.js';
import { page, dateTime, id, record, type JsonSchema } from './schema-parts.js';

const hash = (description: string) => ({ type: 'string', pattern: '^([0-9a-f]{64})?$', description });

/** `accountId`, not required: only the operator's list names each entry's account. */
const withAccountId = (entry: JsonSchema): JsonSchema => ({
  ...entry,
  properties: {
    accountId: id('acc', "The operator's list only: the entry's account."),
    ...(entry.properties as Record<string, JsonSchema>),
  },
});

/** Members an object has only sometimes: documented, not required. */
const withOptional = (schema: JsonSchema, optional: Record<string, JsonSchema>): JsonSchema => ({
  ...schema,
  properties: { ...(schema.properties as Record<string, JsonSchema>), ...optional },
});

const verification = {
  ok: { type: 'boolean', description: 'Every hash is right and every entry links to the one before it.' },
  entries: { type: 'integer', minimum: 0, description: 'Entries walked (the whole kept log).' },
};

export const AUDIT_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  AuditEntry: withAccountId(
    record('A change to the account: who, from where, what. Never a secret.', {
      id: id('aud', 'Entry id.'),
      at: dateTime('When the change was made.'),
      actor: withOptional(
        record('Who made it.', {
          type: { type: 'string', enum: ['owner', 'operator', 'service', 'user'] },
          credential: {
            type: ['string', 'null'],
            description: "The owner token's prefix, `ADMIN_TOKEN` for the operator, null for the service and for a person.",
          },
        }),
        { userId: id('usr', 'Only for `type: user`: the person, signed in to the dashboard.') },
      ),
      ip: { type: ['string', 'null'], description: 'The client address (as TRUSTED_PROXY_HOPS trusts it); null for the service.' },
      userAgent: { type: ['string', 'null'], description: 'The User-Agent header (first 256 characters); null when none.' },
      action: { type: 'string', enum: [...AUDIT_ACTIONS] },
      target: record('What was changed.', {
        type: { type: 'string', description: '`api_key`, `owner_token`, `webhook_endpoint`, `grant` or `account`.' },
        id: { type: 'string' },
      }),
      changes: {
        type: 'object',
        additionalProperties: { type: 'array', minItems: 2, maxItems: 2 },
        description: '`[before, after]` of each field the change changed.',
      },
      prevHash: hash("The previous entry's `hash`; empty for the account's first entry."),
      hash: hash(
        "Hex SHA-256 of `prevHash` followed by the canonical JSON (keys sorted at every depth, no spaces) of the entry's other fields but `prevHash` and `hash`.",
      ),
    }),
  ),
  AuditLogPage: page('Audit log entries, newest first.', 'AuditEntry'),
  AuditVerification: {
    // `firstBadEntry` only when not ok.
    ...record('What walking the chain found.', verification),
    properties: {
      ...verification,
      firstBadEntry: id('aud', 'When not ok: the first entry that was changed, or that follows one removed.'),
    },
  },
};
