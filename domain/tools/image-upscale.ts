//! image-upscale: a downloaded image upscaled x2 or x4 by a model. Its precheck needs no I/O: the
//! image's address is an absolute http(s) URL. The per-factor size limit needs the file's header,
//! so the worker checks it after the download.
import { defineTool, FAILURES } from './definition.js';
import { checkHttpUrl } from './http-url.js';

export type UpscaleFactor = 2 | 4;

export interface ImageUpscaleInput {
  fileUrl: string;
  factor: UpscaleFactor;
}

export interface ImageUpscaleOutput {
  fileBase64: string;
  mimeType: string;
  fileName: string;
  sizeBytes: number;
  factor: UpscaleFactor;
  width: number;
  height: number;
}

export function precheck(input: ImageUpscaleInput): void {
  checkHttpUrl('/fileUrl', input.fileUrl);
}

export const imageUpscale = defineTool<ImageUpscaleInput, ImageUpscaleOutput>()({
  name: 'image-upscale',
  group: 'files',
  cost: 30,
  pool: 'cpu',
  fileField: 'fileBase64',
  // The file tools download up to 10/20 MiB (20 s at most), may queue for a thread or listener,
  // then work for seconds.
  timeoutMs: 60_000,
  execution: 'queued',
  failures: FAILURES.fetchesFile,
  precheck,
  targets: (input) => [{ url: input.fileUrl }],
});
