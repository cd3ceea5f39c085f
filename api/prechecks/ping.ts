//! ping checks that need no I/O: the host is a host, or a URL whose host is used (SPEC: "a full
//! URL is accepted"). Whether the host may be reached is the target guard's decision, later.
import { invalidField } from './invalid-field.js';

export interface PingInput {
  host: string;
  count: number;
  port: number;
  timeoutMs: number;
}

const HAS_SCHEME = /^[a-z][a-z0-9+.-]*:\/\//i;

/** The host to probe: `host` itself, or the host of a URL (`https://example.com/x` -> `example.com`). */
export function pingHost(host: string): string {
  const text = typeof host === 'string' ? host.trim() : '';
  if (!text) throw invalidField('/host', 'must be a hostname, an IP address or a URL');
  if (!HAS_SCHEME.test(text)) return text;
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw invalidField('/host', 'looks like a URL but cannot be parsed');
  }
  if (!url.hostname) throw invalidField('/host', 'is a URL without a host');
  return url.hostname;
}

export function precheck(input: PingInput): void {
  pingHost(input.host);
}
