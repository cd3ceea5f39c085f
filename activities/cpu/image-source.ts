//! Whether a downloaded image may be decoded: its type (from the bytes) is one the tool takes and
//! the pixel size its header declares is within the tool's limit. Runs before any decoder, so a
//! file declaring 100000x100000 px costs a header read, not gigabytes. Pure functions.
import { ToolError } from '../../contracts/errors.js';
import { IMAGE_FORMATS, describeOtherContent, readImageHeader, type ImageFormat, type ImageHeader } from './image-header.js';

export interface ImageLimits {
  /** Types the tool takes. */
  formats: readonly ImageFormat[];
  /** Largest width and height, each. */
  maxWidth?: number;
  maxHeight?: number;
  /** Largest width x height. */
  maxPixels?: number;
  /** What the limit is called in the refusal, e.g. "factor 4". */
  limitName?: string;
}

const listFormats = (formats: readonly ImageFormat[]) => {
  const labels = formats.map((f) => IMAGE_FORMATS[f].label);
  return labels.length > 1 ? `${labels.slice(0, -1).join(', ')} or ${labels.at(-1)}` : labels[0]!;
};

/** The image's header when the tool may decode it; a ToolError (422) otherwise. */
export function acceptImage(bytes: Uint8Array, limits: ImageLimits): ImageHeader {
  const header = readImageHeader(bytes);
  const takes = `this tool takes ${listFormats(limits.formats)}`;
  if (!header) {
    throw new ToolError('unsupported_source', `The source is ${describeOtherContent(bytes)}; ${takes}.`, { accepted: limits.formats });
  }
  const label = IMAGE_FORMATS[header.format].label;
  if (!limits.formats.includes(header.format)) {
    throw new ToolError('unsupported_source', `The source is a ${label} image; ${takes}.`, {
      detected: header.format,
      accepted: limits.formats,
    });
  }
  if (header.animated) {
    throw new ToolError('unsupported_source', `The source is an animated ${label}; only still images are supported.`, {
      detected: header.format,
    });
  }
  if (header.width === 0 || header.height === 0) {
    throw new ToolError('unsupported_source', `The source ${label} declares no pixels (${header.width}x${header.height}).`);
  }
  const { width, height } = header;
  const name = limits.limitName ? ` for ${limits.limitName}` : '';
  if ((limits.maxWidth !== undefined && width > limits.maxWidth) || (limits.maxHeight !== undefined && height > limits.maxHeight)) {
    throw new ToolError(
      'source_too_large',
      `The image is ${width}x${height} px; the limit${name} is ${limits.maxWidth}x${limits.maxHeight} px.`,
      {
        width,
        height,
        maxWidth: limits.maxWidth,
        maxHeight: limits.maxHeight,
      },
    );
  }
  if (limits.maxPixels !== undefined && width * height > limits.maxPixels) {
    const megapixels = (n: number) => `${Math.round(n / 100_000) / 10} megapixels`;
    throw new ToolError(
      'source_too_large',
      `The image is ${width}x${height} px (${megapixels(width * height)}); the limit${name} is ${megapixels(limits.maxPixels)}.`,
      {
        width,
        height,
        maxPixels: limits.maxPixels,
      },
    );
  }
  return header;
}
