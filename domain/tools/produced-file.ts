//! The fields with which a tool that makes a file answers: the file as base64, its type, a name
//! to save it under and its size. Each tool says what its file is; the shapes are the same.
import { type TSchema, Type } from '@sinclair/typebox';
import { StringEnum } from '../../lib/schema-types.js';

/** The image types the image file tools answer in: the source's own, or PNG for what has none. */
const IMAGE_MIME_TYPES = ['image/png', 'image/jpeg', 'image/webp'] as const;

/** What a made file's fields say of it: the text of each field's description, and its `mimeType`. */
export interface ProducedFile<M extends TSchema> {
  /** The `fileBase64` description. */
  file: string;
  /** The file's type when it is always the same (`contentMediaType`). */
  mediaType?: string;
  mimeType: M;
  /** How the suggested download name is made, after "Suggested download name: ". */
  fileName: string;
  /** What is counted in `sizeBytes` ("image file", "PDF"). */
  sizeOf: string;
}

/** `fileBase64`, `mimeType`, `fileName` and `sizeBytes`, in that order, for an answer's object. */
export function producedFileFields<M extends TSchema>({ file, mediaType, mimeType, fileName, sizeOf }: ProducedFile<M>) {
  return {
    fileBase64: Type.String({
      contentEncoding: 'base64',
      ...(mediaType === undefined ? {} : { contentMediaType: mediaType }),
      description: file,
    }),
    mimeType,
    fileName: Type.String({ minLength: 1, description: `Suggested download name: ${fileName}` }),
    sizeBytes: Type.Integer({ minimum: 1, description: `Size of the decoded ${sizeOf} in bytes.` }),
  };
}

/**
 * The fields of an image file tool's answer: its image in one of IMAGE_MIME_TYPES, counted as an
 * image file. `type` describes which type a call gets.
 */
export function producedImageFields({ file, type, fileName }: { file: string; type: string; fileName: string }) {
  return producedFileFields({ file, mimeType: StringEnum(IMAGE_MIME_TYPES, { description: type }), fileName, sizeOf: 'image file' });
}
