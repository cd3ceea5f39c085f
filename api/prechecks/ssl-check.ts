//! ssl-check checks that need no I/O: the host is a bare host (SPEC: "without a scheme"), with
//! the port, if any, in its own field.
import { invalidField } from './invalid-field.js';

export interface SslCheckInput {
  host: string;
  port: number;
}

/** Rejects URLs, paths and `host:port` with a message that says what to send instead. */
export function sslHost(host: string): string {
  const text = typeof host === 'string' ? host.trim() : '';
  if (!text) throw invalidField('/host', 'must be a hostname or an IP address');
  if (/^[a-z][a-z0-9+.-]*:\/\//i.test(text) || /[/?#@]/.test(text)) throw invalidField('/host', 'must be a hostname without a scheme or path, e.g. example.com');
  if (/^[^:[\]]+:\d*$/.test(text) || /^\[[^\]]*\]:\d*$/.test(text)) throw invalidField('/host', 'must not carry a port; give it in the port field');
  return text;
}

export function precheck(input: SslCheckInput): void {
  sslHost(input.host);
}
