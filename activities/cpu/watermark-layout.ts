//! Where a watermark goes and how big it is: pure geometry, no pixels. The drawing
//! (watermark-draw.ts) asks this module for a font size and the top-left corner of every copy.
import type { WatermarkPosition } from '../../domain/tools/watermark-image.js';

/** Sizes jimp's bundled Open Sans comes in, both in white and in black (for the shadow). */
export const FONT_SIZES = [8, 16, 32, 64, 128] as const;
export type FontSize = (typeof FONT_SIZES)[number];

export interface Size {
  width: number;
  height: number;
}

export interface Point {
  x: number;
  y: number;
}

/**
 * Text height aimed at, as a fraction of the image's shorter side: a single mark is readable but
 * does not dominate; tiled copies are smaller because there are many.
 */
const HEIGHT_SHARE = { single: 1 / 10, tile: 1 / 16 };
/** A single mark keeps this share of the width at most, so it never touches both edges. */
const MAX_WIDTH_SHARE = 0.9;

/** Distance from the edges for corner and edge positions: 3% of the shorter side, at least 4 px. */
export function marginFor(image: Size): number {
  return Math.max(4, Math.round(Math.min(image.width, image.height) * 0.03));
}

/**
 * The largest font size not above the target height whose rendering of the text fits the width
 * budget; the smallest size when none fits (the text is then wrapped to the budget).
 * `textWidth(size)` measures the text at a size.
 */
export function chooseFontSize(image: Size, position: WatermarkPosition, textWidth: (size: FontSize) => number): FontSize {
  const target = Math.min(image.width, image.height) * (position === 'tile' ? HEIGHT_SHARE.tile : HEIGHT_SHARE.single);
  const budget = image.width * MAX_WIDTH_SHARE - 2 * marginFor(image);
  const candidates = FONT_SIZES.filter((size) => size <= Math.max(FONT_SIZES[0], target)).reverse();
  return candidates.find((size) => textWidth(size) <= budget) ?? FONT_SIZES[0];
}

/** The width a text block is wrapped to: the single-mark budget. */
export function wrapWidth(image: Size): number {
  return Math.max(1, Math.floor(image.width * MAX_WIDTH_SHARE - 2 * marginFor(image)));
}

/** Top-left corners of the copies of a `block`-sized mark for one position (one copy, or a tiling). */
export function placements(image: Size, block: Size, position: WatermarkPosition): Point[] {
  const m = marginFor(image);
  const right = image.width - block.width - m;
  const bottom = image.height - block.height - m;
  const centreX = Math.round((image.width - block.width) / 2);
  const centreY = Math.round((image.height - block.height) / 2);
  switch (position) {
    case 'top-left':
      return [{ x: m, y: m }];
    case 'top-right':
      return [{ x: right, y: m }];
    case 'bottom-left':
      return [{ x: m, y: bottom }];
    case 'bottom-right':
      return [{ x: right, y: bottom }];
    case 'center':
      return [{ x: centreX, y: centreY }];
    case 'tile':
      return tiling(image, block);
  }
}

/**
 * A brick pattern over the whole image: rows two and a half block-heights apart, copies half a block-width
 * apart within a row, every other row shifted by half a step so copies do not line up in columns.
 * Copies cut by the edges are kept (they are clipped when drawn), so the pattern reaches every edge.
 */
export function tiling(image: Size, block: Size): Point[] {
  const stepX = Math.max(1, Math.round(block.width * 1.5));
  const stepY = Math.max(1, Math.round(block.height * 2.5));
  const points: Point[] = [];
  for (let row = 0, y = Math.round(-block.height / 2); y < image.height; row++, y += stepY) {
    const shift = row % 2 === 0 ? 0 : Math.round(stepX / 2);
    for (let x = -shift; x < image.width; x += stepX) {
      if (x + block.width > 0) points.push({ x, y });
    }
  }
  return points;
}
