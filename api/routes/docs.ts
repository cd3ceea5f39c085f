//! The human documentation: `/docs` (the OpenAPI document rendered in the browser by Redoc),
//! `/docs/errors` (plain HTML), and Redoc's script, served by the service itself because it must
//! work without reaching any CDN.
import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { gzipSync } from 'node:zlib';
import Router from '@koa/router';
import { renderErrorsPage } from '../docs/errors-page.js';

/** Where `npm run build` puts Redoc's bundle and its version (scripts/copy-assets.mjs). */
export const BUILT_RENDERER_DIR = new URL('../docs/redoc/', import.meta.url);

/**
 * Redoc's standalone bundle (React and all, one file) and its version. The build copies it beside
 * the compiled code, so the image carries no redoc package; from source (`npm start`, `npm test`)
 * it is read from redoc, a development dependency.
 */
function renderer(): { path: string; version: string } {
  const built = new URL('redoc.standalone.js', BUILT_RENDERER_DIR);
  if (existsSync(built)) {
    const { version } = JSON.parse(readFileSync(new URL('version.json', BUILT_RENDERER_DIR), 'utf8')) as { version: string };
    return { path: fileURLToPath(built), version };
  }
  const require = createRequire(import.meta.url);
  return {
    path: require.resolve('redoc/bundles/redoc.standalone.js'),
    version: (require('redoc/package.json') as { version: string }).version,
  };
}

const { path: RENDERER_PATH, version: RENDERER_VERSION } = renderer();

/** Path of the renderer script. Its URL carries the version (`?v=`), so it can be cached for good. */
export const RENDERER_ROUTE = '/docs/assets/redoc.standalone.js';

const ONE_YEAR_S = 365 * 24 * 60 * 60;

/** Pages answer only to this origin: nothing is framed, posted or loaded from elsewhere. */
const LOCKED_DOWN = "default-src 'none'; base-uri 'none'; form-action 'none'; frame-ancestors 'none'";

function referencePage() {
  const html = readFileSync(new URL('../docs/reference.html', import.meta.url), 'utf8').replaceAll('{{rendererVersion}}', RENDERER_VERSION);
  // The page's one inline script (Redoc.init) is allowed by its hash, no other inline script.
  const inline = /<script>([\s\S]*?)<\/script>/.exec(html)![1]!;
  const hash = createHash('sha256').update(inline).digest('base64');
  // Redoc injects its styles, draws icons as data: images and runs its search in a blob: worker.
  // Its footer logo from a CDN is refused by img-src, so the offline page makes no outside request.
  const csp = `${LOCKED_DOWN}; script-src 'self' 'sha256-${hash}'; style-src 'unsafe-inline'; img-src 'self' data:; font-src 'self' data:; connect-src 'self'; worker-src blob:`;
  return { html, csp };
}

export function docsRoutes(deps: { baseUrl: string }): Router {
  const router = new Router();
  const reference = referencePage();
  const errors = renderErrorsPage(deps.baseUrl);
  // Read and compressed on first use only: processes that never serve /docs pay nothing.
  let renderer: { raw: Buffer; gzip: Buffer } | undefined;

  router.get('/docs', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'no-cache');
    ctx.set('Content-Security-Policy', reference.csp);
    ctx.body = reference.html;
  });

  router.get('/docs/errors', (ctx) => {
    ctx.type = 'text/html; charset=utf-8';
    ctx.set('Cache-Control', 'public, max-age=300');
    ctx.set('Content-Security-Policy', `${LOCKED_DOWN}; style-src 'unsafe-inline'; img-src data:`);
    ctx.body = errors;
  });

  router.get(RENDERER_ROUTE, (ctx) => {
    if (!renderer) {
      const raw = readFileSync(RENDERER_PATH);
      renderer = { raw, gzip: gzipSync(raw, { level: 9 }) };
    }
    ctx.type = 'text/javascript; charset=utf-8';
    ctx.set('Cache-Control', `public, max-age=${ONE_YEAR_S}, immutable`);
    ctx.vary('Accept-Encoding');
    if (ctx.acceptsEncodings('gzip', 'identity') === 'gzip') {
      ctx.set('Content-Encoding', 'gzip');
      ctx.body = renderer.gzip;
    } else {
      ctx.body = renderer.raw;
    }
  });

  return router;
}
