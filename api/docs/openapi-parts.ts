//! The reusable parts of the OpenAPI document: headers, parameters, security schemes, tags, and
//! the problem answers, which are built from the error table and the error guide.
import type { Group } from '../../domain/tools/index.js';
import { ERRORS, type ErrorCode } from '../../contracts/errors.js';
import { EVENT_KINDS } from '../../contracts/event-kinds.js';
import { LIMIT_DEFAULT, LIMIT_MAX } from '../paging.js';
import { ERROR_GUIDE } from './error-guide.js';
import { ref } from './schema-parts.js';

export type Json = Record<string, unknown>;

export const headerRef = (name: string) => ({ $ref: `#/components/headers/${name}` });
export const paramRef = (name: string) => ({ $ref: `#/components/parameters/${name}` });
export const json = (schema: unknown, extra: Json = {}) => ({ 'application/json': { schema, ...extra } });
/** `hash-text` -> `HashText`: component names from tool names and error codes. */
export const pascal = (name: string) => name.replace(/(^|[-_.])([a-z0-9])/g, (_, __, c: string) => c.toUpperCase());

export const HEADERS: Readonly<Record<string, Json>> = {
  'X-Request-Id': {
    description: 'Id of the request: for a tool call, its call id (as in the usage list); else a fresh id. Also `requestId` in problems.',
    schema: { type: 'string' },
  },
  traceparent: {
    description:
      "W3C trace context of the request's trace (`00-<traceId>-<spanId>-<flags>`), when the service traces (its operator set `OTEL_EXPORTER_OTLP_ENDPOINT`): quote the trace id to find the call's spans.",
    schema: { type: 'string', pattern: '^00-[0-9a-f]{32}-[0-9a-f]{16}-0[01]$' },
  },
  'X-Credits-Charged': { description: 'Credits this call was charged.', schema: { type: 'integer', minimum: 0 } },
  'X-Credits-Remaining': { description: 'Available balance after the call.', schema: { type: 'integer', minimum: 0 } },
  'RateLimit-Limit': { description: 'Calls the account may burst (twice its per-second rate).', schema: { type: 'integer' } },
  'RateLimit-Remaining': { description: 'Calls left in the current burst.', schema: { type: 'integer' } },
  'RateLimit-Reset': { description: 'Seconds until the burst allowance is full again.', schema: { type: 'integer' } },
  'Idempotent-Replayed': {
    description: "Present on a repeat of an earlier request with the same Idempotency-Key: this is the first call's answer.",
    schema: { type: 'string', const: 'true' },
  },
  Location: { description: 'Where to read the asynchronous call: `/api/v1/calls/{requestId}`.', schema: { type: 'string' } },
  'Preference-Applied': {
    description: '`respond-async`: the call runs on; this is not its outcome.',
    schema: { type: 'string', const: 'respond-async' },
  },
  'Retry-After': { description: 'Seconds to wait before retrying.', schema: { type: 'integer', minimum: 1 } },
  'WWW-Authenticate': { description: 'The credential scheme: `Bearer`.', schema: { type: 'string' } },
  'X-Cache': {
    description: '`HIT`: answered from the render cache, free; `MISS`: rendered by this call (and stored).',
    schema: { type: 'string', enum: ['HIT', 'MISS'] },
  },
  Age: { description: 'Seconds since the stored render was made (on a hit).', schema: { type: 'integer', minimum: 0 } },
  ETag: {
    description: "The stored render's tag: send it back in `If-None-Match` to get a 304 while it is unchanged.",
    schema: { type: 'string' },
  },
};

/** On every answer that passed authentication and the per-account rate limit. */
/** What every answer carries: its request id and, when the service traces, its trace. */
export const ANSWER_HEADERS: Readonly<Record<string, Json>> = {
  'X-Request-Id': headerRef('X-Request-Id'),
  traceparent: headerRef('traceparent'),
};

export const RATE_LIMIT_HEADERS = {
  'RateLimit-Limit': headerRef('RateLimit-Limit'),
  'RateLimit-Remaining': headerRef('RateLimit-Remaining'),
  'RateLimit-Reset': headerRef('RateLimit-Reset'),
};

/** A path parameter: required, a string. */
const inPath = (name: string, description: string): Json => ({ name, in: 'path', required: true, description, schema: { type: 'string' } });

/** A header or query parameter: optional. */
const optional =
  (where: 'header' | 'query') =>
  (name: string, description: string, schema: Json, example?: string): Json => ({
    name,
    in: where,
    required: false,
    description,
    schema,
    ...(example === undefined ? {} : { example }),
  });
const inHeader = optional('header');
const inQuery = optional('query');

/** A page's size: the list endpoints' `limit`. */
const PAGE_LIMIT = { type: 'integer', minimum: 1, maximum: LIMIT_MAX, default: LIMIT_DEFAULT };

export const PARAMETERS: Readonly<Record<string, Json>> = {
  'Idempotency-Key': inHeader(
    'Idempotency-Key',
    "Makes the call safe to repeat: a repeat with the same key, tool and body within 24 hours answers with the first call's response and is charged once. Per account.",
    { type: 'string', minLength: 1, maxLength: 255, pattern: '^[\\x20-\\x7e]+$' },
    'order-42-thumbnail',
  ),
  Prefer: inHeader(
    'Prefer',
    '`respond-async` (RFC 7240): answer 202 at once instead of waiting, and read the outcome at `Location` (`GET /api/v1/calls/{requestId}`). ' +
      'Validation, authentication, the rate limit, target pre-checks and the balance check (402) still come first. Charged only if the call succeeds. ' +
      'A capture the render cache answers (`Cache-Control`) is answered at once with 200 instead: the preference is not applied.',
    { type: 'string' },
    'respond-async',
  ),
  'Cache-Control': inHeader(
    'Cache-Control',
    'Capture tools only (website-screenshot, html-to-image, qr-generate): `max-age=<seconds>` accepts a render of the same input this account made at most that long ago (at most 30 days), answered free with `X-Cache: HIT`; ' +
      '`no-cache` renders afresh. Either way a fresh render is stored. With `Prefer: respond-async` the same holds: a hit is answered at once with the 200 a synchronous call gets (nothing is left to wait for, ' +
      'so no 202), and a miss is an asynchronous call (202) whose render is stored once it succeeded. Without the header nothing is looked up or stored.',
    { type: 'string' },
    'max-age=3600',
  ),
  'If-None-Match': inHeader('If-None-Match', 'An ETag of an earlier answer: 304 when the stored render is still that one.', {
    type: 'string',
  }),
  RequestId: inPath('requestId', "The call's request id (`X-Request-Id` of its 202)."),
  KeyId: inPath('id', 'Key id (`key_...`).'),
  DestinationId: inPath('id', 'Destination id (`dst_...`).'),
  'Output-Destination': inHeader(
    'Output-Destination',
    'A destination of the account (`dst_...`, `POST /api/v1/account/destinations`): the file is written to its bucket at `{prefix}/{requestId}/0.{ext}` ' +
      "and the answer carries `stored` (bucket, key, size, contentType) in place of the file's base64. Charged only once the bucket accepted the file; a refused write answers 502 `destination_error` and is refunded. " +
      "An unknown destination, another account's, or one named on a tool that makes no file is refused with 400 `validation_failed` (field `header:Output-Destination`) before anything runs.",
    { type: 'string', pattern: '^dst_[0-9A-Za-z]{22}$' },
    'dst_4hQ2mV8kZr1xYt6pW0nLbC',
  ),
  EndpointId: inPath('id', 'Webhook endpoint id (`whe_...`).'),
  AccountId: inPath('id', 'Account id (`acc_...`).'),
  UsageLimit: inQuery('limit', 'Entries per page.', PAGE_LIMIT),
  UsageCursor: inQuery('cursor', '`nextCursor` of the previous page.', { type: 'string' }),
  BatchId: inPath('id', 'Batch id (`bat_...`).'),
  MonitorId: inPath('id', 'Monitor id (`mon_...`).'),
  PlanId: inPath('id', 'Plan id.'),
  UsageFrom: inQuery('from', 'Only entries at or after this time (a date `2026-05-01` or an ISO 8601 time).', { type: 'string' }),
  UsageTo: inQuery('to', 'Only entries before this time (a date or an ISO 8601 time).', { type: 'string' }),
  UsageKeyId: inQuery('keyId', 'Only the calls of this API key (`key_...`).', { type: 'string' }),
  EventType: inQuery('type', 'Only events of this type.', { type: 'string', enum: [...EVENT_KINDS] }),
  AttemptsLimit: inQuery('limit', 'Attempts to list, newest first.', PAGE_LIMIT),
};

export const SECURITY_SCHEMES: Readonly<Record<string, Json>> = {
  apiKey: { type: 'http', scheme: 'bearer', bearerFormat: 'utk_...', description: 'An API key: calls tools.' },
  ownerToken: { type: 'http', scheme: 'bearer', bearerFormat: 'uto_...', description: 'The owner token: manages the account.' },
  adminToken: { type: 'http', scheme: 'bearer', description: "The operator's ADMIN_TOKEN: runs the operator API." },
  sessionCookie: {
    type: 'apiKey',
    in: 'cookie',
    name: 'ut_session',
    description:
      'A dashboard session, set by a sign-in (`__Host-ut_session` when the service runs on https). It manages the account it acts on, as the signed-in member. ' +
      "A change made with it must come from the service's own pages (`Sec-Fetch-Site: same-origin` or the service's `Origin`), else 403 `csrf_rejected`.",
  },
};

/** Tags besides the tool groups. Names are part of the reference's anchors (`#tag/<name>/...`). */
export const TAGS = {
  calls: {
    'x-displayName': 'Asynchronous calls',
    description: 'Tool calls made with `Prefer: respond-async`: their status, then their output or problem, for 24 hours after they end.',
  },
  batches: {
    'x-displayName': 'Batches',
    description:
      'Many calls of one tool as one durable job: up to 10,000 inputs, each run as the call it would have been (charged if and only if it succeeds), with progress, results as they finish, cancelling, and a pause for credits when asked.',
  },
  auth: {
    'x-displayName': 'Sign-up and sign-in',
    description:
      'People sign themselves up with a verified address, sign in with a password or a passkey, and see and end their sessions. Answers that sign in set the session cookie. ' +
      'Nothing here tells whether an address has an account: sign-up and password reset answer alike for any address, and a sign-in fails alike for a wrong password, an unknown address and an unverified one.',
  },
  account: {
    'x-displayName': 'Account',
    description: 'The account of the owner token: balance, plan, grants and usage. The dashboard uses these endpoints.',
  },
  team: {
    'x-displayName': 'Team',
    description:
      'The members of an account, each with a role (owner, admin, developer, billing, viewer), invitations by mail, the transfer of ownership and the sign-in policy. ' +
      "Every account operation says which roles may call it (**Roles**, `x-roles`); a member beyond their role is answered 403 `forbidden_for_role`. An owner token has the owner's rights.",
  },
  'api-keys': {
    'x-displayName': 'API keys',
    description: 'Create, list and revoke the API keys that call tools. A key is shown only when it is created.',
  },
  destinations: {
    'x-displayName': 'Destinations',
    description:
      "The account's own buckets: a call with `Output-Destination` writes its file there and answers where, instead of the bytes. The secret access key is shown never again.",
  },
  'render-links': {
    'x-displayName': 'Render links',
    description:
      'Links that answer a capture as the image itself, for an `<img src>`, signed with a secret of the account instead of a key; and the render cache that answers repeats for free. ' +
      'See *Render links and the render cache* above for the signature, with a worked example.',
  },
  billing: {
    'x-displayName': 'Billing',
    description:
      "Buy credit packs with Stripe Checkout, see purchases (refunds and disputes included) and set up automatic recharges with the card saved at checkout. Credits arrive with Stripe's signed event, once. " +
      'Without Stripe configured by the operator, packs are listed and checkout answers 409 `payments_not_configured`.',
  },
  monitors: {
    'x-displayName': 'Monitors',
    description:
      "A catalogue tool run on a schedule and judged by assertions on its answer: up, down, degraded or paused, with events and mail when that changes, a change check's diff image, and uptime. " +
      'Each run is an ordinary call of its tool, charged its cost if and only if it answers 200, in the usage with `via: monitor`.',
  },
  'webhook-endpoints': {
    'x-displayName': 'Webhook endpoints',
    description: "Where the account's events are posted, and every delivery attempt.",
  },
  'webhook-events': {
    'x-displayName': 'Webhook events',
    description: 'What the service posts to your webhook endpoints. See *Webhooks* above to verify a delivery.',
  },
  operator: {
    'x-displayName': 'Operator',
    description: "Open accounts, grant credits and manage plans, with the operator's `ADMIN_TOKEN`. Off (404) when it is unset.",
  },
  service: { 'x-displayName': 'Service', description: 'The catalogue, health, metrics and this documentation. No credential needed.' },
} as const;
export type Tag = Group | keyof typeof TAGS;

export const GROUP_DESCRIPTIONS: Readonly<Record<Group, string>> = {
  network:
    'Probe public hosts: reachability, DNS, certificates, mail servers and raw HTTP. Private, loopback and link-local targets are refused.',
  web: 'Capture, render and read public web pages with a headless browser or a guarded HTTP client.',
  files: 'Make and transform images and documents; source files are fetched from public URLs.',
  hashing: 'Digest text and create or verify password hashes. Passwords are used for the call only, never stored.',
  market: 'Spot prices of precious metals in 32 currencies.',
};

/**
 * Problem answers as shared `components.responses`: `problems(codes)` gives an operation's
 * error answers, one per status (codes of one status share it), and `responses` collects them.
 */
export function problemResponses(baseUrl: string) {
  const responses: Record<string, Json> = {};

  function response(codes: ErrorCode[], answered?: number): Json {
    const headers: Json = { ...ANSWER_HEADERS };
    for (const code of codes) {
      for (const [name, description] of Object.entries(ERROR_GUIDE[code].headers ?? {})) {
        headers[name] = HEADERS[name] ? headerRef(name) : { description, schema: { type: 'string' } };
      }
    }
    if (codes.includes('rate_limited')) Object.assign(headers, RATE_LIMIT_HEADERS);
    const examples = Object.fromEntries(
      codes.map((code) => {
        const { detail, members } = ERROR_GUIDE[code].example;
        const { title } = ERRORS[code];
        const status = answered ?? ERRORS[code].status;
        const value = {
          type: `${baseUrl}/docs/errors#${code}`,
          title,
          status,
          detail,
          code,
          requestId: 'req_4hQ2mV8kZr1xYt6pW0nLbC',
          ...members,
        };
        return [code, { summary: `${code}: ${title}`, description: ERROR_GUIDE[code].when, value }];
      }),
    );
    return {
      description: codes.map((c) => `${ERRORS[c].title} ([\`${c}\`](${baseUrl}/docs/errors#${c}))`).join(', or '),
      headers,
      content: { 'application/problem+json': { schema: ref('Problem'), examples } },
    };
  }

  function problems(codes: readonly (ErrorCode | { code: ErrorCode; status: number })[]): Record<string, Json> {
    const byStatus = new Map<number, ErrorCode[]>();
    for (const entry of codes) {
      const [code, status] = typeof entry === 'string' ? [entry, ERRORS[entry].status] : [entry.code, entry.status];
      byStatus.set(status, [...(byStatus.get(status) ?? []), code]);
    }
    const out: Record<string, Json> = {};
    for (const [status, group] of [...byStatus].sort(([a], [b]) => a - b)) {
      // A code answered with another status than its own is a response of its own.
      const name = group.map(pascal).join('Or') + (group.some((c) => ERRORS[c].status !== status) ? `At${status}` : '');
      responses[name] ??= response(group, status);
      out[String(status)] = { $ref: `#/components/responses/${name}` };
    }
    return out;
  }

  return { problems, responses };
}
