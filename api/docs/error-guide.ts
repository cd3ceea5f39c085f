//! What each error code means to a client: when it happens and what to do about it. The one
//! source of the /docs/errors page and of the problem answers' descriptions in the OpenAPI
//! document; `contracts/errors.ts` stays the source of codes, statuses and titles.
import type { ErrorCode } from '../../contracts/errors.js';
import type { ErrorGuide } from './error-guide-entry.js';
import { TOOL_ERROR_GUIDE } from './tool-error-guide.js';

/** What an answer that asks the client to wait says: how long, in the Retry-After header and in the problem. */
const WAIT_AND_RETRY = {
  members: { retryAfter: 'Seconds to wait, as in Retry-After.' },
  headers: { 'Retry-After': 'Seconds to wait.' },
};

/** Typed by `ErrorCode`, so a new code in contracts/errors.ts does not compile until it is explained here. */
export const ERROR_GUIDE: Readonly<Record<ErrorCode, ErrorGuide>> = {
  ...TOOL_ERROR_GUIDE,
  invalid_json: {
    when: 'The request body is not valid JSON, or is JSON but not an object (an array, a string, a number or null).',
    action:
      'Send exactly one JSON object as the body, with Content-Type: application/json. Repeating the same request gives the same answer.',
    example: { detail: 'The body is not valid JSON.' },
  },
  validation_failed: {
    when:
      "The body breaks the tool's schema (a required field missing, an unknown field, a value of the wrong type or out of its bounds), " +
      "or a rule the schema cannot express (bcrypt's 72-byte password limit, what a QR code of the chosen level can hold), " +
      'or a malformed Idempotency-Key header or query parameter.',
    action: 'Fix every field named in errors and send the request again. The schemas in the API reference give each bound.',
    members: {
      errors:
        'Every bad field: { field, message }. field is a JSON Pointer into the body ("/width", "/" for the body itself), or header:<Name> / query:<name>.',
    },
    example: { detail: 'The input is invalid: /text is required.', members: { errors: [{ field: '/text', message: 'is required' }] } },
  },
  invalid_request: {
    when:
      'A monitor (POST or PATCH /api/v1/account/monitors) that could not run as written: a schedule that is neither `every` nor a five-field `cron`, ' +
      'an interval under the shortest the service allows, an unknown time zone, a malformed JSON pointer, an unknown operator or one without the value it compares, ' +
      "`visual_change` on a tool that makes no image, an input its tool refuses, or any field the monitor's schema does not take.",
    action: 'Fix every field named in errors and send the request again; nothing was created or changed.',
    members: { errors: 'Every bad field: { field, message }, field a JSON Pointer into the body ("/schedule/every", "/assertions/0/op").' },
    example: {
      detail: 'The monitor is invalid: /schedule/every must be at least 60s.',
      members: { errors: [{ field: '/schedule/every', message: 'must be at least 60s' }] },
    },
  },
  invalid_token: {
    when:
      'A link from a mail (address verification, password reset, invitation) whose token is unknown, was used already, or has expired ' +
      '(verification 24 hours, password reset 30 minutes, invitation 7 days).',
    action: 'Ask for a new link (sign up again, request another reset, or ask for a new invitation); each link works once.',
    example: { detail: 'This link is invalid or has expired. Ask for a new one.' },
  },
  oidc_failed: {
    when:
      'A sign-in through an identity provider came back in a way the service could not verify: an unknown, used or expired state (the callback was not started in this browser, ' +
      'or took more than 10 minutes), an ID token whose nonce or signature is wrong, a code the provider would not exchange, or an error from the provider itself.',
    action:
      'Start the sign-in again from the sign-in page. If it keeps failing, ask the operator to check the provider in OIDC_PROVIDERS (its issuer, client id and secret, and the redirect URI registered with it).',
    members: {
      reason: '"state", "nonce", "provider" (the provider answered with an error) or "token" (the code or the ID token did not verify).',
    },
    example: { detail: 'The sign-in came back with a state this browser did not start; start again.', members: { reason: 'state' } },
  },
  unauthorized: {
    when: 'The Authorization header is missing or is not "Bearer <credential>", or the credential is malformed, unknown, revoked or past its expiresAt (then reason is "expired"). A revoked key fails within one second.',
    action:
      'Send Authorization: Bearer <credential>: an API key (utk_...) for tools, an owner token (uto_...) for the account API. ' +
      'A key that stopped working may have been revoked in the dashboard, or has expired: create a new one, or move its expiresAt.',
    members: { reason: '"expired" when the key is past its expiresAt; absent otherwise.' },
    headers: { 'WWW-Authenticate': 'Bearer' },
    example: { detail: 'Send a credential as Authorization: Bearer <key>.' },
  },
  invalid_credentials: {
    when: 'A sign-in whose address and password do not match a verified account. The answer is the same for a wrong password, an unknown address and an address not yet verified.',
    action:
      'Check the address and the password, or reset the password from the sign-in page. Repeated failures lock the address for 15 minutes.',
    example: { detail: 'The address or the password is not right.' },
  },
  unauthenticated: {
    when: 'A request that needs a signed-in session came without one, or its session has ended (signed out, ended from another device, timed out, or the password changed).',
    action: 'Sign in again.',
    example: { detail: 'Sign in to continue.' },
  },
  insufficient_credits: {
    when: "The available balance is below the tool's cost, a zero balance included. Credits held by calls still running are not available.",
    action: 'Add credits, or wait for calls in flight to finish if they may be refunded. Nothing was charged.',
    members: { balance: 'The available balance.', cost: "The tool's cost in credits." },
    example: { detail: 'This call costs 25 credits; the balance is 10.', members: { balance: 10, cost: 25 } },
  },
  key_credit_limit: {
    when: "The API key has a monthlyCreditLimit and this call's cost would take what the key spent this calendar month (UTC) past it. Credits held by the key's calls still running count as spent; a refunded call gives its credits back.",
    action:
      "Wait for the next month (the first, 00:00 UTC), raise the key's monthlyCreditLimit with PATCH /api/v1/account/keys/{id}, or use another key. Nothing was charged.",
    members: {
      limit: "The key's monthlyCreditLimit.",
      spent: 'Credits the key spent (or holds) this month.',
      cost: "The tool's cost in credits.",
    },
    example: {
      detail: 'This call costs 1 credits; the key has spent 500 of its 500 this month.',
      members: { limit: 500, spent: 500, cost: 1 },
    },
  },
  tool_not_allowed: {
    when: "The API key's tools setting does not include this tool (by its name or its group).",
    action:
      'Call a tool the key may call, add this tool or its group to the key with PATCH /api/v1/account/keys/{id}, or use another key. Nothing was charged.',
    members: { tool: 'The tool that was called.' },
    example: { detail: 'This key may not call dns-lookup.', members: { tool: 'dns-lookup' } },
  },
  ip_not_allowed: {
    when: "The API key has an allowedIps list and the address the request came from is in none of its CIDRs. Behind a load balancer the address is the one the operator's TRUSTED_PROXY_HOPS setting trusts, never a header the caller chose.",
    action: 'Call from an allowed address, or add yours to the key with PATCH /api/v1/account/keys/{id}. Nothing was charged.',
    members: { ip: 'The address the service saw.' },
    example: { detail: 'This key may not be used from 198.51.100.7.', members: { ip: '198.51.100.7' } },
  },
  invalid_signature: {
    when:
      'A render link (GET /api/v1/render/...) whose signature is missing, is not 64 hex digits, or does not match: a parameter was changed, added or removed after signing, ' +
      'the link names an unknown signing secret, or its secret has been retired (a retired secret fails within one second). ' +
      "Also Stripe's webhook (POST /api/v1/billing/stripe-webhook), answered with HTTP 400 as Stripe expects: a Stripe-Signature missing, not made with STRIPE_WEBHOOK_SECRET, 300 s or more away from the service's clock, or seen before (a replay). Nothing is applied.",
    action:
      'Sign the link again with a live secret (POST /api/v1/account/render-links, or renderLink in utility-tools/client): signature is the lowercase hex HMAC-SHA256 of the path after /api/v1/render/, "?", and the query string up to &signature=, and must be the last parameter. ' +
      "For Stripe's webhook: set STRIPE_WEBHOOK_SECRET to the signing secret of the endpoint Stripe posts to (the Stripe CLI prints its own with stripe listen), and keep the service's clock right; Stripe retries the event signed afresh.",
    example: { detail: 'The signature does not match this link.' },
  },
  link_expired: {
    when: 'A render link used after the time in its expires parameter (Unix seconds). Nothing was charged.',
    action: 'Make a new link with a later expiry (or none).',
    members: { expiredAt: 'When the link expired (ISO 8601).' },
    example: { detail: 'This link expired at 2026-05-01T09:30:00.000Z.', members: { expiredAt: '2026-05-01T09:30:00.000Z' } },
  },
  forbidden: {
    when:
      'A valid credential of the wrong kind: an API key on the account API, or an owner token on a tool. For people: a sign-in of a person who is a member of no account, ' +
      'a sign-in through an identity provider with an address no one here has (nothing is joined), or an invitation accepted while signed in as another address.',
    action:
      "Use an API key to call tools and the owner token to manage the account; neither works in the other's place. A person without an account asks an account's owner or admin for an invitation.",
    example: { detail: 'This endpoint takes an API key.' },
  },
  forbidden_for_role: {
    when:
      'A signed-in member asked for something their role on the account may not do: every role reads the account; keys, webhooks, destinations, link secrets, render links and batches need developer; ' +
      "purchases, checkout and auto-recharge need billing; members and invitations need admin; transferring ownership, the sign-in policy and closing the account need the owner. Owner tokens keep the owner's rights.",
    action: 'Ask an owner or an admin of the account for the role named in requiredRole, or ask them to do it.',
    members: {
      requiredRole: 'The role that may do it with the least rights (what to ask for).',
      role: 'Your role on the account.',
      allowedRoles: 'Every role that may do it.',
    },
    example: {
      detail:
        'Your role on this account, viewer, may not do this: it needs developer (owner, admin, developer). Ask an owner or an admin of the account.',
      members: { requiredRole: 'developer', role: 'viewer', allowedRoles: ['owner', 'admin', 'developer'] },
    },
  },
  provider_required: {
    when:
      "The account requires its members to sign in through an identity provider (its sign-in policy), and this sign-in was a password or a passkey: the sign-in, a switch to that account or an invitation's session is refused. " +
      'Also when the owner sets the policy from a session that did not sign in through that provider.',
    action:
      'Sign in through the provider named in provider (its signInPath starts the sign-in). Your other accounts still take a password or a passkey.',
    members: { provider: '{ id, name, signInPath }: the provider to sign in through, and where its sign-in starts.' },
    example: {
      detail: 'The account "Acme" requires its members to sign in through Acme SSO: sign in with "Acme SSO" instead.',
      members: { provider: { id: 'acme', name: 'Acme SSO', signInPath: '/api/v1/auth/oidc/acme/start' } },
    },
  },
  address_not_verified: {
    when: 'The identity provider signed the person in but did not say their address is verified (its email_verified claim is not true). Nothing is signed in or joined.',
    action: 'Verify the address with the identity provider (or ask its administrators to), then sign in again.',
    example: { detail: 'Acme SSO has not verified the address ada@example.com: nothing was signed in.' },
  },
  csrf_rejected: {
    when:
      "A request that changes something, authenticated by the session cookie, did not come from the service's own pages: " +
      "neither Sec-Fetch-Site: same-origin nor an Origin equal to the service's own. Requests with a bearer credential are not affected.",
    action: 'Make the change from the dashboard, or use an owner token (Authorization: Bearer) from scripts.',
    example: { detail: "This request did not come from the service's own pages." },
  },
  reauthentication_required: {
    when: 'A sensitive change (a password, a passkey) by a session whose last sign-in is more than 10 minutes old.',
    action: 'Sign in again (password or passkey) in this session, then repeat the change within 10 minutes.',
    example: { detail: 'Sign in again to change your security settings.' },
  },
  signup_closed: {
    when: 'A sign-up while the operator has turned self sign-up off (SIGNUP=off).',
    action: 'Ask the operator for an account, or for an invitation to an existing one.',
    example: { detail: 'Sign-up is closed on this service.' },
  },
  not_found: {
    when: "There is nothing at this path, or the id in it is not one of your account's (a key, a webhook endpoint). The operator API answers 404 when it is not enabled.",
    action:
      'Check the path and the id against the API reference and your own lists (GET /api/v1/account/keys, GET /api/v1/account/webhooks).',
    example: { detail: 'There is no key key_4hQ2mV8kZr1xYt6pW0nLbC on this account.' },
  },
  unknown_tool: {
    when: 'The path names a tool that does not exist.',
    action: 'GET /api/v1/tools lists every tool with its path and cost.',
    example: { detail: 'There is no tool named "hash-txt". GET /api/v1/tools lists them.' },
  },
  method_not_allowed: {
    when: 'A tool path was called with another method than POST.',
    action: 'Call tools with POST and a JSON object body.',
    headers: { Allow: 'POST' },
    example: { detail: 'Tools are called with POST, not GET.' },
  },
  not_acceptable: {
    when: "The request's Accept header leaves out a type the path answers in: /mcp answers as JSON or as a stream of events, so it needs both application/json and text/event-stream.",
    action: 'Send Accept: application/json, text/event-stream (MCP clients do).',
    example: { detail: 'Accept both application/json and text/event-stream: this MCP server answers with either.' },
  },
  idempotency_conflict: {
    when:
      'The Idempotency-Key was already used by this account in the last 24 hours, with another tool or another body; ' +
      "or (operator API) a grant's idempotencyKey was already used on the account with another amount, reason or expiry.",
    action:
      "Reuse a key only to repeat the very same request (same tool, same body), which then answers with the first call's response and is charged once " +
      '(a grant: granted once, answered with the first grant). Use a fresh key for a new request.',
    example: { detail: 'This Idempotency-Key was used with another tool or body.' },
  },
  endpoint_disabled: {
    when: 'An event was to be replayed to a webhook endpoint that is disabled (after 20 failed deliveries in a row): nothing is posted to it until it is re-enabled.',
    action:
      'Fix the receiver, then re-enable the endpoint (POST /api/v1/account/webhooks/{id}/enable); give recoverSince to have every event it missed sent, in order. ' +
      'Replay single events afterwards.',
    example: { detail: 'The endpoint whe_7Tn3pLq9Vx2Rk5Yb8Mc1Dz is disabled; re-enable it before replaying events to it.' },
  },
  payments_not_configured: {
    when: 'A checkout or an auto-recharge was asked for while the service takes no payments: the operator has not set STRIPE_SECRET_KEY and STRIPE_WEBHOOK_SECRET. The credit packs are still listed.',
    action: 'Ask the operator for credits (they can grant them by hand), or to configure Stripe (docs/OPERATING.md). Nothing was charged.',
    example: { detail: 'This service takes no payments: the operator has not configured Stripe. The operator can grant credits by hand.' },
  },
  already_exists: {
    when:
      'Something that exists already was asked for again: a plan with the id of an existing plan (operator API), a passkey registered twice, ' +
      'or an owner invited to an account that has its owner (an account has exactly one; ownership moves by POST /api/v1/account/transfer-ownership).',
    action:
      'Choose another id, or change the existing one (PATCH /api/v1/admin/plans/{id}); to hand an account on, transfer its ownership.',
    example: { detail: 'There is a plan pro already.' },
  },
  already_member: {
    when: 'An invitation to an address that is already a member of the account.',
    action: "Change the member's role instead (PATCH /api/v1/account/members/{userId}).",
    members: { userId: 'The member with that address.' },
    example: {
      detail: 'ada@example.com is a member of this account already: change their role instead.',
      members: { userId: 'usr_4hQ2mV8kZr1xYt6pW0nLbC' },
    },
  },
  monitor_limit: {
    when: 'A new monitor past the most an account may have (MONITORS_PER_ACCOUNT, 100 unless the operator changed it).',
    action: 'Delete a monitor you no longer need (DELETE /api/v1/account/monitors/{id}), or ask the operator for a higher limit.',
    members: { limit: 'The most monitors an account may have.' },
    example: { detail: 'An account may have at most 100 monitors; delete one first.', members: { limit: 100 } },
  },
  last_owner: {
    when: 'A change that would leave the account without its owner: demoting or removing the owner (an account has exactly one).',
    action:
      'Transfer ownership to another member first (POST /api/v1/account/transfer-ownership); the owner then becomes an admin and can be changed or removed.',
    example: { detail: 'The account needs its owner: transfer ownership to another member first.' },
  },
  call_expired: {
    when: 'The asynchronous call ended more than 24 hours ago; its answer (output or problem) is no longer kept.',
    action:
      "Read an asynchronous call's answer within 24 hours of its end. What it was charged stays in the usage list (GET /api/v1/account/usage).",
    members: { expiredAt: 'When the answer stopped being kept.' },
    example: {
      detail: 'The call ended more than 24 hours ago; its answer is no longer kept.',
      members: { expiredAt: '2026-01-02T12:00:00.000Z' },
    },
  },
  cancelled: {
    when:
      "In a batch item's `error`: the batch was cancelled (DELETE /api/v1/batches/{id}) before this item started; it never ran. " +
      'Or the answer to a call whose Idempotency-Key names a call its MCP client cancelled (`notifications/cancelled`) before it finished. Neither was charged.',
    action:
      'Make a new batch of the items you still want (GET /api/v1/batches/{id}/items?status=skipped lists them); send a cancelled call again with a new idempotency key.',
    example: { detail: 'The batch was cancelled before this item ran.' },
  },
  payload_too_large: {
    when: 'The request body is over its limit: 1 MiB, or 3 MiB for html-to-image, 16 MiB for a batch (POST /api/v1/batches).',
    action: 'Send a smaller body. For large files, give the tool a URL to fetch instead where it takes one.',
    members: { limit: 'The limit in bytes.' },
    example: { detail: 'The request body is over its limit of 1048576 bytes.', members: { limit: 1048576 } },
  },
  unsupported_media_type: {
    when: 'The request Content-Type is not JSON (application/json, or an application/*+json type).',
    action: 'Send the body as JSON with Content-Type: application/json.',
    example: { detail: 'Send the body as JSON with Content-Type: application/json.' },
  },
  rate_limited: {
    when:
      'The account sent more calls than its rate allows: RATE_LIMIT_PER_SECOND (20 by default) per second, in bursts of up to twice that; ' +
      'or the API key has a rateLimit of its own and sent more calls than that (in bursts of up to twice it).',
    action:
      'Wait the Retry-After seconds, then spread calls out; the RateLimit-* headers of every answer tell how much room is left. Nothing was charged.',
    ...WAIT_AND_RETRY,
    example: { detail: 'Over 20 calls per second; retry after 1 s.', members: { retryAfter: 1 } },
  },
  too_many_attempts: {
    when:
      'Too many failed sign-ins: 10 for one address within 15 minutes lock that address for 15 minutes, and 100 from one client address within 15 minutes lock that client address. ' +
      'The lock holds whatever password is sent, on every API instance.',
    action: 'Wait the Retry-After seconds. If you forgot the password, reset it; the owner of a locked address is told by mail.',
    ...WAIT_AND_RETRY,
    example: { detail: 'Too many failed sign-ins; try again in 900 s.', members: { retryAfter: 900 } },
  },
  unavailable: {
    when:
      'The service cannot reach its orchestration or its database right now. A tool call waits for them first, up to ' +
      "its tool's timeout plus 35 s (30 s for an asynchronous call's start); other endpoints answer this within seconds.",
    action:
      'Retry after Retry-After seconds. Repeat the call with the same Idempotency-Key: if the first attempt did start, ' +
      'you receive its answer instead of paying twice.',
    headers: WAIT_AND_RETRY.headers,
    example: { detail: 'The service cannot run calls right now; retry shortly.' },
  },
  internal_error: {
    when: "Anything else went wrong on the service's side. It is logged with the request id.",
    action: 'Try again once; if it persists, contact support and quote the requestId. Nothing was charged.',
    example: { detail: 'Something went wrong on our side; quote the request id if you contact us.' },
  },
};
