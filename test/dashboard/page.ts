//! Drives the dashboard in the service's Chromium, the headless shell (puppeteer-core), against the stack `npm test`
//! started: one browser per test file, one fresh browser context (no shared storage) per test.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import puppeteer, { type Browser, type BrowserContext, type Page } from 'puppeteer-core';
import { chromiumPath } from '../../lib/config.js';
import { testEnv } from '../helpers/env.js';
import { serviceOrigin } from '../helpers/people.js';

export const DESKTOP = { width: 1280, height: 900 };
export const PHONE = { width: 360, height: 740, isMobile: true, hasTouch: true, deviceScaleFactor: 2 };

let axeSource: string | undefined;

/**
 * Runs axe-core's WCAG A/AA (2.0 to 2.2) and best-practice rules on the page as it is; returns the
 * violations, described. Its script is injected, so the page must be opened with `bypassCsp`.
 */
export async function axeViolations(page: Page): Promise<string[]> {
  axeSource ??= readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');
  if (!(await page.evaluate(() => 'axe' in window))) await page.evaluate(axeSource);
  return page.evaluate(async () => {
    const axe = (
      window as unknown as {
        axe: {
          run: (ctx: Document, opts: object) => Promise<{ violations: { id: string; impact: string; nodes: { target: string[] }[] }[] }>;
        };
      }
    ).axe;
    const result = await axe.run(document, {
      runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'wcag22aa', 'best-practice'] },
      resultTypes: ['violations'],
    });
    return result.violations.map((v) => `${v.id} (${v.impact}): ${v.nodes.map((n) => n.target.join(' ')).join(', ')}`);
  });
}

export function launchBrowser(): Promise<Browser> {
  const runningAsRoot = typeof process.getuid === 'function' && process.getuid() === 0;
  return puppeteer.launch({
    // The service's own binary, the headless shell: the full browser's own processes cost more
    // CPU than the pages do.
    executablePath: chromiumPath(),
    headless: true,
    pipe: true,
    args: [
      ...(runningAsRoot ? ['--no-sandbox'] : []),
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--lang=en-US',
    ],
    env: { ...process.env, TZ: 'UTC' },
  });
}

export interface DashboardPage {
  page: Page;
  context: BrowserContext;
  /** Page errors and CSP refusals seen so far (console errors other than failed loads). */
  problems: string[];
  close(): Promise<void>;
}

/**
 * Opens `/dashboard` (or `path`, a deep link such as `/dashboard/keys`) in a fresh context;
 * `bypassCsp` only for injecting axe-core. `origin`: API_URL by default; a person's session and
 * passkeys need the service's own origin (PUBLIC_BASE_URL, `serviceOrigin()`), since WebAuthn
 * refuses an IP address as its relying party and the mails' links point there.
 */
export async function openDashboard(
  browser: Browser,
  options: { viewport?: typeof DESKTOP | typeof PHONE; bypassCsp?: boolean; path?: string; origin?: string } = {},
): Promise<DashboardPage> {
  const context = await browser.createBrowserContext();
  const page = await context.newPage();
  const problems: string[] = [];
  page.on('pageerror', (err) => problems.push(`page error: ${(err as Error).message}`));
  page.on('console', (msg) => {
    // A 401 or 400 the page handles is logged by Chromium as a failed load: not a problem.
    if (msg.type() === 'error' && !msg.text().startsWith('Failed to load resource')) problems.push(`console: ${msg.text()}`);
  });
  await page.setViewport(options.viewport ?? DESKTOP);
  if (options.bypassCsp) await page.setBypassCSP(true);
  page.setDefaultTimeout(20_000);
  await page.goto(`${options.origin ?? testEnv.apiUrl()}${options.path ?? '/dashboard'}`, { waitUntil: 'networkidle0' });
  return { page, context, problems, close: () => context.close() };
}

/** Types `token` into sign-in's owner-token form (opening its fold) and sends it; does not wait. */
export async function submitToken(page: Page, token: string): Promise<void> {
  await page.waitForSelector('#token-sign-in summary', { visible: true });
  if (!(await page.$eval('#token-sign-in', (d) => (d as HTMLDetailsElement).open))) await page.click('#token-sign-in summary');
  await page.locator('#token').fill(token);
  await page.click('#token-form button[type=submit]');
}

/** Signs in with an owner token; the page then shows the overview, or the view it was opened at. */
export async function signIn(page: Page, token: string): Promise<void> {
  await submitToken(page, token);
  await page.waitForSelector('#account-bar:not([hidden])');
  await waitForIdle(page);
}

/** Types an address and a password into sign-in's password form and sends it; does not wait for the answer. */
export async function submitPassword(page: Page, email: string, password: string): Promise<void> {
  await page.waitForSelector('#sign-in-email', { visible: true });
  await page.locator('#sign-in-email').fill(email);
  await page.locator('#sign-in-password').fill(password);
  await page.click('#sign-in-form button[type=submit]');
}

/** Signs in as a person with an address and a password, as they would; waits for the signed-in view. */
export async function signInWithPassword(page: Page, email: string, password: string): Promise<void> {
  await submitPassword(page, email, password);
  await page.waitForSelector('#account-bar:not([hidden])');
  await waitForIdle(page);
}

/**
 * The signed-in views of the dashboard by id, each with its path and its h1 (dashboard/views.js);
 * `only`: the view is in the navigation of that sign-in alone (a person's session, or an owner token).
 */
interface ViewInfo {
  path: string;
  title: string;
  only?: 'person' | 'token';
}
export const VIEWS = {
  overview: { path: '/dashboard', title: 'Overview' },
  usage: { path: '/dashboard/usage', title: 'Usage' },
  billing: { path: '/dashboard/billing', title: 'Billing' },
  team: { path: '/dashboard/team', title: 'Team' },
  keys: { path: '/dashboard/keys', title: 'API keys' },
  webhooks: { path: '/dashboard/webhooks', title: 'Webhooks' },
  batches: { path: '/dashboard/batches', title: 'Batches' },
  monitors: { path: '/dashboard/monitors', title: 'Monitors' },
  'render-links': { path: '/dashboard/render-links', title: 'Render links' },
  destinations: { path: '/dashboard/destinations', title: 'Destinations' },
  'connected-apps': { path: '/dashboard/connected-apps', title: 'Connected apps' },
  security: { path: '/dashboard/security', title: 'Security', only: 'person' },
  attach: { path: '/dashboard/attach', title: 'Attach yourself', only: 'token' },
} satisfies Record<string, ViewInfo>;
export type ViewId = keyof typeof VIEWS;

/** The ids of the views a sign-in of this kind has in its navigation. */
export const viewsOf = (kind: 'person' | 'token'): ViewId[] =>
  (Object.keys(VIEWS) as ViewId[]).filter((id) => ((VIEWS[id] as ViewInfo).only ?? kind) === kind);

/** The signed-out views and the views of the mails' links, by id, with a path that shows them. */
export const SIGNED_OUT_VIEWS = {
  'sign-in': '/dashboard/sign-in',
  'sign-up': '/dashboard/sign-up',
  reset: '/dashboard/reset',
  verify: '/dashboard/verify?token=not-a-real-token',
  invitation: '/dashboard/invitation?token=not-a-real-token',
} as const;

/**
 * Moves to a view the way a person does: through the navigation (behind its Menu button on a
 * phone), then waits until the view is shown and has loaded.
 */
export async function goTo(page: Page, view: ViewId): Promise<void> {
  const link = `#nav-list a[data-view="${view}"]`;
  const toggle = await page.$('#nav-toggle');
  if (toggle && (await toggle.isVisible()) && !(await page.$eval(link, (a) => (a as HTMLElement).offsetParent !== null)))
    await toggle.click();
  // A locator finds the link again if the navigation is drawn anew meanwhile (the person's views arrive with the session).
  await page.locator(link).click();
  await waitForView(page, view);
}

/**
 * Presses a control of the header's account bar (`#refresh`, `#sign-out`, the account switch's
 * button) the way a person does: on a phone, through the Menu button that holds the bar.
 */
export async function clickInHeader(page: Page, selector: string): Promise<void> {
  const toggle = await page.$('#nav-toggle');
  if (toggle && (await toggle.isVisible()) && !(await page.$eval(selector, (el) => (el as HTMLElement).offsetParent !== null)))
    await toggle.click();
  await page.locator(selector).click();
}

/** Waits until `view` is the one shown and nothing on the page is loading. */
export async function waitForView(page: Page, view: ViewId | keyof typeof SIGNED_OUT_VIEWS | 'not-found'): Promise<void> {
  await page.waitForSelector(`#views > [data-view="${view}"]:not([hidden])`);
  await waitForIdle(page);
}

/**
 * Opens `view`'s deep link at the service's own origin signed out, so sign-in is asked for; signs
 * in there as `person` with their password and waits until sign-in has gone on to `view`.
 */
export async function openSignedIn(
  browser: Browser,
  person: { email: string; password: string },
  view: ViewId,
  options: { bypassCsp?: boolean } = {},
): Promise<DashboardPage> {
  const opened = await openDashboard(browser, { origin: serviceOrigin(), path: VIEWS[view].path, ...options });
  await waitForView(opened.page, 'sign-in');
  await signInWithPassword(opened.page, person.email, person.password);
  await waitForView(opened.page, view);
  return opened;
}

/** Waits until no section shows a loading line and none is busy. */
export async function waitForIdle(page: Page): Promise<void> {
  try {
    await page.waitForFunction(() => !document.querySelector('.loading, [aria-busy="true"]'));
  } catch (err) {
    const busy = await page
      .$$eval('.loading, [aria-busy="true"]', (els) =>
        els.map((el) => `${el.tagName.toLowerCase()}#${el.id} "${(el as HTMLElement).innerText.slice(0, 60)}"`),
      )
      .catch(() => []);
    throw new Error(`the page stayed busy: ${busy.join(', ') || '(nothing now)'} at ${page.url()}`, { cause: err });
  }
}

/** Presses Refresh and waits until every section has its new numbers. */
export async function refresh(page: Page): Promise<void> {
  await clickInHeader(page, '#refresh');
  await page.waitForFunction(() => document.getElementById('refresh')?.getAttribute('aria-busy') !== 'true');
  await waitForIdle(page);
}

// Reading what a page shows, and saving it: page-reading.ts (re-exported, so a test imports one module).
export * from './page-reading.js';
