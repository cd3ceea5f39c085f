//! Reading what a dashboard page shows (texts, rows, buttons, the focus, what the tab stores) and
//! saving it as a screenshot; re-exported by page.ts, which opens and drives the pages.
import { mkdirSync } from 'node:fs';
import path from 'node:path';
import type { ElementHandle, Page } from 'puppeteer-core';
import { testEnv } from '../helpers/env.js';

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
