//! image-upscale checks that need no I/O: the image's address is an absolute http(s) URL. The
//! per-factor size limit needs the file's header, so the worker checks it after the download.
import type { UpscaleFactor } from '../../activities/cpu/upscaler.js';
import { checkHttpUrl } from './http-url.js';

export interface ImageUpscaleInput {
  fileUrl: string;
  factor: UpscaleFactor;
}

export function precheck(input: ImageUpscaleInput): void {
  checkHttpUrl('/fileUrl', input.fileUrl);
}
