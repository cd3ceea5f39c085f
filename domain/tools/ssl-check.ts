//! ssl-check: the certificate a TLS server presents. Its precheck needs no I/O: the host is a
//! bare host (without a scheme), with the port, if any, in its own field.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, ISO_UTC_PATTERN, OrNull, type Validated } from '../../lib/schema-types.js';
import { defineTool, FAILURES } from './definition.js';
import { invalidField } from '../../contracts/errors.js';

export const SslCheckInput = ClosedObject(
  {
    host: Type.String({
      minLength: 1,
      maxLength: 255,
      description: 'Hostname or IP address, without a scheme, path or port (example.com, not https://example.com/).',
    }),
    port: Defaulted(
      Type.Integer({
        minimum: 1,
        maximum: 65535,
        description:
          'Additive: TLS port, 1 to 65535 (implicit TLS from the first byte; STARTTLS services such as SMTP on 587 are for smtp-test).',
      }),
      443,
    ),
  },
  {
    description:
      'A host to open a TLS connection to (with SNI) and report the certificate it presents. Private, loopback, link-local and other non-public addresses are refused (422 target_not_allowed), also when a name resolves to one.',
    examples: [{ host: 'example.com', port: 443 }],
  },
);
export type SslCheckInput = Validated<typeof SslCheckInput>;
export const SslCheckOutput = ClosedObject(
  {
    host: Type.String({ description: 'Host checked (lower case; IP addresses in canonical form).' }),
    port: Type.Integer({ description: 'Additive: port checked.' }),
    issuer: Type.String({
      description:
        "Issuing authority's distinguished name, attributes comma-separated in certificate order, e.g. C=US, O=Let's Encrypt, CN=R3.",
    }),
    subject: Type.String({ description: "Certificate subject's distinguished name, e.g. CN=example.com." }),
    validFrom: Type.String({
      pattern: ISO_UTC_PATTERN,
      description: 'ISO 8601 start of validity, UTC.',
    }),
    validTo: Type.String({ pattern: ISO_UTC_PATTERN, description: 'ISO 8601 expiry, UTC.' }),
    daysRemaining: Type.Integer({ description: 'Whole days until expiry, rounded down; negative when expired.' }),
    subjectAlternativeNames: Type.Array(Type.String(), {
      description: 'Every hostname (DNS name, wildcards as written) and IP address the certificate covers, in certificate order.',
    }),
    chainValid: Type.Boolean({
      description: 'Additive: true when the chain leads to a trusted root and every certificate in it is within its validity period.',
    }),
    chainError: Type.Optional(
      Type.String({
        description:
          'Additive, only when chainValid is false: the verification error, e.g. CERT_HAS_EXPIRED, DEPTH_ZERO_SELF_SIGNED_CERT, SELF_SIGNED_CERT_IN_CHAIN, UNABLE_TO_VERIFY_LEAF_SIGNATURE.',
      }),
    ),
    hostnameMatches: Type.Boolean({
      description: 'Additive: true when the certificate covers host (subjectAltName, wildcards one label deep).',
    }),
    protocol: OrNull(Type.String(), { description: 'Additive: negotiated TLS version, e.g. TLSv1.3.' }),
    serialNumber: Type.String({ description: 'Additive: serial number, lower-case hex.' }),
    fingerprintSha256: Type.String({ description: 'Additive: SHA-256 fingerprint of the certificate, colon-separated hex.' }),
  },
  {
    description:
      'The presented certificate. An expired, self-signed or untrusted certificate is still a 200 answer: chainValid, chainError and hostnameMatches say what is wrong. A server that cannot be reached or completes no TLS handshake is 502 upstream_error.',
    examples: [
      {
        host: 'example.com',
        port: 443,
        issuer: 'C=US, O=DigiCert Inc, CN=DigiCert Global G2 TLS RSA SHA256 2020 CA1',
        subject: 'C=US, ST=California, L=Los Angeles, O=Internet Corporation for Assigned Names and Numbers, CN=*.example.com',
        validFrom: '2025-01-15T00:00:00.000Z',
        validTo: '2026-01-15T23:59:59.000Z',
        daysRemaining: 180,
        subjectAlternativeNames: ['*.example.com', 'example.com'],
        chainValid: true,
        hostnameMatches: true,
        protocol: 'TLSv1.3',
        serialNumber: '0ad893bafa68b0b7fb7a404f06ecaf9a',
        fingerprintSha256: '31:0D:B7:AF:4B:2B:C9:04:0C:83:44:70:1A:CA:08:D0:C6:93:81:E3:6E:19:7B:5A:C9:EF:85:11:9D:DC:2D:AD',
      },
    ],
  },
);
export type SslCheckOutput = Static<typeof SslCheckOutput>;

/** What the certificate itself says, read from the presented certificate. */
export type CertificateSummary = Pick<
  SslCheckOutput,
  'subject' | 'issuer' | 'validFrom' | 'validTo' | 'daysRemaining' | 'subjectAlternativeNames' | 'serialNumber' | 'fingerprintSha256'
>;

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
  schemas: { input: SslCheckInput, output: SslCheckOutput },
  timeoutMs: 20_000,
  failures: FAILURES.connects,
  precheck,
  targets: (input) => [{ host: sslHost(input.host), port: input.port }],
});
