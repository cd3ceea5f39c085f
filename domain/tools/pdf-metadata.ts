//! pdf-metadata: a downloaded PDF's information dictionary and page count. Its precheck needs no
//! I/O: the file's address is an absolute http(s) URL.
import { defineTool } from './definition.js';
import { DOWNLOADS_FILE, precheckFileUrl } from './downloaded-file.js';

export interface PdfMetadataInput {
  fileUrl: string;
}

export interface PdfInfo {
  /** From the `%PDF-x.y` header, e.g. `1.7`; null when the header carries no version. */
  pdfVersion: string | null;
  title: string | null;
  author: string | null;
  subject: string | null;
  producer: string | null;
  creator: string | null;
  /** Null only when a user password hides the page tree. */
  pageCount: number | null;
  encrypted: boolean;
  /** True when the file cannot be opened without its user password (the other fields are then null). */
  passwordRequired: boolean;
}

export interface PdfMetadataOutput extends PdfInfo {
  /** Size of the downloaded file. */
  sizeBytes: number;
}

export const precheck: (input: PdfMetadataInput) => void = precheckFileUrl;

export const pdfMetadata = defineTool<PdfMetadataInput, PdfMetadataOutput>()({
  name: 'pdf-metadata',
  group: 'files',
  cost: 2,
  pool: 'network',
  ...DOWNLOADS_FILE,
  precheck,
});
