//! website-screenshot: a public page rendered at the chosen viewport and captured, visible area
//! or whole page. The address is checked by the target guard before any page opens (a refused
//! one answers 422 and is not charged); everything the page loads then goes through the capture's
//! proxy session, which drops private targets and (with blockAds) ad hosts, and counts them.
import type { TargetGuard } from '../../lib/target-guard.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import type { BrowserPool } from '../browser/browser-pool.js';
import type { WebsiteScreenshotInput, WebsiteScreenshotOutput } from '../../domain/tools/website-screenshot.js';
import { capture } from '../browser/capture.js';
import { navigate } from '../browser/navigation.js';
import { DEFAULT_SETTLE, type SettleLimits } from '../browser/settle.js';

export interface WebsiteScreenshotDeps {
  pool: Pick<BrowserPool, 'withPage'>;
  guard: Pick<TargetGuard, 'resolveUrl'>;
  /** How long settling may wait. @default DEFAULT_SETTLE */
  settle?: Partial<SettleLimits>;
}

export function createWebsiteScreenshot(deps: WebsiteScreenshotDeps): ToolHandler<WebsiteScreenshotInput, WebsiteScreenshotOutput> {
  const limits = { ...DEFAULT_SETTLE, ...deps.settle };
  return async (input, ctx) => {
    // Refused (422) or unresolvable (502) before a page opens; the proxy checks again on the way.
    const checked = await deps.guard.resolveUrl(input.url);
    const url = checked.url.href;
    return deps.pool.withPage(async ({ page, session }) => {
      session.setPolicy({ blockAds: input.blockAds, adExemptHost: checked.hostname });
      const shot = await capture(page, () => navigate(page, url, session, ctx.signal), input, limits, {
        hideOverlays: input.hideOverlays,
      });
      return {
        fileBase64: shot.image.toString('base64'),
        mimeType: shot.mimeType,
        width: shot.width,
        height: shot.height,
        pageTitle: await page.title(),
        finalUrl: page.url(),
        truncated: shot.truncated,
        blockedRequestCount: session.drops.length,
      };
    }, ctx.signal);
  };
}
