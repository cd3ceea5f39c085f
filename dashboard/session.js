//! The owner token of a sign-in with one (accounts an operator opened; people sign in with a
//! password or a passkey, whose session is an HttpOnly cookie the page never sees). The token is
//! held only by the API client made for it (api.js), in memory: never in sessionStorage,
//! localStorage, a cookie or the URL, so a reload or a closed tab forgets it. What it must look like:

/** Owner tokens are `uto_` + 40 base62 characters (docs/API.md); anything else is a typo or a key. */
export function tokenProblem(token) {
  if (token === '') return 'Enter your owner token.';
  if (token.startsWith('utk_')) return 'That is an API key (utk_…). Sign in with the owner token (uto_…) instead.';
  if (!/^uto_[0-9A-Za-z]{40}$/.test(token)) return 'An owner token starts with uto_ followed by 40 letters and digits.';
  return null;
}
