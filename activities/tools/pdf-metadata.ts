//! pdf-metadata: downloads a PDF (at most 20 MiB, redirects re-checked by the guard), decides
//! from its bytes that it is one, and reports its information dictionary and page count.
import { precheck, type PdfMetadataInput, type PdfMetadataOutput } from '../../domain/tools/pdf-metadata.js';
import { ToolError } from '../../contracts/errors.js';
import type { GuardedHttp } from '../../lib/guarded-http.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import type { Reader } from '../network/readings.js';

export interface PdfMetadataDeps {
  http: Pick<GuardedHttp, 'request'>;
  /** Where the PDF is parsed (a thread pool in the network worker: a large one takes a second). */
  reader: Reader;
  /** Largest file read; a larger one is 422 source_too_large. @default 20 MiB (docs/API.md: documents) */
  maxBytes?: number;
  /** Download deadline, milliseconds. @default 30000 */
  timeoutMs?: number;
}

export const MAX_PDF_BYTES = 20 * 1024 * 1024;
export const PDF_DOWNLOAD_TIMEOUT_MS = 30_000;
export const PDF_MAX_REDIRECTS = 5;

export function createPdfMetadata(deps: PdfMetadataDeps): ToolHandler<PdfMetadataInput, PdfMetadataOutput> {
  const maxBytes = deps.maxBytes ?? MAX_PDF_BYTES;
  return async (input, ctx) => {
    precheck(input);
    const res = await deps.http.request({
      url: input.fileUrl,
      headers: { accept: 'application/pdf,*/*;q=0.5' },
      maxBytes,
      maxRedirects: PDF_MAX_REDIRECTS,
      timeoutMs: deps.timeoutMs ?? PDF_DOWNLOAD_TIMEOUT_MS,
      decompress: true,
      signal: ctx.signal,
    });
    if (res.statusCode < 200 || res.statusCode >= 300) {
      throw new ToolError('upstream_error', `The file's address answered ${res.statusCode}, not the file.`, {
        reason: 'http_status',
        statusCode: res.statusCode,
      });
    }
    if (res.truncated) {
      throw new ToolError('source_too_large', `The file is larger than ${maxBytes / (1024 * 1024)} MiB, the most that is read.`, {
        limitBytes: maxBytes,
      });
    }
    // The type comes from the bytes: servers label PDFs application/octet-stream (and worse).
    const info = await deps.reader('pdf', [res.body], ctx.signal);
    return { ...info, sizeBytes: res.body.length };
  };
}
