//! word-to-pdf: a downloaded Word, OpenDocument or RTF document converted to PDF. Its precheck
//! needs no I/O: the document's address is an absolute http(s) URL. Its type is decided from its
//! bytes after the download, never from the URL's extension.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, type Validated } from '../../lib/schema-types.js';
import { defineTool } from './definition.js';
import { producedFileFields } from './produced-file.js';
import { DOWNLOADS_FILE, FileUrl, precheckFileUrl } from './downloaded-file.js';

export const WordToPdfInput = ClosedObject(
  {
    fileUrl: FileUrl('the Word/ODT/RTF file'),
  },
  {
    description:
      'A public Word (.doc, .docx), OpenDocument text (.odt) or RTF document. Downloaded through the guarded client (non-public targets refused with 422 target_not_allowed, also on redirects), at most 20 MiB (422 source_too_large). Its type is decided from its bytes (OLE2 Word file, OOXML or ODF package, {\\rtf), not from its name or Content-Type (422 unsupported_source otherwise; also for a damaged or password-protected document). LibreOffice converts it with no network access: linked remote images and objects are not fetched. A conversion that takes longer than 30 s is stopped (504 tool_timeout).',
    examples: [{ fileUrl: 'https://example.com/report.docx' }],
  },
);
export type WordToPdfInput = Validated<typeof WordToPdfInput>;
export const WordToPdfOutput = ClosedObject(
  producedFileFields({
    file: 'The PDF, base64, without a data URI prefix.',
    mediaType: 'application/pdf',
    mimeType: Type.Literal('application/pdf', { description: 'Always application/pdf.' }),
    fileName: "the source URL's file name with `.pdf` instead of its extension (`report.pdf`); `document.pdf` when the URL names no file.",
    sizeOf: 'PDF',
  }),
);
export type WordToPdfOutput = Static<typeof WordToPdfOutput>;

export const precheck: (input: WordToPdfInput) => void = precheckFileUrl;

export const wordToPdf = defineTool<WordToPdfInput, WordToPdfOutput>()({
  name: 'word-to-pdf',
  group: 'files',
  cost: 15,
  pool: 'cpu',
  schemas: { input: WordToPdfInput, output: WordToPdfOutput },
  fileField: 'fileBase64',
  // Within the file tools' deadline, the conversion's own hard limit is OFFICE_CONVERSION_TIMEOUT_MS.
  ...DOWNLOADS_FILE,
  precheck,
});
