//! The destination routes' request bodies (api/routes/destinations.ts): validation, OpenAPI and types in one.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject } from '../../lib/schema-types.js';

/** A key segment S3 takes without escaping; `.` and `..` alone are refused (clients would resolve them). */
const KEY_SEGMENT = "(?!\\.{1,2}(?:/|$))[A-Za-z0-9!_.*'()-]+";
const PRINTABLE = { minLength: 1, pattern: '^[\\x21-\\x7e]+$' };

export const CreateDestinationBody = ClosedObject({
  type: Type.Literal('s3', { description: '`s3`: AWS S3, or any S3-compatible server (give its `endpoint`).' }),
  bucket: Type.String({
    minLength: 3,
    maxLength: 63,
    pattern: '^(?!.*\\.\\.)[a-z0-9][a-z0-9.-]*[a-z0-9]$',
    description: "The bucket's name (S3's rules: 3-63 lowercase letters, digits, dots and dashes).",
  }),
  prefix: Type.Optional(
    Type.String({
      maxLength: 512,
      pattern: `^${KEY_SEGMENT}(?:/${KEY_SEGMENT})*$`,
      description:
        "Where in the bucket the objects go: one or more segments joined by `/`, without a leading or trailing `/`. The bucket's root when omitted.",
    }),
  ),
  endpoint: Type.Optional(
    Type.String({
      minLength: 1,
      maxLength: 2048,
      description:
        'An S3-compatible server (MinIO, Cloudflare R2, Backblaze B2, Ceph ...): `https://host[:port]`, no path; requests are path-style. ' +
        'AWS S3 in `region` when omitted. The service connects to it under the same rules as to any target: a private, loopback, link-local or metadata address is refused ' +
        '(422 `target_not_allowed`) unless the operator allowlists it (`TARGET_ALLOWLIST`), and plain `http` only to such an allowlisted address.',
    }),
  ),
  region: Type.Optional(
    Type.String({ pattern: '^[a-z0-9][a-z0-9-]{0,30}[a-z0-9]$', description: "The bucket's region; `us-east-1` when omitted." }),
  ),
  accessKeyId: Type.String({
    ...PRINTABLE,
    maxLength: 128,
    description: 'The access key id of a key pair that may write (PutObject) under the prefix.',
  }),
  secretAccessKey: Type.String({
    ...PRINTABLE,
    maxLength: 256,
    writeOnly: true,
    description: 'Its secret. Stored encrypted, used only by the workers that write, never shown again.',
  }),
});
export type CreateDestinationBody = Static<typeof CreateDestinationBody>;
