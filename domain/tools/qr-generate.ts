//! qr-generate: a PNG QR code of a text. Its precheck: the text fits a QR code at the chosen
//! error correction level, and the image is large enough to draw every module at least one
//! pixel wide.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, StringEnum, type Validated } from '../../lib/schema-types.js';
import QRCode from 'qrcode';
import { defineTool } from './definition.js';
import { invalidField } from '../../contracts/errors.js';

export const ERROR_CORRECTION_LEVELS = ['L', 'M', 'Q', 'H'] as const;
export type ErrorCorrection = (typeof ERROR_CORRECTION_LEVELS)[number];

export const MIN_SIZE = 64;
export const MAX_SIZE = 2048;

export const QrGenerateInput = ClosedObject(
  {
    text: Type.String({
      minLength: 1,
      maxLength: 7089,
      description:
        'Text or URL to encode. How much fits depends on the level: at most 2953 bytes of UTF-8 text at L, 2331 at M, 1663 at Q, 1273 at H (more when the text is only digits or upper-case letters); longer text answers 400.',
    }),
    size: Defaulted(
      Type.Integer({
        minimum: MIN_SIZE,
        maximum: MAX_SIZE,
        description:
          'Image edge length in pixels, 64 to 2048; the PNG is exactly this wide and high. It must leave at least one pixel per module plus a 4-module quiet zone (a small size with a long text answers 400).',
      }),
      300,
    ),
    errorCorrection: Defaulted(
      StringEnum(ERROR_CORRECTION_LEVELS, {
        description:
          'Error correction level: L (7%), M (15%), Q (25%) or H (30%) of the code may be damaged and still read; higher survives more damage but holds less data.',
      }),
      'M',
    ),
  },
  {
    description: 'Text to encode as a QR code, the image size and the error correction level.',
    examples: [{ text: 'https://example.com/', size: 300, errorCorrection: 'M' }],
  },
);
export type QrGenerateInput = Validated<typeof QrGenerateInput>;
export const QrGenerateOutput = ClosedObject({
  imageBase64: Type.String({
    contentEncoding: 'base64',
    contentMediaType: 'image/png',
    description: 'PNG image, base64, without a data URI prefix. Black modules on white, one bit per pixel.',
  }),
  mimeType: Type.Literal('image/png', { description: 'Always image/png.' }),
  size: Type.Integer({
    minimum: MIN_SIZE,
    maximum: MAX_SIZE,
    description: 'Edge length of the produced image in pixels; equals the requested size.',
  }),
});
export type QrGenerateOutput = Static<typeof QrGenerateOutput>;

/** Light border required around a QR code (ISO/IEC 18004), in modules. */
export const QUIET_ZONE_MODULES = 4;

/** Bytes of arbitrary (UTF-8) text the largest QR code, version 40, holds at each level. */
const BYTE_CAPACITY: Record<ErrorCorrection, number> = { L: 2953, M: 2331, Q: 1663, H: 1273 };

/** In a /u pattern a pair is one code point, so only an unpaired half is category Cs. */
const LONE_SURROGATE = /\p{Cs}/u;

function tooLong(level: ErrorCorrection) {
  const lower = level === 'L' ? '' : '; choose a lower level or a shorter text';
  return invalidField(
    '/text',
    `is too long for a QR code at error correction level ${level}, which holds at most ${BYTE_CAPACITY[level]} bytes of UTF-8 text (more if it is only digits or upper-case letters)${lower}`,
  );
}

/**
 * The QR code for the input, or a 400 naming the field at fault. The worker draws the returned
 * matrix; the API calls it only to refuse what cannot be drawn before a workflow starts.
 */
export function encodeQr(input: QrGenerateInput): QRCode.QRCode {
  const { text, size, errorCorrection: level } = input;
  if (typeof text !== 'string' || text.length === 0) throw invalidField('/text', 'must be a non-empty string');
  // A lone surrogate (JSON's "\ud800") has no UTF-8 encoding, so no QR code can hold it.
  if (LONE_SURROGATE.test(text)) throw invalidField('/text', 'must be well-formed Unicode text: a lone surrogate has no UTF-8 encoding');
  if (!ERROR_CORRECTION_LEVELS.includes(level))
    throw invalidField('/errorCorrection', `must be one of ${ERROR_CORRECTION_LEVELS.join(', ')}`);
  if (!Number.isInteger(size) || size < MIN_SIZE || size > MAX_SIZE)
    throw invalidField('/size', `must be an integer from ${MIN_SIZE} to ${MAX_SIZE}`);

  let qr: QRCode.QRCode;
  try {
    qr = QRCode.create(text, { errorCorrectionLevel: level });
  } catch (err) {
    // qrcode 1.5.4 has no error codes; this is its one message for text over capacity.
    if (err instanceof Error && /too big to be stored/.test(err.message)) throw tooLong(level);
    throw err;
  }

  const needed = qr.modules.size + 2 * QUIET_ZONE_MODULES;
  if (size < needed) {
    throw invalidField(
      '/size',
      `is too small for this text at level ${level}: its QR code is ${qr.modules.size} modules wide and needs at least ${needed} px (one pixel per module and a ${QUIET_ZONE_MODULES}-module quiet zone on each side)`,
    );
  }
  return qr;
}

export function precheck(input: QrGenerateInput): void {
  encodeQr(input);
}

export const qrGenerate = defineTool<QrGenerateInput, QrGenerateOutput>()({
  name: 'qr-generate',
  group: 'files',
  cost: 1,
  pool: 'cpu',
  schemas: { input: QrGenerateInput, output: QrGenerateOutput },
  fileField: 'imageBase64',
  timeoutMs: 10_000,
  failures: [],
  image: { field: 'imageBase64' },
  precheck,
});
