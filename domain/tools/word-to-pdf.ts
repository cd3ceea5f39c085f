//! word-to-pdf: a downloaded Word, OpenDocument or RTF document converted to PDF. Its precheck
//! needs no I/O: the document's address is an absolute http(s) URL. Its type is decided from its
//! bytes after the download, never from the URL's extension.
import { defineTool, FAILURES } from './definition.js';
import { checkHttpUrl } from './http-url.js';

export interface WordToPdfInput {
  fileUrl: string;
}

export interface WordToPdfOutput {
  fileBase64: string;
  mimeType: 'application/pdf';
  fileName: string;
  sizeBytes: number;
}

export function precheck(input: WordToPdfInput): void {
  checkHttpUrl('/fileUrl', input.fileUrl);
}

export const wordToPdf = defineTool<WordToPdfInput, WordToPdfOutput>()({
  name: 'word-to-pdf',
  group: 'files',
  cost: 15,
  pool: 'cpu',
  fileField: 'fileBase64',
  // The file tools download up to 10/20 MiB (20 s at most), may queue for a thread or listener,
  // then work for seconds; the conversion's own hard limit is OFFICE_CONVERSION_TIMEOUT_MS.
  timeoutMs: 60_000,
  execution: 'queued',
  failures: FAILURES.fetchesFile,
  precheck,
  targets: (input) => [{ url: input.fileUrl }],
});
