//! html-to-image: supplied markup rendered by the same browser and captured. The page has no
//! base URL; whatever the markup loads goes through the capture's proxy session like a website's
//! resources, and a reference to a private address refuses the whole call (422): the caller
//! wrote the markup, so a silently missing piece would only hide the mistake (or the probe).
import { ToolError } from '../../contracts/errors.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import type { BrowserPool } from '../browser/browser-pool.js';
import type { HtmlToImageInput, HtmlToImageOutput } from '../../domain/tools/html-to-image.js';
import { capture, stepClock, type CaptureSteps } from '../browser/capture.js';
import { writeMarkup } from '../browser/page-activity.js';
import { DEFAULT_SETTLE, type SettleLimits } from '../browser/settle.js';

export interface HtmlToImageDeps {
  pool: Pick<BrowserPool, 'withPage'>;
  /** How long settling may wait. @default DEFAULT_SETTLE */
  settle?: Partial<SettleLimits>;
  /** Told where each call's time went, step by step (CaptureSteps): a bench's reading. */
  steps?: (steps: CaptureSteps) => void;
}

/** Leading whitespace and comments, then a doctype or an `<html>` tag: a whole document. */
const WHOLE_DOCUMENT = /^(?:\s|<!--[\s\S]*?-->)*(?:<!doctype\s+html[\s>]|<html[\s>])/i;

/** The markup as a document: a whole one as it is, a fragment inside a UTF-8 document's body. */
export function asDocument(html: string): string {
  if (WHOLE_DOCUMENT.test(html)) return html;
  return `<!doctype html>\n<html>\n<head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1"></head>\n<body>\n${html}\n</body>\n</html>\n`;
}

export function createHtmlToImage(deps: HtmlToImageDeps): ToolHandler<HtmlToImageInput, HtmlToImageOutput> {
  const limits = { ...DEFAULT_SETTLE, ...deps.settle };
  return async (input, ctx) => {
    const steps: CaptureSteps | undefined = deps.steps ? {} : undefined;
    const step = stepClock(steps);
    const output = await deps.pool.withPage(async ({ page, session }) => {
      step('page');
      // No ad blocking: the caller chose every resource the markup names.
      session.setPolicy({ blockAds: false });
      const load = () => writeMarkup(page, asDocument(input.html), limits.loadMs, limits.timerHorizonMs);
      const shot = await capture(page, load, input, limits, { hideOverlays: false, step });
      const refused = session.drops.find((d) => d.kind === 'target');
      if (refused?.kind === 'target') {
        throw new ToolError(
          'target_not_allowed',
          `The markup loads from a refused address: ${refused.error.message}`,
          refused.error.extras,
          { cause: refused.error.cause },
        );
      }
      const fileBase64 = shot.image.toString('base64');
      step('base64');
      return { fileBase64, mimeType: shot.mimeType, width: shot.width, height: shot.height, truncated: shot.truncated };
    }, ctx.signal);
    step('page returned');
    if (steps) deps.steps?.(steps);
    return output;
  };
}
