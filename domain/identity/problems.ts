//! The refusals identity answers with, worded for the person who meets them.
import { ToolError } from '../../lib/errors.js';

export const invalidToken = (detail = 'This link is invalid, was used already or has expired. Ask for a new one.') => new ToolError('invalid_token', detail);

/** A bad field of the body, as validation names it (`/password`, with why). */
export const invalidField = (field: string, message: string) =>
  new ToolError('validation_failed', `The input is invalid: ${field} ${message}.`, { errors: [{ field, message }] });

export const invalidCredentials = () => new ToolError('invalid_credentials', 'The address or the password is not right.');

export const tooManyAttempts = (retryAfter: number) =>
  new ToolError('too_many_attempts', `Too many failed sign-ins; try again in ${retryAfter} s.`, { retryAfter }, { headers: { 'Retry-After': String(retryAfter) } });

export const unauthenticated = (detail = 'Sign in to continue.') => new ToolError('unauthenticated', detail);

export const reauthenticationRequired = () =>
  new ToolError('reauthentication_required', 'Sign in again to change your security settings: the last sign-in of this session is more than 10 minutes old.');
