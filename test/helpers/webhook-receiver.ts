//! A webhook receiver for integration tests: an HTTP server in the test process on 127.0.0.1,
//! registered as `http://localhost:<port>/...` (the stack runs with WEBHOOKS_ALLOW_LOCALHOST, and
//! delivery to `localhost` connects to 127.0.0.1). It keeps every request it got, raw body
//! included, and answers as the test tells it: a status, after a delay, or never.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { request, type TestAccount, type UncheckedJson } from './api.js';

export interface Delivery {
  path: string;
  method: string;
  headers: http.IncomingHttpHeaders;
  rawBody: string;
  body: UncheckedJson;
  /** Date.now() when the whole request had arrived. */
  receivedAt: number;
  /** The status answered, once answered; null while held or hanging. */
  answered: number | null;
  /** Date.now() when the exchange ended (answered, or the sender gave up); null while it is open. */
  closedAt: number | null;
}

/** `after`: the answer waits for it (a test's gate), then for `delayMs`. */
export type Answer = { status: number; delayMs?: number; after?: Promise<unknown>; headers?: Record<string, string> } | { hang: true };

/** How a path answers its n-th request (1-based). */
export type Behaviour = (delivery: Delivery, n: number) => Answer;

export const ok: Behaviour = () => ({ status: 200 });

export interface Receiver {
  /** The URL to register for `path` (default `/hook`). */
  url(path?: string): string;
  /** Every delivery so far, or those to `path`. */
  deliveries(path?: string): Delivery[];
  /** Sets how `path` answers (default: 200 at once). */
  behave(path: string, behaviour: Behaviour): void;
  /** Resolves with every delivery once `predicate` holds for them; rejects after `timeoutMs`. */
  waitFor(predicate: (all: Delivery[]) => boolean, timeoutMs?: number, what?: string): Promise<Delivery[]>;
  close(): Promise<void>;
}

/** A receiver listening on a free port of 127.0.0.1. */
export async function startReceiver(): Promise<Receiver> {
  const receiver = createReceiver();
  await receiver.listen();
  return receiver;
}

/** A receiver that listens once `listen` is called (its URLs name the port it listens on then). */
export function createReceiver(): Receiver & { listen(): Promise<void> } {
  const got: Delivery[] = [];
  const behaviours = new Map<string, Behaviour>();
  const counts = new Map<string, number>();
  const timers = new Set<NodeJS.Timeout>();
  const waiters = new Set<() => void>();
  const notify = () => {
    for (const w of waiters) w();
  };

  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const rawBody = Buffer.concat(chunks).toString('utf8');
      let body: UncheckedJson = null;
      try {
        body = JSON.parse(rawBody);
      } catch {
        body = null;
      }
      const path = (req.url ?? '/').split('?')[0]!;
      const delivery: Delivery = {
        path,
        method: req.method ?? '',
        headers: req.headers,
        rawBody,
        body,
        receivedAt: Date.now(),
        answered: null,
        closedAt: null,
      };
      res.on('close', () => {
        delivery.closedAt = Date.now();
        notify();
      });
      const n = (counts.get(path) ?? 0) + 1;
      counts.set(path, n);
      got.push(delivery);
      const answer = (behaviours.get(path) ?? ok)(delivery, n);
      if ('hang' in answer) return notify();
      const send = () => {
        delivery.answered = answer.status;
        if (!res.destroyed) res.writeHead(answer.status, { 'content-type': 'text/plain', ...answer.headers }).end('ok');
        notify();
      };
      if (!answer.after && !answer.delayMs) return send();
      notify();
      void (answer.after ?? Promise.resolve()).then(() => {
        const timer = setTimeout(() => {
          timers.delete(timer);
          send();
        }, answer.delayMs ?? 0);
        timers.add(timer);
      });
    });
  });
  const select = (path?: string) => (path === undefined ? [...got] : got.filter((d) => d.path === path));

  return {
    listen: () => new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve)),
    url(path = '/hook') {
      const address = server.address() as AddressInfo | null;
      if (!address) throw new Error('receiver: not listening yet');
      return `http://localhost:${address.port}${path}`;
    },
    deliveries: select,
    behave: (path, behaviour) => void behaviours.set(path, behaviour),
    waitFor(predicate, timeoutMs = 30_000, what = 'the expected deliveries') {
      return new Promise((resolve, reject) => {
        const check = () => {
          if (!predicate(select())) return;
          cleanup();
          resolve(select());
        };
        const timer = setTimeout(() => {
          cleanup();
          const seen = select().map((d) => `${d.path} ${d.body?.event ?? '?'} -> ${d.answered ?? 'no answer'}`);
          reject(new Error(`receiver: no ${what} within ${timeoutMs} ms; got ${seen.length}: ${seen.join(', ')}`));
        }, timeoutMs);
        const cleanup = () => {
          clearTimeout(timer);
          waiters.delete(check);
        };
        waiters.add(check);
        check();
      });
    },
    async close() {
      for (const t of timers) clearTimeout(t);
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

/** An endpoint as the account API shows it. */
export interface Endpoint {
  id: string;
  url: string;
  status: 'active' | 'disabled';
  consecutiveFailures: number;
  createdAt: string;
  disabledAt: string | null;
  eventTypes: string[];
  previousSecretExpiresAt: string | null;
}

/** Registers `url` on the account; the answer carries the signing secret. */
export async function registerEndpoint(account: TestAccount, url: string, eventTypes?: string[]): Promise<Endpoint & { secret: string }> {
  const res = await request('POST', '/api/v1/account/webhooks', {
    token: account.ownerToken,
    body: { url, ...(eventTypes ? { eventTypes } : {}) },
  });
  if (res.status !== 201) throw new Error(`could not register ${url}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** The endpoint as listed (tests read whichever fields they check). */
export async function endpointOf(account: TestAccount, id: string): Promise<UncheckedJson> {
  const res = await request('GET', '/api/v1/account/webhooks', { token: account.ownerToken });
  if (res.status !== 200) throw new Error(`could not list webhooks: ${res.status}`);
  return (res.body as Endpoint[]).find((e) => e.id === id);
}

/** Attempts, newest first (the route's shape: id, eventId, event, attemptedAt, statusCode, durationMs, success, error). */
export async function attemptsOf(account: TestAccount, id: string, limit?: number): Promise<UncheckedJson[]> {
  const res = await request('GET', `/api/v1/account/webhooks/${id}/attempts${limit ? `?limit=${limit}` : ''}`, {
    token: account.ownerToken,
  });
  if (res.status !== 200) throw new Error(`could not read attempts: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body;
}

/** Presses Send test; returns the event id. */
export async function sendTest(account: TestAccount, id: string): Promise<string> {
  const res = await request('POST', `/api/v1/account/webhooks/${id}/test`, { token: account.ownerToken });
  if (res.status !== 202) throw new Error(`send test answered ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.eventId;
}

/**
 * Sends the endpoint 20 test events, each attempted at once and failed by its receiver, and waits
 * until the 20th failure in a row has disabled it; returns the endpoint then.
 */
export async function disableByFailures(account: TestAccount, id: string): Promise<UncheckedJson> {
  for (let i = 0; i < 20; i++) await sendTest(account, id);
  return eventually(
    () => endpointOf(account, id),
    (e) => e.status === 'disabled',
    60_000,
    'disabled',
  );
}

/** Reads until `done` holds, every 200 ms; throws with the last value after `timeoutMs`. */
export async function eventually<T>(
  read: () => Promise<T>,
  done: (value: T) => boolean,
  timeoutMs = 20_000,
  what = 'the condition',
): Promise<T> {
  const until = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > until) throw new Error(`${what} did not hold within ${timeoutMs} ms; last value: ${JSON.stringify(value)}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

export const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));
