//! An API key's settings (tools, expiresAt, rateLimit, monthlyCreditLimit, allowedIps): the rules
//! a change must keep, how a change is written, and what a key may do. The checks run in the API
//! on the cached credential document, so a key without settings costs nothing more per call.
import { type Static, Type } from '@sinclair/typebox';
import { CATALOGUE, GROUPS, type Group } from '../tools/index.js';
import { parseCidr } from '../../lib/ip-allowlist.js';
import { Nullable, NullableTimestamp } from '../../lib/schema-types.js';
import type { CredentialDoc } from '../account-documents.js';

export { spendMonth } from '../ledger/index.js';

export const KEY_SETTINGS = ['tools', 'expiresAt', 'rateLimit', 'monthlyCreditLimit', 'allowedIps'] as const;
export type KeySettingName = (typeof KEY_SETTINGS)[number];

/** What a request may set; null clears a setting. */
export interface KeySettingsInput {
  name?: string | null;
  tools?: string[] | null;
  expiresAt?: string | null;
  rateLimit?: number | null;
  monthlyCreditLimit?: number | null;
  allowedIps?: string[] | null;
}

/** The names a key's `tools` may hold: every tool, and every group of tools. */
export const TOOL_SCOPES: readonly string[] = [...CATALOGUE.keys(), ...Object.keys(GROUPS)];

/** Most CIDRs one key may carry. */
export const MAX_ALLOWED_IPS = 100;

export interface SettingProblem {
  field: string;
  message: string;
}

/**
 * What the schema cannot say: an expiry in the past, a malformed CIDR, a rate above the
 * account's. Each problem names its field as a JSON Pointer into the body.
 */
export function settingProblems(input: KeySettingsInput, context: { now: number; accountRate: number }): SettingProblem[] {
  const problems: SettingProblem[] = [];
  if (typeof input.expiresAt === 'string' && !(Date.parse(input.expiresAt) > context.now)) {
    problems.push({ field: '/expiresAt', message: 'must be in the future' });
  }
  if (typeof input.rateLimit === 'number' && input.rateLimit > context.accountRate) {
    problems.push({ field: '/rateLimit', message: `must be at most the account's rate, ${context.accountRate} calls per second` });
  }
  input.allowedIps?.forEach((text, i) => {
    const cidr = parseCidr(text);
    if ('error' in cidr) problems.push({ field: `/allowedIps/${i}`, message: cidr.error });
  });
  return problems;
}

/** The update that applies `input` to a credential document: set what is given, unset what is null. */
export function settingsUpdate(input: KeySettingsInput): { $set: Partial<CredentialDoc>; $unset: Record<string, ''> } {
  const $set: Partial<CredentialDoc> = {};
  const $unset: Record<string, ''> = {};
  if (input.name !== undefined) $set.name = input.name;
  for (const field of KEY_SETTINGS) {
    const value = input[field];
    if (value === undefined) continue;
    if (value === null) $unset[field] = '';
    else if (field === 'expiresAt') $set.expiresAt = new Date(value as string);
    else if (field === 'tools' || field === 'allowedIps') $set[field] = [...new Set(value as string[])];
    else $set[field] = value as number;
  }
  return { $set, $unset };
}

/** The settings as the API shows them, null where not set: their type, and their fields in the key answers' schemas. */
export const KeySettingsView = Type.Object({
  tools: Nullable(Type.Array(Type.String(), { description: 'Tool and group names the key may call; null: every tool.' })),
  expiresAt: NullableTimestamp('When the key stops working; null: never.'),
  rateLimit: Nullable(Type.Integer({ description: "The key's own calls per second; null: only the account's rate." })),
  monthlyCreditLimit: Nullable(Type.Integer({ description: 'Credits the key may spend per calendar month (UTC); null: no limit.' })),
  allowedIps: Nullable(Type.Array(Type.String(), { description: 'CIDRs the key may be used from; null: anywhere.' })),
});
export type KeySettingsView = Static<typeof KeySettingsView>;

export function keySettingsView(doc: CredentialDoc): KeySettingsView {
  return {
    tools: doc.tools ?? null,
    expiresAt: doc.expiresAt ?? null,
    rateLimit: doc.rateLimit ?? null,
    monthlyCreditLimit: doc.monthlyCreditLimit ?? null,
    allowedIps: doc.allowedIps ?? null,
  };
}

/** Whether a key with `tools` (absent: every tool) may call `tool` of `group`. */
export function keyMayCall(tools: readonly string[] | undefined, tool: { name: string; group: Group }): boolean {
  return !tools || tools.includes(tool.name) || tools.includes(tool.group);
}

/** Whether the key is past its expiry at `now`. */
export const keyExpired = (doc: Pick<CredentialDoc, 'expiresAt'>, now: number): boolean =>
  doc.expiresAt !== undefined && doc.expiresAt.getTime() <= now;
