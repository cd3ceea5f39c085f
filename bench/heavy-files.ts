//! The file half of `npm run bench:heavy`: word-to-pdf on warm LibreOffice listeners against a
//! cold `soffice --headless --convert-to pdf` per call (1 and 2 at once), and image-upscale's
//! seconds per image at x2 and x4 (plus a watermark for scale). Figures, never assertions.
//!
//! Library: bench/heavy.ts calls `benchWordToPdf`, `benchUpscale` and `benchWatermark` and prints
//! their rows. Alone: `node scripts/node.mjs --import tsx bench/heavy-files.ts [--calls N]`; with API_URL and
//! ADMIN_TOKEN set (a running stack whose TARGET_ALLOWLIST lets 127.0.0.2 through) it adds a
//! row for word-to-pdf through the platform.
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import { Document, Packer, Paragraph, TextRun } from 'docx';
import { Jimp } from 'jimp';
import { createImageCodecs, type JimpInstance } from '../activities/cpu/image-codecs.js';
import { createImagePool } from '../activities/cpu/image-pool.js';
import { createOfficeConverter } from '../activities/cpu/office-converter.js';
import { callAnatomy, printHops, timedCall, type TimedCall } from './call-anatomy.js';
import { measure, measureInterleaved, printTable, type Contender, type Figures } from './measure.js';
import type { TemporalSettings } from '../lib/config-temporal.js';

const run = promisify(execFile);

/** A one-page letter: a heading and three paragraphs, ~8 KB of .docx. */
export async function sampleDocx(): Promise<Buffer> {
  const paragraph = (text: string) => new Paragraph({ children: [new TextRun(text)] });
  const body = 'The quick brown fox jumps over the lazy dog. '.repeat(12);
  return Packer.toBuffer(
    new Document({ sections: [{ children: [paragraph('Benchmark letter'), paragraph(body), paragraph(body), paragraph(body)] }] }),
  );
}

/** One `soffice --convert-to pdf` process per call, with the lane's own (already created) profile. */
async function coldConvert(docx: Buffer, profileDir: string): Promise<Buffer> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'bench-cold-'));
  try {
    const input = path.join(dir, 'letter.docx');
    await writeFile(input, docx);
    await run('soffice', [`-env:UserInstallation=file://${profileDir}`, '--headless', '--convert-to', 'pdf', '--outdir', dir, input]);
    return await readFile(path.join(dir, 'letter.pdf'));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

export interface WordToPdfBenchOptions {
  /** Conversions per row. @default 20 warm, a quarter of that cold */
  calls?: number;
  concurrencies?: number[];
  /** The stack's Temporal: the platform row's last calls are then read hop by hop. */
  temporal?: TemporalSettings;
}

/** The word-to-pdf figures: listeners and a cold soffice, and the platform row with its hops when a stack runs. */
export interface WordToPdfBench {
  office: Figures[];
  http: WordToPdfHttpFigures | null;
}

/**
 * Warm listeners vs a cold soffice per call, at each concurrency; with a running stack, the same
 * document through the platform, taking turns with the warm listener one at a time so that both
 * share the machine's load of the moment (measured one after the other, the ratio moved by half
 * with the machine's drift: 2.3-2.6x taking turns, 3.8-4.0x apart in the same hour).
 */
export async function benchWordToPdf({
  calls = 20,
  concurrencies = [1, 2],
  temporal,
}: WordToPdfBenchOptions = {}): Promise<WordToPdfBench> {
  const docx = await sampleDocx();
  const rows: Figures[] = [];
  let http: WordToPdfHttpFigures | null = null;
  const office = createOfficeConverter({ listeners: Math.max(...concurrencies), conversionTimeoutMs: 30_000 });
  const platform = await platformWordToPdf(docx);
  try {
    await office.whenReady();
    const listener = `word-to-pdf, warm listeners (${Math.max(...concurrencies)})`;
    for (const concurrency of concurrencies) {
      if (concurrency === 1 && platform) {
        const [warm, through] = await measureInterleaved([{ label: listener, op: () => office.convert(docx, 'docx') }, platform.row], {
          turns: calls,
          warmupTurns: 2,
          pauseMs: 100,
        });
        rows.push(warm!);
        http = { figures: through!, ...(temporal ? { hops: await callAnatomy(temporal, platform.timed.slice(-ANATOMY_CALLS)) } : {}) };
        continue;
      }
      rows.push(await measure(listener, () => office.convert(docx, 'docx'), { calls, concurrency, warmup: 2 }));
    }
  } finally {
    await Promise.all([office.close(), platform?.close()]);
  }
  const profiles = await mkdtemp(path.join(os.tmpdir(), 'bench-cold-profiles-'));
  try {
    // Each lane has its own profile (two soffice processes cannot share one), created by the warm-up.
    const coldCalls = Math.max(2, Math.round(calls / 4));
    for (const concurrency of concurrencies) {
      const free = Array.from({ length: concurrency }, (_, i) => path.join(profiles, `lane-${i}`));
      for (const profile of free) await coldConvert(docx, profile);
      const withProfile = async () => {
        const profile = free.pop()!; // as many profiles as calls in flight
        try {
          return await coldConvert(docx, profile);
        } finally {
          free.push(profile);
        }
      };
      rows.push(
        await measure('word-to-pdf, cold soffice --convert-to per call', withProfile, { calls: coldCalls, concurrency, warmup: 0 }),
      );
    }
  } finally {
    await rm(profiles, { recursive: true, force: true });
  }
  return { office: rows, http };
}

export interface UpscaleRow {
  factor: 2 | 4;
  source: string;
  output: string;
  /** Median of the model's own time. */
  modelSeconds: number;
  /** Median of decode + model + encode in the upscale thread, as the tool runs it. */
  totalSeconds: number;
  /** Median of the same through the running platform (HTTP, download, workflow, claim check); absent without a stack. */
  platformSeconds?: number;
  images: number;
}

function checkerboard(width: number, height: number): JimpInstance {
  const image = new Jimp({ width, height, color: 0x3070b0ff }) as JimpInstance;
  image.scan((x, y) => {
    if (((x >> 4) ^ (y >> 4)) & 1) image.setPixelColor(0xf0c040ff, x, y);
  });
  return image;
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** image-upscale through the running platform, one call at a time; null without a stack. */
async function platformUpscaler(
  calls: number,
): Promise<{ upscale(png: Buffer, factor: 2 | 4): Promise<number>; close(): Promise<void> } | null> {
  if (!process.env.API_URL || !process.env.ADMIN_TOKEN) return null;
  const { startFileServer } = await import('../test/fixtures/file-server.js');
  const { callTool, newAccount } = await import('../test/helpers/api.js');
  const files = await startFileServer();
  const account = await newAccount(50 * calls, 'bench');
  let n = 0;
  return {
    /** Seconds for one call (HTTP, download, workflow, claim check). */
    async upscale(png, factor) {
      const fileUrl = files.put(`/bench/upscale-${n++}.png`, png);
      const started = performance.now();
      const res = await callTool(account.apiKey, 'image-upscale', { fileUrl, factor });
      if (res.status !== 200) throw new Error(`image-upscale answered ${res.status}: ${JSON.stringify(res.body)}`);
      return (performance.now() - started) / 1000;
    },
    close: () => files.close(),
  };
}

/**
 * Seconds per image at x2 and x4 for a few source sizes, one upscale thread (as deployed); with a
 * stack, the same image through the platform right after each direct run, so both share the
 * machine's load of the moment (one uncounted platform call per case first).
 */
export async function benchUpscale({ repeats = 3 }: { repeats?: number } = {}): Promise<UpscaleRow[]> {
  const codecs = createImageCodecs();
  const pool = createImagePool({ drawingThreads: 0, upscaleThreads: 1 });
  const cases = [
    [2, 128],
    [2, 256],
    [2, 512],
    [4, 128],
    [4, 256],
  ] as const;
  const rows: UpscaleRow[] = [];
  const platform = await platformUpscaler(cases.length * (repeats + 1));
  try {
    // The thread loads TensorFlow and both models when it starts: wait for that outside the timings.
    await pool.upscale({ bytes: await codecs.encode(checkerboard(16, 16), 'png'), format: 'png', factor: 2 });
    for (const [factor, side] of cases) {
      const png = await codecs.encode(checkerboard(side, side), 'png');
      await platform?.upscale(png, factor);
      const model: number[] = [];
      const total: number[] = [];
      const through: number[] = [];
      for (let i = 0; i < repeats; i++) {
        const started = performance.now();
        const result = await pool.upscale({ bytes: png, format: 'png', factor });
        if (!result.ok) throw new Error(result.detail);
        total.push((performance.now() - started) / 1000);
        model.push(result.upscaleMs / 1000);
        if (platform) through.push(await platform.upscale(png, factor));
      }
      rows.push({
        factor,
        source: `${side}x${side}`,
        output: `${side * factor}x${side * factor}`,
        modelSeconds: median(model),
        totalSeconds: median(total),
        ...(platform ? { platformSeconds: median(through) } : {}),
        images: repeats,
      });
    }
  } finally {
    await Promise.all([pool.close(), platform?.close()]);
  }
  return rows;
}

/** A watermark on a 1024x768 JPEG photo-sized image, for scale next to the upscales. */
export async function benchWatermark({ calls = 10 }: { calls?: number } = {}): Promise<Figures> {
  const codecs = createImageCodecs();
  const pool = createImagePool({ drawingThreads: 1, upscaleThreads: 0 });
  try {
    const jpeg = await codecs.encode(checkerboard(1024, 768), 'jpeg');
    return await measure(
      'watermark-image 1024x768 JPEG, tile (decode, draw, encode)',
      () => pool.watermark({ bytes: jpeg, format: 'jpeg', text: '© Utility Tools', position: 'tile', opacity: 0.35 }),
      { calls, concurrency: 1, warmup: 2 },
    );
  } finally {
    await pool.close();
  }
}

/** word-to-pdf through the running platform (HTTP, workflow, claim check), one at a time. */
export interface WordToPdfHttpFigures {
  figures: Figures;
  /** The last calls hop by hop, when the stack's Temporal is known. */
  hops?: Awaited<ReturnType<typeof callAnatomy>>;
}

/** How many of the platform row's last calls the hop table reads. */
const ANATOMY_CALLS = 5;

/** The platform row (the document served to the stack by a file server of its own), each call timed; null without a stack. */
async function platformWordToPdf(docx: Buffer): Promise<{ row: Contender; timed: TimedCall[]; close(): Promise<void> } | null> {
  if (!process.env.API_URL || !process.env.ADMIN_TOKEN) return null;
  const { startFileServer } = await import('../test/fixtures/file-server.js');
  const { callTool, newAccount } = await import('../test/helpers/api.js');
  const files = await startFileServer();
  const fileUrl = files.put('/bench/letter.docx', docx);
  const account = await newAccount(15 * 1_000, 'bench');
  const timed: TimedCall[] = [];
  return {
    row: {
      label: 'word-to-pdf through the platform (HTTP)',
      op: async () => {
        timed.push(await timedCall('word-to-pdf', () => callTool(account.apiKey, 'word-to-pdf', { fileUrl })));
      },
    },
    timed,
    close: () => files.close(),
  };
}

/** The word-to-pdf table: listeners, a cold soffice, and the platform row with its hop table. */
export function printWordToPdf({ office, http }: WordToPdfBench): void {
  printTable('word-to-pdf: warm listeners vs a cold soffice per call (small .docx, one page)', http ? [...office, http.figures] : office);
  const listener = office[0];
  if (http && listener) {
    console.log(
      `platform / warm listener  word-to-pdf: ${(http.figures.p50Ms / listener.p50Ms).toFixed(2)}x (p50 ${http.figures.p50Ms.toFixed(1)} vs ${listener.p50Ms.toFixed(1)} ms)`,
    );
  }
  if (http?.hops) printHops(http.figures.label, http.hops);
}

export function printUpscaleTable(rows: UpscaleRow[]): void {
  console.log('\nimage-upscale, seconds per image (UpscalerJS, tfjs WASM backend, one upscale thread)');
  console.table(
    rows.map((r) => ({
      factor: `x${r.factor}`,
      source: r.source,
      output: r.output,
      'model s': +r.modelSeconds.toFixed(2),
      'decode+model+encode s': +r.totalSeconds.toFixed(2),
      ...(r.platformSeconds === undefined
        ? {}
        : {
            'through the platform s': +r.platformSeconds.toFixed(2),
            'platform / direct': +(r.platformSeconds / r.totalSeconds).toFixed(2),
          }),
      images: r.images,
    })),
  );
}

async function main() {
  const callsArg = process.argv.indexOf('--calls');
  const calls = callsArg > 0 ? Number(process.argv[callsArg + 1]) : 20;
  printWordToPdf(await benchWordToPdf({ calls }));
  printUpscaleTable(await benchUpscale());
  printTable('watermark-image, for scale', [await benchWatermark()]);
}

if (process.argv[1] && import.meta.url === pathToFileURL(process.argv[1]).href) await main();
