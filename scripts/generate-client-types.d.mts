// Types of generate-client-types.mjs, for the test that compares its output with client/api-types.ts.
export const CLIENT_TYPES_FILE: string;
export function renderClientTypes(doc: unknown): Promise<string>;
export function buildDocument(): Promise<unknown>;
