//! Decoding and encoding of PNG, JPEG, WebP and BMP for the image threads, on jimp 1.6.1.
//!
//! jimp reads PNG, JPEG and BMP itself but has no WebP codec of its own, and its @jimp/wasm-webp
//! plugin cannot run in Node: it re-initialises @jsquash/webp on every call, which then fetches
//! its .wasm by URL (Node's fetch has no file: scheme). So WebP goes through @jsquash/webp
//! directly, initialised once with the .wasm read from node_modules, and meets jimp as a bitmap.
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import webpDecode, { init as initWebpDecode } from '@jsquash/webp/decode.js';
import webpEncode, { init as initWebpEncode } from '@jsquash/webp/encode.js';
import { Jimp, type JimpInstance } from 'jimp';
import type { ImageFormat } from './image-header.js';
import { pngDataComplete } from './png-data.js';

export type { JimpInstance };

/** Output quality of the lossy formats: visually lossless for photos, a third of q100's size. */
export const LOSSY_QUALITY = 90;

export interface ImageCodecs {
  decode(bytes: Uint8Array, format: ImageFormat): Promise<JimpInstance>;
  encode(image: JimpInstance, format: Exclude<ImageFormat, 'bmp'>): Promise<Buffer>;
}

async function compileWasm(specifier: string): Promise<WebAssembly.Module> {
  const path = createRequire(import.meta.url).resolve(specifier);
  return WebAssembly.compile(await readFile(path));
}

/** Loads the WebP codecs on first use; the promise is shared so they are compiled once. */
function webpCodec() {
  let ready: Promise<void> | undefined;
  const init = () =>
    (ready ??= (async () => {
      // The encoder loads its SIMD glue code when the runtime has WebAssembly SIMD, which every
      // Node this service runs on (>= 20) has: hand it the matching SIMD .wasm.
      const [decoder, encoder] = await Promise.all([
        compileWasm('@jsquash/webp/codec/dec/webp_dec.wasm'),
        compileWasm('@jsquash/webp/codec/enc/webp_enc_simd.wasm'),
      ]);
      await Promise.all([initWebpDecode(decoder), initWebpEncode(encoder)]);
    })());
  return {
    async decode(bytes: Uint8Array): Promise<JimpInstance> {
      await init();
      const image = await webpDecode(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength) as ArrayBuffer);
      const data = Buffer.from(image.data.buffer, image.data.byteOffset, image.data.byteLength);
      return Jimp.fromBitmap({ data, width: image.width, height: image.height }) as JimpInstance;
    },
    async encode(image: JimpInstance): Promise<Buffer> {
      await init();
      const { data, width, height } = image.bitmap;
      const pixels = new Uint8ClampedArray(data.buffer as ArrayBuffer, data.byteOffset, data.byteLength);
      return Buffer.from(await webpEncode({ data: pixels, width, height, colorSpace: 'srgb' }, { quality: LOSSY_QUALITY }));
    },
  };
}

export function createImageCodecs(): ImageCodecs {
  const webp = webpCodec();
  return {
    async decode(bytes, format) {
      if (format === 'webp') return webp.decode(bytes);
      if (format === 'png' && !(await pngDataComplete(bytes))) throw new Error('the PNG image data ends before its last row');
      return (await Jimp.fromBuffer(Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength))) as JimpInstance;
    },
    async encode(image, format) {
      if (format === 'webp') return webp.encode(image);
      // deflate level 6: within a few % of 9's size at a third of its time on photos.
      if (format === 'png') return image.getBuffer('image/png', { deflateLevel: 6 });
      return image.getBuffer('image/jpeg', { quality: LOSSY_QUALITY });
    },
  };
}
