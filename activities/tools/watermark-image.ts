//! watermark-image: downloads a PNG, JPEG or WebP through the target guard and draws a text
//! watermark on it in an image thread; the answer is in the source's own format.
import { precheck, type WatermarkImageInput, type WatermarkImageOutput } from '../../domain/tools/watermark-image.js';
import { ToolError } from '../../contracts/errors.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { fileNameFor } from '../cpu/file-name.js';
import { IMAGE_FORMATS, type ImageFormat } from '../cpu/image-header.js';
import type { ImagePool } from '../cpu/image-pool.js';
import { acceptImage } from '../cpu/image-source.js';
import type { SourceDownloader } from '../cpu/source-download.js';

export interface WatermarkImageDeps {
  download: SourceDownloader;
  images: Pick<ImagePool, 'watermark'>;
}

export const WATERMARK_FORMATS = ['png', 'jpeg', 'webp'] as const satisfies readonly ImageFormat[];

/**
 * Largest source, in pixels: a 24-megapixel photo (6000x4000) decodes to 96 MB of RGBA and takes
 * ~4-10 s to decode, tile and re-encode on a busy core; much beyond that a call would risk its
 * deadline and the thread's memory. A 10 MiB file can declare far more (a decompression bomb).
 */
export const MAX_WATERMARK_PIXELS = 25_000_000;

export function createWatermarkImage({ download, images }: WatermarkImageDeps): ToolHandler<WatermarkImageInput, WatermarkImageOutput> {
  return async (input, ctx) => {
    precheck(input); // the API ran it too; refuse before any download either way
    const { bytes } = await download(input.fileUrl, 'image', ctx.signal);
    const header = acceptImage(bytes, { formats: WATERMARK_FORMATS, maxPixels: MAX_WATERMARK_PIXELS });
    const format = header.format as (typeof WATERMARK_FORMATS)[number];
    const result = await images.watermark(
      { bytes, format, text: input.text, position: input.position, opacity: input.opacity },
      ctx.signal,
    );
    if (!result.ok) {
      throw new ToolError('unsupported_source', `The source looks like a ${IMAGE_FORMATS[format].label} image but could not be decoded.`, {
        detected: format,
      });
    }
    const output = Buffer.from(result.bytes.buffer, result.bytes.byteOffset, result.bytes.byteLength);
    return {
      fileBase64: output.toString('base64'),
      mimeType: IMAGE_FORMATS[format].mime,
      fileName: fileNameFor(input.fileUrl, { extension: IMAGE_FORMATS[format].extension, suffix: '-watermarked', fallback: 'image' }),
      sizeBytes: output.length,
      width: result.width,
      height: result.height,
    };
  };
}
