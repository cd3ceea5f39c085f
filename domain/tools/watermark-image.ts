//! watermark-image: a text watermark drawn on a downloaded image. Its precheck needs no I/O: an
//! absolute http(s) URL, and text the watermark font can draw. jimp's bundled bitmap font (Open
//! Sans) has 190 glyphs: printable ASCII except the backtick, Latin-1 letters and signs, and the
//! euro sign. jimp silently draws '?' or nothing for any other character (CJK, emoji, Cyrillic,
//! a tab), so such text is refused with 400 rather than returning an image without the text the
//! client asked for.
//! test/tools/watermark-image.test.ts proves this set equals the font files' glyph set.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, StringEnum, type Validated } from '../../lib/schema-types.js';
import { defineTool } from './definition.js';
import { producedImageFields } from './produced-file.js';
import { DOWNLOADS_FILE, FileUrl, precheckFileUrl } from './downloaded-file.js';
import { invalidField } from '../../contracts/errors.js';

export const WATERMARK_POSITIONS = ['center', 'top-left', 'top-right', 'bottom-left', 'bottom-right', 'tile'] as const;
export type WatermarkPosition = (typeof WATERMARK_POSITIONS)[number];

export const WatermarkImageInput = ClosedObject(
  {
    fileUrl: FileUrl('the image'),
    text: Type.String({
      minLength: 1,
      maxLength: 200,
      description:
        'Watermark text, one line. The watermark font draws Latin letters with Western European accents, digits, punctuation (no backtick) and the euro sign; text with other characters (CJK, emoji, Cyrillic, tabs, line breaks) answers 400 rather than an image missing them. Long text wraps at word boundaries.',
    }),
    opacity: Defaulted(
      Type.Number({
        minimum: 0.05,
        maximum: 1,
        description: '0.05 to 1; lower is more discreet. Multiplies the whole mark (white text over a black shadow).',
      }),
      0.35,
    ),
    position: Defaulted(
      StringEnum(WATERMARK_POSITIONS, {
        description:
          "Where the mark goes: a corner (3% of the shorter side from the edges), the centre, or tile (repeated over the whole image in a brick pattern, in smaller type). The text height is about a tenth of the image's shorter side (a sixteenth when tiled), in the font's sizes 8, 16, 32, 64 or 128 px.",
      }),
      'bottom-right',
    ),
  },
  {
    description:
      'A public PNG, JPEG or WebP image and the text to draw on it. The image is downloaded through the guarded client (non-public targets refused with 422 target_not_allowed, also on redirects), at most 10 MiB and 25 megapixels (422 source_too_large). Its type is decided from its bytes, not its name or Content-Type (422 unsupported_source for anything else, animated WebP included).',
    examples: [{ fileUrl: 'https://example.com/photo.jpg', text: '© Example 2025', opacity: 0.35, position: 'bottom-right' }],
  },
);
export type WatermarkImageInput = Validated<typeof WatermarkImageInput>;
export const WatermarkImageOutput = ClosedObject({
  ...producedImageFields({
    file: "The watermarked image, base64, without a data URI prefix, in the source's format: PNG stays lossless PNG (transparency kept), JPEG and WebP are re-encoded lossy at quality 90.",
    type: "The source's own type.",
    fileName:
      "the source URL's file name with `-watermarked` and the output's extension (`photo-watermarked.jpg`); `image-watermarked.<ext>` when the URL names no file.",
  }),
  width: Type.Integer({ minimum: 1, description: "Width in pixels (the source's)." }),
  height: Type.Integer({ minimum: 1, description: "Height in pixels (the source's)." }),
});
export type WatermarkImageOutput = Static<typeof WatermarkImageOutput>;

/** Code points the watermark font draws. */
export function isDrawable(codePoint: number): boolean {
  return (codePoint >= 0x20 && codePoint <= 0x7e && codePoint !== 0x60) || (codePoint >= 0xa1 && codePoint <= 0xff) || codePoint === 0x20ac;
}

/** Each distinct character of `text` the font cannot draw, in order of first appearance. */
export function undrawableCharacters(text: string): string[] {
  return [...new Set([...text].filter((c) => !isDrawable(c.codePointAt(0)!)))];
}

/** How a character is named in the refusal: itself when visible, else its code point. */
function describe(char: string): string {
  const cp = char.codePointAt(0)!;
  const hex = `U+${cp.toString(16).toUpperCase().padStart(4, '0')}`;
  return cp < 0x20 || (cp >= 0x7f && cp < 0xa0) ? hex : `"${char}" (${hex})`;
}

export function precheck(input: WatermarkImageInput): void {
  precheckFileUrl(input);
  if (input.text.trim() === '') throw invalidField('/text', 'must contain a visible character');
  const bad = undrawableCharacters(input.text);
  if (bad.length > 0) {
    const listed = bad.slice(0, 5).map(describe).join(', ') + (bad.length > 5 ? ` and ${bad.length - 5} more` : '');
    throw invalidField(
      '/text',
      `has characters the watermark font cannot draw: ${listed}; it draws Latin letters with Western European accents, digits, punctuation (no backtick) and the euro sign, on one line`,
    );
  }
}

export const watermarkImage = defineTool<WatermarkImageInput, WatermarkImageOutput>()({
  name: 'watermark-image',
  group: 'files',
  cost: 2,
  pool: 'cpu',
  schemas: { input: WatermarkImageInput, output: WatermarkImageOutput },
  fileField: 'fileBase64',
  ...DOWNLOADS_FILE,
  precheck,
});
