//! word-to-pdf checks that need no I/O: the document's address is an absolute http(s) URL. Its
//! type is decided from its bytes after the download, never from the URL's extension.
import { checkHttpUrl } from './http-url.js';

export interface WordToPdfInput {
  fileUrl: string;
}

export function precheck(input: WordToPdfInput): void {
  checkHttpUrl('/fileUrl', input.fileUrl);
}
