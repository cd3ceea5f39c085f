//! ssl-check: the certificate a TLS server presents. Its precheck needs no I/O: the host is a
//! bare host (without a scheme), with the port, if any, in its own field.
import { defineTool, FAILURES } from './definition.js';
import { invalidField } from '../../contracts/errors.js';

export interface SslCheckInput {
  host: string;
  port: number;
}

export interface CertificateSummary {
  /** `CN=example.com` or `C=US, O=Let's Encrypt, CN=R3`: the DN's attributes in certificate order. */
  subject: string;
  issuer: string;
  validFrom: string;
  validTo: string;
  /** Whole days until expiry, rounded down; negative once expired. */
  daysRemaining: number;
  /** DNS names and IP addresses from subjectAltName, in certificate order. */
  subjectAlternativeNames: string[];
  serialNumber: string;
  fingerprintSha256: string;
}

export interface SslCheckOutput extends CertificateSummary {
  host: string;
  /** Additive: the port checked. */
  port: number;
  /** Additive: whether the chain leads to a trusted root and every certificate in it is in date. */
  chainValid: boolean;
  /** Additive, only when chainValid is false: OpenSSL's reason, e.g. CERT_HAS_EXPIRED. */
  chainError?: string;
  /** Additive: whether the certificate covers `host` (subjectAltName, as browsers check it). */
  hostnameMatches: boolean;
  /** Additive: the negotiated protocol, e.g. TLSv1.3. */
  protocol: string | null;
}

/** Rejects URLs, paths and `host:port` with a message that says what to send instead. */
export function sslHost(host: string): string {
  const text = typeof host === 'string' ? host.trim() : '';
  if (!text) throw invalidField('/host', 'must be a hostname or an IP address');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /[/?#@]/.test(text))
    throw invalidField('/host', 'must be a hostname without a scheme or path, e.g. example.com');
  if (/^[^:[\]]+:\d*$/.test(text) || /^\[[^\]]*\]:\d*$/.test(text))
    throw invalidField('/host', 'must not carry a port; give it in the port field');
  return text;
}

export function precheck(input: SslCheckInput): void {
  sslHost(input.host);
}

export const sslCheck = defineTool<SslCheckInput, SslCheckOutput>()({
  name: 'ssl-check',
  group: 'network',
  cost: 2,
  pool: 'network',
  timeoutMs: 20_000,
  failures: FAILURES.connects,
  precheck,
  targets: (input) => [{ host: sslHost(input.host), port: input.port }],
});
