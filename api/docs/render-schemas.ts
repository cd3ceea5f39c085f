//! Component schemas of render links and the render cache: link secrets, a signed link, the
//! cache's days and its purge.
import { credits, dateTime, id, nullableDateTime, record, type JsonSchema } from './schema-parts.js';

const linkSecretFields = {
  id: id('lks', 'Link secret id: the first segment of the links it signs.'),
  createdAt: dateTime('When the secret was created.'),
};

export const RENDER_SCHEMAS: Readonly<Record<string, JsonSchema>> = {
  LinkSecret: record('A render link signing secret, without the secret.', {
    ...linkSecretFields,
    retiredAt: nullableDateTime('When it was retired (its links stopped working); null while it is live.'),
  }),
  NewLinkSecret: record('A new link secret, with the secret: shown only once.', {
    ...linkSecretFields,
    secret: {
      type: 'string',
      pattern: '^lksec_[0-9A-Za-z_-]{43}$',
      description: 'The HMAC-SHA256 key links are signed with. Keep it on your server.',
      examples: ['lksec_Jx3v9QhZ2mN8pR4tW6yB1cD5fG7hK0lM3nP6qS9uV2w'],
    },
  }),
  RenderLink: record('A signed render link.', {
    url: {
      type: 'string',
      format: 'uri',
      description: 'The link: put it in an `<img src>` as it is.',
      examples: [
        'https://api.example.com/api/v1/render/lks_4hQ2mV8kZr1xYt6pW0nLbC/qr-generate?text=https%3A%2F%2Fexample.com%2F&size=256&expires=1798761600&signature=5f0c...',
      ],
    },
    secretId: id('lks', 'The secret that signed it.'),
    expiresAt: nullableDateTime('When it stops working (403 `link_expired`); null: when its secret is retired.'),
  }),
  RenderCacheUsage: record("The render cache's hits per day (UTC), newest first.", {
    days: {
      type: 'array',
      items: record('One day.', {
        day: { type: 'string', format: 'date', description: 'The day (UTC).', examples: ['2026-05-01'] },
        hits: { type: 'integer', minimum: 1, description: 'Calls answered from the cache.' },
        creditsSaved: credits('Credits those calls did not cost.'),
      }),
    },
  }),
  RenderCachePurged: record('The render cache, emptied.', {
    deleted: { type: 'integer', minimum: 0, description: 'Stored renders dropped.' },
  }),
};
