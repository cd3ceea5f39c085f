//! Runs inside a piscina worker thread of the drawing pool (image-pool.ts): the watermark task.
//! Decoding a 10 MiB photo, compositing and encoding take from tens of milliseconds to seconds of
//! pure JavaScript and WebAssembly, which would otherwise hold the activity worker's event loop.
import { createImageCodecs } from './image-codecs.js';
import type { ImageFormat } from './image-header.js';
import { drawWatermark, loadFontBook } from './watermark-draw.js';
import type { WatermarkPosition } from '../../domain/tools/watermark-image.js';

export interface WatermarkTask {
  bytes: Uint8Array;
  /** Decided from the bytes by the caller; also the output format. */
  format: Exclude<ImageFormat, 'bmp'>;
  text: string;
  position: WatermarkPosition;
  opacity: number;
}

export type WatermarkResult =
  | { ok: true; bytes: Uint8Array; width: number; height: number }
  | { ok: false; reason: 'undecodable'; detail: string };

// This thread's own instances: a piscina thread is its own small program, and these are its state.
const codecs = createImageCodecs();
const fonts = await loadFontBook();

export async function watermark({ bytes, format, text, position, opacity }: WatermarkTask): Promise<WatermarkResult> {
  let image;
  try {
    image = await codecs.decode(bytes, format);
  } catch (err) {
    return { ok: false, reason: 'undecodable', detail: err instanceof Error ? err.message : String(err) };
  }
  drawWatermark(image, { text, position, opacity }, fonts);
  const encoded = await codecs.encode(image, format);
  return { ok: true, bytes: encoded, width: image.width, height: image.height };
}
