//! People in integration tests: requests with a session cookie, made from a loopback address of
//! the test's own (127.x.y.z), so the per-client sign-in limits of one file never touch another's;
//! and signing a person up through the real mail.
import http from 'node:http';
import https from 'node:https';
import { randomInt } from 'node:crypto';
import { apiUrl, type Answer, type UncheckedJson } from './api.js';
import { tokenFrom, uniqueAddress, waitForMail } from './mailbox.js';

/** A loopback address nobody else in this run uses (127.0.0.1 is the suite's own). */
export const ownLoopback = () => `127.${randomInt(1, 250)}.${randomInt(0, 250)}.${randomInt(1, 250)}`;

/** The origin the service's pages are served from (PUBLIC_BASE_URL: http://localhost:<port> in the test stack, https behind the cluster's load balancer). */
export const serviceOrigin = () => {
  const { protocol, port } = new URL(apiUrl());
  return `${protocol}//localhost:${port}`;
};

export interface RequestOptions {
  body?: unknown;
  /** The session cookie's `name=value`. */
  cookie?: string;
  token?: string;
  headers?: Record<string, string>;
  /** Leave out the Origin header an unsafe request of the dashboard carries. */
  crossSite?: boolean;
  /** The source address (default: the client's). */
  from?: string;
  /** Another address of the service than API_URL (a replica of the cluster). */
  baseUrl?: string;
  /** A form's fields, sent as `application/x-www-form-urlencoded` (in place of `body`). */
  form?: Record<string, string>;
}

/** An HTTP request like the dashboard's (its Origin on unsafe methods), from the client's own loopback address. */
export function requestFrom<T = UncheckedJson>(
  from: string,
  method: string,
  path: string,
  options: RequestOptions = {},
): Promise<Answer<T> & { setCookie: string[] }> {
  const url = new URL((options.baseUrl ?? apiUrl()) + path);
  const headers: Record<string, string> = { ...options.headers };
  if (options.cookie) headers.cookie = options.cookie;
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  if (!['GET', 'HEAD'].includes(method) && !options.crossSite && !headers.origin) headers.origin = serviceOrigin();
  const body = options.form
    ? new URLSearchParams(options.form).toString()
    : options.body === undefined
      ? undefined
      : JSON.stringify(options.body);
  if (body !== undefined) headers['content-type'] ??= options.form ? 'application/x-www-form-urlencoded' : 'application/json';
  return new Promise((resolve, reject) => {
    // The cluster's load balancer is HTTPS, its certificate for `localhost`, reached on 127.0.0.1:
    // the source address is an IPv4 loopback one, which cannot reach ::1.
    const secure = url.protocol === 'https:';
    const host = secure && url.hostname === 'localhost' ? '127.0.0.1' : url.hostname;
    const req = (secure ? https : http).request(
      {
        host,
        servername: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        headers,
        localAddress: options.from ?? from,
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (c: Buffer) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          const type = String(res.headers['content-type'] ?? '');
          const h = new Headers();
          for (const [k, v] of Object.entries(res.headers))
            if (v !== undefined && k !== 'set-cookie') h.set(k, Array.isArray(v) ? v.join(', ') : v);
          resolve({
            status: res.statusCode ?? 0,
            headers: h,
            body: /json/.test(type) && text ? JSON.parse(text) : (text as T),
            setCookie: res.headers['set-cookie'] ?? [],
          });
        });
      },
    );
    req.on('error', reject);
    req.end(body);
  });
}

/** The `name=value` of the session cookie an answer sets, or undefined. */
export function sessionCookieOf(setCookie: string[]): string | undefined {
  const line = setCookie.find((c) => /^(__Host-)?ut_session=[^;]+/.test(c));
  const pair = line?.split(';')[0];
  return pair && !pair.endsWith('=') ? pair : undefined;
}

/** A client of the service from one loopback address: every request a person's browser would make. */
export function client(from = ownLoopback()) {
  return {
    from,
    request: <T = UncheckedJson>(method: string, path: string, options: RequestOptions = {}) => requestFrom<T>(from, method, path, options),
  };
}

export type Client = ReturnType<typeof client>;

/**
 * A password no list holds. Letters, not digits, make it unique: each digit can stand for a letter
 * (0 for o, 1 for l or i ...), and the strength estimate tries those readings of a run of digits,
 * tens of times the CPU of letters.
 */
export const goodPassword = () =>
  `plum orchard ${Array.from({ length: 8 }, () => String.fromCharCode(97 + randomInt(26))).join('')} under snow`;

export interface SignedUpPerson {
  email: string;
  password: string;
  cookie: string;
  userId: string;
  accountId: string;
}

/** Signs a new person up and verifies them through the mail, as a person would. */
export async function signUp(c: Client, options: { email?: string; password?: string; name?: string } = {}): Promise<SignedUpPerson> {
  const email = options.email ?? uniqueAddress('person');
  const password = options.password ?? goodPassword();
  const since = new Date(Date.now() - 1000);
  const asked = await c.request('POST', '/api/v1/auth/signup', {
    body: { email, password, ...(options.name ? { name: options.name } : {}) },
  });
  if (asked.status !== 202) throw new Error(`sign-up answered ${asked.status}: ${JSON.stringify(asked.body)}`);
  const mail = await waitForMail(email, { subject: /Confirm your address/, since });
  const verified = await c.request('POST', '/api/v1/auth/verify', { body: { token: tokenFrom(mail) } });
  const cookie = sessionCookieOf(verified.setCookie);
  if (verified.status !== 200 || !cookie) throw new Error(`verify answered ${verified.status}: ${JSON.stringify(verified.body)}`);
  return { email, password, cookie, userId: verified.body.user.id, accountId: verified.body.account.id };
}

/** Signs in with a password; the cookie, or the refusal. */
export async function signIn(c: Client, email: string, password: string) {
  const res = await c.request('POST', '/api/v1/auth/signin', { body: { email, password } });
  return { res, cookie: sessionCookieOf(res.setCookie) };
}

/**
 * Makes `person` an owner of the account of `ownerToken` (one an operator opened) as a person
 * would: the owner invites the address, the mailed link is accepted in the person's session.
 */
export async function joinAccount(c: Client, person: SignedUpPerson, ownerToken: string): Promise<void> {
  const since = new Date(Date.now() - 1000);
  const invited = await c.request('POST', '/api/v1/account/invitations', {
    token: ownerToken,
    body: { email: person.email, role: 'owner' },
  });
  if (invited.status !== 201) throw new Error(`invitation answered ${invited.status}: ${JSON.stringify(invited.body)}`);
  const mail = await waitForMail(person.email, { subject: /invited/, since });
  const accepted = await c.request('POST', '/api/v1/auth/invitations/accept', { cookie: person.cookie, body: { token: tokenFrom(mail) } });
  if (accepted.status !== 200) throw new Error(`accepting answered ${accepted.status}: ${JSON.stringify(accepted.body)}`);
}
