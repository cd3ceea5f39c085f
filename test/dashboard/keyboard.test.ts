//! One flow by keyboard alone: sign in, go to the keys through the navigation, create a key, and
//! revoke it through the dialog, focus landing where the reader goes on each time.
import test from 'ava';
import type { KeyInput } from 'puppeteer-core';
import { newAccount } from '../helpers/api.js';
import { browserForFile } from './browser-for-file.js';
import { focused, openDashboard, screenshot, textOf, waitForView } from './page.js';

const browser = browserForFile();

test('keyboard only: sign in, reach the keys through the navigation, create a key, dismiss it, revoke it through the dialog', async (t) => {
  const account = await newAccount(20);
  const { page, problems, close } = await openDashboard(browser());
  const press = (key: KeyInput) => page.keyboard.press(key);
  /** Tabs forward (or back, with Shift) until `match` has focus; fails after `max` presses. */
  async function tabTo(match: (f: Awaited<ReturnType<typeof focused>>) => boolean, what: string, max = 40, back = false) {
    for (let i = 0; i < max; i++) {
      if (back) await page.keyboard.down('Shift');
      await press('Tab');
      if (back) await page.keyboard.up('Shift');
      if (match(await focused(page))) return;
    }
    throw new Error(`Tab never reached ${what}`);
  }
  try {
    await tabTo((f) => f.text === 'Skip to content', 'the skip link', 1);
    await tabTo((f) => f.id === 'sign-in-email', 'the address field', 3);
    // The owner token's form is folded away below the person's sign-in; Enter opens it.
    await tabTo((f) => f.tag === 'summary' && f.text === 'Sign in with an owner token', 'the owner token fold', 10);
    await press('Enter');
    await tabTo((f) => f.id === 'token', 'the token field', 1);
    await page.keyboard.type(account.ownerToken);
    await press('Enter');
    await waitForView(page, 'overview');
    t.is((await focused(page)).id, 'overview-title', 'focus moves to the overview');

    // The navigation comes before the view: back from its heading.
    await tabTo((f) => f.tag === 'a' && f.text === 'API keys' && f.inside === 'nav-list', 'the navigation’s API keys', 10, true);
    await press('Enter');
    await waitForView(page, 'keys');
    t.is((await focused(page)).id, 'keys-title', 'focus moves to the view’s heading');
    await tabTo((f) => f.id === 'key-name', 'the key name');
    await page.keyboard.type('keyboard');
    await press('Enter');
    await page.waitForSelector('#key-secret .secret-value');
    t.like(await focused(page), { tag: 'h3', inside: 'key-secret' });
    await tabTo((f) => f.text === 'Copy key', 'Copy key', 3);
    await tabTo((f) => f.text === "Done, I've saved it", 'Done', 3);
    await screenshot(page, 'keyboard-key-created');
    await press('Enter');
    t.is((await focused(page)).id, 'key-name', 'back to the form once the key is hidden');

    await tabTo((f) => f.text === 'Revoke' && f.inside === 'keys-body', 'the new key’s Revoke');
    const target = await page.evaluate(() => document.activeElement!.getAttribute('aria-label'));
    t.is(target, 'Revoke key keyboard');
    await press('Enter');
    await page.waitForSelector('#confirm-dialog[open]');
    t.is((await focused(page)).id, 'confirm-cancel');
    // Escape cancels and returns focus to the button that opened the dialog.
    await press('Escape');
    await page.waitForSelector('#confirm-dialog:not([open])');
    t.is(await page.evaluate(() => document.activeElement!.getAttribute('aria-label')), 'Revoke key keyboard');
    await press('Enter');
    await page.waitForSelector('#confirm-dialog[open]');
    await press('Tab');
    t.is((await focused(page)).id, 'confirm-ok');
    await screenshot(page, 'keyboard-revoke-dialog', { fullPage: false });
    await press('Enter');
    await page.waitForFunction(() =>
      /Revoked/.test((document.querySelector('#keys-body tbody tr:first-child') as HTMLElement)?.innerText ?? ''),
    );
    t.is((await focused(page)).id, 'keys-title');
    t.regex(await textOf(page, '#announcer'), /Key “keyboard”.*revoked/);
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
