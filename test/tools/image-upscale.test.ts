//! image-upscale: x2 and x4 give exactly factor-times images in the source's format (BMP as PNG)
//! with the picture and its transparency kept; the per-factor size limits are read from the
//! header and refused before decoding; type and target refusals.
import test from 'ava';
import { createImagePool, type ImagePool } from '../../activities/cpu/image-pool.js';
import { createImageUpscale } from '../../activities/tools/image-upscale.js';
import type { ImageUpscaleInput } from '../../domain/tools/image-upscale.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';
import { closedPort } from '../fixtures/file-server.js';
import { download, files } from './support/source-files.js';
import { decodeImage, jpegDeclaring, makeImage, pixelAt, pngDeclaring } from '../fixtures/images.js';

// ===== Unit: the handler called directly, with a real upscale thread (no stack) =====

const pool = createImagePool({ drawingThreads: 0, upscaleThreads: 1 });
const timings: { factor: number; upscaleMs: number }[] = [];
const imageUpscale = createImageUpscale({ download, images: pool, onTiming: (timing) => timings.push(timing) });
const schemas = compileToolSchemas('image-upscale');
/** A fresh context (and abort signal) per call, as every activity has its own. */
const ctx = () => standaloneContext();
test.after.always(() => pool.close());

async function upscale(fileUrl: string, factor: 2 | 4) {
  const output = await imageUpscale({ fileUrl, factor }, ctx());
  const bytes = Buffer.from(output.fileBase64, 'base64');
  return { output, bytes, image: await decodeImage(bytes) };
}

const RED_BLUE = [0xd02020ff, 0x2040d0ff] as const;

test('x2 and x4 multiply both sides, keep the format (BMP becomes PNG) and the picture', async (t) => {
  const cases = [
    ['png', 'image/png', 'png'],
    ['jpeg', 'image/jpeg', 'jpg'],
    ['webp', 'image/webp', 'webp'],
    ['bmp', 'image/png', 'png'],
  ] as const;
  for (const [format, mimeType, extension] of cases) {
    const fileUrl = files.put(`/pictures/icon-${format}.${format}`, await makeImage(format, 48, 32, ...RED_BLUE));
    for (const factor of [2, 4] as const) {
      const { output, bytes, image } = await upscale(fileUrl, factor);
      t.true(schemas.output(output), JSON.stringify(schemas.output.errors));
      t.like(output, {
        mimeType,
        factor,
        width: 48 * factor,
        height: 32 * factor,
        sizeBytes: bytes.length,
        fileName: `icon-${format}-x${factor}.${extension}`,
      });
      t.deepEqual([image.width, image.height], [48 * factor, 32 * factor], `${format} x${factor}`);
      // Left half red, right half blue, as in the source (away from the seam).
      const left = pixelAt(image, 4 * factor, 16 * factor);
      const right = pixelAt(image, 44 * factor, 16 * factor);
      t.true(left.r > 170 && left.b < 80 && right.b > 170 && right.r < 80, `${format} x${factor}: ${JSON.stringify({ left, right })}`);
    }
  }
  t.true(timings.length >= 8 && timings.every((timing) => timing.upscaleMs > 0));
});

test('transparency is kept: a half-transparent PNG upscales to a half-transparent PNG', async (t) => {
  const { image } = await upscale(files.put('/half-clear.png', await makeImage('png', 32, 32, 0x00000000, 0x30c030ff)), 2);
  t.is(pixelAt(image, 4, 32).a, 0);
  t.is(pixelAt(image, 60, 32).a, 255);
  t.true(pixelAt(image, 60, 32).g > 150);
});

test('the largest source of each factor is upscaled: 512x512 at x2, 256x256 at x4', async (t) => {
  const x2 = await upscale(files.put('/max-x2.png', await makeImage('png', 512, 512, ...RED_BLUE)), 2);
  t.deepEqual([x2.image.width, x2.image.height], [1024, 1024]);
  const x4 = await upscale(files.put('/max-x4.jpg', await makeImage('jpeg', 256, 256, ...RED_BLUE)), 4);
  t.deepEqual([x4.image.width, x4.image.height], [1024, 1024]);
});

test('one pixel over the factor limit is 422 source_too_large with the limit, refused before decoding', async (t) => {
  let handed = 0;
  const counting: Pick<ImagePool, 'upscale'> = {
    upscale: (task, signal) => {
      handed++;
      return pool.upscale(task, signal);
    },
  };
  const guarded = createImageUpscale({ download, images: counting });
  const cases = [
    [257, 256, 4, /257x256 px; the limit for factor 4 is 256x256 px/],
    [256, 257, 4, /256x257 px; the limit for factor 4 is 256x256 px/],
    [513, 10, 2, /513x10 px; the limit for factor 2 is 512x512 px/],
    [100_000, 100_000, 2, /100000x100000 px; the limit for factor 2 is 512x512 px/],
  ] as const;
  for (const [width, height, factor, message] of cases) {
    const fileUrl = files.put(`/over-${width}x${height}.png`, pngDeclaring(width, height));
    const err = await rejectsWith(t, guarded({ fileUrl, factor }, ctx()), 'source_too_large');
    t.regex(err.message, message);
    t.like(err.extras, { width, height });
  }
  t.is(handed, 0, 'nothing reached the decoder');
  // 300x300 is over factor 4's limit but within factor 2's (a frame header with no image data).
  const fileUrl = files.put('/300.jpg', jpegDeclaring(300, 300));
  await rejectsWith(t, guarded({ fileUrl, factor: 4 }, ctx()), 'source_too_large');
  await rejectsWith(t, guarded({ fileUrl, factor: 2 }, ctx()), 'unsupported_source'); // passes the limit, then fails to decode
  t.is(handed, 1);
});

test('other types are 422 unsupported_source; private targets 422 target_not_allowed; unreachable 502', async (t) => {
  const gif = Buffer.from('GIF89a\x01\x00\x01\x00\x00\x00\x00;', 'latin1');
  const err = await rejectsWith(t, imageUpscale({ fileUrl: files.put('/a.png', gif), factor: 2 }, ctx()), 'unsupported_source');
  t.regex(err.message, /a GIF image; this tool takes PNG, JPEG, WebP or BMP/);
  await rejectsWith(t, imageUpscale({ fileUrl: files.put('/doc.png', Buffer.from('%PDF-1.4')), factor: 2 }, ctx()), 'unsupported_source');
  await rejectsWith(t, imageUpscale({ fileUrl: 'http://127.0.0.1:9/a.png', factor: 2 }, ctx()), 'target_not_allowed');
  await rejectsWith(
    t,
    imageUpscale({ fileUrl: files.redirect('/hop', 'http://192.168.1.1/a.png'), factor: 2 }, ctx()),
    'target_not_allowed',
  );
  await rejectsWith(t, imageUpscale({ fileUrl: `http://127.0.0.2:${await closedPort()}/a.png`, factor: 2 }, ctx()), 'upstream_error');
});

test('input schema: factor defaults to 2 and is 2 or 4', (t) => {
  t.like(validInput<ImageUpscaleInput>(t, schemas.input, { fileUrl: 'https://example.com/a.png' }), { factor: 2 });
  for (const factor of [1, 3, 8, 2.5, '2']) t.false(schemas.input({ fileUrl: 'https://example.com/a.png', factor }), String(factor));
  t.false(schemas.input({ factor: 2 }));
  const { examples } = schemas.input.schema as { examples: unknown[] };
  t.true(schemas.input(structuredClone(examples[0])));
});

// ===== Integration: through HTTP against the running stack =====

test('HTTP: x4 of a 64x48 PNG answers 256x192 and is charged 30 credits', async (t) => {
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'image-upscale', {
    fileUrl: files.put('/http/logo.png', await makeImage('png', 64, 48, ...RED_BLUE)),
    factor: 4,
  });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.headers.get('x-credits-charged'), '30');
  t.like(res.body, { mimeType: 'image/png', fileName: 'logo-x4.png', factor: 4, width: 256, height: 192 });
  const image = await decodeImage(Buffer.from(res.body.fileBase64, 'base64'));
  t.deepEqual([image.width, image.height], [256, 192]);
  t.is(await balanceOf(account), 70);
});

test('HTTP: a source over the factor limit is 422 source_too_large and not charged', async (t) => {
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'image-upscale', { fileUrl: files.put('/http/big.png', pngDeclaring(300, 300)), factor: 4 });
  t.true(isProblem(res, 422, 'source_too_large'), JSON.stringify(res.body));
  t.regex(res.body.detail, /256x256/);
  t.is(await balanceOf(account), 100);
});
