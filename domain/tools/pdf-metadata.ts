//! pdf-metadata: a downloaded PDF's information dictionary and page count. Its precheck needs no
//! I/O: the file's address is an absolute http(s) URL.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, OrNull, type Validated } from '../../lib/schema-types.js';
import { defineTool } from './definition.js';
import { DOWNLOADS_FILE, FileUrl, precheckFileUrl } from './downloaded-file.js';

export const PdfMetadataInput = ClosedObject(
  {
    fileUrl: FileUrl('the PDF'),
  },
  {
    description:
      'A public PDF to read. Downloaded through the guarded client (non-public targets refused with 422 target_not_allowed, also on redirects), at most 20 MiB (422 source_too_large). Whether it is a PDF is decided from its bytes (a %PDF- header), not from its name or Content-Type (422 unsupported_source otherwise).',
    examples: [{ fileUrl: 'https://example.com/report.pdf' }],
  },
);
export type PdfMetadataInput = Validated<typeof PdfMetadataInput>;
export const PdfMetadataOutput = ClosedObject(
  {
    title: OrNull(Type.String(), { description: 'Title, or null when unset (or empty).' }),
    author: OrNull(Type.String(), { description: 'Author, or null when unset.' }),
    subject: OrNull(Type.String(), { description: 'Subject, or null when unset.' }),
    producer: OrNull(Type.String(), { description: 'Software that produced the file; null when unset.' }),
    pageCount: OrNull(Type.Integer({ minimum: 0 }), {
      description: 'Number of pages; null only when a user password hides the page tree.',
    }),
    encrypted: Type.Boolean({ description: 'True when password protected (owner or user password).' }),
    passwordRequired: Type.Boolean({ description: 'Additive: true when the file cannot be opened without its user password.' }),
    creator: OrNull(Type.String(), {
      description: 'Additive: the application that created the original document; null when unset.',
    }),
    pdfVersion: OrNull(Type.String(), { description: "Additive: the version in the file's header, e.g. 1.7." }),
    sizeBytes: Type.Integer({ minimum: 0, description: 'Additive: size of the downloaded file in bytes.' }),
  },
  {
    description:
      'The header and information dictionary; pages are not rendered. An encrypted file is an answer (encrypted: true), not an error: with only an owner password its metadata is read as usual; when a user password is needed to open it, passwordRequired is true and the fields it hides are null.',
    examples: [
      {
        title: 'Quarterly report',
        author: 'Ada Lovelace',
        subject: 'Q3 figures',
        producer: 'LibreOffice 7.4',
        pageCount: 12,
        encrypted: false,
        passwordRequired: false,
        creator: 'Writer',
        pdfVersion: '1.7',
        sizeBytes: 48213,
      },
    ],
  },
);
export type PdfMetadataOutput = Static<typeof PdfMetadataOutput>;

/** What the file itself says: the answer but for the download's size. */
export type PdfInfo = Omit<PdfMetadataOutput, 'sizeBytes'>;

export const precheck: (input: PdfMetadataInput) => void = precheckFileUrl;

export const pdfMetadata = defineTool<PdfMetadataInput, PdfMetadataOutput>()({
  name: 'pdf-metadata',
  group: 'files',
  cost: 2,
  pool: 'network',
  schemas: { input: PdfMetadataInput, output: PdfMetadataOutput },
  ...DOWNLOADS_FILE,
  precheck,
});
