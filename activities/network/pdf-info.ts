//! Reads what pdf-metadata reports from PDF bytes: the header's version, the information
//! dictionary and the page count, with pdf.js (pdfjs-dist 5, legacy build for Node). Pages are
//! not rendered. Files encrypted with only an owner password are decrypted by pdf.js on its
//! own; a user-password file cannot be opened, but is still known to be encrypted.
import type { PdfInfo } from '../../domain/tools/pdf-metadata.js';
import { ToolError } from '../../contracts/errors.js';

export type PdfReader = (bytes: Uint8Array) => Promise<PdfInfo>;

/** PDF readers accept the header anywhere in the first 1024 bytes (junk before it happens). */
const HEADER_WINDOW = 1024;

/** The offset of `%PDF-` in the first 1024 bytes, or -1: what decides that a file is a PDF. */
export function pdfHeaderOffset(bytes: Uint8Array): number {
  return Buffer.from(bytes.buffer, bytes.byteOffset, Math.min(bytes.length, HEADER_WINDOW)).indexOf('%PDF-');
}

export function pdfVersionOf(bytes: Uint8Array, offset: number): string | null {
  const header = Buffer.from(bytes.buffer, bytes.byteOffset + offset, Math.min(16, bytes.length - offset)).toString('latin1');
  return /^%PDF-(\d+\.\d+)/.exec(header)?.[1] ?? null;
}

/** An information dictionary entry as text; unset, empty or not a string reads as null. */
export function infoText(info: Record<string, unknown>, key: string): string | null {
  const value = info[key];
  return typeof value === 'string' && value !== '' ? value : null;
}

/** pdf.js exceptions that mean "this file cannot be read", not a fault of the service. */
const UNREADABLE = new Set(['InvalidPDFException', 'FormatError', 'UnknownErrorException', 'ResponseException']);

type Pdfjs = typeof import('pdfjs-dist/legacy/build/pdf.mjs');

/**
 * A reader that loads pdf.js on first use (its import takes about a second and a half, which a
 * worker that never sees a PDF should not pay) and keeps it for the reader's lifetime.
 */
export function createPdfReader(): PdfReader {
  let pdfjs: Promise<Pdfjs> | undefined;
  return async (bytes) => {
    const offset = pdfHeaderOffset(bytes);
    if (offset < 0) throw new ToolError('unsupported_source', 'The file is not a PDF: it has no %PDF- header.');
    const pdfVersion = pdfVersionOf(bytes, offset);
    const lib = await (pdfjs ??= import('pdfjs-dist/legacy/build/pdf.mjs'));
    const task = lib.getDocument({
      data: new Uint8Array(bytes), // pdf.js takes ownership of (and may detach) the buffer it is given
      isEvalSupported: false,
      disableFontFace: true,
      useSystemFonts: false,
      enableXfa: false,
      verbosity: lib.VerbosityLevel.ERRORS,
    });
    try {
      const doc = await task.promise;
      // pdf.js types the dictionary as a bare Object: its entries are PDF names, read defensively.
      const info = (await doc.getMetadata()).info as Record<string, unknown>;
      return {
        pdfVersion,
        title: infoText(info, 'Title'),
        author: infoText(info, 'Author'),
        subject: infoText(info, 'Subject'),
        producer: infoText(info, 'Producer'),
        creator: infoText(info, 'Creator'),
        pageCount: doc.numPages,
        encrypted: typeof info.EncryptFilterName === 'string',
        passwordRequired: false,
      };
    } catch (err) {
      const name = (err as { name?: unknown })?.name;
      if (name === 'PasswordException') {
        return {
          pdfVersion,
          title: null,
          author: null,
          subject: null,
          producer: null,
          creator: null,
          pageCount: null,
          encrypted: true,
          passwordRequired: true,
        };
      }
      if (typeof name === 'string' && UNREADABLE.has(name)) {
        throw new ToolError('unsupported_source', 'The file starts like a PDF but cannot be read as one.', {}, { cause: err });
      }
      throw err;
    } finally {
      await task.destroy();
    }
  };
}
