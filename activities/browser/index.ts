//! The browser pool's tools, keyed by tool name (typed by domain/tools: one handler per listed
//! browser tool, no other), and what they share: the ad host list, the
//! filtering proxy every page's traffic goes through, and the warm pool of pages. The worker
//! (workers/pools.ts) owns the lifetime: it creates them once and calls `close` on shutdown.
import type { Config } from '../../lib/config.js';
import type { Logger } from '../../lib/logger.js';
import type { NetworkAccess } from '../../lib/network-access.js';
import { createHandlers, type HandlerFactories, type PoolHandlers } from '../../domain/tools/index.js';
import type { TargetGuard } from '../../lib/target-guard.js';
import { loadAdHostList, type AdHostList } from './ad-hosts.js';
import { createBrowserPool, type BrowserPool, type BrowserPoolHandle } from './browser-pool.js';
import { createFilteringProxy } from './filtering-proxy.js';
import { createHtmlToImage } from '../tools/html-to-image.js';
import { createWebsiteScreenshot } from '../tools/website-screenshot.js';

export { createBrowserPool, type BrowserPool, type BrowserPoolOptions, type PageLease } from './browser-pool.js';

export interface BrowserToolDeps {
  config: Pick<Config, 'browserConcurrency' | 'chromiumPath' | 'chromiumSandbox' | 'browserRecycleAfter'>;
  /** The process's target guard (lib/network-access.ts): the proxy checks every page request with it. */
  net: Pick<NetworkAccess, 'guard'>;
  log?: Logger;
  /** The ad host list; the shipped one by default. */
  adHosts?: Promise<AdHostList>;
  /** When Chromium launches: see lib/started-once.ts. At once when absent. */
  heavyStartAfter?: Promise<unknown>;
}

/** What the browser tools' handlers are made from. */
export interface BrowserHandlerDeps {
  pool: BrowserPool;
  guard: TargetGuard;
}

export const BROWSER_HANDLERS: HandlerFactories<'browser', BrowserHandlerDeps> = {
  'website-screenshot': ({ pool, guard }) => createWebsiteScreenshot({ pool, guard }),
  'html-to-image': ({ pool }) => createHtmlToImage({ pool }),
};

export interface BrowserTools {
  handlers: PoolHandlers<'browser'>;
  pool: BrowserPoolHandle;
  /** Closes the browsers and the proxy sessions. */
  close(): Promise<void>;
}

/** A list older than this is logged at startup: the lists change daily, the service ships a snapshot. */
const STALE_LIST_DAYS = 90;

export function createBrowserTools(deps: BrowserToolDeps): BrowserTools {
  const log = deps.log?.child({ component: 'browser-pool' });
  const adHosts = deps.adHosts ?? loadAdHostList();
  adHosts.then(
    (list) => {
      const ageDays = list.generatedAt ? (Date.now() - list.generatedAt.getTime()) / 86_400_000 : Infinity;
      if (ageDays > STALE_LIST_DAYS) log?.warn({ ageDays: Math.round(ageDays) }, 'the ad host list is old: run `npm run update:ad-hosts`');
    },
    (err: unknown) => log?.error({ err }, 'could not load the ad host list'),
  );
  const proxy = createFilteringProxy({ guard: deps.net.guard, adHosts, log });
  const pool = createBrowserPool({
    executablePath: deps.config.chromiumPath,
    sandbox: deps.config.chromiumSandbox,
    concurrency: deps.config.browserConcurrency,
    recycleAfter: deps.config.browserRecycleAfter,
    proxy,
    startAfter: deps.heavyStartAfter,
    log,
  });
  return {
    handlers: createHandlers(BROWSER_HANDLERS, { pool, guard: deps.net.guard }),
    pool,
    close: () => pool.close(),
  };
}
