//! Every failure the service can answer with: its stable `code`, HTTP status and title.
//! Activities, the workflow and the API all speak in these codes; `api/problem.ts` is the one
//! place that turns them into RFC 9457 problem+json answers.

export const ERRORS = {
  invalid_json: { status: 400, title: 'Invalid JSON' },
  validation_failed: { status: 400, title: 'Validation failed' },
  // A monitor's definition (its schedule, a pointer, an operator) that cannot run: `errors` names the field.
  invalid_request: { status: 400, title: 'Invalid request' },
  invalid_token: { status: 400, title: 'Invalid or expired link' },
  oidc_failed: { status: 400, title: 'Identity provider sign-in failed' },
  unauthorized: { status: 401, title: 'Unauthorized' },
  invalid_credentials: { status: 401, title: 'Invalid credentials' },
  unauthenticated: { status: 401, title: 'Not signed in' },
  invalid_signature: { status: 401, title: 'Invalid signature' },
  insufficient_credits: { status: 402, title: 'Insufficient credits' },
  key_credit_limit: { status: 402, title: 'Key credit limit reached' },
  forbidden: { status: 403, title: 'Forbidden' },
  csrf_rejected: { status: 403, title: 'Cross-site request refused' },
  reauthentication_required: { status: 403, title: 'Sign in again to continue' },
  forbidden_for_role: { status: 403, title: 'Not allowed for your role' },
  provider_required: { status: 403, title: 'Sign in through your identity provider' },
  address_not_verified: { status: 403, title: 'Address not verified by the identity provider' },
  signup_closed: { status: 403, title: 'Sign-up is closed' },
  tool_not_allowed: { status: 403, title: 'Tool not allowed for this key' },
  ip_not_allowed: { status: 403, title: 'Address not allowed for this key' },
  link_expired: { status: 403, title: 'Link expired' },
  not_found: { status: 404, title: 'Not found' },
  unknown_tool: { status: 404, title: 'Unknown tool' },
  method_not_allowed: { status: 405, title: 'Method not allowed' },
  not_acceptable: { status: 406, title: 'Not acceptable' },
  idempotency_conflict: { status: 409, title: 'Idempotency key reused' },
  endpoint_disabled: { status: 409, title: 'Webhook endpoint disabled' },
  already_exists: { status: 409, title: 'Already exists' },
  already_member: { status: 409, title: 'Already a member' },
  monitor_limit: { status: 409, title: 'Monitor limit reached' },
  last_owner: { status: 409, title: 'The account needs its owner' },
  payments_not_configured: { status: 409, title: 'Payments not configured' },
  call_expired: { status: 410, title: 'Call expired' },
  // A batch item skipped because its batch was cancelled, or a repeat of a call its MCP client cancelled.
  cancelled: { status: 409, title: 'Cancelled' },
  payload_too_large: { status: 413, title: 'Payload too large' },
  unsupported_media_type: { status: 415, title: 'Unsupported media type' },
  target_not_allowed: { status: 422, title: 'Target not allowed' },
  port_not_allowed: { status: 422, title: 'Port not allowed' },
  source_too_large: { status: 422, title: 'Source too large' },
  unsupported_source: { status: 422, title: 'Unsupported source' },
  hash_too_costly: { status: 422, title: 'Hash too costly' },
  invalid_hash: { status: 422, title: 'Invalid hash' },
  destination_unusable: { status: 422, title: 'Destination unusable' },
  rate_limited: { status: 429, title: 'Too many requests' },
  too_many_attempts: { status: 429, title: 'Too many attempts' },
  upstream_error: { status: 502, title: 'Upstream error' },
  destination_error: { status: 502, title: 'Destination error' },
  // A dependency is away for a moment: every 503 tells the client when to try again.
  unavailable: { status: 503, title: 'Service unavailable', retryAfterSeconds: 5 },
  tool_timeout: { status: 504, title: 'Tool timed out' },
  internal_error: { status: 500, title: 'Internal error' },
} as const;

export type ErrorCode = keyof typeof ERRORS;

export function isErrorCode(value: unknown): value is ErrorCode {
  return typeof value === 'string' && Object.hasOwn(ERRORS, value);
}

/** Extra problem members (`reason`, `balance`, `errors` ...). Must be JSON and safe to show. */
export type ProblemExtras = Record<string, unknown>;

export interface ServiceErrorOptions {
  /** What went wrong underneath, for the logs; never shown to the client. */
  cause?: unknown;
  /** Headers the API adds to the answer (`Retry-After`, `WWW-Authenticate` ...). */
  headers?: Record<string, string>;
  /**
   * The status to answer instead of the code's own, where one route fixes another
   * (Stripe's webhook answers `invalid_signature` with 400, as Stripe expects). The route documents
   * it so (`api/docs/operations.ts`, `{ code, status }`).
   */
  status?: number;
}

/**
 * A decided failure with a stable code from the table above, safe to show to the client: its
 * message is the problem's `detail`. The API throws it for everything it refuses, the domain for
 * what a request may not do (a wrong password, the last owner, a member already there), and
 * `api/problem.ts` turns it into problem+json. It is never retried.
 */
export class ServiceError extends Error {
  override readonly name: string = 'ServiceError';
  readonly headers: Readonly<Record<string, string>>;
  readonly status?: number;
  constructor(
    readonly code: ErrorCode,
    message: string,
    readonly extras: ProblemExtras = {},
    options: ServiceErrorOptions = {},
  ) {
    super(message, 'cause' in options ? { cause: options.cause } : undefined);
    this.headers = options.headers ?? {};
    if (options.status !== undefined) this.status = options.status;
  }
}

/**
 * A tool's own failure: bad input its precheck or handler found, a source too large, an upstream
 * that could not be reached. A service error like any other (it answers the same problem); the
 * name says in a log line that the tool decided it.
 */
export class ToolError extends ServiceError {
  override readonly name: string = 'ToolError';
}

/** A bad field of a request, shaped like the schema validator's (`api/validation.ts`), so a client
 * sees one format whether JSON Schema, a tool's precheck or the domain refused it. `field` is a
 * JSON pointer into the input (`/password`); `message` reads after it. */
export function invalidField(field: string, message: string): ServiceError {
  return new ServiceError('validation_failed', `The input is invalid: ${field} ${message}.`, { errors: [{ field, message }] });
}
