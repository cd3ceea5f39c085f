//! Passkeys in the browser: SimpleWebAuthn's browser bundle, served by the dashboard itself
//! (api/routes/dashboard.ts, the CSP runs scripts of this origin only), is imported the first time
//! a passkey is made or used; the ceremony's options come from the service and its answer goes
//! back to it. The browser's own refusals (the prompt closed, no passkey here) get plain words.

/** The bundle, imported once; importing it sets `globalThis.SimpleWebAuthnBrowser`. */
let library;
function webauthn() {
  // A computed specifier: the file is an asset of the page's version, not a module of this folder.
  library ??= import(new URL('./simplewebauthn-browser.js', import.meta.url).href).then(
    () => /** @type {any} */ (globalThis).SimpleWebAuthnBrowser,
  );
  return library;
}

/** Whether this browser can make and use passkeys at all. */
export const passkeysSupported = () => typeof window.PublicKeyCredential === 'function';

/**
 * Makes a passkey on this device and adds it to the signed-in person's sign-in.
 * @param {import('./api.js').Client} client
 * @param {string} name
 */
export async function createPasskey(client, name) {
  const lib = await webauthn();
  const optionsJSON = await client.passkeyOptions();
  const response = await lib.startRegistration({ optionsJSON });
  return client.addPasskey(response, name);
}

/**
 * Signs in with a passkey of this site, without an address: the authenticator offers the
 * passkeys it holds (discoverable credentials). Answers the service's signed-in answer.
 * @param {import('./api.js').Client} client
 */
export async function signInWithPasskey(client) {
  const lib = await webauthn();
  const optionsJSON = await client.passkeySignInOptions();
  const response = await lib.startAuthentication({ optionsJSON });
  return client.passkeySignIn(response);
}

/**
 * The browser's refusal in words, or null when `err` is not one (an answer of the service).
 * @param {any} err
 */
export function ceremonyProblem(err) {
  if (!err || 'status' in err) return null;
  if (err.name === 'NotAllowedError' || err.code === 'ERROR_CEREMONY_ABORTED')
    return { detail: 'The passkey prompt was closed or timed out. Nothing was changed; try again when ready.' };
  if (err.name === 'InvalidStateError' || err.code === 'ERROR_AUTHENTICATOR_PREVIOUSLY_REGISTERED')
    return { detail: 'This device already holds a passkey of your sign-in.' };
  if (err.name === 'SecurityError')
    return { detail: 'This address of the dashboard cannot use passkeys: open it at the service’s own address.' };
  return { detail: `The passkey could not be used: ${err.message || err.name || 'the browser refused'}.` };
}
