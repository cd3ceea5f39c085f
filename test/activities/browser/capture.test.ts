//! The pure parts of a capture: what a full page is cut to, and the viewport it is scrolled in.
import test from 'ava';
import { HEIGHT_CEILING_PX, SCROLL_VIEWPORT_DEVICE_PX, fullPageClip, scrollViewportHeight } from '../../../activities/browser/capture.js';

test('a full page is taken whole up to the ceiling in image pixels, and says when it was cut', (t) => {
  t.deepEqual(fullPageClip({ width: 1440, deviceScaleFactor: 1 }, 8000.4), {
    clip: { x: 0, y: 0, width: 1440, height: 8001 },
    truncated: false,
  });
  t.deepEqual(fullPageClip({ width: 1440, deviceScaleFactor: 2 }, 9000), {
    clip: { x: 0, y: 0, width: 1440, height: HEIGHT_CEILING_PX / 2 },
    truncated: true,
  });
  t.is(fullPageClip({ width: 800, deviceScaleFactor: 1 }, 0).clip.height, 1);
});

test('the scroll viewport is tall, within its device-pixel bound, and leaves the document room to scroll', (t) => {
  const at = (height: number, deviceScaleFactor: 1 | 2, documentHeight: number) =>
    scrollViewportHeight({ height, deviceScaleFactor }, documentHeight);
  // 8,000 px under a 900 px viewport: one viewport of 7,100 px, so the page still scrolls by 900.
  t.is(at(900, 1, 8000), 7100);
  // Taller documents: bounded by the device pixels, fewer CSS pixels at a higher scale.
  t.is(at(900, 1, 50_000), SCROLL_VIEWPORT_DEVICE_PX);
  t.is(at(900, 2, 50_000), SCROLL_VIEWPORT_DEVICE_PX / 2);
  // A document under two viewports keeps the requested viewport: nothing to gain, and it must scroll.
  t.is(at(900, 1, 1500), 900);
  t.is(at(900, 1, 500), 900);
  // Never shorter than asked, even where the bound is lower (a tall viewport at scale 2).
  t.is(at(6000, 2, 50_000), 6000);
});
