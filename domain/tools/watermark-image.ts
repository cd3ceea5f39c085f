//! watermark-image: a text watermark drawn on a downloaded image. Its precheck needs no I/O: an
//! absolute http(s) URL, and text the watermark font can draw. jimp's bundled bitmap font (Open
//! Sans) has 190 glyphs: printable ASCII except the backtick, Latin-1 letters and signs, and the
//! euro sign. jimp silently draws '?' or nothing for any other character (CJK, emoji, Cyrillic,
//! a tab), so such text is refused with 400 rather than returning an image without the text the
//! client asked for.
//! test/tools/watermark-image.test.ts proves this set equals the font files' glyph set.
import { defineTool } from './definition.js';
import { DOWNLOADS_FILE, precheckFileUrl } from './downloaded-file.js';
import { invalidField } from '../../contracts/errors.js';

export const WATERMARK_POSITIONS = ['center', 'top-left', 'top-right', 'bottom-left', 'bottom-right', 'tile'] as const;
export type WatermarkPosition = (typeof WATERMARK_POSITIONS)[number];

export interface WatermarkImageInput {
  fileUrl: string;
  text: string;
  opacity: number;
  position: WatermarkPosition;
}

export interface WatermarkImageOutput {
  /** The image, base64, no data URI prefix. */
  fileBase64: string;
  mimeType: string;
  fileName: string;
  sizeBytes: number;
  width: number;
  height: number;
}

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
  fileField: 'fileBase64',
  ...DOWNLOADS_FILE,
  precheck,
});
