//! What the tools that download the caller's file (`fileUrl`) share: a precheck that needs no I/O
//! (the address is an absolute http(s) URL), the one target a call reaches, and their deadline,
//! queue and failures. The file's type is decided from its bytes after the download.
import { FAILURES } from './definition.js';
import { checkHttpUrl, HttpUrlField } from './http-url.js';

/** The part of a file tool's input that says where its file is. */
export interface FileUrlInput {
  fileUrl: string;
}

/** The `fileUrl` input field; `what` names the file (`the PDF`). */
export const FileUrl = (what: string) =>
  HttpUrlField(
    `Absolute http or https URL of ${what}, at most 2048 characters. Up to 5 redirects are followed; the final answer must be 2xx (502 upstream_error otherwise).`,
  );

/** The file's address is an absolute http(s) URL. */
export function precheckFileUrl(input: FileUrlInput): void {
  checkHttpUrl('/fileUrl', input.fileUrl);
}

/** A file tool's definition beyond its name, group, price, pool and precheck. */
export const DOWNLOADS_FILE = {
  // The file tools download up to 10/20 MiB (20 s at most), may queue for a thread or listener,
  // then work for seconds.
  timeoutMs: 60_000,
  execution: 'queued',
  failures: FAILURES.fetchesFile,
  targets: (input: FileUrlInput) => [{ url: input.fileUrl }],
} as const;
