//! `npm run bench:heavy`: the expensive tools side by side in one run. Screenshots and
//! html-to-image through the platform vs raw puppeteer on a warm page vs a browser launched per
//! capture, settling on late resources, throughput by BROWSER_CONCURRENCY; word-to-pdf on warm
//! listeners vs a cold `soffice --convert-to` per call, 1 and 2 at once; upscale x2 and x4 seconds
//! per image, direct and through the platform; render links (a miss, a cache hit) against the
//! same capture by POST and a bare Koa route (bench/heavy-render-links.ts). The stack: see
//! bench/stack.ts. Option: `--calls N` (default 20).
import { benchBrowser, printBrowserBench } from './heavy-browser.js';
import { benchUpscale, benchWordToPdf, printUpscaleTable, printWordToPdf } from './heavy-files.js';
import { benchRenderLinks, printRenderLinks } from './heavy-render-links.js';
import { withBenchStack } from './stack.js';

const callsArg = process.argv.indexOf('--calls');
const calls = callsArg > 0 ? Number(process.argv[callsArg + 1]) : 20;

await withBenchStack(async (stack) => {
  printBrowserBench(await benchBrowser({ calls, temporal: stack.temporal }));
  printRenderLinks(await benchRenderLinks({ calls, mongodbUrl: stack.mongodbUrl }));
  printWordToPdf(await benchWordToPdf({ calls, temporal: stack.temporal }));
  printUpscaleTable(await benchUpscale());
});
process.exit(0);
