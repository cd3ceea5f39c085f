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
import { ToolError } from '../../lib/errors.js';
import { upstreamError } from '../../lib/upstream.js';
import type { Logger } from '../../lib/logger.js';
import type { ResolvedTarget, TargetGuard } from '../../lib/target-guard.js';
import type { AdHostList } from './ad-hosts.js';

/** What a session drops. Set when a capture takes the session. */
export interface ProxyPolicy {
  /** Drop hosts of the ad and tracker list. */
  blockAds: boolean;
  /**
   * Never dropped as an ad host: the host of the page the user asked for, so a screenshot of an
   * ad network's own site still renders.
   */
  adExemptHost?: string;
}

/** One request or tunnel the proxy refused to carry. */
export type Drop =
  | { kind: 'ad'; host: string; port: number }
  | { kind: 'target'; host: string; port: number; error: ToolError };

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
const HOP_BY_HOP = new Set(['connection', 'proxy-connection', 'keep-alive', 'proxy-authorization', 'proxy-authenticate', 'te', 'trailer', 'transfer-encoding', 'upgrade']);

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
    if (rawHeaders[i]!.toLowerCase() === 'connection') rawHeaders[i + 1]!.split(',').forEach((t) => connectionTokens.add(t.trim().toLowerCase()));
  }
  const out: string[] = [];
  for (let i = 0; i < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    if (HOP_BY_HOP.has(name) || connectionTokens.has(name)) continue;
    out.push(rawHeaders[i]!, rawHeaders[i + 1]!);
  }
  return out;
}

const canonicalHost = (host: string) => host.toLowerCase().replace(/\.$/, '');
const sameHost = (a: string, b: string | undefined) => b !== undefined && canonicalHost(a) === canonicalHost(b);
const hostKey = (host: string, port: number) => `${canonicalHost(host)}:${port}`;

type Admission = { ok: true; target: ResolvedTarget } | { ok: false; status: 403 | 502; code: string; message: string };

export function createFilteringProxy(deps: FilteringProxyDeps): FilteringProxy {
  const connectTimeoutMs = deps.connectTimeoutMs ?? 10_000;
  const log = deps.log;

  /** Gives up on a connection that has not opened in time; once open, only the capture's deadline bounds it. */
  function boundConnect(socket: net.Socket, onTimeout: () => void): void {
    if (!socket.connecting) return;
    const timer = setTimeout(onTimeout, connectTimeoutMs);
    socket.once('connect', () => clearTimeout(timer));
    socket.once('close', () => clearTimeout(timer));
  }

  async function openSession(): Promise<ProxySession> {
    // Until a capture takes the session it carries nothing: a warm page cannot reach out early,
    // and the browser's fallback session (never taken) refuses everything.
    let policy: ProxyPolicy | undefined;
    const drops: Drop[] = [];
    const failures = new Map<string, ToolError>();
    const sockets = new Set<net.Socket>();
    const track = (socket: net.Socket) => {
      sockets.add(socket);
      socket.once('close', () => sockets.delete(socket));
      socket.on('error', () => socket.destroy()); // a reset by either side ends that connection only
    };

    // One answer per host and port for the session's capture: a page's many requests to a host
    // cost one lookup, and all of them reach the one address the guard checked.
    const targets = new Map<string, Promise<ResolvedTarget>>();
    function resolve(host: string, port: number): Promise<ResolvedTarget> {
      const key = hostKey(host, port);
      let target = targets.get(key);
      if (!target) {
        target = deps.guard.resolveTarget(host, port);
        target.catch(() => {}); // awaited by every request that asks; none must go unhandled
        targets.set(key, target);
      }
      return target;
    }

    /** Decides on one host and port: dropped as an ad, refused by the guard, or its pinned target. */
    async function admit(host: string, port: number): Promise<Admission> {
      if (!policy) return { ok: false, status: 403, code: 'no_capture', message: 'no capture' };
      if (policy.blockAds && !sameHost(host, policy.adExemptHost) && (await deps.adHosts).matches(host)) {
        drops.push({ kind: 'ad', host, port });
        return { ok: false, status: 403, code: 'ad_host', message: 'ad or tracker host' };
      }
      try {
        return { ok: true, target: await resolve(host, port) };
      } catch (err) {
        if (!(err instanceof ToolError)) throw err;
        failures.set(hostKey(host, port), err);
        if (err.code === 'target_not_allowed') {
          drops.push({ kind: 'target', host, port, error: err });
          log?.debug({ host, port, reason: err.extras.reason }, 'browser request refused by the target guard');
          return { ok: false, status: 403, code: err.code, message: err.message };
        }
        return { ok: false, status: 502, code: err.code, message: err.message };
      }
    }

    function unreachable(host: string, port: number, err: unknown): void {
      failures.set(hostKey(host, port), upstreamError(err, host, port));
    }

    function onRequest(req: http.IncomingMessage, res: http.ServerResponse) {
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
      admit(host, port).then(
        (admission) => {
          if (!admission.ok) {
            req.resume();
            res.writeHead(admission.status, { 'content-type': 'text/plain', [PROXY_ANSWER_HEADER]: admission.code }).end(admission.message);
            return;
          }
          const upstream = http.request({
            host: admission.target.address,
            family: admission.target.family,
            port,
            method: req.method,
            path: `${url.pathname}${url.search}`,
            headers: forwardedHeaders(req.rawHeaders),
            agent: false,
          });
          upstream.on('socket', (socket) => {
            track(socket);
            boundConnect(socket, () => upstream.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })));
          });
          upstream.once('response', (answer) => {
            res.writeHead(answer.statusCode ?? 502, answer.statusMessage, forwardedHeaders(answer.rawHeaders));
            answer.pipe(res);
            answer.once('error', () => res.destroy());
          });
          upstream.once('error', (err) => {
            if (res.headersSent) return void res.destroy();
            unreachable(host, port, err);
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

    function onConnect(req: http.IncomingMessage, client: net.Socket, head: Buffer) {
      const authority = parseAuthority(req.url);
      if (!authority) {
        client.end('HTTP/1.1 400 Bad Request\r\n\r\n');
        return;
      }
      admit(authority.host, authority.port).then(
        (admission) => {
          if (!admission.ok) {
            client.end(`HTTP/1.1 ${admission.status} ${admission.status === 403 ? 'Forbidden' : 'Bad Gateway'}\r\n\r\n`);
            return;
          }
          const upstream = net.connect({ host: admission.target.address, port: authority.port, family: admission.target.family });
          track(upstream);
          boundConnect(upstream, () => upstream.destroy(Object.assign(new Error('connect timeout'), { code: 'ETIMEDOUT' })));
          let established = false;
          upstream.once('error', (err) => {
            if (!established) unreachable(authority.host, authority.port, err);
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

    const server = http.createServer(onRequest);
    // Chromium's connections to the proxy (each carries many requests, or one tunnel).
    server.on('connection', track);
    server.on('connect', onConnect);
    // Neither HTTP upgrades in absolute form nor anything but a proxy request is served.
    server.on('upgrade', (_req, socket: net.Socket) => socket.destroy());
    server.on('clientError', (_err, socket: net.Socket) => socket.destroy());
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const { port } = server.address() as AddressInfo;

    return {
      url: `http://127.0.0.1:${port}`,
      drops,
      setPolicy(next) {
        policy = { ...next };
      },
      errorFor(host, targetPort) {
        return failures.get(hostKey(host, targetPort));
      },
      async close() {
        const closed = new Promise((resolve) => server.close(resolve));
        for (const socket of sockets) socket.destroy();
        await closed;
      },
    };
  }

  return { openSession };
}
