//! word-to-pdf: a downloaded Word, OpenDocument or RTF document converted to PDF. Its precheck
//! needs no I/O: the document's address is an absolute http(s) URL. Its type is decided from its
//! bytes after the download, never from the URL's extension.
import { defineTool } from './definition.js';
import { DOWNLOADS_FILE, precheckFileUrl } from './downloaded-file.js';

export interface WordToPdfInput {
  fileUrl: string;
}

export interface WordToPdfOutput {
  fileBase64: string;
  mimeType: 'application/pdf';
  fileName: string;
  sizeBytes: number;
}

export const precheck: (input: WordToPdfInput) => void = precheckFileUrl;

export const wordToPdf = defineTool<WordToPdfInput, WordToPdfOutput>()({
  name: 'word-to-pdf',
  group: 'files',
  cost: 15,
  pool: 'cpu',
  fileField: 'fileBase64',
  // Within the file tools' deadline, the conversion's own hard limit is OFFICE_CONVERSION_TIMEOUT_MS.
  ...DOWNLOADS_FILE,
  precheck,
});
