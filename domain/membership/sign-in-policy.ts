//! An account's sign-in policy: it may require its members to sign in through one identity
//! provider (OIDC_PROVIDERS). The policy governs the sessions that act on that account, not the
//! person: a password sign-in still reaches the person's other accounts, and only a session signed
//! in through the provider may act on (or switch to) the account that requires it. So one
//! account's owner cannot lock a person out of accounts that are not theirs. Setting the policy ends
//! the members' sessions on the account that were not signed in through the provider, at once.
import type { Db } from 'mongodb';
import { ServiceError } from '../../contracts/errors.js';
import { collections } from '../../lib/mongo.js';
import type { SignInPolicy } from '../account-documents.js';
import type { SignInMethod } from './documents.js';
import { accountDraft, createAuditLog, type AuditContext } from '../audit/index.js';

/** An identity provider as people see it: its id (in its sign-in URL) and display name. */
export interface ProviderName {
  id: string;
  name: string;
}

/** How a session was signed in, as the policy judges it. */
export interface SignInWay {
  method: SignInMethod;
  provider?: string | null;
}

/** Whether a session signed in this way may act on an account with this policy. */
export const policyAllows = (policy: SignInPolicy | null | undefined, way: SignInWay) =>
  !policy || (way.method === 'oidc' && way.provider === policy.requiredProvider);

/** Where a person starts a sign-in through a provider. */
export const providerSignInPath = (providerId: string) => `/api/v1/auth/oidc/${encodeURIComponent(providerId)}/start`;

/** 403 `provider_required`: this account is acted on only after a sign-in through `providerId`. */
export function providerRequired(providers: readonly ProviderName[], providerId: string, detail?: string) {
  const provider = providers.find((p) => p.id === providerId) ?? { id: providerId, name: providerId };
  return new ServiceError(
    'provider_required',
    detail ??
      `This account requires its members to sign in through ${provider.name}: sign in with "${provider.name}" instead of a password or a passkey.`,
    { provider: { id: provider.id, name: provider.name, signInPath: providerSignInPath(provider.id) } },
  );
}

/** What the policy needs of the sessions (domain/identity/sessions.ts): ending those on an account not signed in through a provider. */
export interface SessionsOnAccount {
  endOnAccountUnlessProvider(accountId: string, provider: string, reason: string, audit: AuditContext): Promise<number>;
}

export function createSignInPolicies(deps: { db: Db; sessions: SessionsOnAccount; providers: readonly ProviderName[] }) {
  const { accounts } = collections(deps.db);
  const auditLog = createAuditLog(deps.db);

  return {
    async get(accountId: string): Promise<SignInPolicy | null> {
      return (await accounts.findOne({ _id: accountId }, { projection: { signInPolicy: 1 } }))?.signInPolicy ?? null;
    },

    /**
     * Requires `requiredProvider` (or nothing, with null) of the account's sessions. A session
     * setting it must itself be signed in through that provider, so its owner keeps their access;
     * every other session on the account that was not ends at once. Answers how many ended.
     */
    async set(
      accountId: string,
      requiredProvider: string | null,
      acting: SignInWay | undefined,
      audit: AuditContext,
    ): Promise<{ policy: SignInPolicy | null; sessionsEnded: number }> {
      if (requiredProvider !== null && !deps.providers.some((p) => p.id === requiredProvider)) {
        const known = deps.providers.map((p) => p.id).join(', ') || 'none is configured';
        throw new ServiceError(
          'validation_failed',
          `The input is invalid: /requiredProvider is not a provider of this service (${known}).`,
          { errors: [{ field: '/requiredProvider', message: 'is not a configured provider' }] },
        );
      }
      const policy: SignInPolicy | null = requiredProvider ? { requiredProvider } : null;
      if (acting && !policyAllows(policy, acting)) {
        throw providerRequired(
          deps.providers,
          requiredProvider!,
          `Sign in through ${deps.providers.find((p) => p.id === requiredProvider)!.name} first: this session would lose the account the moment the policy holds.`,
        );
      }
      const before = await this.get(accountId);
      if ((before?.requiredProvider ?? null) === requiredProvider) return { policy, sessionsEnded: 0 };
      const from = before?.requiredProvider ?? null;
      const draft = accountDraft(audit, accountId, 'account.sign_in_policy_changed', { requiredProvider: [from, requiredProvider] });
      await accounts.updateOne(
        { _id: accountId },
        { ...(policy ? { $set: { signInPolicy: policy } } : { $unset: { signInPolicy: '' } }), $push: { auditDrafts: draft } },
      );
      await auditLog.flush('account', accountId);
      const sessionsEnded = policy
        ? await deps.sessions.endOnAccountUnlessProvider(accountId, policy.requiredProvider, 'sign_in_policy', audit)
        : 0;
      return { policy, sessionsEnded };
    },
  };
}

export type SignInPolicies = ReturnType<typeof createSignInPolicies>;
