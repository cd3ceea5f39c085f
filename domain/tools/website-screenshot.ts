//! website-screenshot: a public page rendered at the chosen viewport and captured, visible area
//! or whole page. No precheck: the target guard checks the address in the worker (and the API
//! refuses a literal address it would refuse, from `targets`).
import { defineTool, FAILURES } from './definition.js';

/** What both browser tools take to size and encode their capture. */
export interface ImageOptions {
  /** Viewport width, CSS pixels. */
  width: number;
  /** Viewport height, CSS pixels (the visible area when not fullPage). */
  height: number;
  fullPage: boolean;
  deviceScaleFactor: 1 | 2;
  format: 'png' | 'jpeg';
  /** JPEG quality 40-100; ignored for PNG. */
  quality: number;
}

export interface WebsiteScreenshotInput extends ImageOptions {
  url: string;
  blockAds: boolean;
  hideOverlays: boolean;
}

export interface WebsiteScreenshotOutput {
  fileBase64: string;
  mimeType: 'image/png' | 'image/jpeg';
  width: number;
  height: number;
  pageTitle: string;
  finalUrl: string;
  truncated: boolean;
  blockedRequestCount: number;
}

export const websiteScreenshot = defineTool<WebsiteScreenshotInput, WebsiteScreenshotOutput>()({
  name: 'website-screenshot',
  group: 'web',
  cost: 25,
  pool: 'browser',
  fileField: 'fileBase64',
  // A page lives at most this long, its settling waits included (activities/browser/capture.ts).
  timeoutMs: 60_000,
  failures: FAILURES.connects,
  image: { field: 'fileBase64' },
  targets: (input) => [{ url: input.url }],
});
