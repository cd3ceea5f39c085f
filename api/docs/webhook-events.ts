//! The OpenAPI 3.1 `webhooks` section: each event kind as the service posts it to an endpoint,
//! with the signature headers a receiver checks. Numbers come from the delivery code itself.
import { EVENT_KINDS, EVENT_RETENTION_MS } from '../../contracts/event-kinds.js';
import { SIGNATURE_TOLERANCE_SECONDS, WEBHOOK_HEADERS } from '../../lib/webhook-signature.js';
import { WEBHOOK_TIMEOUT_MS, WEBHOOK_USER_AGENT } from '../../domain/webhooks/index.js';
import {
  DISABLE_AFTER_FAILURES,
  LATER_RETRY_DELAY_MS,
  MAX_DELIVERY_AGE_MS,
  RETRY_DELAYS_MS,
  SECRET_OVERLAP_MS,
} from '../../contracts/webhook-policy.js';
import { json, type Json } from './openapi-parts.js';
import { EVENT_PAYLOADS } from './event-schemas.js';
import { ref } from './schema-parts.js';

function duration(ms: number): string {
  for (const [unit, size] of [
    ['days', 86_400_000],
    ['h', 3_600_000],
    ['min', 60_000],
  ] as const) {
    if (ms >= size && ms % size === 0) return `${ms / size} ${unit === 'days' && ms === size ? 'day' : unit}`;
  }
  return `${ms / 1000} s`;
}

/** "5 s, 30 s, ... and 1 h, then every 2 h, for at most 3 days": the retry schedule in words. */
export function retrySchedule(): string {
  const first = RETRY_DELAYS_MS.map(duration);
  return `${first.slice(0, -1).join(', ')} and ${first.at(-1)}, then every ${duration(LATER_RETRY_DELAY_MS)}, for at most ${duration(MAX_DELIVERY_AGE_MS)}`;
}

/** Values the overview's `{{...}}` placeholders take. */
export const DELIVERY_FACTS = {
  retrySchedule: retrySchedule(),
  disableAfter: String(DISABLE_AFTER_FAILURES),
  timeoutSeconds: String(WEBHOOK_TIMEOUT_MS / 1000),
  toleranceSeconds: String(SIGNATURE_TOLERANCE_SECONDS),
  overlapHours: String(SECRET_OVERLAP_MS / 3_600_000),
  eventRetentionDays: String(EVENT_RETENTION_MS / 86_400_000),
};

const header = (name: string, description: string, schema: Json) => ({ name, in: 'header', required: true, description, schema });

export function webhookEvents(): Record<string, { post: Json }> {
  const { retrySchedule, disableAfter, timeoutSeconds, toleranceSeconds } = DELIVERY_FACTS;
  return Object.fromEntries(
    EVENT_KINDS.map((kind) => {
      const { schema, summary, example } = EVENT_PAYLOADS[kind];
      const envelope = { id: 'evt_2Jd8sKq0Lm4Wn7Xc5Vb1Qa', event: kind, createdAt: '2026-01-01T12:00:00.000+00:00', data: example };
      const post = {
        tags: ['webhook-events'],
        security: [], // a delivery carries a signature instead, described in the parameters
        operationId: `event-${kind}`,
        summary: kind,
        description: `${summary}\n\nVerify \`${WEBHOOK_HEADERS.signature}\` before trusting the body (see *Verifying signatures*).`,
        parameters: [
          header(WEBHOOK_HEADERS.event, 'The event kind.', { type: 'string', const: kind }),
          header(WEBHOOK_HEADERS.eventId, "The envelope's `id`, the same on every attempt.", {
            type: 'string',
            pattern: '^evt_[0-9A-Za-z]+$',
          }),
          header(
            WEBHOOK_HEADERS.timestamp,
            `When this attempt was signed, in Unix seconds. Reject a delivery ${toleranceSeconds} s or more away from your clock.`,
            { type: 'string', pattern: '^[0-9]+$' },
          ),
          header(
            WEBHOOK_HEADERS.signature,
            `\`sha256=\` and the lowercase hex HMAC-SHA256 of \`<${WEBHOOK_HEADERS.timestamp}>.<raw body>\`, keyed with the signing secret (during a rotation's overlap: the previous one).`,
            { type: 'string', pattern: '^sha256=[0-9a-f]{64}$' },
          ),
          header(
            WEBHOOK_HEADERS.signatures,
            `The same signature under every secret that signs the delivery, comma-separated, the newest secret first: one while no rotation runs (equal to \`${WEBHOOK_HEADERS.signature}\`), two during a rotation's overlap. A receiver on the new secret finds its signature here.`,
            { type: 'string', pattern: '^sha256=[0-9a-f]{64}(, sha256=[0-9a-f]{64})*$' },
          ),
          header('User-Agent', 'Identifies the service as the sender.', { type: 'string', examples: [WEBHOOK_USER_AGENT] }),
        ],
        requestBody: { required: true, content: json(ref(`${schema}Event`), { examples: { [kind]: { value: envelope } } }) },
        responses: {
          '2XX': { description: `Any 2xx within ${timeoutSeconds} seconds acknowledges the delivery. The body is ignored.` },
          default: {
            description:
              `Anything else, a redirect or no answer within ${timeoutSeconds} seconds is a failure: the delivery is retried after ` +
              `${retrySchedule}, and ${disableAfter} failed attempts in a row disable the endpoint.`,
          },
        },
      };
      return [kind, { post }];
    }),
  );
}
