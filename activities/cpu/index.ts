//! The cpu pool's tools, keyed by tool name (typed by domain/tools: one handler per listed cpu
//! tool, no other), and the resources they run on. The worker
//! (workers/pools.ts) owns the resources' lifetime: `createCpuResources` starts the hashing
//! threads, the image threads and the warm LibreOffice listeners; `close()` stops them all.
import type { Config } from '../../lib/config.js';
import type { Logger } from '../../lib/logger.js';
import type { NetworkAccess } from '../../lib/network-access.js';
import { createHandlers, type HandlerFactories, type PoolHandlers } from '../../domain/tools/index.js';
import { createArgon2Verify } from '../tools/argon2-verify.js';
import { createBcryptHash } from '../tools/bcrypt-hash.js';
import { createBcryptVerify } from '../tools/bcrypt-verify.js';
import { createHashText } from '../tools/hash-text.js';
import { createHashingPool, type HashingPool } from './hashing-pool.js';
import { createImagePool, type ImagePool } from './image-pool.js';
import { createImageUpscale } from '../tools/image-upscale.js';
import { createOfficeConverter, type OfficeConverter } from './office-converter.js';
import { createQrGenerate } from '../tools/qr-generate.js';
import { createSourceDownloader, type SourceDownloader } from './source-download.js';
import { createWatermarkImage } from '../tools/watermark-image.js';
import { createWordToPdf } from '../tools/word-to-pdf.js';

export { createHashingPool, type HashingPool, type HashingPoolOptions } from './hashing-pool.js';

export interface CpuToolDeps {
  hashing: HashingPool;
  /** Source downloads of the file tools, through the process's target guard. */
  download: SourceDownloader;
  images: ImagePool;
  office: OfficeConverter;
  log?: Logger;
}

export interface CpuResources extends CpuToolDeps {
  close(): Promise<void>;
}

export function createCpuResources(deps: {
  config: Pick<Config, 'cpuConcurrency' | 'upscaleThreads' | 'officeListeners' | 'officeConversionTimeoutMs' | 'officeNetworkIsolation'>;
  net: NetworkAccess;
  log: Logger;
  /** When the costly parts start (the threads, LibreOffice, the upscaling model): see lib/started-once.ts. */
  heavyStartAfter?: Promise<unknown>;
}): CpuResources {
  const { config, net, log, heavyStartAfter } = deps;
  // Every thread loads what it holds (hash-wasm, jimp and fonts, the model) after the worker
  // polls, or for the first call that needs it: that load is most of a pool's start.
  const hashing = createHashingPool({ threads: config.cpuConcurrency, startAfter: heavyStartAfter });
  const images = createImagePool({
    drawingThreads: config.cpuConcurrency,
    upscaleThreads: config.upscaleThreads,
    startUpscaleAfter: heavyStartAfter,
    startDrawingAfter: heavyStartAfter,
  });
  const office = createOfficeConverter({
    listeners: config.officeListeners,
    conversionTimeoutMs: config.officeConversionTimeoutMs,
    isolation: config.officeNetworkIsolation,
    log: log.child({ component: 'office' }),
    startAfter: heavyStartAfter,
  });
  return {
    hashing,
    images,
    office,
    download: createSourceDownloader({ http: net.http }),
    log,
    close: async () => {
      await Promise.all([hashing.close(), images.close(), office.close()]);
    },
  };
}

export const CPU_HANDLERS: HandlerFactories<'cpu', CpuToolDeps> = {
  'hash-text': ({ hashing }) => createHashText({ hashing }),
  'bcrypt-hash': ({ hashing }) => createBcryptHash({ hashing }),
  'bcrypt-verify': ({ hashing }) => createBcryptVerify({ hashing }),
  'argon2-verify': ({ hashing }) => createArgon2Verify({ hashing }),
  'qr-generate': () => createQrGenerate(),
  'watermark-image': ({ download, images }) => createWatermarkImage({ download, images }),
  'image-upscale': ({ download, images, log }) =>
    createImageUpscale({ download, images, onTiming: (timing) => log?.info(timing, 'image upscaled') }),
  'word-to-pdf': ({ download, office }) => createWordToPdf({ download, office }),
};

export function createCpuTools(deps: CpuToolDeps): PoolHandlers<'cpu'> {
  return createHandlers(CPU_HANDLERS, deps);
}
