//! Downloads a tool's source file through the target guard, within the contract's size limit.
//! Every hop (redirects included) is checked and pinned by lib/guarded-http.ts; this module adds
//! the limits, the status check and the client-facing errors. What the bytes are is decided by
//! the caller from the bytes themselves (image-header.ts, document-type.ts), never from the
//! response's Content-Type or the URL's extension.
import { ToolError } from '../../contracts/errors.js';
import type { GuardedHttp } from '../../lib/guarded-http.js';

/** The largest fetched images and documents (docs/API.md, "Formats and limits"). */
export const SOURCE_LIMITS = {
  image: { maxBytes: 10 * 1024 * 1024, label: 'images' },
  document: { maxBytes: 20 * 1024 * 1024, label: 'documents' },
} as const;

export type SourceKind = keyof typeof SOURCE_LIMITS;

export interface SourceDownloadOptions {
  http: Pick<GuardedHttp, 'request'>;
  /**
   * Deadline for the whole download (every hop and the body), milliseconds.
   * @default 20000: 20 MiB at ~8 Mbit/s. Lower it when the tool's own deadline is shorter.
   */
  timeoutMs?: number;
  /** Redirects followed, each re-checked by the guard. @default 5 */
  maxRedirects?: number;
}

export interface DownloadedSource {
  bytes: Buffer;
  /** The URL the bytes came from, after redirects. */
  finalUrl: string;
}

export type SourceDownloader = (url: string, kind: SourceKind, signal?: AbortSignal) => Promise<DownloadedSource>;

export function formatMiB(bytes: number): string {
  return `${Math.round((bytes / (1024 * 1024)) * 10) / 10} MiB`;
}

export function tooLarge(kind: SourceKind): ToolError {
  const { maxBytes, label } = SOURCE_LIMITS[kind];
  return new ToolError('source_too_large', `The source file is larger than ${formatMiB(maxBytes)}, the limit for ${label}.`, {
    limitBytes: maxBytes,
  });
}

export function createSourceDownloader({ http, timeoutMs = 20_000, maxRedirects = 5 }: SourceDownloadOptions): SourceDownloader {
  return async (url, kind, signal) => {
    const { maxBytes } = SOURCE_LIMITS[kind];
    const res = await http.request({ url, maxBytes, maxRedirects, timeoutMs, signal });
    if (res.statusCode < 200 || res.statusCode > 299) {
      throw new ToolError('upstream_error', `The source answered HTTP ${res.statusCode} instead of the file.`, {
        reason: 'http_status',
        statusCode: res.statusCode,
      });
    }
    // The guard stops reading at maxBytes and says so: the file is larger than the limit.
    if (res.truncated) throw tooLarge(kind);
    return { bytes: res.body, finalUrl: res.finalUrl };
  };
}
