//! word-to-pdf: downloads a .doc, .docx, .odt or .rtf through the target guard and converts it to
//! PDF on a warm LibreOffice listener (office-converter.ts). The type is decided from the bytes
//! and fixes LibreOffice's import filter, so a file is never read as something it does not claim.
import { precheck, type WordToPdfInput, type WordToPdfOutput } from '../../domain/tools/word-to-pdf.js';
import { ToolError } from '../../contracts/errors.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { DOCUMENT_TYPES, detectDocumentType } from '../cpu/document-type.js';
import { fileNameFor } from '../cpu/file-name.js';
import type { OfficeConverter } from '../cpu/office-converter.js';
import type { SourceDownloader } from '../cpu/source-download.js';
import { inSpan } from '../../lib/trace-context.js';

export interface WordToPdfDeps {
  download: SourceDownloader;
  office: Pick<OfficeConverter, 'convert'>;
}

const ACCEPTED = Object.values(DOCUMENT_TYPES)
  .map((t) => `.${t.extension}`)
  .join(', ');

export function createWordToPdf({ download, office }: WordToPdfDeps): ToolHandler<WordToPdfInput, WordToPdfOutput> {
  return async (input, ctx) => {
    precheck(input);
    const { bytes } = await download(input.fileUrl, 'document', ctx.signal);
    const type = detectDocumentType(bytes);
    if (!type) {
      throw new ToolError('unsupported_source', `The source is not a Word, OpenDocument or RTF document; word-to-pdf takes ${ACCEPTED}.`, {
        accepted: Object.keys(DOCUMENT_TYPES),
      });
    }
    const pdf = await inSpan(
      'libreoffice convert',
      { 'utility_tools.document_type': type, 'utility_tools.bytes_in': bytes.length },
      async (span) => {
        const out = await office.convert(bytes, type, ctx.signal);
        span.setAttribute('utility_tools.bytes_out', out.length);
        return out;
      },
    );
    return {
      fileBase64: pdf.toString('base64'),
      mimeType: 'application/pdf',
      fileName: fileNameFor(input.fileUrl, { extension: 'pdf', fallback: 'document' }),
      sizeBytes: pdf.length,
    };
  };
}
