//! The workflow code a worker process loads into its workflow sandboxes. Webpack takes seconds
//! to build it (1.5 s on a quiet machine, 9 s on a loaded one), and a restarted worker polls
//! nothing until it has it, so the bundle is kept on disk beside the list of files it was built
//! from (what webpack read, with their digests) and reused for as long as none of them changed.
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { bundleWorkflowCode, type WorkflowBundle } from '@temporalio/worker';
import { sdkLogger } from '../lib/temporal-runtime.js';
import type { Logger } from '../lib/logger.js';

const WORKFLOWS_PATH = fileURLToPath(new URL(`../workflows/index${import.meta.url.endsWith('.ts') ? '.ts' : '.js'}`, import.meta.url));
/** Where build caches conventionally live: not in the work tree, gone with a fresh install. */
const CACHE_DIR = fileURLToPath(new URL('../node_modules/.cache/utility-tools', import.meta.url));
const SDK_VERSION = (
  JSON.parse(readFileSync(fileURLToPath(import.meta.resolve('@temporalio/worker/package.json')), 'utf8')) as { version: string }
).version;

/**
 * Source maps without the sources' text: a workflow's stack trace still names the file and line,
 * and the map is a quarter of the size (0.4 instead of 1.7 MB), which the SDK decodes, parses and
 * encodes again on the main thread, then parses in the workflow thread, for each worker it creates.
 */
const DEVTOOL = 'inline-nosources-source-map';

interface CachedBundle {
  /** The bundler's version: its output is not only a function of the input files. */
  sdk: string;
  /** Every file webpack read, with the digest it had. */
  inputs: Record<string, string>;
  code: string;
}

export interface BundleOptions {
  workflowsPath?: string;
  cacheDir?: string;
  /** Workflow interceptor modules bundled in (tracing's, lib/temporal-tracing.ts); each set has its own cache entry. */
  interceptorModules?: string[];
}

function digest(file: string): string | undefined {
  try {
    return createHash('sha256').update(readFileSync(file)).digest('base64url');
  } catch {
    return undefined;
  }
}

/**
 * Whether an input is as the bundle was built from it. A source map removed since counts as
 * unchanged: maps feed only the bundle's own inline map, never its code, and the images strip them
 * from node_modules after the bundle is built (scripts/role-packages.mjs). One that changed still counts.
 */
function unchanged(input: string, was: string): boolean {
  const now = digest(input);
  return now === was || (now === undefined && input.endsWith('.map'));
}

function cached(file: string): CachedBundle | undefined {
  try {
    const bundle = JSON.parse(readFileSync(file, 'utf8')) as CachedBundle;
    const current = bundle.sdk === SDK_VERSION && Object.entries(bundle.inputs).every(([input, was]) => unchanged(input, was));
    return current ? bundle : undefined;
  } catch {
    return undefined;
  }
}

/** The workflow bundle, from the cache when its inputs are unchanged; `fromCache` says which. */
export async function workflowBundle(log: Logger, options: BundleOptions = {}): Promise<WorkflowBundle & { fromCache: boolean }> {
  const workflowsPath = options.workflowsPath ?? WORKFLOWS_PATH;
  const cacheDir = options.cacheDir ?? CACHE_DIR;
  // One cache entry per entry point: the sources (tsx) and the build (dist/) each have theirs.
  const interceptorModules = options.interceptorModules ?? [];
  const entry = [DEVTOOL, workflowsPath, ...interceptorModules].join('\n');
  const file = path.join(cacheDir, `workflow-bundle-${createHash('sha256').update(entry).digest('hex').slice(0, 16)}.json`);
  const hit = cached(file);
  if (hit) return { code: hit.code, fromCache: true };

  let read: string[] = [];
  // Webpack's build listing is logged at INFO; the service logs it at debug.
  const quiet = log.child({ component: 'workflow-bundler' });
  const { code } = await bundleWorkflowCode({
    workflowsPath,
    workflowInterceptorModules: interceptorModules,
    logger: { ...sdkLogger(quiet), info: (m, meta) => quiet.debug(meta ?? {}, m) },
    webpackConfigHook: (config) => ({
      ...config,
      devtool: DEVTOOL,
      plugins: [
        ...(config.plugins ?? []),
        { apply: (compiler) => compiler.hooks.done.tap('files read', (stats) => void (read = [...stats.compilation.fileDependencies])) },
      ],
    }),
  });
  // The generated entry point lives in the bundler's memory, not on disk: the SDK version covers it.
  const inputs = Object.fromEntries(
    read.flatMap((input) => {
      const d = digest(input);
      return d ? [[input, d]] : [];
    }),
  );
  try {
    mkdirSync(cacheDir, { recursive: true });
    // Written whole, then renamed: processes starting together never read half a bundle.
    const partial = `${file}.${process.pid}`;
    writeFileSync(partial, JSON.stringify({ sdk: SDK_VERSION, inputs, code } satisfies CachedBundle));
    renameSync(partial, file);
  } catch (err) {
    // A read-only install bundles at every start, as before the cache.
    log.warn({ err, cacheDir }, 'workflow bundle not cached');
  }
  return { code, fromCache: false };
}
