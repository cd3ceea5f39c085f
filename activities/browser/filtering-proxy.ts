//! The browser's only way out: an HTTP proxy in the worker process that every browser context is
//! pointed at. Chromium never resolves a name itself; each request and CONNECT tunnel reaches the
//! proxy with a host name, and the proxy drops ad and tracker hosts (when asked), resolves the
//! name with the target guard and connects to the checked address (pinned), so neither a private
//! target nor DNS rebinding gets through. Each capture gets its own session (its own port), so
//! what a session dropped is exactly what that capture's page asked for.
import http from 'node:http';
import net from 'node:net';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import type { ToolError } from '../../contracts/errors.js';
import type { Logger } from '../../lib/logger.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import type { AdHostList } from './ad-hosts.js';
import { createSessionAdmission, type Drop, type ProxyPolicy, type SessionAdmission } from './proxy-admission.js';

export type { Drop, ProxyPolicy } from './proxy-admission.js';

export interface ProxySession {
  /** `http://127.0.0.1:<port>`: the proxy server for one browser context. */
  readonly url: string;
  /** Starts carrying traffic under `policy`; until then the session refuses everything. */
  setPolicy(policy: ProxyPolicy): void;
  /** Everything dropped so far, oldest first. */
  readonly drops: readonly Drop[];
  /**
   * Why the proxy did not carry traffic to `host:port` in this session, if it did not: the target
   * guard's refusal, or the failure to resolve or reach it. Tells a capture why its page failed.
   */
  errorFor(host: string, port: number): ToolError | undefined;
  /**
   * Forgets the guard's answers (each host's checked, pinned address) and the failures so far:
   * every host is resolved and checked by the guard again when next asked for. For a load made
   * again after the host's network changed, when the addresses seen before may be gone.
   */
  resolveAgain(): void;
  /** Stops listening and cuts every connection it carries. */
  close(): Promise<void>;
}

export interface FilteringProxy {
  /** A new session listening on its own loopback port. */
  openSession(): Promise<ProxySession>;
}

export interface FilteringProxyDeps {
  /** The service's target guard: resolves names and refuses non-public addresses. */
  guard: Pick<TargetGuard, 'resolveTarget'>;
  /** The ad and tracker list; a promise while it is still loading (ad checks wait for it). */
  adHosts: Pick<AdHostList, 'matches'> | Promise<Pick<AdHostList, 'matches'>>;
  /**
   * How long a connection to a target may take to open, milliseconds.
   * @default 10000. The capture's own deadline bounds everything else.
   */
  connectTimeoutMs?: number;
  log?: Logger;
}

/** Marks answers the proxy made itself (value: the error code), so a capture can tell them from the site's. */
export const PROXY_ANSWER_HEADER = 'x-filtering-proxy';

/** Headers that describe one connection, not the message: never forwarded. */
const HOP_BY_HOP = new Set([
  'connection',
  'proxy-connection',
  'keep-alive',
  'proxy-authorization',
  'proxy-authenticate',
  'te',
  'trailer',
  'transfer-encoding',
  'upgrade',
]);

/** Parses a CONNECT authority (`host:port`, `[v6]:port`); undefined when it is not one. */
export function parseAuthority(authority: string | undefined): { host: string; port: number } | undefined {
  const m = /^(\[[^\]]+\]|[^:[\]/?#@\s]+):(\d{1,5})$/.exec(authority ?? '');
  if (!m) return undefined;
  const port = Number(m[2]);
  if (port < 1 || port > 65535) return undefined;
  try {
    // The WHATWG parser normalises the host as browsers do (the port is kept apart: it drops default ones).
    return { host: new URL(`http://${m[1]}/`).hostname.replace(/^\[|\]$/g, ''), port };
  } catch {
    return undefined;
  }
}

/** Forwarded request headers: the client's, minus the ones about the hop to this proxy. */
export function forwardedHeaders(rawHeaders: readonly string[]): string[] {
  const connectionTokens = new Set<string>();
  for (let i = 0; i < rawHeaders.length; i += 2) {
    if (rawHeaders[i]!.toLowerCase() === 'connection')
      rawHeaders[i + 1]!.split(',').forEach((t) => connectionTokens.add(t.trim().toLowerCase()));
  }
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || connectionTokens.has(name)) continue;
    out.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  return out;
}

/** What one session's request and tunnel handlers share. */
interface SessionCarrier {
  readonly admission: SessionAdmission;
  /** Keeps a socket for the session's close to cut. */
  track(socket: net.Socket): void;
  connectTimeoutMs: number;
  log?: Logger;
}

/** Gives up on a connection that has not opened in time; once open, only the capture's deadline bounds it. */
function boundConnect(socket: net.Socket, timeoutMs: number, onTimeout: () => void): void {
  if (!socket.connecting) return;
  const timer = setTimeout(onTimeout, timeoutMs);
  socket.once('connect', () => clearTimeout(timer));
  socket.once('close', () => clearTimeout(timer));
}

/** A plain HTTP request in absolute form: answered by the proxy, or forwarded to the pinned target. */
function carryRequest(carrier: SessionCarrier, req: http.IncomingMessage, res: http.ServerResponse): void {
  const { admission, track, log } = carrier;
  let url: URL;
  try {
    url = new URL(req.url ?? '');
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' || !url.hostname || url.username || url.password) {
    res.writeHead(400, { connection: 'close' }).end();
    return;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const port = url.port ? Number(url.port) : 80;
  admission.admit(host, port).then(
    (admitted) => {
      if (!admitted.ok) {
        req.resume();
        res.writeHead(admitted.status, { 'content-type': 'text/plain', [PROXY_ANSWER_HEADER]: admitted.code }).end(admitted.message);
        return;
      }
      const upstream = http.request({
        host: admitted.target.address,
        family: admitted.target.family,
        port,
        method: req.method,
        path: `${url.pathname}${url.search}`,
        headers: forwardedHeaders(req.rawHeaders),
        agent: false,
      });
      upstream.on('socket', (socket) => {
        track(socket);
        boundConnect(socket, carrier.connectTimeoutMs, () =>
          upstream.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })),
        );
      });
      upstream.once('response', (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardedHeaders(answer.rawHeaders));
        answer.pipe(res);
        answer.once('error', () => res.destroy());
      });
      upstream.once('error', (err) => {
        if (res.headersSent) return void res.destroy();
        admission.unreachable(host, port, err);
        res.writeHead(502, { 'content-type': 'text/plain', [PROXY_ANSWER_HEADER]: 'upstream_error' }).end('upstream unreachable');
      });
      res.once('close', () => upstream.destroy());
      req.pipe(upstream);
    },
    (err: unknown) => {
      log?.warn({ err }, 'filtering proxy failed on a request');
      res.destroy();
    },
  );
}

/** A CONNECT: refused, or a tunnel to the pinned target. */
function carryTunnel(carrier: SessionCarrier, req: http.IncomingMessage, client: net.Socket, head: Buffer): void {
  const { admission, track, log } = carrier;
  const authority = parseAuthority(req.url);
  if (!authority) {
    client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
    return;
  }
  admission.admit(authority.host, authority.port).then(
    (admitted) => {
      if (!admitted.ok) {
        client.end(`HTTP/1.1 ${admitted.status} ${admitted.status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\n\r\n`);
        return;
      }
      const upstream = net.connect({ host: admitted.target.address, port: authority.port, family: admitted.target.family });
      track(upstream);
      boundConnect(upstream, carrier.connectTimeoutMs, () =>
        upstream.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })),
      );
      let established = false;
      upstream.once('error', (err) => {
        if (!established) admission.unreachable(authority.host, authority.port, err);
      });
      upstream.once('connect', () => {
        established = true;
        client.write('HTTP/1.1 200 Connection Established\r\n\r\n');
        if (head.length) upstream.write(head);
        upstream.pipe(client);
        client.pipe(upstream);
      });
      upstream.once('close', () => {
        if (client.destroyed) return;
        // Before the tunnel stands, Chromium is owed an answer; after, the tunnel just ends.
        if (established) client.end();
        else client.end('HTTP/1.1 502 Bad Gateway\r\n\r\n');
      });
      client.once('close', () => upstream.destroy());
    },
    (err: unknown) => {
      log?.warn({ err }, 'filtering proxy failed on a tunnel');
      client.destroy();
    },
  );
}

export function createFilteringProxy(deps: FilteringProxyDeps): FilteringProxy {
  const connectTimeoutMs = deps.connectTimeoutMs ?? 10_000;

  async function openSession(): Promise<ProxySession> {
    const admission = createSessionAdmission(deps);
    const sockets = new Set<net.Socket>();
    const track = (socket: net.Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy()); // a reset by either side ends that connection only
    };
    const carrier: SessionCarrier = { admission, track, connectTimeoutMs, log: deps.log };

    const server = http.createServer((req, res) => carryRequest(carrier, req, res));
    // Chromium's connections to the proxy (each carries many requests, or one tunnel).
    server.on('connection', track);
    server.on('connect', (req: http.IncomingMessage, client: net.Socket, head: Buffer) => carryTunnel(carrier, req, client, head));
    // Neither HTTP upgrades in absolute form nor anything but a proxy request is served.
    server.on('upgrade', (_req, socket: net.Socket) => socket.destroy());
    server.on('clientError', (_err, socket: net.Socket) => socket.destroy());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;

    return {
      url: `http://127.0.0.1:${port}`,
      drops: admission.drops,
      setPolicy: (next) => admission.setPolicy(next),
      errorFor: (host, targetPort) => admission.errorFor(host, targetPort),
      resolveAgain: () => admission.resolveAgain(),
      async close() {
        const closed = new Promise((resolve) => server.close(resolve));
        for (const socket of sockets) socket.destroy();
        await closed;
      },
    };
  }

  return { openSession };
}
