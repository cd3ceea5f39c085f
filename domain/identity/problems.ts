//! The refusals identity answers with, worded for the person who meets them.
import { ServiceError } from '../../contracts/errors.js';

export const invalidToken = (detail = 'This link is invalid, was used already or has expired. Ask for a new one.') =>
  new ServiceError('invalid_token', detail);

/** A bad field of the body, as validation names it (`/password`, with why). */
export { invalidField } from '../../contracts/errors.js';

export const invalidCredentials = () => new ServiceError('invalid_credentials', 'The address or the password is not right.');

export const tooManyAttempts = (retryAfter: number) =>
  new ServiceError(
    'too_many_attempts',
    `Too many failed sign-ins; try again in ${retryAfter} s.`,
    { retryAfter },
    { headers: { 'Retry-After': String(retryAfter) } },
  );

export const unauthenticated = (detail = 'Sign in to continue.') => new ServiceError('unauthenticated', detail);

export const reauthenticationRequired = () =>
  new ServiceError(
    'reauthentication_required',
    'Sign in again to change your security settings: the last sign-in of this session is more than 10 minutes old.',
  );
