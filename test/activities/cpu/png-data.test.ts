//! A PNG is decoded only when its image data holds every row its header declares: decided by the
//! bytes, the same way on every run (pngjs alone answers a truncated PNG with uninitialised memory).
import test from 'ava';
import { createImageCodecs } from '../../../activities/cpu/image-codecs.js';
import { pngDataComplete } from '../../../activities/cpu/png-data.js';
import { makeImage, pngDeclaring, rawPng, type RawPngShape } from '../../fixtures/images.js';

const SHAPES: Array<Pick<RawPngShape, 'colorType' | 'bitDepth'>> = [
  ...([1, 2, 4, 8, 16] as const).map((bitDepth) => ({ colorType: 0 as const, bitDepth })),
  ...([1, 2, 4, 8] as const).map((bitDepth) => ({ colorType: 3 as const, bitDepth })),
  ...([8, 16] as const).flatMap((bitDepth) => ([2, 4, 6] as const).map((colorType) => ({ colorType, bitDepth }))),
];

test('every colour type, depth and interlacing: whole data is complete, one byte short is not', async (t) => {
  for (const shape of SHAPES) {
    for (const interlaced of [false, true]) {
      for (const [width, height] of [
        [1, 1],
        [7, 5],
        [33, 9],
        [3, 17],
      ] as const) {
        const what = JSON.stringify({ ...shape, interlaced, width, height });
        t.true(await pngDataComplete(rawPng({ ...shape, interlaced, width, height })), what);
        t.false(await pngDataComplete(rawPng({ ...shape, interlaced, width, height }, 1)), what);
      }
    }
  }
});

test('images the tools write are complete; no image data, or a declared size far past the data, is not', async (t) => {
  t.true(await pngDataComplete(await makeImage('png', 40, 30, 0x102030ff)));
  t.false(await pngDataComplete(pngDeclaring(64, 64)));
  t.false(await pngDataComplete(pngDeclaring(100_000, 100_000)));
  const noData = rawPng({ width: 4, height: 4, colorType: 6, bitDepth: 8 });
  const withoutIdat = Buffer.concat([noData.subarray(0, 33), noData.subarray(noData.length - 12)]);
  t.false(await pngDataComplete(withoutIdat));
});

test('a truncated PNG is refused on every decode, never answered with whatever memory held', async (t) => {
  const codecs = createImageCodecs();
  const cut = pngDeclaring(64, 64);
  for (let i = 0; i < 50; i++) await t.throwsAsync(codecs.decode(cut, 'png'), { message: /ends before its last row/ });
  const whole = rawPng({ width: 64, height: 64, colorType: 6, bitDepth: 8 });
  t.is((await codecs.decode(whole, 'png')).width, 64);
});
