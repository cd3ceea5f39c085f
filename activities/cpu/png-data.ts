//! Whether a PNG's compressed image data holds every row its header declares. pngjs 7 (under
//! jimp) inflates into a buffer it allocates uninitialised and returns all of it when the data ends
//! early, so a truncated PNG would "decode" to whatever memory held before: a different image on
//! each run, and bytes of the process in the answer. Checked from the bytes before decoding.
import { createInflate, constants } from 'node:zlib';

interface PngLayout {
  width: number;
  height: number;
  bitsPerPixel: number;
  interlaced: boolean;
  /** The IDAT chunks' data, in order: one zlib stream. */
  data: Uint8Array[];
}

const CHANNELS: Record<number, number> = { 0: 1, 2: 3, 3: 1, 4: 2, 6: 4 };

/** Adam7's passes: x and y offset, x and y step. */
const ADAM7 = [
  [0, 0, 8, 8],
  [4, 0, 8, 8],
  [0, 4, 4, 8],
  [2, 0, 4, 4],
  [0, 2, 2, 4],
  [1, 0, 2, 2],
  [0, 1, 1, 2],
] as const;

/** The header and the IDAT chunks, or null when the chunk structure is not a PNG's. */
export function readPngLayout(bytes: Uint8Array): PngLayout | null {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  let layout: Omit<PngLayout, 'data'> | undefined;
  const data: Uint8Array[] = [];
  for (let at = 8; at + 8 <= bytes.length; ) {
    const length = view.getUint32(at);
    const type = String.fromCharCode(...bytes.subarray(at + 4, at + 8));
    const start = at + 8;
    if (start + length > bytes.length) return null;
    if (type === 'IHDR' && length >= 13) {
      const channels = CHANNELS[bytes[start + 9]!];
      if (!channels) return null;
      layout = {
        width: view.getUint32(start),
        height: view.getUint32(start + 4),
        bitsPerPixel: channels * bytes[start + 8]!,
        interlaced: bytes[start + 12] === 1,
      };
    }
    if (type === 'IDAT') data.push(bytes.subarray(start, start + length));
    if (type === 'IEND') break;
    at = start + length + 4; // past the CRC
  }
  return layout ? { ...layout, data } : null;
}

/** Bytes the inflated image data must hold: each row's filter byte and its packed pixels. */
export function expectedDataSize({ width, height, bitsPerPixel, interlaced }: Omit<PngLayout, 'data'>): number {
  const rows = (w: number, h: number) => (w > 0 && h > 0 ? h * (1 + Math.ceil((w * bitsPerPixel) / 8)) : 0);
  if (!interlaced) return rows(width, height);
  return ADAM7.reduce((sum, [x0, y0, dx, dy]) => sum + rows(Math.ceil((width - x0) / dx), Math.ceil((height - y0) / dy)), 0);
}

/** Inflates the stream counting its output, and stops as soon as `enough` bytes have come. */
function inflatesTo(chunks: Uint8Array[], enough: number): Promise<boolean> {
  return new Promise((resolve) => {
    // A stream cut short yields what it has instead of an error: the count decides.
    const inflate = createInflate({ finishFlush: constants.Z_SYNC_FLUSH });
    let count = 0;
    let settled = false;
    const settle = (complete: boolean) => {
      if (settled) return;
      settled = true;
      inflate.destroy();
      resolve(complete);
    };
    inflate.on('data', (chunk: Buffer) => {
      count += chunk.length;
      if (count >= enough) settle(true);
    });
    inflate.on('end', () => settle(count >= enough));
    inflate.on('error', () => settle(count >= enough));
    for (const chunk of chunks) inflate.write(chunk);
    inflate.end();
  });
}

/** True when the PNG's image data inflates to every row its header declares. */
export async function pngDataComplete(bytes: Uint8Array): Promise<boolean> {
  const layout = readPngLayout(bytes);
  if (!layout || layout.data.length === 0) return false;
  return inflatesTo(layout.data, expectedDataSize(layout));
}
