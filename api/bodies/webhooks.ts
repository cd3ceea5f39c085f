//! The webhook routes' request bodies (api/routes/webhooks.ts): validation, OpenAPI and types in one.
import { type Static, Type } from '@sinclair/typebox';
import { DEFAULT_EVENT_TYPES, SUBSCRIBABLE_EVENT_KINDS } from '../../contracts/event-kinds.js';
import { ClosedObject, DateTime, StringEnum } from '../../lib/schema-types.js';

const eventTypes = Type.Array(StringEnum(SUBSCRIBABLE_EVENT_KINDS), {
  minItems: 1,
  uniqueItems: true,
  description: `The event types delivered to the endpoint. \`webhook.test\` is always delivered when you ask for it. Default: ${DEFAULT_EVENT_TYPES.map((k) => `\`${k}\``).join(', ')} (every type but \`call.completed\`).`,
});

export const CreateWebhookBody = ClosedObject({
  url: Type.String({
    minLength: 1,
    maxLength: 2048,
    description: '`https` URL with a public address (`localhost`, any scheme, only where the operator allows it for testing).',
  }),
  eventTypes: Type.Optional(eventTypes),
});
export type CreateWebhookBody = Static<typeof CreateWebhookBody>;

export const UpdateWebhookBody = ClosedObject({ eventTypes });
export type UpdateWebhookBody = Static<typeof UpdateWebhookBody>;

export const EnableWebhookBody = ClosedObject({
  recoverSince: Type.Optional(
    DateTime(
      'Also send, in the order they happened, every event of the last 30 days from this time on that the endpoint should have received and never got (its types at the time of the request).',
    ),
  ),
});
export type EnableWebhookBody = Static<typeof EnableWebhookBody>;

export const ReplayEventBody = ClosedObject({
  eventId: Type.String({ pattern: '^evt_[0-9A-Za-z]+$', maxLength: 64, description: 'The event to send again (from the event log).' }),
});
export type ReplayEventBody = Static<typeof ReplayEventBody>;
