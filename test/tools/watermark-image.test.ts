//! watermark-image: the mark lands where `position` says (checked by pixels), `opacity` scales it,
//! the output keeps the source's format, text the font cannot draw is 400, and size, type and
//! target refusals, including a decompression bomb refused from its header before decoding.
import test from 'ava';
import { readFileSync } from 'node:fs';
import * as fonts from 'jimp/fonts';
import { createImagePool, type ImagePool } from '../../activities/cpu/image-pool.js';
import { createWatermarkImage } from '../../activities/tools/watermark-image.js';
import { FONT_SIZES } from '../../activities/cpu/watermark-layout.js';
import { isDrawable, type WatermarkImageInput } from '../../domain/tools/watermark-image.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';
import { closedPort } from '../fixtures/file-server.js';
import { download, files } from './support/source-files.js';
import { decodeImage, jpegDeclaring, makeImage, pixelAt, pngDeclaring } from '../fixtures/images.js';
import type { JimpInstance } from '../../activities/cpu/image-codecs.js';

// ===== Unit: the handler called directly, with a real image thread pool (no stack) =====

const pool = createImagePool({ drawingThreads: 2, upscaleThreads: 0 });
const watermarkImage = createWatermarkImage({ download, images: pool });
const schemas = compileToolSchemas('watermark-image');
/** A fresh context (and abort signal) per call, as every activity has its own. */
const ctx = () => standaloneContext();
test.after.always(() => pool.close());

const W = 400;
const H = 300;
const BLACK = 0x000000ff;
const WHITE = 0xffffffff;

/** Calls the handler with input as the API hands it on: validated, defaults applied. */
async function watermark(partial: Partial<WatermarkImageInput> & { fileUrl: string }) {
  const input = structuredClone({ text: 'Utility Tools', ...partial });
  if (!schemas.input(input)) throw new Error(`invalid input: ${JSON.stringify(schemas.input.errors)}`);
  const output = await watermarkImage(input as WatermarkImageInput, ctx());
  const bytes = Buffer.from(output.fileBase64, 'base64');
  return { output, bytes, image: await decodeImage(bytes) };
}

interface Box {
  minX: number;
  minY: number;
  maxX: number;
  maxY: number;
  count: number;
}

/** Bounding box of the pixels that differ from the background (black). */
function markedBox(image: JimpInstance, isBackground: (p: ReturnType<typeof pixelAt>) => boolean): Box {
  const box = { minX: Infinity, minY: Infinity, maxX: -1, maxY: -1, count: 0 };
  for (let y = 0; y < image.height; y++) {
    for (let x = 0; x < image.width; x++) {
      if (isBackground(pixelAt(image, x, y))) continue;
      box.count++;
      box.minX = Math.min(box.minX, x);
      box.maxX = Math.max(box.maxX, x);
      box.minY = Math.min(box.minY, y);
      box.maxY = Math.max(box.maxY, y);
    }
  }
  return box;
}

const isBlack = (p: { r: number; g: number; b: number }) => p.r === 0 && p.g === 0 && p.b === 0;

test('each corner and the centre put the mark in their own region, clear of the edges', async (t) => {
  const url = files.put('/black.png', await makeImage('png', W, H, BLACK));
  const expected = {
    'top-left': (b: Box) => b.maxX < W / 2 && b.maxY < H / 2,
    'top-right': (b: Box) => b.minX > W / 2 && b.maxY < H / 2,
    'bottom-left': (b: Box) => b.maxX < W / 2 && b.minY > H / 2,
    'bottom-right': (b: Box) => b.minX > W / 2 && b.minY > H / 2,
    center: (b: Box) => Math.abs((b.minX + b.maxX) / 2 - W / 2) < 6 && Math.abs((b.minY + b.maxY) / 2 - H / 2) < 6,
  } as const;
  for (const [position, inRegion] of Object.entries(expected)) {
    const { image } = await watermark({ fileUrl: url, position: position as WatermarkImageInput['position'], opacity: 1 });
    const box = markedBox(image, isBlack);
    t.true(box.count > 200, `${position}: the mark has pixels (${box.count})`);
    t.true(inRegion(box), `${position}: ${JSON.stringify(box)}`);
    // Margin: 3% of the shorter side (9 px) from every edge it is near.
    t.true(
      box.minX >= 9 && box.minY >= 9 && box.maxX <= W - 9 && box.maxY <= H - 9,
      `${position}: inside the margins ${JSON.stringify(box)}`,
    );
  }
});

test('tile repeats the mark over the whole image: every cell of a 4x4 grid has marked pixels', async (t) => {
  const { image } = await watermark({ fileUrl: files.put('/tile.png', await makeImage('png', W, H, BLACK)), position: 'tile', opacity: 1 });
  for (let row = 0; row < 4; row++) {
    for (let col = 0; col < 4; col++) {
      let marked = 0;
      for (let y = (row * H) / 4; y < ((row + 1) * H) / 4; y++)
        for (let x = (col * W) / 4; x < ((col + 1) * W) / 4; x++) if (!isBlack(pixelAt(image, x, y))) marked++;
      t.true(marked > 20, `cell ${row},${col}: ${marked} marked pixels`);
    }
  }
});

test('opacity scales the mark: the brightest text pixel on black is 255 x opacity, the darkest shadow on white 255 x (1 - opacity)', async (t) => {
  const onBlack = files.put('/opacity-black.png', await makeImage('png', W, H, BLACK));
  const onWhite = files.put('/opacity-white.png', await makeImage('png', W, H, WHITE));
  for (const opacity of [0.05, 0.35, 0.7, 1]) {
    const dark = (await watermark({ fileUrl: onBlack, position: 'center', opacity })).image;
    let brightest = 0;
    dark.scan((x, y) => void (brightest = Math.max(brightest, pixelAt(dark, x, y).r)));
    t.true(Math.abs(brightest - 255 * opacity) <= 2, `opacity ${opacity} on black: brightest ${brightest}`);

    const light = (await watermark({ fileUrl: onWhite, position: 'center', opacity })).image;
    let darkest = 255;
    light.scan((x, y) => void (darkest = Math.min(darkest, pixelAt(light, x, y).r)));
    t.true(Math.abs(darkest - 255 * (1 - opacity)) <= 2, `opacity ${opacity} on white: darkest ${darkest}`);
  }
});

test('the output is in the source format with its size, dimensions and a name from the URL', async (t) => {
  const cases = [
    ['png', '/photos/holiday.png', 'image/png', 'holiday-watermarked.png', [0x89, 0x50, 0x4e, 0x47]],
    ['jpeg', '/photos/holiday.jpeg', 'image/jpeg', 'holiday-watermarked.jpg', [0xff, 0xd8, 0xff]],
    ['webp', '/photos/holiday.webp', 'image/webp', 'holiday-watermarked.webp', [0x52, 0x49, 0x46, 0x46]],
  ] as const;
  for (const [format, urlPath, mimeType, fileName, magic] of cases) {
    const { output, bytes, image } = await watermark({ fileUrl: files.put(urlPath, await makeImage(format, 320, 200, 0x2060a0ff)) });
    t.true(schemas.output(output), JSON.stringify(schemas.output.errors));
    t.like(output, { mimeType, fileName, sizeBytes: bytes.length, width: 320, height: 200 }, format);
    t.deepEqual([...bytes.subarray(0, magic.length)], [...magic], format);
    t.deepEqual([image.width, image.height], [320, 200]);
    // Away from the mark (default bottom-right) the picture is unchanged, within lossy coding.
    const p = pixelAt(image, 20, 20);
    t.true(Math.abs(p.r - 0x20) <= 4 && Math.abs(p.g - 0x60) <= 4 && Math.abs(p.b - 0xa0) <= 4, `${format}: ${JSON.stringify(p)}`);
  }
});

test('a transparent PNG stays transparent away from the mark', async (t) => {
  const { image } = await watermark({
    fileUrl: files.put('/clear.png', await makeImage('png', W, H, 0x00000000)),
    position: 'center',
    opacity: 1,
  });
  t.is(pixelAt(image, 5, 5).a, 0);
  t.is(markedBox(image, (p) => p.a === 0).count > 200, true);
});

test('the type comes from the bytes: a JPEG served as .png with an image/png Content-Type answers JPEG', async (t) => {
  const { output } = await watermark({
    fileUrl: files.put('/lying.png', { body: await makeImage('jpeg', 64, 64, WHITE), contentType: 'image/png' }),
  });
  t.like(output, { mimeType: 'image/jpeg', fileName: 'lying-watermarked.jpg' });
});

test('text the font cannot draw (CJK, emoji, Cyrillic, backtick, tab, line break) is 400 on /text, before any download', async (t) => {
  const url = files.put('/never.png', await makeImage('png', 8, 8, BLACK));
  for (const text of ['世界', 'Sale 🔥', 'Привет', 'a`b', 'a\tb', 'two\nlines']) {
    const err = await rejectsWith(
      t,
      watermarkImage({ fileUrl: url, text, opacity: 0.35, position: 'center' }, ctx()),
      'validation_failed',
      '/text',
    );
    t.regex(err.message, /cannot draw/, text);
  }
  await rejectsWith(
    t,
    watermarkImage({ fileUrl: url, text: '   ', opacity: 0.35, position: 'center' }, ctx()),
    'validation_failed',
    '/text',
  );
  t.is(files.hits('/never.png'), 0);
  // Accents, the euro sign and Latin-1 punctuation are drawn.
  await t.notThrowsAsync(watermark({ fileUrl: url, text: 'Ça coûte 5 € - «déjà» ¿sí? ©® ~{}' }));
});

test('the drawable set is exactly the glyphs of every font size the watermark uses', (t) => {
  const files = FONT_SIZES.flatMap((size) =>
    ['WHITE', 'BLACK'].map((colour) => (fonts as Record<string, string>)[`SANS_${size}_${colour}`]!),
  );
  const sets = files.map((file) =>
    [...readFileSync(file, 'utf8').matchAll(/<char id="(\d+)"/g)].map((m) => Number(m[1])).sort((a, b) => a - b),
  );
  t.is(sets.length, 10);
  const drawable = Array.from({ length: 0x3000 }, (_, cp) => cp).filter(isDrawable);
  for (const set of sets) t.deepEqual(set, drawable);
});

test('a PNG header declaring 100000x100000 px is 422 source_too_large, refused before decoding', async (t) => {
  // The real pool, counting the images handed to it for decoding.
  let decoded = 0;
  const images: Pick<ImagePool, 'watermark'> = {
    watermark: (task, signal) => {
      decoded++;
      return pool.watermark(task, signal);
    },
  };
  const watermarkImage = createWatermarkImage({ download, images });
  const bomb = pngDeclaring(100_000, 100_000);
  t.true(bomb.length < 100);
  const err = await rejectsWith(
    t,
    watermarkImage({ fileUrl: files.put('/bomb.png', bomb), text: 'x', opacity: 0.35, position: 'center' }, ctx()),
    'source_too_large',
  );
  t.regex(err.message, /100000x100000 px.*limit is 25 megapixels/);
  const jpeg = await rejectsWith(
    t,
    watermarkImage({ fileUrl: files.put('/bomb.jpg', jpegDeclaring(60_000, 60_000)), text: 'x', opacity: 0.35, position: 'center' }, ctx()),
    'source_too_large',
  );
  t.regex(jpeg.message, /60000x60000/);
  t.is(decoded, 0, 'no image reached a decoder');
});

test('a header within the limits over data that does not decode is 422 unsupported_source', async (t) => {
  const err = await rejectsWith(
    t,
    watermarkImage({ fileUrl: files.put('/cut.png', pngDeclaring(64, 64)), text: 'x', opacity: 0.35, position: 'center' }, ctx()),
    'unsupported_source',
  );
  t.regex(err.message, /could not be decoded/);
});

test('other types are 422 unsupported_source naming what was found', async (t) => {
  const animatedWebp = Buffer.concat([
    Buffer.from('RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0', 'latin1'),
    Buffer.from([0x02, 0, 0, 0, 9, 0, 0, 9, 0, 0]),
  ]);
  const cases: [string, Buffer, RegExp][] = [
    ['/a.gif', Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1'), /a GIF image/],
    ['/a.bmp', await makeImage('bmp', 8, 8, BLACK), /a BMP image; this tool takes PNG, JPEG or WebP/],
    ['/a.pdf', Buffer.from('%PDF-1.7\n'), /a PDF document/],
    ['/a.html', Buffer.from('<!DOCTYPE html><html></html>'), /an HTML page/],
    ['/anim.webp', animatedWebp, /animated WebP/],
    ['/empty.png', Buffer.alloc(0), /an empty file/],
  ];
  for (const [urlPath, body, message] of cases) {
    const err = await rejectsWith(
      t,
      watermarkImage({ fileUrl: files.put(urlPath, body), text: 'x', opacity: 0.35, position: 'center' }, ctx()),
      'unsupported_source',
    );
    t.regex(err.message, message, urlPath);
  }
});

test('an image over 10 MiB is 422 source_too_large naming the limit', async (t) => {
  const big = Buffer.concat([await makeImage('png', 8, 8, BLACK), Buffer.alloc(10 * 1024 * 1024)]);
  const err = await rejectsWith(
    t,
    watermarkImage({ fileUrl: files.put('/big.png', big), text: 'x', opacity: 0.35, position: 'center' }, ctx()),
    'source_too_large',
  );
  t.regex(err.message, /10 MiB, the limit for images/);
});

test('private targets are 422 target_not_allowed; an unreachable source is 502', async (t) => {
  const input = { text: 'x', opacity: 0.35, position: 'center' } as const;
  await rejectsWith(t, watermarkImage({ ...input, fileUrl: 'http://127.0.0.1:9/a.png' }, ctx()), 'target_not_allowed');
  await rejectsWith(t, watermarkImage({ ...input, fileUrl: 'http://169.254.169.254/latest/a.png' }, ctx()), 'target_not_allowed');
  await rejectsWith(
    t,
    watermarkImage({ ...input, fileUrl: files.redirect('/hop.png', 'http://[::1]:9/a.png') }, ctx()),
    'target_not_allowed',
  );
  await rejectsWith(t, watermarkImage({ ...input, fileUrl: `http://127.0.0.2:${await closedPort()}/a.png` }, ctx()), 'upstream_error');
});

test('input schema: defaults opacity 0.35 and bottom-right; bounds and positions enforced', (t) => {
  const input = validInput<WatermarkImageInput>(t, schemas.input, { fileUrl: 'https://example.com/a.png', text: 'x' });
  t.like(input, { opacity: 0.35, position: 'bottom-right' });
  for (const bad of [{ opacity: 0.04 }, { opacity: 1.01 }, { position: 'middle' }, { text: '' }, { text: 'x'.repeat(201) }, { size: 3 }]) {
    t.false(schemas.input({ fileUrl: 'https://example.com/a.png', text: 'x', ...bad }), JSON.stringify(bad));
  }
  for (const opacity of [0.05, 1]) t.true(schemas.input({ fileUrl: 'https://example.com/a.png', text: 'x', opacity }));
  const { examples } = schemas.input.schema as { examples: unknown[] };
  t.true(schemas.input(structuredClone(examples[0])));
});

// ===== Integration: through HTTP against the running stack =====

test('HTTP: a JPEG answers 200 with the watermarked JPEG and is charged 2 credits', async (t) => {
  const account = await newAccount(10);
  const fileUrl = files.put('/http/shop/item.jpg', await makeImage('jpeg', 640, 480, 0x806040ff));
  const res = await callTool(account.apiKey, 'watermark-image', { fileUrl, text: '© Shop 2025', position: 'tile', opacity: 0.5 });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.headers.get('x-credits-charged'), '2');
  t.like(res.body, { mimeType: 'image/jpeg', fileName: 'item-watermarked.jpg', width: 640, height: 480 });
  const image = await decodeImage(Buffer.from(res.body.fileBase64, 'base64'));
  t.deepEqual([image.width, image.height], [640, 480]);
  t.is(await balanceOf(account), 8);
});

test('HTTP: undrawable text is 400 and a bomb 422, neither charged', async (t) => {
  const account = await newAccount(10);
  const cjk = await callTool(account.apiKey, 'watermark-image', {
    fileUrl: files.put('/http/ok.png', await makeImage('png', 8, 8, BLACK)),
    text: '版权所有',
  });
  t.true(isProblem(cjk, 400, 'validation_failed'), JSON.stringify(cjk.body));
  t.is(cjk.body.errors[0].field, '/text');
  const bomb = await callTool(account.apiKey, 'watermark-image', {
    fileUrl: files.put('/http/bomb.png', pngDeclaring(100_000, 100_000)),
    text: 'x',
  });
  t.true(isProblem(bomb, 422, 'source_too_large'), JSON.stringify(bomb.body));
  t.is(await balanceOf(account), 10);
});
