//! pdf-metadata checks that need no I/O: the file's address is an absolute http(s) URL.
import { checkHttpUrl } from './http-url.js';

export interface PdfMetadataInput {
  fileUrl: string;
}

export function precheck(input: PdfMetadataInput): void {
  checkHttpUrl('/fileUrl', input.fileUrl);
}
