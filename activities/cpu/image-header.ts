//! Image type and pixel size read from the first bytes of a file, without decoding it.
//!
//! The type is decided from the bytes alone (never the URL's extension or the Content-Type), and
//! the dimensions come from the header, so a small file that declares 100000x100000 px (a
//! decompression bomb) is refused before a decoder allocates its bitmap. Pure functions.

export const IMAGE_FORMATS = {
  png: { mime: 'image/png', extension: 'png', label: 'PNG' },
  jpeg: { mime: 'image/jpeg', extension: 'jpg', label: 'JPEG' },
  webp: { mime: 'image/webp', extension: 'webp', label: 'WebP' },
  bmp: { mime: 'image/bmp', extension: 'bmp', label: 'BMP' },
} as const;

export type ImageFormat = keyof typeof IMAGE_FORMATS;

export interface ImageHeader {
  format: ImageFormat;
  width: number;
  height: number;
  /** WebP only: the file holds an animation (the decoder reads still images only). */
  animated?: boolean;
}

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a];

function startsWith(bytes: Uint8Array, prefix: ArrayLike<number>, at = 0): boolean {
  if (bytes.length < at + prefix.length) return false;
  for (let i = 0; i < prefix.length; i++) if (bytes[at + i] !== prefix[i]) return false;
  return true;
}

const ascii = (text: string) => [...text].map((c) => c.charCodeAt(0));
const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

/** PNG: the first chunk must be IHDR, which holds width and height (big-endian). */
function readPng(bytes: Uint8Array): ImageHeader | null {
  if (!startsWith(bytes, PNG_SIGNATURE) || !startsWith(bytes, ascii('IHDR'), 12) || bytes.length < 24) return null;
  const v = view(bytes);
  return { format: 'png', width: v.getUint32(16), height: v.getUint32(20) };
}

/** Start-of-frame markers (baseline, progressive, lossless, arithmetic), which carry the size. */
const JPEG_SOF = new Set([0xc0, 0xc1, 0xc2, 0xc3, 0xc5, 0xc6, 0xc7, 0xc9, 0xca, 0xcb, 0xcd, 0xce, 0xcf]);

/** JPEG: walk the marker segments up to the first start-of-frame. */
function readJpeg(bytes: Uint8Array): ImageHeader | null {
  if (!startsWith(bytes, [0xff, 0xd8, 0xff])) return null;
  const v = view(bytes);
  let at = 2;
  while (at + 4 <= bytes.length) {
    if (bytes[at] !== 0xff) return null;
    const marker = bytes[at + 1]!;
    if (marker === 0xff) {
      at += 1; // fill byte
      continue;
    }
    if (marker === 0xd8 || marker === 0x01 || (marker >= 0xd0 && marker <= 0xd7)) {
      at += 2; // markers without a length
      continue;
    }
    if (marker === 0xda || marker === 0xd9) return null; // scan data or end before any frame header
    const length = v.getUint16(at + 2);
    if (length < 2) return null;
    if (JPEG_SOF.has(marker)) {
      if (at + 9 > bytes.length) return null;
      return { format: 'jpeg', height: v.getUint16(at + 5), width: v.getUint16(at + 7) };
    }
    at += 2 + length;
  }
  return null;
}

/** WebP: RIFF container; the size sits in the VP8, VP8L or VP8X chunk, each in its own way. */
function readWebp(bytes: Uint8Array): ImageHeader | null {
  if (!startsWith(bytes, ascii('RIFF')) || !startsWith(bytes, ascii('WEBP'), 8) || bytes.length < 30) return null;
  const v = view(bytes);
  const data = 20;
  if (startsWith(bytes, ascii('VP8 '), 12)) {
    if (!startsWith(bytes, [0x9d, 0x01, 0x2a], data + 3)) return null;
    return { format: 'webp', width: v.getUint16(data + 6, true) & 0x3fff, height: v.getUint16(data + 8, true) & 0x3fff };
  }
  if (startsWith(bytes, ascii('VP8L'), 12)) {
    if (bytes[data] !== 0x2f) return null;
    const bits = v.getUint32(data + 1, true);
    return { format: 'webp', width: (bits & 0x3fff) + 1, height: ((bits >>> 14) & 0x3fff) + 1 };
  }
  if (startsWith(bytes, ascii('VP8X'), 12)) {
    const uint24 = (at: number) => bytes[at]! | (bytes[at + 1]! << 8) | (bytes[at + 2]! << 16);
    return { format: 'webp', width: uint24(data + 4) + 1, height: uint24(data + 7) + 1, animated: (bytes[data]! & 0x02) !== 0 };
  }
  return null;
}

/** BMP: 'BM', then a DIB header whose first field is its own size (12 for the old OS/2 one). */
function readBmp(bytes: Uint8Array): ImageHeader | null {
  if (!startsWith(bytes, ascii('BM')) || bytes.length < 26) return null;
  const v = view(bytes);
  const dibSize = v.getUint32(14, true);
  if (dibSize === 12) return { format: 'bmp', width: v.getUint16(18, true), height: v.getUint16(20, true) };
  if (dibSize < 16) return null;
  // A negative height means rows are stored top-down; the size is its absolute value.
  return { format: 'bmp', width: Math.abs(v.getInt32(18, true)), height: Math.abs(v.getInt32(22, true)) };
}

/** The image's type and declared size, or null when the bytes are none of PNG, JPEG, WebP, BMP. */
export function readImageHeader(bytes: Uint8Array): ImageHeader | null {
  return readPng(bytes) ?? readJpeg(bytes) ?? readWebp(bytes) ?? readBmp(bytes);
}

/** A few other kinds a user may point at by mistake, named in the refusal so it is actionable. */
export function describeOtherContent(bytes: Uint8Array): string {
  if (bytes.length === 0) return 'an empty file';
  if (startsWith(bytes, ascii('GIF8'))) return 'a GIF image';
  if (startsWith(bytes, [0x49, 0x49, 0x2a, 0x00]) || startsWith(bytes, [0x4d, 0x4d, 0x00, 0x2a])) return 'a TIFF image';
  if (startsWith(bytes, ascii('%PDF-'))) return 'a PDF document';
  if (startsWith(bytes, ascii('PK\x03\x04'))) return 'a ZIP archive';
  const head = Buffer.from(bytes.subarray(0, 256)).toString('latin1').trimStart().toLowerCase();
  if (head.startsWith('<!doctype html') || head.startsWith('<html')) return 'an HTML page';
  if (head.startsWith('<svg') || (head.startsWith('<?xml') && head.includes('<svg'))) return 'an SVG image';
  return 'not an image this tool reads';
}
