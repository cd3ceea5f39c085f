//! Pieces several routes' request bodies share.
import { Type } from '@sinclair/typebox';
import { ClosedObject } from '../../lib/schema-types.js';

/** An account's or a key's name. */
export const label = Type.String({ minLength: 1, maxLength: 100, description: 'A label for your own reference.' });

/** The body of a POST that takes none: an empty object, or nothing at all. */
export const NoBody = ClosedObject({});
