//! website-screenshot: a public page rendered at the chosen viewport and captured, visible area
//! or whole page. No precheck: the target guard checks the address in the worker (and the API
//! refuses a literal address it would refuse, from `targets`).
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, IntegerEnum, StringEnum, type Validated } from '../../lib/schema-types.js';
import { defineTool, FAILURES } from './definition.js';

/**
 * The frame both browser tools capture: its width and height in CSS pixels (the viewport the page
 * is laid out in), and whether the whole document is taken instead. Each tool says what they mean
 * for what it renders.
 */
export function captureFrame(descriptions: { width: string; height: string; fullPage: string }) {
  return {
    width: Defaulted(Type.Integer({ minimum: 320, maximum: 3840, description: descriptions.width }), 1440),
    height: Defaulted(Type.Integer({ minimum: 200, maximum: 4320, description: descriptions.height }), 900),
    fullPage: Defaulted(Type.Boolean({ description: descriptions.fullPage }), false),
  };
}

/** How both browser tools encode their capture: pixel density, format and JPEG quality. */
export const CAPTURE_ENCODING = {
  deviceScaleFactor: Defaulted(
    IntegerEnum([1, 2], { description: '1 standard density, 2 high density (twice as many pixels each way, like a retina display).' }),
    1,
  ),
  format: Defaulted(StringEnum(['png', 'jpeg'], { description: 'Image format: lossless `png` or smaller `jpeg`.' }), 'png'),
  quality: Defaulted(
    Type.Integer({ minimum: 40, maximum: 100, description: 'JPEG quality, 40 to 100; lower is smaller. Ignored for png.' }),
    85,
  ),
};

/** The capture both browser tools answer with. */
export const CAPTURED_IMAGE = {
  fileBase64: Type.String({ contentEncoding: 'base64', description: 'The image, base64, without a data URI prefix.' }),
  mimeType: StringEnum(['image/png', 'image/jpeg'], { description: '`image/png` or `image/jpeg`, as requested by `format`.' }),
  width: Type.Integer({ minimum: 1, description: 'Pixel width of the returned image: the viewport width times deviceScaleFactor.' }),
  height: Type.Integer({
    minimum: 1,
    description:
      "Pixel height of the returned image: the viewport height times deviceScaleFactor, or for fullPage the document's height times deviceScaleFactor, at most 16384.",
  }),
  truncated: Type.Boolean({
    description: 'True when a fullPage capture was cut at the 16384-pixel height ceiling; always false otherwise.',
  }),
};

/**
 * A browser tool's definition beyond its name, group, price, pool, inputs and failures: the image
 * it answers with is its file and its render, and the page's deadline.
 */
export const CAPTURES_IMAGE = {
  fileField: 'fileBase64',
  // A page lives at most this long, its settling waits included (activities/browser/capture.ts).
  timeoutMs: 60_000,
  image: { field: 'fileBase64' },
} as const;

export const WebsiteScreenshotInput = ClosedObject(
  {
    url: Type.String({
      minLength: 1,
      maxLength: 2048,
      pattern: '^[hH][tT][tT][pP][sS]?://',
      description:
        'Public http or https address, at most 2048 characters. Redirects are followed; the address, every redirect and every resource the page loads must be public (private, loopback, link-local and metadata addresses are refused: the address itself with 422, resources by being dropped).',
    }),
    ...captureFrame({
      width:
        "Viewport width in CSS pixels, 320 to 3840; the page's responsive breakpoints (media queries) apply to it. The image is this many CSS pixels wide (times deviceScaleFactor in image pixels).",
      height:
        'Viewport height in CSS pixels, 200 to 4320: the visible area captured. With fullPage it still sets the viewport (what `100vh` means to the page), but the image is as tall as the document.',
      fullPage:
        'Capture the whole scrollable page instead of the visible area. The page is scrolled through first so lazy images and content load. Captures stop at 16384 image pixels high (8192 CSS pixels at deviceScaleFactor 2); `truncated` tells when a page was taller.',
    }),
    ...CAPTURE_ENCODING,
    blockAds: Defaulted(
      Type.Boolean({
        description:
          "Drop requests to known ad and tracker hosts (EasyList and EasyPrivacy host rules) before they leave. The page's own host is never dropped.",
      }),
      true,
    ),
    hideOverlays: Defaulted(
      Type.Boolean({
        description:
          'After load, remove cookie and consent banners, newsletter and other modals with their backdrops, and large sticky panels, and unlock scrolling a modal had locked.',
      }),
      false,
    ),
  },
  {
    description: 'A public http(s) address to render in a headless browser at the chosen viewport, and how to capture it.',
    examples: [
      {
        url: 'https://example.com/',
        width: 1440,
        height: 900,
        fullPage: false,
        deviceScaleFactor: 1,
        format: 'png',
        quality: 85,
        blockAds: true,
        hideOverlays: false,
      },
    ],
  },
);
export type WebsiteScreenshotInput = Validated<typeof WebsiteScreenshotInput>;
/** What both browser tools take to size and encode their capture. */
export type ImageOptions = Pick<WebsiteScreenshotInput, 'width' | 'height' | 'fullPage' | 'deviceScaleFactor' | 'format' | 'quality'>;
export const WebsiteScreenshotOutput = ClosedObject({
  ...CAPTURED_IMAGE,
  pageTitle: Type.String({ description: 'The document title; empty when the page has none.' }),
  finalUrl: Type.String({ description: 'Address of the page captured, after redirects.' }),
  blockedRequestCount: Type.Integer({
    minimum: 0,
    description:
      'Requests the page made that were dropped: to ad and tracker hosts (with blockAds) and to private-network, loopback, link-local or metadata addresses.',
  }),
});
export type WebsiteScreenshotOutput = Static<typeof WebsiteScreenshotOutput>;

export const websiteScreenshot = defineTool<WebsiteScreenshotInput, WebsiteScreenshotOutput>()({
  name: 'website-screenshot',
  group: 'web',
  cost: 25,
  pool: 'browser',
  schemas: { input: WebsiteScreenshotInput, output: WebsiteScreenshotOutput },
  ...CAPTURES_IMAGE,
  failures: FAILURES.connects,
  targets: (input) => [{ url: input.url }],
});
