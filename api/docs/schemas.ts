//! JSON Schemas (2020-12) of what the API answers outside the tools and of the webhook events it
//! posts: `components.schemas` of the OpenAPI document, one file per concern. They describe the
//! shapes the routes build; the fuzz run (test/disruptive/fuzz.test.ts) checks answers against them.
import { ErrorCode } from '../../lib/error-code-schema.js';
import { ROLES } from '../../domain/teams/index.js';
import { ACCOUNT_SCHEMAS } from './account-schemas.js';
import { AUDIT_SCHEMAS } from './audit-schemas.js';
import { BATCH_SCHEMAS } from './batch-schemas.js';
import { eventSchemas } from './event-schemas.js';
import { OPERATOR_SCHEMAS, SERVICE_SCHEMAS } from './operator-schemas.js';
import { credits, record, ref, type JsonSchema } from './schema-parts.js';
import { WEBHOOK_ENDPOINT_SCHEMAS } from './webhook-schemas.js';
import { DESTINATION_SCHEMAS } from './destination-schemas.js';
import { RENDER_SCHEMAS } from './render-schemas.js';
import { BILLING_SCHEMAS } from './billing-schemas.js';
import { IDENTITY_SCHEMAS } from './identity-schemas.js';
import { TEAM_SCHEMAS } from './team-schemas.js';
import { MONITOR_SCHEMAS } from './monitor-schemas.js';

const problem: Record<string, JsonSchema> = {
  ErrorCode,
  FieldError: record('One invalid field.', {
    field: { type: 'string', description: 'JSON Pointer into the body (`/width`), or `header:<Name>` / `query:<name>`.' },
    message: { type: 'string', description: 'What is wrong with it.' },
  }),
  Problem: {
    type: 'object',
    description: 'An RFC 9457 problem. Members beyond the ones listed may be added.',
    required: ['type', 'title', 'status', 'detail', 'code', 'requestId'],
    properties: {
      type: { type: 'string', format: 'uri', description: "`PUBLIC_BASE_URL/docs/errors#<code>`: the code's explanation." },
      title: { type: 'string', description: 'Short summary of the code; the same for every answer with it.' },
      status: { type: 'integer', minimum: 400, maximum: 599, description: 'The HTTP status, repeated.' },
      detail: { type: 'string', description: 'What went wrong with this request, for people.' },
      code: ref('ErrorCode'),
      requestId: { type: 'string', description: 'Also in `X-Request-Id`; quote it when you contact support.' },
      traceId: {
        type: 'string',
        pattern: '^[0-9a-f]{32}$',
        description: "The request's trace (as in `traceparent`), when the service traces: an operator finds the call's spans by it.",
      },
      errors: { type: 'array', items: ref('FieldError'), description: '`validation_failed`: every bad field.' },
      balance: credits('`insufficient_credits`: the available balance.'),
      cost: credits("`insufficient_credits`: the tool's cost."),
      reason: {
        type: 'string',
        description:
          '`target_not_allowed`: which rule refused the target; `upstream_error`: what failed, when known; `destination_unusable`, `destination_error`: what S3 said; `oidc_failed`: `state`, `nonce`, `provider` or `token`.',
      },
      userId: { type: 'string', description: '`already_member`: the member with that address.' },
      retryAfter: { type: 'integer', minimum: 1, description: '`rate_limited`: seconds to wait, as in `Retry-After`.' },
      limit: { type: 'integer', description: '`payload_too_large`: the body limit in bytes.' },
      limits: { type: 'object', description: '`hash_too_costly`: the bounds the hash exceeded.' },
      checks: { type: 'object', description: '`unavailable` from `/readyz`: each dependency, `ok` or `unreachable`.' },
      expiredAt: { type: 'string', format: 'date-time', description: '`link_expired`: when the link expired.' },
      requiredRole: {
        type: 'string',
        enum: [...ROLES],
        description: '`forbidden_for_role`: the role that may do it with the least rights.',
      },
      allowedRoles: {
        type: 'array',
        items: { type: 'string', enum: [...ROLES] },
        description: '`forbidden_for_role`: every role that may do it.',
      },
      role: { type: 'string', enum: [...ROLES], description: '`forbidden_for_role`: the role the request acted with.' },
      provider: {
        type: 'object',
        description: '`provider_required`: `{ id, name, signInPath }` of the identity provider to sign in through.',
      },
    },
  },
};

export const COMPONENT_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  ...problem,
  ...IDENTITY_SCHEMAS,
  ...TEAM_SCHEMAS,
  ...ACCOUNT_SCHEMAS,
  ...AUDIT_SCHEMAS,
  ...WEBHOOK_ENDPOINT_SCHEMAS,
  ...DESTINATION_SCHEMAS,
  ...RENDER_SCHEMAS,
  ...BILLING_SCHEMAS,
  ...BATCH_SCHEMAS,
  ...MONITOR_SCHEMAS,
  ...OPERATOR_SCHEMAS,
  ...SERVICE_SCHEMAS,
  ...eventSchemas(),
};
