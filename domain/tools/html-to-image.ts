//! html-to-image: supplied markup rendered by the browser and captured. No precheck: the schema
//! bounds the markup, and what it loads is checked in the worker as the page loads it.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, type Validated } from '../../lib/schema-types.js';
import { defineTool } from './definition.js';
import { CAPTURE_ENCODING, CAPTURED_IMAGE, CAPTURES_IMAGE, captureFrame } from './website-screenshot.js';

export const HtmlToImageInput = ClosedObject(
  {
    html: Type.String({
      minLength: 1,
      maxLength: 3145728,
      description:
        'A full document or a bare fragment; a fragment is wrapped into a UTF-8 document. There is no base URL: images, styles and fonts must use absolute http(s) addresses or data URIs. A reference to a private, loopback, link-local or metadata address refuses the call (422 target_not_allowed). The request body may be up to 3 MiB.',
    }),
    ...captureFrame({
      width:
        'Canvas width in CSS pixels, 320 to 3840; media queries see it as the viewport width. The image is this wide times deviceScaleFactor.',
      height:
        "Canvas height in CSS pixels, 200 to 4320. Ignored for the image's height when fullPage is true (it still is what `100vh` means).",
      fullPage:
        'Capture the whole document instead of one canvas-sized frame, up to 16384 image pixels high (`truncated` tells when it was taller).',
    }),
    ...CAPTURE_ENCODING,
  },
  {
    description: 'Markup to render with the same browser engine (not a URL), and how to capture it.',
    examples: [
      {
        html: '<h1 style="font-family: sans-serif">Hello</h1>',
        width: 1200,
        height: 630,
        fullPage: false,
        deviceScaleFactor: 1,
        format: 'png',
        quality: 85,
      },
    ],
  },
);
export type HtmlToImageInput = Validated<typeof HtmlToImageInput>;
export const HtmlToImageOutput = ClosedObject(CAPTURED_IMAGE);
export type HtmlToImageOutput = Static<typeof HtmlToImageOutput>;

export const htmlToImage = defineTool<HtmlToImageInput, HtmlToImageOutput>()({
  name: 'html-to-image',
  group: 'web',
  cost: 25,
  pool: 'browser',
  schemas: { input: HtmlToImageInput, output: HtmlToImageOutput },
  ...CAPTURES_IMAGE,
  maxBodyBytes: 3 * 1024 * 1024,
  failures: [],
});
