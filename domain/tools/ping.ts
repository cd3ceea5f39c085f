//! ping: round-trip statistics to a public host. Its precheck needs no I/O: the host is a host,
//! or a URL whose host is used (a full URL is accepted). Whether the host may be reached
//! is the target guard's decision, later.
import { defineTool, FAILURES } from './definition.js';
import { invalidField } from '../../contracts/errors.js';

export interface PingInput {
  host: string;
  count: number;
  port: number;
  timeoutMs: number;
}

/** What became of one probe. `reply` (ICMP echo reply) and `open` (TCP handshake done) succeed. */
export type ProbeStatus = 'reply' | 'open' | 'timeout' | 'refused' | 'unreachable' | 'error';

export interface PingAttempt {
  /** 1-based, in sending order. */
  sequence: number;
  success: boolean;
  /** Round trip in milliseconds; null when the probe got no answer. */
  latencyMs: number | null;
  status: ProbeStatus;
}

export interface PingSummary {
  sent: number;
  received: number;
  packetLossPercent: number;
  /** Null when no probe was answered (100% loss): there is no round trip to report. */
  minMs: number | null;
  avgMs: number | null;
  maxMs: number | null;
  jitter: number | null;
}

export type PingMethod = 'icmp' | 'tcp';

export interface PingOutput extends PingSummary {
  /** Additive: the host probed (a URL's host when a URL was given), normalised. */
  host: string;
  resolvedIp: string;
  method: PingMethod;
  /** Additive: the TCP port probed; only with method `tcp`. */
  port?: number;
  attempts: PingAttempt[];
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

export const ping = defineTool<PingInput, PingOutput>()({
  name: 'ping',
  group: 'network',
  cost: 2,
  pool: 'network',
  timeoutMs: 30_000,
  failures: FAILURES.connects,
  precheck,
  targets: (input) => [{ host: pingHost(input.host), port: input.port }],
});
