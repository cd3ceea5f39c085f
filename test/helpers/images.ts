//! Decodes the images tools return (PNG with pngjs, JPEG with jimp's decoder) so tests can check
//! their pixel size and the colour at a point.
import { Jimp } from 'jimp';
import { PNG } from 'pngjs';

export interface DecodedImage {
  width: number;
  height: number;
  /** RGB at image pixel (x, y). */
  rgb(x: number, y: number): [number, number, number];
}

export async function decodeImage(base64: string, mimeType: string): Promise<DecodedImage> {
  const bytes = Buffer.from(base64, 'base64');
  let width: number, height: number, data: Uint8Array;
  if (mimeType === 'image/png') {
    ({ width, height, data } = PNG.sync.read(bytes));
  } else if (mimeType === 'image/jpeg') {
    const image = await Jimp.read(bytes);
    ({ width, height, data } = image.bitmap);
  } else {
    throw new Error(`cannot decode ${mimeType}`);
  }
  return {
    width,
    height,
    rgb(x, y) {
      if (x < 0 || y < 0 || x >= width || y >= height) throw new RangeError(`(${x}, ${y}) is outside ${width}x${height}`);
      const i = (Math.floor(y) * width + Math.floor(x)) * 4;
      return [data[i]!, data[i + 1]!, data[i + 2]!];
    },
  };
}

/** True when every channel is within `tolerance` (JPEG and anti-aliasing move colours a little). */
export function near(actual: readonly number[], expected: readonly number[], tolerance = 12): boolean {
  return actual.length >= 3 && [0, 1, 2].every((i) => Math.abs(actual[i]! - expected[i]!) <= tolerance);
}

/** Pixels where two images of one size differ by more than `tolerance` in some channel. */
export function differingPixels(a: DecodedImage, b: DecodedImage, tolerance = 0): number {
  if (a.width !== b.width || a.height !== b.height) throw new RangeError(`${a.width}x${a.height} vs ${b.width}x${b.height}`);
  let differing = 0;
  for (let y = 0; y < a.height; y++) for (let x = 0; x < a.width; x++) if (!near(a.rgb(x, y), b.rgb(x, y), tolerance)) differing++;
  return differing;
}
