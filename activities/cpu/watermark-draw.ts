//! Draws a text watermark onto a decoded image with jimp's bundled bitmap fonts (Open Sans).
//!
//! The text is printed once onto a transparent layer, white over a black shadow so it reads on
//! light and dark images alike, and the layer is composited at each placement with
//! `opacitySource`, so `opacity` scales the whole mark. Runs in an image thread.
import { BlendMode, HorizontalAlign, loadFont, measureText, measureTextHeight, Jimp } from 'jimp';
import * as fonts from 'jimp/fonts';
import type { JimpInstance } from './image-codecs.js';
import type { WatermarkPosition } from '../../domain/tools/watermark-image.js';
import { FONT_SIZES, chooseFontSize, placements, wrapWidth, type FontSize } from './watermark-layout.js';

type BmFont = Awaited<ReturnType<typeof loadFont>>;

export interface WatermarkOptions {
  text: string;
  position: WatermarkPosition;
  /** 0.05 to 1: the mark's alpha multiplier. */
  opacity: number;
}

export interface FontBook {
  /** White (text) and black (shadow) Open Sans at one size. */
  get(size: FontSize): { white: BmFont; black: BmFont };
}

const FONT_FILES: Record<FontSize, { white: string; black: string }> = {
  8: { white: fonts.SANS_8_WHITE, black: fonts.SANS_8_BLACK },
  16: { white: fonts.SANS_16_WHITE, black: fonts.SANS_16_BLACK },
  32: { white: fonts.SANS_32_WHITE, black: fonts.SANS_32_BLACK },
  64: { white: fonts.SANS_64_WHITE, black: fonts.SANS_64_BLACK },
  128: { white: fonts.SANS_128_WHITE, black: fonts.SANS_128_BLACK },
};

/**
 * Every size, loaded once per thread (~25 MB of glyph pages, ~0.3 s): choosing a size measures
 * the text at several of them, and a thread then never waits for a font during a call.
 */
export async function loadFontBook(): Promise<FontBook> {
  const entries = await Promise.all(
    FONT_SIZES.map(async (size) => {
      const [white, black] = await Promise.all([loadFont(FONT_FILES[size].white), loadFont(FONT_FILES[size].black)]);
      return [size, { white, black }] as const;
    }),
  );
  const book = new Map(entries);
  return { get: (size) => book.get(size)! };
}

/** Shadow offset: 1 px for small text, growing with the size so it stays visible. */
const shadowOffset = (size: FontSize) => Math.max(1, Math.round(size / 32));

function alignmentFor(position: WatermarkPosition): HorizontalAlign {
  if (position.endsWith('left')) return HorizontalAlign.LEFT;
  if (position.endsWith('right')) return HorizontalAlign.RIGHT;
  return HorizontalAlign.CENTER;
}

/** The mark as a transparent layer: the text in white over its black shadow, wrapped when too wide. */
function renderMark(image: JimpInstance, options: WatermarkOptions, book: FontBook): JimpInstance {
  const widthAt = (size: FontSize) => measureText(book.get(size).white, options.text);
  const size = chooseFontSize(image, options.position, widthAt);
  const { white, black } = book.get(size);
  const maxWidth = Math.min(widthAt(size), wrapWidth(image));
  // jimp wraps a line that reaches maxWidth exactly; one pixel of slack keeps a text that is as
  // wide as the budget on one line. Lines are aligned towards the mark's corner inside the layer.
  const textHeight = measureTextHeight(white, options.text, maxWidth + 1);
  const offset = shadowOffset(size);
  const layer = new Jimp({ width: maxWidth + offset + 1, height: textHeight + offset, color: 0x00000000 }) as JimpInstance;
  const text = { text: options.text, alignmentX: alignmentFor(options.position) };
  layer.print({ font: black, x: offset, y: offset, text, maxWidth: maxWidth + 1 });
  layer.print({ font: white, x: 0, y: 0, text, maxWidth: maxWidth + 1 });
  return layer;
}

/** Draws the watermark onto `image` in place and returns it. */
export function drawWatermark(image: JimpInstance, options: WatermarkOptions, book: FontBook): JimpInstance {
  const mark = renderMark(image, options, book);
  for (const { x, y } of placements(image, mark, options.position)) {
    image.composite(mark, x, y, { mode: BlendMode.SRC_OVER, opacitySource: options.opacity });
  }
  return image;
}
