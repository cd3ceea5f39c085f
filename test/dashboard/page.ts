//! Drives the dashboard in the service's Chromium, the headless shell (puppeteer-core), against the stack `npm test`
//! started: one browser per test file, one fresh browser context (no shared storage) per test.
import { mkdirSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import puppeteer, { type Browser, type BrowserContext, type ElementHandle, type Page } from 'puppeteer-core';
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

/**
 * Waits until the element at `selector` has text matching `pattern`; returns that text. On a
 * timeout the error says what the element showed instead, and the page is saved as
 * `dashboard/timeout-<time>.png`, so a failure in CI can be read afterwards.
 */
export async function waitForText(page: Page, selector: string, pattern: RegExp, timeout = 20_000): Promise<string> {
  try {
    const handle = await page.waitForFunction(
      (sel: string, source: string, flags: string) => {
        const text = (document.querySelector(sel) as HTMLElement | null)?.innerText ?? '';
        return new RegExp(source, flags).test(text) ? text : false;
      },
      { timeout },
      selector,
      pattern.source,
      pattern.flags,
    );
    return (await handle.jsonValue()) as string;
  } catch (err) {
    const shown = await page.$eval(selector, (el) => (el as HTMLElement).innerText).catch(() => '(no such element)');
    const file = await screenshot(page, `timeout-${Date.now()}`).catch(() => '(no screenshot)');
    throw new Error(
      `${selector} never matched ${pattern} within ${timeout} ms; it showed ${JSON.stringify(shown)} (page saved as ${file})`,
      { cause: err },
    );
  }
}

export const textOf = (page: Page, selector: string) => page.$eval(selector, (el) => (el as HTMLElement).innerText);

/** The text of the element at `selector` on one line. */
export const lineOf = async (page: Page, selector: string) => (await textOf(page, selector)).replace(/\s+/g, ' ').trim();

/** Each row of a table, its text on one line. */
export const rowsOf = (page: Page, selector: string) =>
  page.$$eval(`${selector} tbody tr`, (trs) => trs.map((tr) => (tr as HTMLElement).innerText.replace(/\s+/g, ' ').trim()));

/** The button inside `scope` whose visible text is `label`. */
export async function button(page: Page, scope: string, label: string): Promise<ElementHandle<HTMLButtonElement>> {
  const found = await page.waitForFunction(
    (sel: string, text: string) =>
      Array.from(document.querySelectorAll(`${sel} button`)).find(
        (b) => (b as HTMLElement).innerText.trim() === text && (b as HTMLElement).offsetParent !== null,
      ) ?? false,
    {},
    scope,
    label,
  );
  return found.asElement() as ElementHandle<HTMLButtonElement>;
}

/** What has focus: its id, tag and text, for assertions about focus handling. */
export function focused(page: Page): Promise<{ id: string; tag: string; text: string; inside: string | null }> {
  return page.evaluate(() => {
    const el = document.activeElement as HTMLElement;
    return { id: el.id, tag: el.tagName.toLowerCase(), text: el.innerText?.trim() ?? '', inside: el.closest('[id]')?.id ?? null };
  });
}

/** Saves `$TEST_OUTPUT_DIR/dashboard/<name>.png`: the whole page, or what the viewport shows. */
export async function screenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  const dir = path.join(testEnv.outputDir(), 'dashboard');
  mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `${name}.png`) as `${string}.png`;
  await page.screenshot({ path: file, fullPage: options.fullPage ?? true });
  return file;
}

/** Presses Refresh and waits until every section has its new numbers. */
export async function refresh(page: Page): Promise<void> {
  await clickInHeader(page, '#refresh');
  await page.waitForFunction(() => document.getElementById('refresh')?.getAttribute('aria-busy') !== 'true');
  await waitForIdle(page);
}

/** What the tab keeps: localStorage, sessionStorage values, cookies and the URL. */
export async function storedInTab(page: Page): Promise<{ local: string[]; session: string[]; cookie: string; url: string }> {
  return page.evaluate(() => ({
    local: Object.keys(localStorage).map((k) => `${k}=${localStorage.getItem(k)}`),
    session: Object.keys(sessionStorage).map((k) => sessionStorage.getItem(k) ?? ''),
    cookie: document.cookie,
    url: location.href,
  }));
}

/** Waits until the polite live region says something matching `pattern`; returns it. */
export function lastAnnouncement(page: Page, pattern: RegExp): Promise<string> {
  return waitForText(page, '#announcer', pattern);
}

/** The `<tr>` of the keys table whose key cell shows `prefix`. */
export async function keyRow(page: Page, prefix: string): Promise<ElementHandle<HTMLTableRowElement>> {
  const found = await page.waitForFunction(
    (p: string) =>
      Array.from(document.querySelectorAll('#keys-body tbody tr')).find((tr) => (tr as HTMLElement).innerText.includes(p)) ?? false,
    {},
    prefix,
  );
  return found.asElement() as ElementHandle<HTMLTableRowElement>;
}

/** The card (`li`) of the webhook endpoint whose URL is `url`. */
export async function endpointCard(page: Page, url: string): Promise<ElementHandle<HTMLLIElement>> {
  const found = await page.waitForFunction(
    (u: string) =>
      Array.from(document.querySelectorAll('#webhooks-body li.endpoint')).find(
        (li) => li.querySelector('.endpoint-url')?.textContent === u,
      ) ?? false,
    {},
    url,
  );
  return found.asElement() as ElementHandle<HTMLLIElement>;
}

/** Waits until the text of `handle` matches `pattern`; returns that text. */
export async function waitForHandleText(page: Page, handle: ElementHandle, pattern: RegExp, timeout = 30_000): Promise<string> {
  const result = await page.waitForFunction(
    (el: Element, source: string, flags: string) => {
      const text = (el as HTMLElement).innerText;
      return new RegExp(source, flags).test(text) ? text : false;
    },
    { timeout },
    handle,
    pattern.source,
    pattern.flags,
  );
  return (await result.jsonValue()) as string;
}

/** The button inside `handle` whose visible text is `label`. */
export async function buttonIn(handle: ElementHandle, label: string): Promise<ElementHandle<HTMLButtonElement>> {
  const found = await handle.waitForSelector(`::-p-xpath(.//button[normalize-space(.)=${JSON.stringify(label)}])`);
  if (!found) throw new Error(`no button ${label}`);
  return found as ElementHandle<HTMLButtonElement>;
}

/**
 * Screenshots for a note outside the repository: written to `$DASHBOARD_SHOTS_DIR/<name>.png` when
 * that is set (e.g. `DASHBOARD_SHOTS_DIR=/work/notes npm test -- test/dashboard/people.test.ts`),
 * else only to the run's output like `screenshot`.
 */
export async function noteShot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<void> {
  await screenshot(page, name, options);
  const dir = process.env.DASHBOARD_SHOTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  await page.screenshot({ path: path.join(dir, `${name}.png`) as `${string}.png`, fullPage: options.fullPage ?? true });
}
