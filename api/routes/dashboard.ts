//! The account dashboard (`/dashboard` and its views, `/dashboard/keys` and so on): one HTML page
//! plus the scripts and styles of dashboard/ (at the top of the tree: the API reads its files and
//! imports none of them), served under a Content-Security-Policy that runs files from this origin
//! only. The page picks the view from its path (dashboard/router.js), so every `/dashboard/<view>`
//! answers the same page, and an unknown view is the page's own "not found". The page talks to the
//! account API with the session cookie (or an owner token); nothing here authenticates. Besides its
//! own files it serves SimpleWebAuthn's browser bundle from node_modules under the same versioned
//! path (the CSP runs scripts of this origin only), and modules it writes from the service's own
//! lists, so the page keeps no copy of them.
import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import Router from '@koa/router';
import { ServiceError } from '../../contracts/errors.js';
import { SUBSCRIBABLE_EVENT_KINDS } from '../../contracts/event-kinds.js';

const ASSET_DIR = new URL('../../dashboard/', import.meta.url);
const ONE_YEAR_S = 365 * 24 * 60 * 60;

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
};

/**
 * Files only: no inline script or style, no eval, nothing from another origin, and Trusted Types
 * so that no string can ever become markup (the page builds its DOM with textContent).
 */
export const DASHBOARD_CSP = [
  "default-src 'none'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "manifest-src 'none'",
  "require-trusted-types-for 'script'",
  "trusted-types 'none'",
].join('; ');

/** Headers every dashboard answer carries: no sniffing, no referrer, no foreign opener. */
const COMMON_HEADERS = {
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * Files of packages the page loads as its own assets, by the name it loads them under. The
 * WebAuthn helper is the package's one-file browser bundle (it sets `globalThis.SimpleWebAuthnBrowser`
 * when imported), the same version as `@simplewebauthn/server` speaks to.
 */
export const PACKAGE_ASSETS: Record<string, URL> = {
  'simplewebauthn-browser.js': packageFile('@simplewebauthn/browser', 'dist/bundle/index.umd.min.js'),
};

/**
 * Modules the page loads as its own assets, written from the service's lists by the name the page
 * loads them under: the event types an endpoint may choose (dashboard/view-webhooks.js).
 */
export const GENERATED_ASSETS: Record<string, string> = {
  'event-kinds.js': `// Written by the service from contracts/event-kinds.ts.\nexport const EVENT_TYPES = ${JSON.stringify(SUBSCRIBABLE_EVENT_KINDS)};\n`,
};

/** A file of an installed package, found as Node finds the package (its entry point is under `script/` or the root). */
function packageFile(name: string, file: string): URL {
  const entry = createRequire(import.meta.url).resolve(name);
  const root = entry.slice(
    0,
    entry.lastIndexOf(`${path.sep}node_modules${path.sep}`) + `${path.sep}node_modules${path.sep}`.length + name.length,
  );
  return pathToFileURL(path.join(root, file));
}

interface Asset {
  type: string;
  body: Buffer;
}

/**
 * Reads the page and its assets once. The assets' URL carries a digest of all of them
 * (`/dashboard/assets/<version>/app.js`), so they can be cached for good, and the modules'
 * relative imports (`./api.js`) land on the same version.
 */
export function loadDashboard(
  dir: URL = ASSET_DIR,
  packageAssets: Record<string, URL> = PACKAGE_ASSETS,
  generatedAssets: Record<string, string> = GENERATED_ASSETS,
) {
  const assets = new Map<string, Asset>();
  const digest = createHash('sha256');
  const files = new Map<string, URL | Buffer>(readdirSync(dir).map((name) => [name, new URL(name, dir)]));
  for (const [name, url] of Object.entries(packageAssets)) files.set(name, url);
  for (const [name, text] of Object.entries(generatedAssets)) files.set(name, Buffer.from(text));
  for (const name of [...files.keys()].sort()) {
    const type = TYPES[path.extname(name)];
    if (!type) continue;
    const file = files.get(name)!;
    const body = Buffer.isBuffer(file) ? file : readFileSync(file);
    assets.set(name, { type, body });
    digest.update(name).update('\0').update(body);
  }
  const version = digest.digest('hex').slice(0, 16);
  const html = readFileSync(new URL('index.html', dir), 'utf8').replaceAll('{{assets}}', `/dashboard/assets/${version}`);
  return { html, assets, version };
}

let shipped: ReturnType<typeof loadDashboard> | undefined;
/** The dashboard this service ships, read once per process (its routes, its documentation and the consent page's stylesheet use it). */
export const shippedDashboard = () => (shipped ??= loadDashboard());

export function dashboardRoutes(): Router {
  const router = new Router();
  const page = shippedDashboard();

  // One handler for the app's root and each of its views: the page routes itself.
  router.get(['/dashboard', '/dashboard/:view'], (ctx) => {
    ctx.set(COMMON_HEADERS);
    ctx.set('Content-Security-Policy', DASHBOARD_CSP);
    // Revalidated on every load, so a new deploy's asset version is picked up at once.
    ctx.set('Cache-Control', 'no-cache');
    ctx.type = 'text/html; charset=utf-8';
    ctx.body = page.html;
  });

  router.get('/dashboard/assets/:version/:file', (ctx) => {
    const asset = page.assets.get(ctx.params.file!);
    if (!asset) throw new ServiceError('not_found', `No resource at ${ctx.method} ${ctx.path}.`);
    ctx.set(COMMON_HEADERS);
    // A page of an older deploy still gets working files, just not cached under its version.
    ctx.set('Cache-Control', ctx.params.version === page.version ? `public, max-age=${ONE_YEAR_S}, immutable` : 'no-cache');
    ctx.type = asset.type;
    ctx.body = asset.body;
  });

  return router;
}
