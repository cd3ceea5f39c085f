//! The readable summary of a TLS certificate that ssl-check and smtp-test report: subject and
//! issuer as distinguished-name strings, validity in ISO 8601, whole days left and the names it
//! covers. Pure: a peer certificate and a clock in, plain JSON out.
import { X509Certificate } from 'node:crypto';
import type { PeerCertificate } from 'node:tls';
import type { CertificateSummary } from '../../domain/tools/ssl-check.js';

const DAY_MS = 86_400_000;

/** Node prints a DN one attribute per line; a comma-separated line reads better in JSON. */
function distinguishedName(text: string): string {
  return text.split('\n').filter(Boolean).join(', ');
}

/**
 * DNS names and IP addresses of a subjectAltName string as Node prints it:
 * `DNS:a.example, IP Address:192.0.2.1, DNS:"quoted, with comma"` (values with special characters
 * are JSON-quoted since Node 17). Other kinds (URI, email) are not host names and are left out.
 */
export function parseSubjectAltNames(text: string | undefined): string[] {
  if (!text) return [];
  const names: string[] = [];
  const entry = /(?:^|, )([A-Za-z ]+):("(?:[^"\\]|\\.)*"|[^,]*)/g;
  for (const m of text.matchAll(entry)) {
    const kind = m[1]!;
    let value = m[2]!;
    if (value.startsWith('"')) {
      try {
        value = JSON.parse(value) as string;
      } catch {
        continue;
      }
    }
    if (kind === 'DNS' || kind === 'IP Address') names.push(value);
  }
  return names;
}

/** ISO 8601 of an OpenSSL date (`Mar  1 12:00:00 2024 GMT`). */
export function isoDate(openSslDate: string): string {
  const date = new Date(openSslDate);
  if (Number.isNaN(date.getTime())) throw new TypeError(`unreadable certificate date ${JSON.stringify(openSslDate)}`);
  return date.toISOString();
}

export function daysUntil(isoTime: string, now: Date): number {
  return Math.floor((Date.parse(isoTime) - now.getTime()) / DAY_MS);
}

export function summariseCertificate(cert: PeerCertificate, now: Date = new Date()): CertificateSummary {
  const x509 = new X509Certificate(cert.raw);
  const validTo = isoDate(x509.validTo);
  return {
    subject: distinguishedName(x509.subject),
    issuer: distinguishedName(x509.issuer),
    validFrom: isoDate(x509.validFrom),
    validTo,
    daysRemaining: daysUntil(validTo, now),
    subjectAlternativeNames: parseSubjectAltNames(x509.subjectAltName),
    serialNumber: x509.serialNumber.toLowerCase(),
    fingerprintSha256: x509.fingerprint256,
  };
}
