//! image-upscale: a downloaded image upscaled x2 or x4 by a model. Its precheck needs no I/O: the
//! image's address is an absolute http(s) URL. The per-factor size limit needs the file's header,
//! so the worker checks it after the download.
import { defineTool } from './definition.js';
import { DOWNLOADS_FILE, precheckFileUrl } from './downloaded-file.js';

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

export const precheck: (input: ImageUpscaleInput) => void = precheckFileUrl;

export const imageUpscale = defineTool<ImageUpscaleInput, ImageUpscaleOutput>()({
  name: 'image-upscale',
  group: 'files',
  cost: 30,
  pool: 'cpu',
  fileField: 'fileBase64',
  ...DOWNLOADS_FILE,
  precheck,
});
