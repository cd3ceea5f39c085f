//! The test file's one browser, for the ava files that drive the dashboard. Apart from page.ts,
//! which scripts outside ava load too (bench/batch-note.ts): ava ends a process that loads it
//! outside its CLI.
import test from 'ava';
import type { Browser } from 'puppeteer-core';
import { launchBrowser } from './page.js';

/**
 * Launches a browser before the file's tests and closes it after them (the hooks are registered by
 * this call, made once at the top of the file); the getter gives it to a test.
 */
export function browserForFile(): () => Browser {
  let browser: Browser | undefined;
  test.before(async () => {
    browser = await launchBrowser();
  });
  test.after.always(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is launched before the tests: use it inside one');
    return browser;
  };
}
