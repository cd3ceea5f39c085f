//! Component schemas of the destinations' answers, of where a call's file was stored, and of the account's connected apps.
import { StoredFile } from '../../domain/destinations/index.js';
import { dateTime, id, record, type JsonSchema } from './schema-parts.js';

export const DESTINATION_SCHEMAS: Record<string, JsonSchema> = {
  Destination: record('A bucket of the account that calls can write their files to. The secret access key is never shown.', {
    id: id('dst', 'Destination id: the value of `Output-Destination`.'),
    type: { type: 'string', const: 's3', description: 'AWS S3 or an S3-compatible server.' },
    bucket: { type: 'string', description: "The bucket's name.", examples: ['acme-renders'] },
    prefix: { type: 'string', description: "Where in the bucket the objects go; '' for its root.", examples: ['utility-tools'] },
    endpoint: { type: ['string', 'null'], description: "The S3-compatible server's origin; null for AWS S3.", examples: [null] },
    region: { type: 'string', description: "The bucket's region.", examples: ['eu-central-1'] },
    accessKeyId: {
      type: 'string',
      description: 'The access key id that writes (its secret stays with the service).',
      examples: ['AKIAIOSFODNN7EXAMPLE'],
    },
    createdAt: dateTime('When the destination was created (and its test upload accepted).'),
  }),
  ConnectedApp: record(
    "An app (an AI agent, an MCP client) a member connected to the account through OAuth. It acts with that member's role.",
    {
      id: { type: 'string', description: "Its id (the OAuth grant's): what DELETE takes." },
      clientId: { type: 'string', description: 'Its OAuth client id: registered here, or the URL of its client ID metadata document.' },
      clientName: { type: 'string', description: 'What it calls itself (its own claim unless its client id is a URL).' },
      redirectHost: { type: 'string', description: "Where its authorization answers went (its redirect URI's host)." },
      userId: { type: 'string', description: 'The member who connected it.' },
      createdAt: dateTime('When it was connected.'),
      lastUsedAt: { ...dateTime('When one of its tokens was last presented (to the minute); null before.'), type: ['string', 'null'] },
    },
  ),
  StoredFile,
};
