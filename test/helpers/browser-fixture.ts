//! The browser tests' shared start: a test browser (browser.ts) and the browser fixture pages,
//! started before a file's tests and closed after them. Apart from browser.ts, which profiling
//! scripts import outside AVA.
import test from 'ava';
import { startBrowserPages } from '../fixtures/browser-pages.js';
import type { PageServer } from '../fixtures/http-pages.js';
import { startTestBrowser, type TestBrowser } from './browser.js';

/**
 * For a test file: a test browser and the browser fixture pages, started before its tests and
 * closed after them; read them from the answer inside the tests.
 */
export function useBrowserAndPages(): { readonly browser: TestBrowser; readonly pages: PageServer } {
  let browser: TestBrowser | undefined;
  let pages: PageServer | undefined;
  test.before(async () => {
    browser = await startTestBrowser();
    pages = await startBrowserPages();
  });
  test.after.always(async () => {
    await pages?.close();
    await browser?.close();
  });
  const started = <T>(value: T | undefined): T => {
    if (value === undefined) throw new Error('the test browser is not started yet');
    return value;
  };
  return {
    get browser() {
      return started(browser);
    },
    get pages() {
      return started(pages);
    },
  };
}
