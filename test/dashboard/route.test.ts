//! How `/dashboard` is served: the page (at its root and at each view's path) and its files, their
//! caching, and a Content-Security-Policy that runs nothing inline and nothing from elsewhere.
import { execFile } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import test from 'ava';
import { isProblem, request } from '../helpers/api.js';
import { testEnv } from '../helpers/env.js';
import { SUBSCRIBABLE_EVENT_KINDS } from '../../contracts/event-kinds.js';

test('the page is HTML under a strict CSP, with no inline script, style or handler', async (t) => {
  const res = await fetch(`${testEnv.apiUrl()}/dashboard`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/html/);
  t.is(res.headers.get('cache-control'), 'no-cache');
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.is(res.headers.get('referrer-policy'), 'no-referrer');
  const csp = res.headers.get('content-security-policy') ?? '';
  for (const directive of [
    "default-src 'none'",
    "script-src 'self'",
    "style-src 'self'",
    "connect-src 'self'",
    "frame-ancestors 'none'",
    "form-action 'none'",
    "require-trusted-types-for 'script'",
  ]) {
    t.true(csp.includes(directive), directive);
  }
  t.notRegex(csp, /unsafe-|https?:|data:|\*/);

  const html = await res.text();
  t.notRegex(html, /<script(?![^>]*\bsrc=)[^>]*>/, 'every script is a file');
  t.notRegex(html, /<style|\sstyle=|\son[a-z]+=/i, 'no inline style or event handler');
  t.notRegex(html, /https?:\/\/(?!example\.com)/, 'nothing from another origin');
  t.regex(html, /<main[\s>]/);
  t.regex(html, /<nav [^>]*aria-label="Dashboard"/);
});

test("every view's path answers the same page under the same headers; the page itself says which views exist", async (t) => {
  const root = await fetch(`${testEnv.apiUrl()}/dashboard`);
  const html = await root.text();
  // Known views, a path no view has (the page shows its not-found view) and a trailing slash.
  for (const path of [
    '/dashboard/keys',
    '/dashboard/sign-in',
    '/dashboard/sign-up',
    '/dashboard/verify?token=abc',
    '/dashboard/security',
    '/dashboard/no-such-view',
    '/dashboard/webhooks/',
  ]) {
    const res = await fetch(testEnv.apiUrl() + path);
    t.is(res.status, 200, path);
    t.is(await res.text(), html, path);
    for (const header of [
      'content-type',
      'content-security-policy',
      'cache-control',
      'x-content-type-options',
      'referrer-policy',
      'cross-origin-opener-policy',
    ]) {
      t.is(res.headers.get(header), root.headers.get(header), `${path} ${header}`);
    }
  }
  // Deeper paths are not views: the API's own 404.
  t.true(isProblem(await request('GET', '/dashboard/keys/extra'), 404, 'not_found'));
});

test('the files load with their types and are cached for good under their version', async (t) => {
  const html = await (await fetch(`${testEnv.apiUrl()}/dashboard`)).text();
  const app = /<script type="module" src="([^"]+)"/.exec(html)?.[1] ?? '';
  const css = /<link rel="stylesheet" href="([^"]+)"/.exec(html)?.[1] ?? '';
  t.regex(app, /^\/dashboard\/assets\/[0-9a-f]{16}\/app\.js$/);

  const script = await fetch(testEnv.apiUrl() + app);
  t.is(script.status, 200);
  t.regex(script.headers.get('content-type') ?? '', /^text\/javascript/);
  t.regex(script.headers.get('cache-control') ?? '', /max-age=31536000.*immutable/);
  // Its relative imports resolve beside it, under the same version.
  const imported = [...(await script.text()).matchAll(/from '\.\/([\w-]+\.js)'/g)].map((m) => m[1]!);
  t.true(imported.length >= 3);
  for (const name of imported) t.is((await fetch(new URL(name, testEnv.apiUrl() + app))).status, 200, name);

  const style = await fetch(testEnv.apiUrl() + css);
  t.regex(style.headers.get('content-type') ?? '', /^text\/css/);

  // A page of another deploy still gets the file, but not cached under a version it does not match.
  const stale = await fetch(testEnv.apiUrl() + app.replace(/assets\/[0-9a-f]+/, 'assets/0000000000000000'));
  t.is(stale.status, 200);
  t.is(stale.headers.get('cache-control'), 'no-cache');
});

/** This deploy's folder of the page's files (`/dashboard/assets/<version>`), as the page links it. */
async function assetFolder(): Promise<string> {
  const html = await (await fetch(`${testEnv.apiUrl()}/dashboard`)).text();
  return /<script type="module" src="([^"]+)\/app\.js"/.exec(html)?.[1] ?? '';
}

test("SimpleWebAuthn's browser bundle is one of the page's own files: same origin, versioned, the package's bytes", async (t) => {
  const assets = await assetFolder();
  const res = await fetch(`${testEnv.apiUrl()}${assets}/simplewebauthn-browser.js`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/javascript/);
  t.regex(res.headers.get('cache-control') ?? '', /max-age=31536000.*immutable/);
  t.is(res.headers.get('x-content-type-options'), 'nosniff');
  t.is(res.headers.get('cross-origin-resource-policy'), 'same-origin');
  const bundle = createRequire(import.meta.url)
    .resolve('@simplewebauthn/browser')
    .replace(/script[\\/]index\.js$/, 'dist/bundle/index.umd.min.js');
  t.is(await res.text(), readFileSync(bundle, 'utf8'));
  // The page loads it from its own version's folder (passkeys.js imports it beside itself).
  const passkeys = await (await fetch(`${testEnv.apiUrl()}${assets}/passkeys.js`)).text();
  t.regex(passkeys, /new URL\('\.\/simplewebauthn-browser\.js', import\.meta\.url\)/);
  t.notRegex(passkeys, /https?:\/\//, 'never from a CDN');
});

test("the event types an endpoint may choose are one of the page's files, written from the service's list", async (t) => {
  const assets = await assetFolder();
  const res = await fetch(`${testEnv.apiUrl()}${assets}/event-kinds.js`);
  t.is(res.status, 200);
  t.regex(res.headers.get('content-type') ?? '', /^text\/javascript/);
  t.regex(res.headers.get('cache-control') ?? '', /max-age=31536000.*immutable/);
  const listed = /export const EVENT_TYPES = (\[.*\]);/.exec(await res.text())?.[1];
  t.deepEqual(JSON.parse(listed ?? 'null'), [...SUBSCRIBABLE_EVENT_KINDS]);
  // The webhooks view loads it from its own version's folder; neither it nor the card keeps a copy.
  const webhooks = await (await fetch(`${testEnv.apiUrl()}${assets}/view-webhooks.js`)).text();
  t.regex(webhooks, /new URL\('\.\/event-kinds\.js', import\.meta\.url\)/);
  const card = await (await fetch(`${testEnv.apiUrl()}${assets}/view-endpoint.js`)).text();
  for (const text of [webhooks, card]) t.false(text.includes("'credits.recharge_failed'"));
});

test('an unknown file is a 404 problem, and no path leaves the dashboard folder', async (t) => {
  t.true(isProblem(await request('GET', '/dashboard/assets/v1/nope.js'), 404, 'not_found'));
  t.true(isProblem(await request('GET', '/dashboard/assets/v1/..%2Froutes%2Fdashboard.ts'), 404, 'not_found'));
  t.true(isProblem(await request('GET', '/dashboard/assets/v1/index.html'), 404, 'not_found'));
});

test('the page scripts type-check as browser code (tsc --checkJs, dashboard/tsconfig.json)', async (t) => {
  // Plain ES modules have no build step to catch an unknown name or a wrong DOM call; this does.
  const root = fileURLToPath(new URL('../../', import.meta.url));
  const tsc = promisify(execFile)(`${root}node_modules/.bin/tsc`, ['-p', 'dashboard'], { cwd: root });
  await t.notThrowsAsync(tsc.catch((err: { stdout?: string }) => Promise.reject(new Error(err.stdout || String(err)))));
});
