//! Runs inside a piscina worker thread: a visual monitor's comparison of two captures
//! (domain/monitors/visual-diff.ts), which decodes both PNGs, compares every pixel and encodes the
//! diff image, a few hundred milliseconds of CPU a worker's event loop must not spend.
import type { Rect } from '../domain/monitors/index.js';
import { compareCaptures } from '../domain/monitors/visual-diff.js';

export interface CompareTask {
  baseline: Uint8Array;
  current: Uint8Array;
  ignore: readonly Rect[];
}

export function compare({ baseline, current, ignore }: CompareTask): { ratio: number; diffPng: Uint8Array } {
  return compareCaptures(baseline, current, ignore);
}
