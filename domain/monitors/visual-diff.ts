//! Two captures compared pixel by pixel with pixelmatch: the share of the pixels that changed and
//! a diff image (changed pixels in red over a faded copy of the new capture). Rectangles to ignore
//! are left out of the comparison (pixelmatch's ignore mask) and of the count. Captures of
//! different sizes are compared on the larger canvas, where one has no pixel the other has, that
//! pixel changed. CPU-bound: a worker runs it on a thread (activities/monitor-diff-thread.ts).
import pixelmatch from 'pixelmatch';
import { PNG } from 'pngjs';
import type { Rect } from './definition.js';

export interface VisualDiff {
  /** Changed pixels over the pixels compared, 0 to 1. */
  ratio: number;
  /** The diff image, PNG. */
  diffPng: Buffer;
}

/** pixelmatch's colour distance below which two pixels are the same (its default): anti-aliasing and noise stay equal. */
const COLOUR_THRESHOLD = 0.1;

/** `image` on a transparent canvas of `width` x `height` (its top-left corner at the canvas's). */
function onCanvas(image: PNG, width: number, height: number): Uint8Array {
  if (image.width === width && image.height === height) return image.data;
  const data = new Uint8Array(width * height * 4);
  for (let y = 0; y < image.height; y++) data.set(image.data.subarray(y * image.width * 4, (y + 1) * image.width * 4), y * width * 4);
  return data;
}

/** One byte per pixel, non-zero inside any of `rects` (clipped to the canvas). */
function ignoreMask(rects: readonly Rect[], width: number, height: number): { mask: Uint8Array; ignored: number } {
  const mask = new Uint8Array(width * height);
  for (const r of rects) {
    for (let y = Math.max(0, r.y); y < Math.min(height, r.y + r.height); y++) {
      const from = y * width + Math.max(0, r.x);
      const to = y * width + Math.min(width, r.x + r.width);
      if (to > from) mask.fill(1, from, to);
    }
  }
  let ignored = 0;
  for (const b of mask) ignored += b;
  return { mask, ignored };
}

export function compareCaptures(baselinePng: Uint8Array, currentPng: Uint8Array, ignore: readonly Rect[]): VisualDiff {
  const baseline = PNG.sync.read(Buffer.from(baselinePng));
  const current = PNG.sync.read(Buffer.from(currentPng));
  const width = Math.max(baseline.width, current.width);
  const height = Math.max(baseline.height, current.height);
  const { mask, ignored } = ignoreMask(ignore, width, height);
  const diff = new PNG({ width, height });
  const changed = pixelmatch(onCanvas(baseline, width, height), onCanvas(current, width, height), diff.data, width, height, {
    threshold: COLOUR_THRESHOLD,
    ignoreMask: mask,
  });
  const compared = width * height - ignored;
  return { ratio: compared > 0 ? changed / compared : 0, diffPng: PNG.sync.write(diff) };
}
