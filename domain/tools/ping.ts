//! ping: round-trip statistics to a public host. Its precheck needs no I/O: the host is a host,
//! or a URL whose host is used (a full URL is accepted). Whether the host may be reached
//! is the target guard's decision, later.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, OrNull, StringEnum, type Validated } from '../../lib/schema-types.js';
import { defineTool, FAILURES } from './definition.js';
import { invalidField } from '../../contracts/errors.js';

export const PingInput = ClosedObject(
  {
    host: Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'Hostname or IP address (IPv6 with or without brackets). A full URL is accepted and its host is used (https://example.com/page probes example.com).',
    }),
    count: Defaulted(Type.Integer({ minimum: 1, maximum: 10, description: 'Number of probes, 1 to 10. Probes start 200 ms apart.' }), 4),
    port: Defaulted(Type.Integer({ minimum: 1, maximum: 65535, description: 'TCP port used when ICMP is unavailable, 1 to 65535.' }), 443),
    timeoutMs: Defaulted(
      Type.Integer({
        minimum: 100,
        maximum: 10000,
        description: 'Per-probe timeout in milliseconds, 100 to 10000. A slower answer counts as lost.',
      }),
      2000,
    ),
  },
  {
    description:
      'A public host to probe. Uses ICMP echo where the service may send it, otherwise times TCP handshakes to the given port. Private, loopback, link-local and other non-public addresses are refused (422 target_not_allowed), also when a name resolves to one.',
    examples: [{ host: 'example.com', count: 4, port: 443, timeoutMs: 2000 }],
  },
);
export type PingInput = Validated<typeof PingInput>;
export const PingOutput = ClosedObject(
  {
    host: Type.String({
      description: "Additive: the host probed (a URL's host when a URL was given), normalised: lower case, IP addresses in canonical form.",
    }),
    resolvedIp: Type.String({ description: 'Address the host resolved to; every probe went to it.' }),
    method: StringEnum(['icmp', 'tcp'], { description: 'icmp (echo request/reply) or tcp (time to complete a TCP handshake to port).' }),
    port: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 65535, description: 'Additive: the TCP port probed; present only when method is tcp.' }),
    ),
    sent: Type.Integer({ minimum: 1, description: 'Probes sent.' }),
    received: Type.Integer({ minimum: 0, description: 'Probes answered within the timeout.' }),
    packetLossPercent: Type.Number({ minimum: 0, maximum: 100, description: 'Percentage of probes with no reply, to two decimals.' }),
    minMs: OrNull(Type.Number(), { description: 'Fastest round trip in milliseconds; null when nothing answered.' }),
    avgMs: OrNull(Type.Number(), { description: 'Mean round trip in milliseconds; null when nothing answered.' }),
    maxMs: OrNull(Type.Number(), { description: 'Slowest round trip in milliseconds; null when nothing answered.' }),
    jitter: OrNull(Type.Number(), {
      description: 'Mean absolute difference between consecutive answered round trips, milliseconds; 0 with one reply, null with none.',
    }),
    attempts: Type.Array(
      ClosedObject({
        sequence: Type.Integer({ minimum: 1 }),
        success: Type.Boolean(),
        latencyMs: OrNull(Type.Number({ minimum: 0 })),
        status: StringEnum(['reply', 'open', 'timeout', 'refused', 'unreachable', 'error']),
      }),
      {
        description:
          'Per probe, in order: sequence (from 1), success, latencyMs (null when unanswered) and status: reply (ICMP answer), open (TCP handshake completed), timeout, refused (TCP reset: the port is closed), unreachable or error.',
      },
    ),
  },
  {
    description: 'Round-trip statistics. 100% packet loss is an answer (200): received is 0 and the round-trip figures are null.',
    examples: [
      {
        host: 'example.com',
        resolvedIp: '93.184.215.14',
        method: 'icmp',
        sent: 2,
        received: 2,
        packetLossPercent: 0,
        minMs: 11.2,
        avgMs: 11.65,
        maxMs: 12.1,
        jitter: 0.9,
        attempts: [
          { sequence: 1, success: true, latencyMs: 12.1, status: 'reply' },
          { sequence: 2, success: true, latencyMs: 11.2, status: 'reply' },
        ],
      },
    ],
  },
);
export type PingOutput = Static<typeof PingOutput>;

export type PingAttempt = PingOutput['attempts'][number];
/** What became of one probe. `reply` (ICMP echo reply) and `open` (TCP handshake done) succeed. */
export type ProbeStatus = PingAttempt['status'];
/** The probes' counts and round trips (null when none was answered: there is no round trip to report). */
export type PingSummary = Pick<PingOutput, 'sent' | 'received' | 'packetLossPercent' | 'minMs' | 'avgMs' | 'maxMs' | 'jitter'>;
export type PingMethod = PingOutput['method'];

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
  schemas: { input: PingInput, output: PingOutput },
  timeoutMs: 30_000,
  failures: FAILURES.connects,
  precheck,
  targets: (input) => [{ host: pingHost(input.host), port: input.port }],
});
