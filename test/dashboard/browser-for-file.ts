//! The test file's one browser, for the ava files that drive the dashboard. Apart from page.ts,
//! which scripts outside ava load too (bench/batch-note.ts): ava ends a process that loads it
//! outside its CLI.
import test from 'ava';
import type { Browser } from 'puppeteer-core';
import { launchBrowser } from './page.js';

/**
 * Launches a browser for the file's tests and closes it after them (the hooks are registered by
 * this call, made once at the top of the file); the getter gives it to a test. The launch is only
 * started in its `before` hook and awaited before each test, so it runs beside the file's own
 * set-up (an account, a receiver) instead of ahead of it: ava runs `before` hooks one by one.
 */
export function browserForFile(): () => Browser {
  let launching: Promise<Browser> | undefined;
  let browser: Browser | undefined;
  test.before(() => {
    launching = launchBrowser();
    // Awaited by the first test; until then a failed launch must not end the process unhandled.
    launching.catch(() => {});
  });
  test.beforeEach(async () => {
    browser ??= await launching;
  });
  test.after.always(async () => {
    await (browser ?? (await launching?.catch(() => undefined)))?.close();
  });
  return () => {
    if (!browser) throw new Error('the browser is launched before the tests: use it inside one');
    return browser;
  };
}
