//! The error code (contracts/errors.ts) as a schema: the OpenAPI document's `ErrorCode` component,
//! and what an answer that carries a code (a monitor's run) declares it with.
import { ERRORS, type ErrorCode as Code } from '../contracts/errors.js';
import { StringEnum } from './schema-types.js';

export const ErrorCode = StringEnum(Object.keys(ERRORS) as Code[], {
  description: 'Stable machine-readable error code; /docs/errors explains each.',
});
