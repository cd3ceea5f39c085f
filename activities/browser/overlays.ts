//! `hideOverlays`: removes what covers a page after it loads (cookie and consent banners,
//! newsletter and other modals with their backdrops, large sticky panels) and lets the page
//! scroll again if a modal had locked it. The work runs in the page as one script.
import type { Page } from 'puppeteer-core';

/**
 * Tuning of the heuristic, passed into the page.
 * - `largeShare`: a fixed or sticky element covering at least this share of the viewport is an
 *   overlay (a modal, its backdrop, a sticky panel); smaller ones (headers, chat buttons) stay
 *   unless named like a banner.
 * - `contentShare`: an element holding more than this share of the page's elements is the page
 *   itself (app shells are often one fixed full-screen box), never an overlay.
 */
export const OVERLAY_LIMITS = { largeShare: 0.25, contentShare: 0.5 } as const;

// A string, not a function: the page gets exactly this text, untouched by the TypeScript build.
const SCRIPT = `(limits) => {
  const vw = window.innerWidth, vh = window.innerHeight;
  const NAMED = /cookie|consent|gdpr|ccpa|\\bcmp\\b|onetrust|didomi|usercentrics|cookiebot|truste|quantcast|sp_message|newsletter|subscribe|sign-?up|popup|pop-up|modal|interstitial|lightbox|overlay|backdrop/i;
  const COOKIE_TEXT = /\\bcookies?\\b|\\bconsent\\b|\\bgdpr\\b/i;
  const all = [];
  const collect = (root) => {
    for (const el of root.querySelectorAll('*')) {
      all.push(el);
      if (el.shadowRoot) collect(el.shadowRoot);
    }
  };
  collect(document);
  const total = all.length || 1;
  const overlays = [];
  for (const el of all) {
    if (el === document.documentElement || el === document.body || el === document.head) continue;
    const style = getComputedStyle(el);
    if (style.display === 'none' || style.visibility === 'hidden') continue;
    const position = style.position;
    const isDialog = el.matches('dialog[open], [aria-modal="true"], [role="dialog"], [role="alertdialog"]');
    const zIndex = Number(style.zIndex) || 0;
    if (!(position === 'fixed' || position === 'sticky' || isDialog || (position === 'absolute' && zIndex >= 100))) continue;
    const r = el.getBoundingClientRect();
    const shown = Math.max(0, Math.min(r.right, vw) - Math.max(r.left, 0)) * Math.max(0, Math.min(r.bottom, vh) - Math.max(r.top, 0));
    const area = Math.max(shown, position === 'sticky' ? r.width * Math.min(r.height, vh) : 0);
    if (area === 0) continue;
    if (el.querySelector('main, article, [role="main"], h1') || el.getElementsByTagName('*').length > limits.contentShare * total) continue;
    const cls = typeof el.className === 'string' ? el.className : (el.getAttribute('class') || '');
    const names = [el.id, cls, el.getAttribute('aria-label') || '', el.getAttribute('data-testid') || ''].join(' ');
    const text = (el.innerText || el.textContent || '').slice(0, 500);
    const large = area >= limits.largeShare * vw * vh && position !== 'absolute';
    const named = NAMED.test(names) || COOKIE_TEXT.test(text) || (isDialog && position !== 'static');
    if (large || named) overlays.push(el);
  }
  let removed = 0;
  for (const el of overlays) {
    if (!el.isConnected) continue; // inside one removed already
    el.remove();
    removed++;
  }
  // Modals lock scrolling on the root; a full-page capture needs it back.
  const unlock = document.createElement('style');
  unlock.textContent = 'html { overflow: auto !important; } body { overflow: visible !important; }';
  (document.head || document.documentElement).appendChild(unlock);
  return removed;
}`;

/** Removes overlays from the page; returns how many elements went. */
export async function hideOverlays(page: Page, limits: { largeShare: number; contentShare: number } = OVERLAY_LIMITS): Promise<number> {
  return (await page.evaluate(`(${SCRIPT})(${JSON.stringify(limits)})`)) as number;
}
