//! ssl-check: opens TLS (with SNI) to a guard-checked address and reports the certificate the
//! server presents. An expired, self-signed or mismatched certificate is an answer, not an error:
//! the handshake does not reject it, and `chainValid` / `hostnameMatches` say what is wrong.
import tls from 'node:tls';
import { sslHost, type SslCheckInput, type SslCheckOutput } from '../../domain/tools/ssl-check.js';
import { ToolError } from '../../contracts/errors.js';
import type { NetworkAccess } from '../../lib/network-access.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { summariseCertificate } from '../network/certificate-summary.js';

/** Node's code for a certificate that does not cover the name asked for. */
const NAME_MISMATCH = 'ERR_TLS_CERT_ALTNAME_INVALID';

export interface SslCheckDeps {
  net: Pick<NetworkAccess, 'sockets'>;
  /** Connect plus handshake deadline, milliseconds. @default 10000 */
  timeoutMs?: number;
  /** @default () => new Date() */
  now?: () => Date;
}

/**
 * Node verifies the chain first and checks the name only for a good chain, reporting the first
 * failure; the name is checked here on its own so both verdicts are known.
 */
export function verdicts(authorized: boolean, authorizationError: string | undefined, nameError: Error | undefined) {
  const chainValid = authorized || authorizationError === NAME_MISMATCH;
  return { chainValid, ...(chainValid ? {} : { chainError: authorizationError ?? 'UNKNOWN' }), hostnameMatches: nameError === undefined };
}

export function createSslCheck({
  net,
  timeoutMs = 10_000,
  now = () => new Date(),
}: SslCheckDeps): ToolHandler<SslCheckInput, SslCheckOutput> {
  return async (input, ctx) => {
    const conn = await net.sockets.connect({
      host: sslHost(input.host),
      port: input.port,
      tls: true,
      rejectUnauthorized: false,
      timeoutMs,
      signal: ctx.signal,
    });
    const { socket, target } = conn;
    socket.on('error', () => {}); // the socket is only read from below, then destroyed
    try {
      const cert = socket.getPeerCertificate();
      if (!cert?.raw)
        throw new ToolError('upstream_error', `${target.hostname}:${target.port} presented no certificate`, { reason: 'tls' });
      const nameError = tls.checkServerIdentity(target.hostname, cert);
      return {
        host: target.hostname,
        port: target.port,
        ...summariseCertificate(cert, now()),
        ...verdicts(conn.authorized ?? false, conn.authorizationError, nameError),
        protocol: socket.getProtocol(),
      };
    } finally {
      socket.destroy();
    }
  };
}
