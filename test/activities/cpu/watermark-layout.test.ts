//! Watermark geometry: font size choice and where each copy goes.
import test from 'ava';
import { chooseFontSize, marginFor, placements, tiling } from '../../../activities/cpu/watermark-layout.js';

const perChar = (chars: number) => (size: number) => chars * size * 0.55;

test('the size aims at a tenth of the shorter side (a sixteenth tiled) and shrinks until the text fits', (t) => {
  t.is(chooseFontSize({ width: 1024, height: 768 }, 'center', perChar(10)), 64);
  t.is(chooseFontSize({ width: 4000, height: 3000 }, 'bottom-right', perChar(10)), 128);
  t.is(chooseFontSize({ width: 1024, height: 768 }, 'tile', perChar(10)), 32);
  t.is(chooseFontSize({ width: 1024, height: 768 }, 'center', perChar(60)), 16);
  t.is(chooseFontSize({ width: 40, height: 40 }, 'center', perChar(60)), 8); // nothing fits: smallest, wrapped
});

test('corners sit a margin from their edges; the centre is centred', (t) => {
  const image = { width: 400, height: 300 };
  const block = { width: 100, height: 20 };
  const m = marginFor(image);
  t.is(m, 9);
  t.deepEqual(placements(image, block, 'top-left'), [{ x: m, y: m }]);
  t.deepEqual(placements(image, block, 'top-right'), [{ x: 400 - 100 - m, y: m }]);
  t.deepEqual(placements(image, block, 'bottom-left'), [{ x: m, y: 300 - 20 - m }]);
  t.deepEqual(placements(image, block, 'bottom-right'), [{ x: 400 - 100 - m, y: 300 - 20 - m }]);
  t.deepEqual(placements(image, block, 'center'), [{ x: 150, y: 140 }]);
});

test('the tiling covers the image from edge to edge, alternate rows shifted', (t) => {
  const points = tiling({ width: 400, height: 300 }, { width: 100, height: 20 });
  const rows = [...new Set(points.map((p) => p.y))];
  t.true(rows[0]! < 0 && rows.at(-1)! + 20 >= 300 - 50);
  t.true(points.some((p) => p.x <= 0) && points.some((p) => p.x + 100 >= 400));
  const firstX = (y: number) => Math.min(...points.filter((p) => p.y === y).map((p) => p.x));
  t.not(firstX(rows[0]!), firstX(rows[1]!));
});
