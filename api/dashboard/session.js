//! The owner token for this tab. sessionStorage lives exactly as long as the tab (a reload keeps
//! the user signed in, closing the tab forgets the token); it is never put in localStorage, a
//! cookie or the URL. Where sessionStorage is unavailable the token stays in memory only.

const KEY = 'utility-tools.owner-token';
let memory = null;

function storage() {
  try {
    return window.sessionStorage;
  } catch {
    return null; // storage disabled by the browser's settings
  }
}

export function loadToken() {
  try {
    return storage()?.getItem(KEY) ?? memory;
  } catch {
    return memory;
  }
}

export function saveToken(token) {
  memory = token;
  try {
    storage()?.setItem(KEY, token);
  } catch {
    // Quota or privacy mode: memory alone still works until the page is reloaded.
  }
}

export function clearToken() {
  memory = null;
  try {
    storage()?.removeItem(KEY);
  } catch {
    // nothing was stored
  }
}

/** Owner tokens are `uto_` + 40 base62 characters (CONTRACT.md); anything else is a typo or a key. */
export function tokenProblem(token) {
  if (token === '') return 'Enter your owner token.';
  if (token.startsWith('utk_')) return 'That is an API key (utk_…). Sign in with the owner token (uto_…) instead.';
  if (!/^uto_[0-9A-Za-z]{40}$/.test(token)) return 'An owner token starts with uto_ followed by 40 letters and digits.';
  return null;
}
