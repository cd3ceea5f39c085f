//! image-upscale: a downloaded image upscaled x2 or x4 by a model. Its precheck needs no I/O: the
//! image's address is an absolute http(s) URL. The per-factor size limit needs the file's header,
//! so the worker checks it after the download.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Defaulted, IntegerEnum, type Validated } from '../../lib/schema-types.js';
import { defineTool } from './definition.js';
import { producedImageFields } from './produced-file.js';
import { DOWNLOADS_FILE, FileUrl, precheckFileUrl } from './downloaded-file.js';

/** The factors the model upscales by. */
export const UPSCALE_FACTORS = [2, 4] as const;
export type UpscaleFactor = (typeof UPSCALE_FACTORS)[number];

export const ImageUpscaleInput = ClosedObject(
  {
    fileUrl: FileUrl('the image'),
    factor: Defaulted(
      IntegerEnum(UPSCALE_FACTORS, {
        description:
          '2 or 4. Width and height are multiplied by it with an ESRGAN super-resolution model (UpscalerJS). Factor 4 takes longer and accepts at most 256x256 px sources; factor 2 at most 512x512 px.',
      }),
      2,
    ),
  },
  {
    description:
      "A public PNG, JPEG, WebP or BMP image and the factor. The image is downloaded through the guarded client (non-public targets refused with 422 target_not_allowed, also on redirects), at most 10 MiB. Its type is decided from its bytes, not its name or Content-Type (422 unsupported_source for anything else). The source may be at most 512x512 px for factor 2 and 256x256 px for factor 4 (422 source_too_large, read from the file's header before decoding).",
    examples: [{ fileUrl: 'https://example.com/icon.png', factor: 2 }],
  },
);
export type ImageUpscaleInput = Validated<typeof ImageUpscaleInput>;
export const ImageUpscaleOutput = ClosedObject({
  ...producedImageFields({
    file: 'The upscaled image, base64, without a data URI prefix. Same format as the source (JPEG and WebP at quality 90), except BMP, which is returned as PNG. Transparency is kept.',
    type: 'Output MIME type.',
    fileName:
      "the source URL's file name with `-x2` or `-x4` and the output's extension (`logo-x2.png`); `image-x<factor>.<ext>` when the URL names no file.",
  }),
  factor: IntegerEnum(UPSCALE_FACTORS, { description: 'Factor applied.' }),
  width: Type.Integer({ minimum: 1, description: 'Output width in pixels (source width x factor).' }),
  height: Type.Integer({ minimum: 1, description: 'Output height in pixels (source height x factor).' }),
});
export type ImageUpscaleOutput = Static<typeof ImageUpscaleOutput>;

export const precheck: (input: ImageUpscaleInput) => void = precheckFileUrl;

export const imageUpscale = defineTool<ImageUpscaleInput, ImageUpscaleOutput>()({
  name: 'image-upscale',
  group: 'files',
  cost: 30,
  pool: 'cpu',
  schemas: { input: ImageUpscaleInput, output: ImageUpscaleOutput },
  fileField: 'fileBase64',
  ...DOWNLOADS_FILE,
  precheck,
});
