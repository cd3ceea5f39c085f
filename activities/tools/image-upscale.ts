//! image-upscale: downloads a PNG, JPEG, WebP or BMP through the target guard and upscales it x2
//! or x4 with UpscalerJS in an upscale thread. The answer keeps the source's format (BMP becomes
//! PNG); the source's size limit depends on the factor (docs/API.md, "Formats and limits").
import { precheck, type ImageUpscaleInput, type ImageUpscaleOutput, type UpscaleFactor } from '../../domain/tools/image-upscale.js';
import { ToolError } from '../../contracts/errors.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { fileNameFor } from '../cpu/file-name.js';
import { IMAGE_FORMATS, type ImageFormat } from '../cpu/image-header.js';
import type { ImagePool } from '../cpu/image-pool.js';
import { acceptImage } from '../cpu/image-source.js';
import type { SourceDownloader } from '../cpu/source-download.js';

export interface ImageUpscaleDeps {
  download: SourceDownloader;
  images: Pick<ImagePool, 'upscale'>;
  /** Told how long the model ran, for logs and metrics. */
  onTiming?: (timing: { factor: UpscaleFactor; width: number; height: number; upscaleMs: number }) => void;
}

export const UPSCALE_FORMATS = ['png', 'jpeg', 'webp', 'bmp'] as const satisfies readonly ImageFormat[];

/** The largest source per factor (the model's time and memory grow with its output). */
export const UPSCALE_LIMITS: Record<UpscaleFactor, number> = { 2: 512, 4: 256 };

export function createImageUpscale({ download, images, onTiming }: ImageUpscaleDeps): ToolHandler<ImageUpscaleInput, ImageUpscaleOutput> {
  return async (input, ctx) => {
    precheck(input);
    const factor = input.factor;
    const side = UPSCALE_LIMITS[factor];
    const { bytes } = await download(input.fileUrl, 'image', ctx.signal);
    const header = acceptImage(bytes, { formats: UPSCALE_FORMATS, maxWidth: side, maxHeight: side, limitName: `factor ${factor}` });
    const result = await images.upscale({ bytes, format: header.format, factor }, ctx.signal);
    if (!result.ok) {
      throw new ToolError(
        'unsupported_source',
        `The source looks like a ${IMAGE_FORMATS[header.format].label} image but could not be decoded.`,
        {
          detected: header.format,
        },
      );
    }
    onTiming?.({ factor, width: header.width, height: header.height, upscaleMs: result.upscaleMs });
    const output = Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength);
    return {
      fileBase64: output.toString('base64'),
      mimeType: IMAGE_FORMATS[result.format].mime,
      fileName: fileNameFor(input.fileUrl, { extension: IMAGE_FORMATS[result.format].extension, suffix: `-x${factor}`, fallback: 'image' }),
      sizeBytes: output.length,
      factor,
      width: result.width,
      height: result.height,
    };
  };
}
