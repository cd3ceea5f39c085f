//! The sign-up and sign-in routes' request bodies (api/routes/auth.ts): validation, OpenAPI and
//! types in one. Passwords are only bounded here against abuse; their rules (15 to 256
//! characters, not a common one) are checked by domain/identity/password-policy.ts, which says
//! why a password is refused.
import { Type } from '@sinclair/typebox';
import { ClosedObject } from '../../lib/schema-types.js';
import type { AuthenticationResponseJSON, RegistrationResponseJSON } from '@simplewebauthn/server';
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../../domain/identity/index.js';

const email = Type.String({ minLength: 3, maxLength: MAX_EMAIL_LENGTH, description: 'The address; compared without regard to case.' });
const anyPassword = (description: string) => Type.String({ minLength: 1, maxLength: 4 * MAX_PASSWORD_LENGTH, description });
const password = (description: string) =>
  anyPassword(
    `${description} ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters of any kind, not one on the list of common and breached passwords.`,
  );
const token = Type.String({ minLength: 1, maxLength: 200, description: 'The `token` of the link in the mail.' });
const personName = Type.String({ minLength: 1, maxLength: 100, description: 'How the dashboard greets you (and names your account).' });
const passkeyName = (description: string) => Type.String({ minLength: 1, maxLength: 100, description });
/** A WebAuthn answer of the browser, checked by @simplewebauthn/server rather than here. */
const browserAnswer = <T>(description: string) => Type.Unsafe<T>({ type: 'object', description });

export const AUTH_BODY_SCHEMAS = {
  signup: ClosedObject({ email, password: password('The password you will sign in with:'), name: Type.Optional(personName) }),
  verify: ClosedObject({ token }),
  signin: ClosedObject({ email, password: anyPassword('Your password.') }),
  switchAccount: ClosedObject({ accountId: Type.String({ minLength: 1, maxLength: 100, description: 'An account you are a member of.' }) }),
  changePassword: ClosedObject({
    currentPassword: anyPassword('The password you signed in with.'),
    newPassword: password('The new password:'),
  }),
  requestReset: ClosedObject({ email }),
  confirmReset: ClosedObject({ token, password: password('The new password:') }),
  acceptInvitation: ClosedObject({
    token,
    password: Type.Optional(password('For a person new to the service: the password to sign in with.')),
    name: Type.Optional(personName),
  }),
  registerPasskey: ClosedObject({
    response: browserAnswer<RegistrationResponseJSON>(
      "The browser's answer to the registration options (`startRegistration` of `@simplewebauthn/browser`: a RegistrationResponseJSON).",
    ),
    name: Type.Optional(passkeyName('A name to tell it by ("Work laptop").')),
  }),
  renamePasskey: ClosedObject({ name: passkeyName('The new name.') }),
  passkeySignin: ClosedObject({
    response: browserAnswer<AuthenticationResponseJSON>(
      "The browser's answer to the sign-in options (`startAuthentication`: an AuthenticationResponseJSON).",
    ),
  }),
};
