//! html-to-image: supplied markup rendered by the browser and captured. No precheck: the schema
//! bounds the markup, and what it loads is checked in the worker as the page loads it.
import { defineTool } from './definition.js';
import type { ImageOptions } from './website-screenshot.js';

export interface HtmlToImageInput extends ImageOptions {
  html: string;
}

export interface HtmlToImageOutput {
  fileBase64: string;
  mimeType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  truncated: boolean;
}

export const htmlToImage = defineTool<HtmlToImageInput, HtmlToImageOutput>()({
  name: 'html-to-image',
  group: 'web',
  cost: 25,
  pool: 'browser',
  fileField: 'fileBase64',
  // A page lives at most this long, its settling waits included (activities/browser/capture.ts).
  timeoutMs: 60_000,
  maxBodyBytes: 3 * 1024 * 1024,
  failures: [],
  image: { field: 'fileBase64' },
});
