//! qr-generate: PNGs of exactly the requested size that an independent decoder (jsqr) reads back
//! at every level, capacity and size refusals, the schemas.
import test from 'ava';
import jsQRModule from 'jsqr';
import { PNG } from 'pngjs';
import { createQrGenerate } from '../../activities/tools/qr-generate.js';
import { ERROR_CORRECTION_LEVELS, type QrGenerateInput } from '../../domain/tools/qr-generate.js';
import { findTool } from '../../domain/tools/catalogue.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';

// ===== Unit: the handler called directly (no stack) =====

const qrGenerate = createQrGenerate();
const schemas = compileToolSchemas('qr-generate');
const ctx = standaloneContext();

// jsqr is CommonJS typed as an ES module: TypeScript sees its default import as the module, whose
// `default` (set by its UMD wrapper too) is the function.
const jsQR = jsQRModule.default;

/** Decodes the PNG with pngjs and reads the QR code in it with jsqr. */
function readBack(imageBase64: string) {
  const png = PNG.sync.read(Buffer.from(imageBase64, 'base64'));
  const code = jsQR(new Uint8ClampedArray(png.data.buffer, png.data.byteOffset, png.data.length), png.width, png.height);
  return { width: png.width, height: png.height, text: code?.data };
}

const TEXTS = ['https://example.com/path?query=1&x=ä', 'Grüße, 世界! 🚀', 'HELLO WORLD 123', '0123456789'];

for (const errorCorrection of ERROR_CORRECTION_LEVELS) {
  test(`level ${errorCorrection}: the PNG decodes back to the text at exactly the requested size`, async (t) => {
    // 301: not a multiple of 8, so the last byte of every scanline is partly padding.
    const cases = [...TEXTS.flatMap((text) => [64, 301].map((size) => [text, size] as const)), [TEXTS[0]!, 2048] as const];
    for (const [text, size] of cases) {
      const output = await qrGenerate({ text, size, errorCorrection }, ctx);
      t.true(schemas.output(output));
      t.is(output.mimeType, 'image/png');
      t.is(output.size, size);
      t.deepEqual(readBack(output.imageBase64), { width: size, height: size, text }, `${text} at ${size}px`);
    }
  });
}

test('size 300 and level M are the defaults', async (t) => {
  const input = validInput<QrGenerateInput>(t, schemas.input, { text: 'defaults' });
  t.like(input, { size: 300, errorCorrection: 'M' });
  const output = await qrGenerate(input, ctx);
  t.deepEqual(readBack(output.imageBase64), { width: 300, height: 300, text: 'defaults' });
});

test('the largest code (version 40) decodes at the smallest size that fits it and at 2048 px', async (t) => {
  const text = 'a'.repeat(2953); // the byte capacity at level L
  for (const size of [185, 2048]) {
    const output = await qrGenerate({ text, size, errorCorrection: 'L' }, ctx);
    t.deepEqual(readBack(output.imageBase64), { width: size, height: size, text }, `${size}px`);
  }
});

test('text too long for the level is 400 on /text naming the level and its capacity', async (t) => {
  const text = 'a'.repeat(1274);
  await t.notThrowsAsync(qrGenerate({ text, size: 2048, errorCorrection: 'L' }, ctx));
  const err = await rejectsWith(t, qrGenerate({ text, size: 2048, errorCorrection: 'H' }, ctx), 'validation_failed', '/text');
  t.regex(err.message, /too long for a QR code at error correction level H.*1273 bytes.*lower level/);
  await rejectsWith(
    t,
    () => findTool('qr-generate')!.precheck!({ text: 'é'.repeat(1477), size: 300, errorCorrection: 'L' }),
    'validation_failed',
    '/text',
  );
});

test('a size too small for the code is 400 on /size naming the pixels needed', async (t) => {
  const err = await rejectsWith(
    t,
    qrGenerate({ text: 'a'.repeat(500), size: 64, errorCorrection: 'M' }, ctx),
    'validation_failed',
    '/size',
  );
  t.regex(err.message, /needs at least \d+ px/);
});

test('out-of-range size, unknown level and empty text are 400 naming the field', async (t) => {
  const cases = [
    [{ text: 'x', size: 63, errorCorrection: 'M' }, '/size'],
    [{ text: 'x', size: 2049, errorCorrection: 'M' }, '/size'],
    [{ text: 'x', size: 100.5, errorCorrection: 'M' }, '/size'],
    [{ text: 'x', size: 300, errorCorrection: 'X' }, '/errorCorrection'],
    [{ text: '', size: 300, errorCorrection: 'M' }, '/text'],
  ] as const;
  for (const [input, field] of cases) {
    t.false(schemas.input(structuredClone(input)), field);
    await rejectsWith(t, qrGenerate(input as never, ctx), 'validation_failed', field);
  }
});

test('a text with a lone surrogate is 400 on /text (it has no UTF-8 encoding); a paired one is encoded', async (t) => {
  for (const text of ['\ud800', 'a\udfffb', 'x\ud83d']) {
    const err = await rejectsWith(
      t,
      () => findTool('qr-generate')!.precheck!({ text, size: 300, errorCorrection: 'M' }),
      'validation_failed',
      '/text',
    );
    t.regex(err.message, /well-formed Unicode/);
  }
  const output = await qrGenerate({ text: '\ud83d\ude80', size: 300, errorCorrection: 'M' }, ctx);
  t.is(readBack(output.imageBase64).text, '🚀');
});

test('input schema: text required, no unknown fields, example valid', (t) => {
  t.false(schemas.input({}));
  t.false(schemas.input({ text: 'x', margin: 2 }));
  t.false(schemas.input({ text: 'x'.repeat(7090) }));
  const { examples } = schemas.input.schema as { examples: unknown[] };
  t.true(schemas.input(structuredClone(examples[0])));
});
