//! The account API client (docs/API.md: the account API, "People" and "Teams"). A person's session rides on
//! its HttpOnly cookie, which the browser sends by itself to this origin: the client then sends
//! no Authorization header. An owner token (operator-opened accounts, kept in memory) goes as a
//! bearer instead, and no cookie goes with it. Every failure becomes an ApiError that carries the
//! problem+json answer (`detail`, `code`, `errors`, `requestId`, `retryAfter`), so views can show
//! what the service said. A 401 that means the session ended also ends it through `onUnauthorized`.

/**
 * A refresh reads several lists at once and shares the account's rate limit with its tools, so a
 * read answered 429 is repeated (at most twice) after the Retry-After the service asked for.
 */
const RETRIES_ON_429 = 2;
const MAX_WAIT_S = 5;

export class ApiError extends Error {
  constructor(status, problem) {
    super(problem.detail || problem.title || `The service answered HTTP ${status}.`);
    this.name = 'ApiError';
    this.status = status;
    this.code = problem.code ?? null;
    this.detail = this.message;
    this.requestId = problem.requestId ?? null;
    /** `[{ field: "/url", message }]` for validation_failed. */
    this.errors = Array.isArray(problem.errors) ? problem.errors : [];
    /** Seconds from the Retry-After header (429, 503), set by the client; else the problem's own. */
    this.retryAfter = Number.isFinite(problem.retryAfter) ? problem.retryAfter : null;
  }
}

/** Resolves after `ms`, or rejects with an AbortError as soon as `signal` aborts (sign-out). */
function sleep(ms, signal) {
  return new Promise((resolve, reject) => {
    const abort = () => {
      clearTimeout(timer);
      reject(new DOMException('The session ended.', 'AbortError'));
    };
    const timer = setTimeout(() => {
      signal.removeEventListener('abort', abort);
      resolve();
    }, ms);
    if (signal.aborted) abort();
    else signal.addEventListener('abort', abort, { once: true });
  });
}

/** Network failures and aborts are not answers of the service; they get their own text. */
function transportError(err) {
  if (err?.name === 'AbortError') return err;
  return new ApiError(0, { detail: 'The service could not be reached. Check your connection and try again.' });
}

/** 401s that are an answer to what was asked (a wrong password), not the end of the session. */
const NOT_SESSION_ENDS = new Set(['invalid_credentials']);

/**
 * @param {{ token?: string | null, onUnauthorized?: (err: ApiError) => void }} options
 * `token`: an owner token, sent as a bearer; without one the session cookie goes (same origin).
 * Requests are aborted together by `close()` (sign-out), so no answer of an ended session is shown.
 */
export function createClient({ token = null, onUnauthorized = () => {} } = {}) {
  const controller = new AbortController();

  async function call(method, path, body, accept) {
    for (let attempt = 0; ; attempt++) {
      try {
        return await once(method, path, body, accept);
      } catch (err) {
        // Reads are safe to repeat after the wait the service asked for; writes are left to the user.
        if (!(err instanceof ApiError) || err.status !== 429 || method !== 'GET' || attempt >= RETRIES_ON_429) throw err;
        await sleep(Math.min(MAX_WAIT_S, Math.max(1, err.retryAfter ?? 1)) * 1000, controller.signal);
      }
    }
  }

  async function once(method, path, body, accept) {
    /** @type {Record<string, string>} */
    const headers = { accept: accept ? `${accept}, application/problem+json` : 'application/json, application/problem+json' };
    if (token) headers.authorization = `Bearer ${token}`;
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res;
    try {
      res = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
        // A token is in the header only, and then no cookie goes along; a session is the cookie alone.
        credentials: token ? 'omit' : 'same-origin',
        cache: 'no-store',
        referrerPolicy: 'no-referrer',
      });
    } catch (err) {
      throw transportError(err);
    }
    const text = await res.text().catch(() => '');
    if (res.ok && accept === 'text/csv')
      return { text, filename: /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'usage.csv' };
    // Closed meanwhile (another request's 401 ended the session): this answer is not shown.
    if (controller.signal.aborted) throw new DOMException('The session ended.', 'AbortError');
    let data = null;
    try {
      data = text ? JSON.parse(text) : null;
    } catch {
      data = null;
    }
    if (res.ok) return data;
    const err = new ApiError(res.status, data && typeof data === 'object' ? data : {});
    err.retryAfter = Number(res.headers.get('retry-after')) || err.retryAfter;
    if (res.status === 401 && !NOT_SESSION_ENDS.has(err.code)) onUnauthorized(err);
    throw err;
  }

  const id = (value) => encodeURIComponent(value);
  const query = (params) => {
    const q = new URLSearchParams();
    for (const [k, v] of Object.entries(params)) if (v !== undefined && v !== null) q.set(k, String(v));
    const s = q.toString();
    return s ? `?${s}` : '';
  };

  return {
    close: () => controller.abort(),
    account: () => call('GET', '/api/v1/account'),
    /** @param {{ limit?: number, cursor?: string }} [page] */
    usage: ({ limit, cursor } = {}) => call('GET', `/api/v1/account/usage${query({ limit, cursor })}`),
    /** The usage of a period as CSV: `{ text, filename }`. */
    usageCsv: ({ from, to }) => call('GET', `/api/v1/account/usage${query({ from, to })}`, undefined, 'text/csv'),
    /** @param {{ limit?: number, cursor?: string }} [page] */
    grants: ({ limit, cursor } = {}) => call('GET', `/api/v1/account/grants${query({ limit, cursor })}`),
    keys: () => call('GET', '/api/v1/account/keys'),
    createKey: (name) => call('POST', '/api/v1/account/keys', name ? { name } : {}),
    revokeKey: (keyId) => call('DELETE', `/api/v1/account/keys/${id(keyId)}`),
    destinations: () => call('GET', '/api/v1/account/destinations'),
    deleteDestination: (destinationId) => call('DELETE', `/api/v1/account/destinations/${id(destinationId)}`),
    connectedApps: () => call('GET', '/api/v1/account/connected-apps'),
    disconnectApp: (appId) => call('DELETE', `/api/v1/account/connected-apps/${id(appId)}`),
    /** A key's settings: what is given is set, null clears it. */
    updateKey: (keyId, settings) => call('PATCH', `/api/v1/account/keys/${id(keyId)}`, settings),
    linkSecrets: () => call('GET', '/api/v1/account/link-secrets'),
    createLinkSecret: () => call('POST', '/api/v1/account/link-secrets', {}),
    retireLinkSecret: (secretId) => call('DELETE', `/api/v1/account/link-secrets/${id(secretId)}`),
    /** @param {{ tool: string, input: object, expiresIn?: number, maxAge?: number }} link */
    createRenderLink: (link) => call('POST', '/api/v1/account/render-links', link),
    renderCache: () => call('GET', '/api/v1/account/render-cache'),
    emptyRenderCache: () => call('DELETE', '/api/v1/account/render-cache'),
    webhooks: () => call('GET', '/api/v1/account/webhooks'),
    createWebhook: (url) => call('POST', '/api/v1/account/webhooks', { url }),
    deleteWebhook: (endpointId) => call('DELETE', `/api/v1/account/webhooks/${id(endpointId)}`),
    testWebhook: (endpointId) => call('POST', `/api/v1/account/webhooks/${id(endpointId)}/test`),
    /** @param {string} [recoverSince] ISO time: also resend what the endpoint missed since then */
    enableWebhook: (endpointId, recoverSince) =>
      call('POST', `/api/v1/account/webhooks/${id(endpointId)}/enable`, recoverSince ? { recoverSince } : undefined),
    setEventTypes: (endpointId, eventTypes) => call('PATCH', `/api/v1/account/webhooks/${id(endpointId)}`, { eventTypes }),
    rotateSecret: (endpointId) => call('POST', `/api/v1/account/webhooks/${id(endpointId)}/rotate-secret`),
    endPreviousSecret: (endpointId) => call('DELETE', `/api/v1/account/webhooks/${id(endpointId)}/previous-secret`),
    replay: (endpointId, eventId) => call('POST', `/api/v1/account/webhooks/${id(endpointId)}/replay`, { eventId }),
    attempts: (endpointId, limit) => call('GET', `/api/v1/account/webhooks/${id(endpointId)}/attempts${query({ limit })}`),
    /** @param {{ limit?: number, cursor?: string }} [page] */
    asyncCalls: ({ limit, cursor } = {}) => call('GET', `/api/v1/account/calls${query({ limit, cursor })}`),
    /** @param {{ limit?: number, cursor?: string }} [page] */
    batches: ({ limit, cursor } = {}) => call('GET', `/api/v1/account/batches${query({ limit, cursor })}`),
    cancelBatch: (batchId) => call('DELETE', `/api/v1/account/batches/${id(batchId)}`),
    /** @param {{ limit?: number, cursor?: string }} [page] */
    monitors: ({ limit, cursor } = {}) => call('GET', `/api/v1/account/monitors${query({ limit, cursor })}`),
    monitor: (monitorId) => call('GET', `/api/v1/account/monitors/${id(monitorId)}`),
    /** `{ paused: true }` pauses it, `{ paused: false }` resumes it. */
    updateMonitor: (monitorId, fields) => call('PATCH', `/api/v1/account/monitors/${id(monitorId)}`, fields),
    /** @param {string} monitorId @param {{ limit?: number, cursor?: string }} [page] */
    monitorRuns: (monitorId, { limit, cursor } = {}) =>
      call('GET', `/api/v1/account/monitors/${id(monitorId)}/runs${query({ limit, cursor })}`),
    /** @param {{ limit?: number, cursor?: string }} [page] */
    events: ({ limit, cursor } = {}) => call('GET', `/api/v1/account/events${query({ limit, cursor })}`),
    creditPacks: () => call('GET', '/api/v1/account/credit-packs'),
    /** A Stripe Checkout Session for the pack: `{ sessionId, url, purchaseId }`. */
    checkout: (packId, saveCard) => call('POST', '/api/v1/account/checkout', { packId, saveCard }),
    /** @param {{ limit?: number, cursor?: string }} [page] */
    purchases: ({ limit, cursor } = {}) => call('GET', `/api/v1/account/purchases${query({ limit, cursor })}`),
    autoRecharge: () => call('GET', '/api/v1/account/auto-recharge'),
    /** @param {{ enabled: boolean, packId: string, threshold: number | null, monthlyLimit: number | null }} settings */
    setAutoRecharge: (settings) => call('PUT', '/api/v1/account/auto-recharge', settings),
    /** Mails `email` a link that attaches a person to this account as its owner (an operator-opened account). */
    inviteOwner: (email) => call('POST', '/api/v1/account/invitations', { email, role: 'owner' }),

    // The team (docs/API.md, "Teams"): every role reads it; the owner and admins change it.
    members: () => call('GET', '/api/v1/account/members'),
    /** A member's new role (never `owner`: that is `transferOwnership`); answers the member as they are now. */
    changeMemberRole: (userId, role) => call('PATCH', `/api/v1/account/members/${id(userId)}`, { role }),
    removeMember: (userId) => call('DELETE', `/api/v1/account/members/${id(userId)}`),
    /** The pending invitations, newest first. */
    invitations: () => call('GET', '/api/v1/account/invitations'),
    invite: (email, role) => call('POST', '/api/v1/account/invitations', { email, role }),
    revokeInvitation: (invitationId) => call('DELETE', `/api/v1/account/invitations/${id(invitationId)}`),
    /** The owner hands the account to a member (a session: signed in within 10 minutes); `{ owner, previousOwner }`. */
    transferOwnership: (userId) => call('POST', '/api/v1/account/transfer-ownership', { userId }),
    /** `{ requiredProvider, providers, sessionsEnded }`: the owner's to read and set. */
    signInPolicy: () => call('GET', '/api/v1/account/sign-in-policy'),
    /** Requires `providerId` (null: any way); a session setting it must be signed in through it. */
    setSignInPolicy: (providerId) => call('PUT', '/api/v1/account/sign-in-policy', { requiredProvider: providerId }),

    // A person's own routes (`/api/v1/auth/...`). Those that sign in set the cookie on their answer.
    /** Who is signed in, on which account, and their other accounts. */
    session: () => call('GET', '/api/v1/auth/session'),
    switchAccount: (accountId) => call('PUT', '/api/v1/auth/session', { accountId }),
    signOut: () => call('POST', '/api/v1/auth/signout'),
    signUp: (body) => call('POST', '/api/v1/auth/signup', body),
    verify: (token) => call('POST', '/api/v1/auth/verify', { token }),
    signIn: (email, password) => call('POST', '/api/v1/auth/signin', { email, password }),
    /** The identity providers people sign in through: `[{ id, name, signInPath }]`. */
    identityProviders: () => call('GET', '/api/v1/auth/oidc'),
    passkeySignInOptions: () => call('POST', '/api/v1/auth/passkey-signin/options'),
    passkeySignIn: (response) => call('POST', '/api/v1/auth/passkey-signin', { response }),
    requestReset: (email) => call('POST', '/api/v1/auth/password-reset', { email }),
    confirmReset: (token, password) => call('POST', '/api/v1/auth/password-reset/confirm', { token, password }),
    acceptInvitation: (body) => call('POST', '/api/v1/auth/invitations/accept', body),
    sessions: () => call('GET', '/api/v1/auth/sessions'),
    endSession: (sessionId) => call('DELETE', `/api/v1/auth/sessions/${id(sessionId)}`),
    endOtherSessions: () => call('DELETE', '/api/v1/auth/sessions'),
    changePassword: (currentPassword, newPassword) => call('POST', '/api/v1/auth/password', { currentPassword, newPassword }),
    passkeys: () => call('GET', '/api/v1/auth/passkeys'),
    passkeyOptions: () => call('POST', '/api/v1/auth/passkeys/options'),
    addPasskey: (response, name) => call('POST', '/api/v1/auth/passkeys', name ? { response, name } : { response }),
    renamePasskey: (passkeyId, name) => call('PATCH', `/api/v1/auth/passkeys/${id(passkeyId)}`, { name }),
    removePasskey: (passkeyId) => call('DELETE', `/api/v1/auth/passkeys/${id(passkeyId)}`),
  };
}

/** @typedef {ReturnType<typeof createClient>} Client */

/**
 * The client of the signed-out views (sign-up, sign-in, reset, ...): no token, and a 401 is only
 * an answer. Made per use, so nothing of it outlives a view.
 */
export const anonymousClient = () => createClient();

/** Signs in with an owner token: it is good when the account answers with it. */
export async function verifyToken(token) {
  const client = createClient({ token });
  return client.account();
}
