//! JSON Schemas of the sign-up and sign-in request bodies (validation and OpenAPI). Passwords
//! are only bounded here against abuse; their rules (15 to 256 characters, not a common one)
//! are checked by domain/identity/password-policy.ts, which says why a password is refused.
import { MAX_EMAIL_LENGTH, MAX_PASSWORD_LENGTH, MIN_PASSWORD_LENGTH } from '../domain/identity/index.js';

const email = { type: 'string', minLength: 3, maxLength: MAX_EMAIL_LENGTH, description: 'The address; compared without regard to case.' };
const password = (description: string) => ({
  type: 'string',
  minLength: 1,
  maxLength: 4 * MAX_PASSWORD_LENGTH,
  description: `${description} ${MIN_PASSWORD_LENGTH} to ${MAX_PASSWORD_LENGTH} characters of any kind, not one on the list of common and breached passwords.`,
});
const token = { type: 'string', minLength: 1, maxLength: 200, description: 'The `token` of the link in the mail.' };
const personName = { type: 'string', minLength: 1, maxLength: 100, description: 'How the dashboard greets you (and names your account).' };

export const AUTH_BODY_SCHEMAS = {
  signup: {
    type: 'object',
    additionalProperties: false,
    required: ['email', 'password'],
    properties: { email, password: password('The password you will sign in with:'), name: personName },
  },
  verify: { type: 'object', additionalProperties: false, required: ['token'], properties: { token } },
  signin: {
    type: 'object',
    additionalProperties: false,
    required: ['email', 'password'],
    properties: { email, password: { type: 'string', minLength: 1, maxLength: 4 * MAX_PASSWORD_LENGTH, description: 'Your password.' } },
  },
  switchAccount: {
    type: 'object',
    additionalProperties: false,
    required: ['accountId'],
    properties: { accountId: { type: 'string', minLength: 1, maxLength: 100, description: 'An account you are a member of.' } },
  },
  changePassword: {
    type: 'object',
    additionalProperties: false,
    required: ['currentPassword', 'newPassword'],
    properties: {
      currentPassword: {
        type: 'string',
        minLength: 1,
        maxLength: 4 * MAX_PASSWORD_LENGTH,
        description: 'The password you signed in with.',
      },
      newPassword: password('The new password:'),
    },
  },
  requestReset: { type: 'object', additionalProperties: false, required: ['email'], properties: { email } },
  confirmReset: {
    type: 'object',
    additionalProperties: false,
    required: ['token', 'password'],
    properties: { token, password: password('The new password:') },
  },
  acceptInvitation: {
    type: 'object',
    additionalProperties: false,
    required: ['token'],
    properties: { token, password: password('For a person new to the service: the password to sign in with.'), name: personName },
  },
  registerPasskey: {
    type: 'object',
    additionalProperties: false,
    required: ['response'],
    properties: {
      response: {
        type: 'object',
        description:
          "The browser's answer to the registration options (`startRegistration` of `@simplewebauthn/browser`: a RegistrationResponseJSON).",
      },
      name: { type: 'string', minLength: 1, maxLength: 100, description: 'A name to tell it by ("Work laptop").' },
    },
  },
  renamePasskey: {
    type: 'object',
    additionalProperties: false,
    required: ['name'],
    properties: { name: { type: 'string', minLength: 1, maxLength: 100, description: 'The new name.' } },
  },
  passkeySignin: {
    type: 'object',
    additionalProperties: false,
    required: ['response'],
    properties: {
      response: {
        type: 'object',
        description: "The browser's answer to the sign-in options (`startAuthentication`: an AuthenticationResponseJSON).",
      },
    },
  },
} as const;
