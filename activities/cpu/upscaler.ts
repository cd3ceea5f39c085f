//! UpscalerJS on TensorFlow.js's WebAssembly backend, with the models its npm packages ship
//! (x2: @upscalerjs/default-model, x4: @upscalerjs/esrgan-slim 4x), read from node_modules:
//! nothing is downloaded at run time. Runs in an upscale thread (upscale-thread.ts): a model
//! call holds its thread for seconds.
//!
//! Loading: `upscaler`'s package entry points do not load in Node (exports map,
//! extension-less ESM, tfjs-node), so its UMD build is required by path; it requires
//! `@tensorflow/tfjs` as CommonJS, so this module takes tfjs through `require` too (an ESM import
//! would be a second tfjs instance with its own backend registry). The model definitions name
//! their weights by a CDN path; each is given an IOHandler that reads the package's files.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import type { UpscaleFactor } from '../../domain/tools/image-upscale.js';

type Tf = typeof import('@tensorflow/tfjs');
type Tensor3D = import('@tensorflow/tfjs').Tensor3D;

/** Pixels in, pixels out: tightly packed RGB, 3 bytes per pixel. */
export interface RgbImage {
  data: Uint8Array;
  width: number;
  height: number;
}

export interface UpscalerOptions {
  /**
   * Side of the square tiles the model runs on; each is padded by `padding` px of context so the
   * seams do not show. Smaller tiles bound memory (a 256 px x4 run: ~310 MB at 128, ~530 MB whole)
   * for ~40% more time. @default 128
   */
  patchSize?: number;
  /** @default 8 */
  padding?: number;
}

export interface Upscaler {
  upscale(image: RgbImage, factor: UpscaleFactor): Promise<RgbImage>;
  dispose(): void;
}

const require = createRequire(import.meta.url);

/**
 * Pixels of edge replicated around the source before the model runs and cut off after: the
 * model's convolutions see zeros past the border, which leaves a visibly off-colour last row and
 * column; with a replicated margin the real border is interior.
 */
const EDGE_PADDING = 4;

/** The image with `pad` pixels on every side copied from its nearest edge pixel. */
export function padEdges(image: RgbImage, pad: number): RgbImage {
  const width = image.width + 2 * pad;
  const height = image.height + 2 * pad;
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const sy = Math.min(image.height - 1, Math.max(0, y - pad));
    for (let x = 0; x < width; x++) {
      const sx = Math.min(image.width - 1, Math.max(0, x - pad));
      const from = (sy * image.width + sx) * 3;
      data.set(image.data.subarray(from, from + 3), (y * width + x) * 3);
    }
  }
  return { data, width, height };
}

/** The `width` x `height` region starting `offset` pixels in from the top-left corner. */
export function crop(image: RgbImage, offset: number, width: number, height: number): RgbImage {
  const data = new Uint8Array(width * height * 3);
  for (let y = 0; y < height; y++) {
    const from = ((y + offset) * image.width + offset) * 3;
    data.set(image.data.subarray(from, from + width * 3), y * width * 3);
  }
  return { data, width, height };
}

/** Where the models live inside their packages (`models/<...>/model.json` and its shards). */
const MODELS: Record<UpscaleFactor, { definition: string; pkg: string; dir: string }> = {
  2: { definition: '@upscalerjs/default-model', pkg: '@upscalerjs/default-model', dir: 'models' },
  4: { definition: '@upscalerjs/esrgan-slim/4x', pkg: '@upscalerjs/esrgan-slim', dir: 'models/x4' },
};

/** The package's folder, found from its main entry (neither package exports its package.json). */
function packageDir(pkg: string): string {
  const entry = require.resolve(pkg);
  return entry.slice(0, entry.lastIndexOf(`${path.sep}dist${path.sep}`));
}

/** A tf.io IOHandler that reads a layers model (model.json + weight shards) from a folder. */
export function folderModelHandler(dir: string) {
  return {
    async load() {
      const manifest = JSON.parse(readFileSync(path.join(dir, 'model.json'), 'utf8'));
      const groups: { paths: string[]; weights: unknown[] }[] = manifest.weightsManifest;
      const shards = Buffer.concat(groups.flatMap((g) => g.paths.map((p) => readFileSync(path.join(dir, p)))));
      return {
        modelTopology: manifest.modelTopology,
        format: manifest.format,
        generatedBy: manifest.generatedBy,
        convertedBy: manifest.convertedBy,
        weightSpecs: groups.flatMap((g) => g.weights),
        weightData: shards.buffer.slice(shards.byteOffset, shards.byteOffset + shards.byteLength),
      };
    },
  };
}

function modelDefinition(factor: UpscaleFactor) {
  const model = MODELS[factor];
  const definition = require(model.definition);
  return { ...(definition.default ?? definition), path: folderModelHandler(path.join(packageDir(model.pkg), model.dir)) };
}

/** What this module uses of an UpscalerJS instance (the UMD build it loads has no types). */
interface UpscalerInstance {
  upscale(image: Tensor3D, options: { output: 'tensor'; patchSize: number; padding: number }): Promise<Tensor3D>;
  dispose(): void;
}

function loadUpscalerClass(): new (options: object) => UpscalerInstance {
  const anchor = require.resolve('upscaler/node'); // an exported entry, used only to find the package
  const umd = path.join(anchor.slice(0, anchor.lastIndexOf(`${path.sep}dist${path.sep}`)), 'dist', 'browser', 'umd', 'upscaler.js');
  return require(umd);
}

/**
 * Sets tfjs on its WASM backend, loads both models and runs each once on a small image, so the
 * first call does not pay for kernel compilation. ~2 s on one core.
 */
export async function createUpscaler({ patchSize = 128, padding = 8 }: UpscalerOptions = {}): Promise<Upscaler> {
  const tf: Tf = require('@tensorflow/tfjs');
  require('@tensorflow/tfjs-backend-wasm');
  if (!(await tf.setBackend('wasm'))) throw new Error('the TensorFlow.js WASM backend could not be initialised');
  await tf.ready();
  const Upscaler = loadUpscalerClass();
  const instances = {
    2: new Upscaler({ model: modelDefinition(2) }),
    4: new Upscaler({ model: modelDefinition(4) }),
  } as const;

  async function upscale(image: RgbImage, factor: UpscaleFactor): Promise<RgbImage> {
    const padded = padEdges(image, EDGE_PADDING);
    const upscaled = await runModel(padded, factor);
    return crop(upscaled, EDGE_PADDING * factor, image.width * factor, image.height * factor);
  }

  async function runModel(image: RgbImage, factor: UpscaleFactor): Promise<RgbImage> {
    const input = tf.tensor3d(image.data, [image.height, image.width, 3], 'int32');
    let output: Tensor3D | undefined;
    try {
      output = await instances[factor].upscale(input, { output: 'tensor', patchSize, padding });
      const pixels = tf.tidy(() => output!.clipByValue(0, 255).round().toInt());
      const data = new Uint8Array(await pixels.data());
      pixels.dispose();
      return { data, width: output.shape[1], height: output.shape[0] };
    } finally {
      input.dispose();
      output?.dispose();
    }
  }

  const warmUp: RgbImage = { data: new Uint8Array(16 * 16 * 3).fill(128), width: 16, height: 16 };
  await upscale(warmUp, 2);
  await upscale(warmUp, 4);

  return {
    upscale,
    dispose() {
      for (const instance of Object.values(instances)) instance.dispose();
    },
  };
}
