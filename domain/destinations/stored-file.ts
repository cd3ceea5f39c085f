//! A tool's file as a destination takes it: its bytes and type out of the output, the object's key,
//! and the answer that says where it went in place of the bytes (its type and its schema in the
//! OpenAPI document, `StoredFile`, declared once here). Pure.
import { type Static, Type } from '@sinclair/typebox';
import type { CallDestination } from '../../contracts/call.js';

/** The object's name ends in the extension of its type. */
const EXTENSIONS: Readonly<Record<string, string>> = {
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
  'application/pdf': 'pdf',
};

/** Where the file was written: what the call answers in place of the bytes. */
export const StoredFile = Type.Object(
  {
    bucket: Type.String({ description: 'The bucket.', examples: ['acme-renders'] }),
    key: Type.String({
      description: "The object's key: `{prefix}/{requestId}/0.{ext}`.",
      examples: ['utility-tools/call-acc_4hQ2mV8kZr1xYt6pW0nLbC-Xk2P9qR4tV7wY1zB3nM5/0.png'],
    }),
    size: Type.Integer({ minimum: 0, description: 'Bytes written.' }),
    contentType: Type.String({ description: "The object's Content-Type: the output's `mimeType`.", examples: ['image/png'] }),
  },
  { description: "Where a call's file was written, in place of its base64 (a call with `Output-Destination`)." },
);
export type StoredFile = Static<typeof StoredFile>;

/** The file a tool's output carries in `field` (base64) with its `mimeType`. */
export function fileOf(output: unknown, field: string): { bytes: Buffer; contentType: string; extension: string } {
  const o = output as Record<string, unknown>;
  const data = o?.[field];
  const contentType = o?.mimeType;
  if (typeof data !== 'string' || typeof contentType !== 'string') throw new Error(`the output has no file in ${field} with a mimeType`);
  return { bytes: Buffer.from(data, 'base64'), contentType, extension: EXTENSIONS[contentType] ?? 'bin' };
}

/** `{prefix}/{folder}/{name}.{ext}`, or without the prefix when there is none. */
export function objectKey(prefix: string, place: Pick<CallDestination, 'folder' | 'name'>, extension: string): string {
  return `${prefix ? `${prefix}/` : ''}${place.folder}/${place.name}.${extension}`;
}

/** The output with `stored` in place of its file: every other field stays. */
export function storedOutput(output: unknown, field: string, stored: StoredFile): Record<string, unknown> {
  const { [field]: _bytes, ...rest } = output as Record<string, unknown>;
  return { stored, ...rest };
}
