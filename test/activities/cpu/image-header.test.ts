//! Image type and size from the header bytes alone, for every format the image tools take.
import test from 'ava';
import { readImageHeader, describeOtherContent } from '../../../activities/cpu/image-header.js';
import { jpegDeclaring, makeImage, pngDeclaring } from '../../fixtures/images.js';

test('PNG, JPEG, WebP and BMP made by an encoder report their format and size', async (t) => {
  for (const format of ['png', 'jpeg', 'webp', 'bmp'] as const) {
    for (const [width, height] of [
      [1, 1],
      [37, 501],
      [640, 480],
    ] as const) {
      t.deepEqual(
        readImageHeader(await makeImage(format, width, height, 0x102030ff)),
        { format, width, height },
        `${format} ${width}x${height}`,
      );
    }
  }
});

test('sizes far beyond any limit are read from headers without pixel data', (t) => {
  t.like(readImageHeader(pngDeclaring(100_000, 100_000)), { format: 'png', width: 100_000, height: 100_000 });
  t.like(readImageHeader(jpegDeclaring(65_535, 65_535)), { format: 'jpeg', width: 65_535, height: 65_535 });
});

test('JPEG: segments before the frame header (EXIF, fill bytes) are skipped; a scan before any frame is refused', (t) => {
  const exif = Buffer.concat([Buffer.from([0xff, 0xe1, 0x00, 0x10]), Buffer.alloc(14, 0x41)]);
  const sof = jpegDeclaring(123, 45).subarray(8); // the frame header and what follows
  t.like(readImageHeader(Buffer.concat([Buffer.from([0xff, 0xd8]), exif, Buffer.from([0xff, 0xff]), sof])), { width: 123, height: 45 });
  t.is(readImageHeader(Buffer.from([0xff, 0xd8, 0xff, 0xda, 0x00, 0x02, 0xff, 0xd9])), null);
});

test('WebP: lossy (VP8), lossless (VP8L) and extended (VP8X, with its animation flag)', (t) => {
  const riff = (chunk: string, data: number[]) =>
    Buffer.concat([Buffer.from(`RIFF\0\0\0\0WEBP${chunk}\0\0\0\0`, 'latin1'), Buffer.from(data), Buffer.alloc(8)]);
  t.deepEqual(readImageHeader(riff('VP8 ', [0, 0, 0, 0x9d, 0x01, 0x2a, 200, 0, 100, 0])), { format: 'webp', width: 200, height: 100 });
  // VP8L: 0x2f, then 14 bits width-1 and 14 bits height-1, little-endian.
  const bits = (300 - 1) | ((20 - 1) << 14);
  t.deepEqual(readImageHeader(riff('VP8L', [0x2f, bits & 0xff, (bits >> 8) & 0xff, (bits >> 16) & 0xff, bits >>> 24])), {
    format: 'webp',
    width: 300,
    height: 20,
  });
  t.deepEqual(readImageHeader(riff('VP8X', [0x02, 0, 0, 0, 0xff, 0x03, 0, 0x0f, 0, 0])), {
    format: 'webp',
    width: 1024,
    height: 16,
    animated: true,
  });
});

test('BMP: top-down bitmaps (negative height) and the old OS/2 header', (t) => {
  const bmp = (dib: Buffer) => Buffer.concat([Buffer.from('BM'), Buffer.alloc(12), dib]);
  const v3 = Buffer.alloc(40);
  v3.writeUInt32LE(40, 0);
  v3.writeInt32LE(640, 4);
  v3.writeInt32LE(-480, 8);
  t.deepEqual(readImageHeader(bmp(v3)), { format: 'bmp', width: 640, height: 480 });
  const os2 = Buffer.alloc(12);
  os2.writeUInt32LE(12, 0);
  os2.writeUInt16LE(32, 4);
  os2.writeUInt16LE(16, 6);
  t.deepEqual(readImageHeader(Buffer.concat([bmp(os2), Buffer.alloc(4)])), { format: 'bmp', width: 32, height: 16 });
});

test('anything else is null, cut headers included, and is named when it is a common kind', (t) => {
  for (const bytes of [
    Buffer.alloc(0),
    Buffer.from('GIF89a'),
    Buffer.from('%PDF-1.7'),
    pngDeclaring(10, 10).subarray(0, 20),
    Buffer.from([0xff, 0xd8, 0xff]),
  ]) {
    t.is(readImageHeader(bytes), null);
  }
  t.is(describeOtherContent(Buffer.from('GIF87a')), 'a GIF image');
  t.is(describeOtherContent(Buffer.from('  <!DOCTYPE html>')), 'an HTML page');
  t.is(describeOtherContent(Buffer.from('<?xml version="1.0"?><svg>')), 'an SVG image');
  t.is(describeOtherContent(Buffer.from('hello')), 'not an image this tool reads');
});
