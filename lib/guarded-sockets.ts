//! Raw TCP and TLS connections that reach only addresses the target guard checked (smtp-test,
//! ssl-check, ping over TCP): the host is resolved once by the guard and the socket is pinned to
//! that address, while SNI and certificate checks keep using the name.
import net from 'node:net';
import tls from 'node:tls';
import type { ResolvedTarget, TargetGuard } from './target-guard.js';
import { Deadline, pinnedLookup, sameAddress, withRoots, type CaOption } from './upstream.js';
import { spanFailed, startSpan } from './trace-context.js';

export interface GuardedSocketsOptions {
  /** The guard every connection goes through. */
  guard: TargetGuard;
  /**
   * Extra CA certificates (PEM) to trust besides Node's bundled roots.
   * @default none (Node's roots plus `NODE_EXTRA_CA_CERTS`). Set for private PKI or tests.
   */
  ca?: CaOption;
}

export interface GuardedConnectOptions {
  /** Host as the user typed it; resolved and checked by the guard. Give this or `target`. */
  host?: string;
  /** Port to connect to (ignored when `target` is given; the target carries its port). */
  port?: number;
  /** A target this guard already resolved, e.g. for repeated probes of the same address. */
  target?: ResolvedTarget;
  /**
   * Implicit TLS right after connecting, SNI and the certificate check on the target's hostname
   * (no SNI for an IP literal). @default false
   */
  tls?: boolean;
  /**
   * Fail the handshake on an invalid certificate. Turn off only to report on certificates
   * (ssl-check): the result then carries `authorized` and `authorizationError`. @default true
   */
  rejectUnauthorized?: boolean;
  /**
   * Connect (and handshake) deadline, milliseconds. The returned socket has no timeout and no
   * 'error' listener: the caller owns it from then on and must handle both.
   */
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface GuardedConnection<S extends net.Socket = net.Socket> {
  socket: S;
  target: ResolvedTarget;
  /** Time to the TCP handshake (or the TLS one, with `tls`), milliseconds. */
  connectMs: number;
  /** With TLS: whether the certificate chain and name verified, and why not. */
  authorized?: boolean;
  authorizationError?: string;
}

export interface StartTlsOptions {
  /** Name for SNI and the certificate check (the target's hostname). */
  hostname: string;
  rejectUnauthorized?: boolean;
  timeoutMs: number;
  signal?: AbortSignal;
}

export interface UpgradedSocket {
  socket: tls.TLSSocket;
  handshakeMs: number;
  authorized: boolean;
  authorizationError?: string;
}

export interface GuardedSockets {
  /** A TCP (or TLS) connection to a guard-checked address. */
  connect(options: GuardedConnectOptions & { tls: true }): Promise<GuardedConnection<tls.TLSSocket>>;
  connect(options: GuardedConnectOptions): Promise<GuardedConnection>;
  /** Upgrades a connected socket to TLS (SMTP STARTTLS). */
  startTls(socket: net.Socket, options: StartTlsOptions): Promise<UpgradedSocket>;
}

export function createGuardedSockets(options: GuardedSocketsOptions): GuardedSockets {
  const { guard } = options;
  const ca = withRoots(options.ca);

  function connect(opts: GuardedConnectOptions & { tls: true }): Promise<GuardedConnection<tls.TLSSocket>>;
  function connect(opts: GuardedConnectOptions): Promise<GuardedConnection>;
  async function connect(opts: GuardedConnectOptions): Promise<GuardedConnection> {
    const deadline = new Deadline(opts.timeoutMs, opts.signal);
    const where = { host: opts.target?.hostname ?? opts.host ?? '', port: opts.target?.port ?? opts.port ?? 0 };
    // The connection's span lasts until its socket closes: host, port, checked address and bytes
    // each way; never what was said on it (SMTP credentials go over these sockets).
    const span = startSpan('upstream connection', {
      'server.address': where.host,
      'server.port': where.port,
      'utility_tools.tls': Boolean(opts.tls),
    });
    let socket: net.Socket | undefined;
    try {
      let target: ResolvedTarget;
      if (opts.target) {
        if (!guard.issued(opts.target)) throw new TypeError('connect() takes only targets resolved by its own guard');
        target = opts.target;
      } else {
        if (opts.host === undefined || opts.port === undefined) throw new TypeError('connect() needs host and port, or target');
        target = await deadline.race(guard.resolveTarget(opts.host, opts.port));
      }
      where.host = target.hostname;
      span.setAttribute('network.peer.address', target.address);
      const started = performance.now();
      const base = { host: target.hostname, port: target.port, lookup: pinnedLookup(target), autoSelectFamily: false };
      const isIp = net.isIP(target.hostname) !== 0;
      socket = opts.tls
        ? tls.connect({
            ...base,
            servername: isIp ? undefined : target.hostname,
            rejectUnauthorized: opts.rejectUnauthorized ?? true,
            ca,
          })
        : net.connect(base);
      const opened = socket;
      opened.once('close', () => {
        span.setAttributes({ 'network.io.bytes_sent': opened.bytesWritten, 'network.io.bytes_received': opened.bytesRead });
        span.end();
      });
      await deadline.race(settleOn(socket, opts.tls ? 'secureConnect' : 'connect'));
      if (!sameAddress(socket.remoteAddress, target.address)) throw new Error(`pinned connection reached ${socket.remoteAddress}`);
      const connectMs = performance.now() - started;
      if (!opts.tls) return { socket, target, connectMs };
      const secure = socket as tls.TLSSocket;
      return { socket: secure, target, connectMs, authorized: secure.authorized, authorizationError: errorText(secure.authorizationError) };
    } catch (err) {
      const translated = deadline.translate(err, where.host, where.port);
      spanFailed(span, translated);
      if (socket) socket.destroy();
      else span.end(); // no socket to close it
      throw translated;
    } finally {
      deadline.clear();
    }
  }

  async function startTls(socket: net.Socket, opts: StartTlsOptions): Promise<UpgradedSocket> {
    const deadline = new Deadline(opts.timeoutMs, opts.signal);
    const started = performance.now();
    const isIp = net.isIP(opts.hostname) !== 0;
    const secure = tls.connect({
      socket,
      host: opts.hostname,
      servername: isIp ? undefined : opts.hostname,
      rejectUnauthorized: opts.rejectUnauthorized ?? true,
      ca,
    });
    try {
      await deadline.race(settleOn(secure, 'secureConnect'));
      return {
        socket: secure,
        handshakeMs: performance.now() - started,
        authorized: secure.authorized,
        authorizationError: errorText(secure.authorizationError),
      };
    } catch (err) {
      secure.destroy();
      throw deadline.translate(err, opts.hostname, socket.remotePort ?? 0);
    } finally {
      deadline.clear();
    }
  }

  return { connect, startTls } as GuardedSockets;
}

function errorText(error: unknown): string | undefined {
  if (error === null || error === undefined) return undefined;
  return error instanceof Error ? ((error as { code?: string }).code ?? error.message) : String(error);
}

function settleOn(socket: net.Socket, event: 'connect' | 'secureConnect'): Promise<void> {
  return new Promise((resolve, reject) => {
    const ok = () => {
      socket.off('error', fail);
      resolve();
    };
    const fail = (err: Error) => {
      socket.off(event, ok);
      reject(err);
    };
    socket.once(event, ok);
    socket.once('error', fail);
  });
}
