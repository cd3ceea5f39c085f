//! Pixel size of a PNG or JPEG read from its header: the output's `width` and `height` are what
//! the returned image holds, measured, not what was asked for.

export interface ImageSize {
  width: number;
  height: number;
}

const PNG_SIGNATURE = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]);

/** Start-of-frame markers (baseline, progressive, ...); C4, C8 and CC share the range but are not frames. */
const isStartOfFrame = (marker: number) => marker >= 0xc0 && marker <= 0xcf && marker !== 0xc4 && marker !== 0xc8 && marker !== 0xcc;

/** Throws on anything that is not a well-formed PNG or JPEG header. */
export function imageSize(image: Buffer): ImageSize {
  if (image.length >= 24 && image.subarray(0, 8).equals(PNG_SIGNATURE) && image.toString('latin1', 12, 16) === 'IHDR') {
    return { width: image.readUInt32BE(16), height: image.readUInt32BE(20) };
  }
  if (image.length >= 4 && image[0] === 0xff && image[1] === 0xd8) {
    let at = 2;
    while (at + 9 <= image.length) {
      if (image[at] !== 0xff) break;
      const marker = image[at + 1]!;
      if (marker === 0xff) {
        at++; // fill byte
        continue;
      }
      const length = image.readUInt16BE(at + 2);
      if (isStartOfFrame(marker)) return { height: image.readUInt16BE(at + 5), width: image.readUInt16BE(at + 7) };
      at += 2 + length;
    }
  }
  throw new Error('not a PNG or JPEG image');
}
