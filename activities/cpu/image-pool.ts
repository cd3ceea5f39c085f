//! The worker threads image work runs on, so the cpu worker's event loop (Temporal polling,
//! heartbeats, other activities) keeps running while a photo is decoded or a model runs.
//!
//! Two piscina pools: drawing (watermarks; light, one thread per concurrent activity) and
//! upscaling (each thread holds TensorFlow and both models, 300-500 MB while it works, and a run
//! uses a whole core, so there are few).
import { fixedThreadPool, type ThreadPool } from '../../lib/thread-pool.js';
import type { WatermarkResult, WatermarkTask } from './image-thread.js';
import type { UpscaleResult, UpscaleTask } from './upscale-thread.js';

export type { WatermarkResult, WatermarkTask, UpscaleResult, UpscaleTask };

export interface ImagePoolOptions {
  /** Threads drawing watermarks. The cpu worker passes `CPU_CONCURRENCY`. 0: no drawing pool. */
  drawingThreads: number;
  /**
   * Threads running the upscaling model; further calls wait for one. The cpu worker passes
   * `UPSCALE_THREADS` (default 1: on 2 cores a second concurrent run adds memory, not throughput).
   * 0: no upscale pool (tests and benchmarks of watermarks only skip loading TensorFlow).
   */
  upscaleThreads: number;
  /**
   * When the upscaling threads start (loading TensorFlow and the models takes a core for seconds):
   * once this settles, or at the first upscale. At once when absent.
   */
  startUpscaleAfter?: Promise<unknown>;
  /** When the drawing threads start: once this settles, or at the first watermark. At once when absent. */
  startDrawingAfter?: Promise<unknown>;
}

export interface ImagePool {
  watermark(task: WatermarkTask, signal?: AbortSignal): Promise<WatermarkResult>;
  upscale(task: UpscaleTask, signal?: AbortSignal): Promise<UpscaleResult>;
  /** Lets running tasks finish, then stops the threads. */
  close(): Promise<void>;
}

/** `threads` threads of the thread module `name`, started after `startAfter` or at first use; undefined for 0. */
function fixedPool(name: string, threads: number, startAfter: Promise<unknown> | undefined): ThreadPool | undefined {
  if (!Number.isInteger(threads) || threads < 0) throw new RangeError(`${name} threads must be a whole number, got ${threads}`);
  return threads === 0 ? undefined : fixedThreadPool(import.meta.url, name, threads, startAfter);
}

export function createImagePool({ drawingThreads, upscaleThreads, startUpscaleAfter, startDrawingAfter }: ImagePoolOptions): ImagePool {
  const drawing = fixedPool('image-thread', drawingThreads, startDrawingAfter);
  const upscaling = fixedPool('upscale-thread', upscaleThreads, startUpscaleAfter);
  const absent = (what: string) => Promise.reject(new Error(`this image pool has no ${what} threads`));
  return {
    // An aborted signal (activity cancelled or past its deadline) makes piscina terminate the
    // thread running the task and start a fresh one.
    watermark: (task, signal) => drawing?.run(task, { name: 'watermark', signal }) ?? absent('drawing'),
    upscale: (task, signal) => upscaling?.run(task, { name: 'upscale', signal }) ?? absent('upscale'),
    close: async () => {
      await Promise.all([drawing?.close(), upscaling?.close()]);
    },
  };
}
