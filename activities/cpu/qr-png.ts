//! Draws a QR module matrix as a 1-bit greyscale PNG of exactly `size` x `size` pixels.
//!
//! qrcode's own PNG renderer is not used: for an exact width it scales modules by a fraction
//! (1.6 px modules of a version-40 code at 300 px no longer decode), it silently returns a larger
//! image when the width is below the module count, and it encodes 2048 px RGBA synchronously
//! (~250 ms on the event loop). Here every module is a whole number of pixels, the remainder goes
//! into the quiet zone, and the compression runs on libuv's thread pool.
import { promisify } from 'node:util';
import { crc32, deflate } from 'node:zlib';

const deflateAsync = promisify(deflate);

/** What is read of a QR code: qrcode's `BitMatrix` satisfies it. */
export interface ModuleMatrix {
  /** Modules per side. */
  readonly size: number;
  /** Truthy for a dark module. */
  get(row: number, col: number): number | boolean;
}

export interface QrLayout {
  /** Pixels per module. */
  scale: number;
  /** Pixels of quiet zone before the first module, on both axes. */
  offset: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/**
 * The largest whole-pixel module that leaves `quietZone` modules of border, centred.
 * Throws a RangeError when even one pixel per module does not fit (the precheck refuses that).
 */
export function layoutQr(modules: number, size: number, quietZone: number): QrLayout {
  const scale = Math.floor(size / (modules + 2 * quietZone));
  if (scale < 1) throw new RangeError(`${modules} modules and a ${quietZone}-module quiet zone do not fit ${size} px`);
  return { scale, offset: Math.floor((size - modules * scale) / 2) };
}

function chunk(type: string, data: Buffer): Buffer {
  const head = Buffer.alloc(8);
  head.writeUInt32BE(data.length, 0);
  head.write(type, 4, 'ascii');
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(data, crc32(head.subarray(4))), 0);
  return Buffer.concat([head, data, crc]);
}

/**
 * Filtered scanlines (filter byte 0, then one bit per pixel, 1 = white). Pixel rows within one
 * module row are identical, so each module row is drawn once and copied.
 */
function scanlines(matrix: ModuleMatrix, size: number, { scale, offset }: QrLayout): Buffer {
  const stride = 1 + Math.ceil(size / 8);
  const raw = Buffer.alloc(stride * size, 0xff);
  for (let y = 0; y < size; y++) raw[y * stride] = 0;
  const line = Buffer.alloc(stride); // line[0], the filter byte, stays 0
  for (let row = 0; row < matrix.size; row++) {
    line.fill(0xff, 1);
    for (let col = 0; col < matrix.size; col++) {
      if (!matrix.get(row, col)) continue;
      for (let x = offset + col * scale; x < offset + (col + 1) * scale; x++) line[1 + (x >> 3)] &= ~(0x80 >> (x & 7));
    }
    for (let k = 0; k < scale; k++) line.copy(raw, (offset + row * scale + k) * stride);
  }
  return raw;
}

export async function renderQrPng(matrix: ModuleMatrix, size: number, quietZone: number): Promise<Buffer> {
  const layout = layoutQr(matrix.size, size, quietZone);
  const header = Buffer.alloc(13);
  header.writeUInt32BE(size, 0);
  header.writeUInt32BE(size, 4);
  header[8] = 1; // bit depth
  header[9] = 0; // colour type: greyscale; compression, filter and interlace bytes stay 0
  const pixels = await deflateAsync(scanlines(matrix, size, layout));
  return Buffer.concat([PNG_SIGNATURE, chunk('IHDR', header), chunk('IDAT', pixels), chunk('IEND', Buffer.alloc(0))]);
}
