//! Runs inside a piscina worker thread of the upscale pool (image-pool.ts): decode, upscale with
//! the model, encode. TensorFlow's kernels hold the thread for seconds, which is why this is not
//! on the activity worker's event loop. The upscaler (TensorFlow, both models) is loaded when the
//! thread starts, so the pool is warm before the first call.
import { Jimp, ResizeStrategy } from 'jimp';
import { createImageCodecs, type JimpInstance } from './image-codecs.js';
import type { ImageFormat } from './image-header.js';
import type { UpscaleFactor } from '../../domain/tools/image-upscale.js';
import { createUpscaler, type RgbImage } from './upscaler.js';

export interface UpscaleTask {
  bytes: Uint8Array;
  format: ImageFormat;
  factor: UpscaleFactor;
}

export type UpscaleResult =
  | { ok: true; bytes: Uint8Array; format: Exclude<ImageFormat, 'bmp'>; width: number; height: number; upscaleMs: number }
  | { ok: false; reason: 'undecodable'; detail: string };

// This thread's own instances: a piscina thread is its own small program, and these are its state.
const codecs = createImageCodecs();
const upscaler = await createUpscaler();

/** BMP is uncompressed (a 1024 px result would be 3 MiB): its upscale is written as PNG. */
function outputFormatFor(format: ImageFormat): Exclude<ImageFormat, 'bmp'> {
  return format === 'bmp' ? 'png' : format;
}

function rgbOf(image: JimpInstance): { rgb: RgbImage; hasAlpha: boolean } {
  const { data, width, height } = image.bitmap;
  const rgb = new Uint8Array(width * height * 3);
  let hasAlpha = false;
  for (let i = 0, j = 0; i < data.length; i += 4, j += 3) {
    rgb[j] = data[i]!;
    rgb[j + 1] = data[i + 1]!;
    rgb[j + 2] = data[i + 2]!;
    if (data[i + 3] !== 255) hasAlpha = true;
  }
  return { rgb: { data: rgb, width, height }, hasAlpha };
}

/**
 * The model upscales colour only. Transparency, when the source has any, is scaled with
 * bilinear interpolation and put back, so a logo on a transparent background stays one.
 */
function withAlpha(upscaled: RgbImage, source: JimpInstance | null): JimpInstance {
  const { width, height } = upscaled;
  const rgba = Buffer.alloc(width * height * 4, 255);
  for (let i = 0, j = 0; j < upscaled.data.length; i += 4, j += 3) {
    rgba[i] = upscaled.data[j]!;
    rgba[i + 1] = upscaled.data[j + 1]!;
    rgba[i + 2] = upscaled.data[j + 2]!;
  }
  if (source) {
    const alpha = source.clone().resize({ w: width, h: height, mode: ResizeStrategy.BILINEAR }).bitmap.data;
    for (let i = 3; i < rgba.length; i += 4) rgba[i] = alpha[i]!;
  }
  return Jimp.fromBitmap({ data: rgba, width, height }) as JimpInstance;
}

export async function upscale({ bytes, format, factor }: UpscaleTask): Promise<UpscaleResult> {
  let source: JimpInstance;
  try {
    source = await codecs.decode(bytes, format);
  } catch (err) {
    return { ok: false, reason: 'undecodable', detail: err instanceof Error ? err.message : String(err) };
  }
  const { rgb, hasAlpha } = rgbOf(source);
  const started = performance.now();
  const upscaled = await upscaler.upscale(rgb, factor);
  const upscaleMs = Math.round(performance.now() - started);
  const output = outputFormatFor(format);
  const image = withAlpha(upscaled, hasAlpha ? source : null);
  const encoded = await codecs.encode(image, output);
  return { ok: true, bytes: encoded, format: output, width: upscaled.width, height: upscaled.height, upscaleMs };
}
