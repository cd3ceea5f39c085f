//! The account API client (CONTRACT.md, "Account API"). Every failure becomes an ApiError that
//! carries the problem+json answer (`detail`, `code`, `errors`, `requestId`), so views can show
//! what the service said. A 401 also ends the session through `onUnauthorized`.

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
    /** Seconds from the Retry-After header (429, 503), set by the client. */
    this.retryAfter = null;
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

/**
 * @param {{ token: string, onUnauthorized?: (err: ApiError) => void }} options
 * Requests are aborted together by `close()` (sign-out), so no answer of an ended session is shown.
 */
export function createClient({ token, onUnauthorized = () => {} }) {
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
    const headers = { authorization: `Bearer ${token}`, accept: accept ? `${accept}, application/problem+json` : 'application/json, application/problem+json' };
    if (body !== undefined) headers['content-type'] = 'application/json';
    let res;
    try {
      res = await fetch(path, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: controller.signal,
        // The token is in the header only; nothing for the browser to store or send elsewhere.
        credentials: 'omit',
        cache: 'no-store',
        referrerPolicy: 'no-referrer',
      });
    } catch (err) {
      throw transportError(err);
    }
    const text = await res.text().catch(() => '');
    if (res.ok && accept === 'text/csv') return { text, filename: /filename="([^"]+)"/.exec(res.headers.get('content-disposition') ?? '')?.[1] ?? 'usage.csv' };
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
    err.retryAfter = Number(res.headers.get('retry-after')) || null;
    if (res.status === 401) onUnauthorized(err);
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
    enableWebhook: (endpointId, recoverSince) => call('POST', `/api/v1/account/webhooks/${id(endpointId)}/enable`, recoverSince ? { recoverSince } : undefined),
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
    events: ({ limit, cursor } = {}) => call('GET', `/api/v1/account/events${query({ limit, cursor })}`),
    creditPacks: () => call('GET', '/api/v1/account/credit-packs'),
    /** A Stripe Checkout Session for the pack: `{ sessionId, url, purchaseId }`. */
    checkout: (packId, saveCard) => call('POST', '/api/v1/account/checkout', { packId, saveCard }),
    /** @param {{ limit?: number, cursor?: string }} [page] */
    purchases: ({ limit, cursor } = {}) => call('GET', `/api/v1/account/purchases${query({ limit, cursor })}`),
    autoRecharge: () => call('GET', '/api/v1/account/auto-recharge'),
    /** @param {{ enabled: boolean, packId: string, threshold: number | null, monthlyLimit: number | null }} settings */
    setAutoRecharge: (settings) => call('PUT', '/api/v1/account/auto-recharge', settings),
  };
}

/** Signs in: the token is good when the account answers with it. */
export async function verifyToken(token) {
  const client = createClient({ token });
  return client.account();
}
