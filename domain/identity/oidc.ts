//! Signing in through an OpenID Connect provider (OIDC_PROVIDERS), with openid-client: the
//! authorization code flow with PKCE (S256), a state and a nonce. What a sign-in under way needs
//! (the verifier, the nonce) stays server-side for 10 minutes, found by the state's digest and bound
//! to the browser that started it by a short-lived cookie, and is used once. The callback verifies
//! the state, exchanges the code, verifies the ID token (signature, issuer, audience, nonce) and
//! signs in the person whose address the provider says it verified; an unknown or unverified
//! address signs no one in and joins nothing.
import * as client from 'openid-client';
import type { OidcProvider } from '../../lib/config.js';
import { ServiceError } from '../../contracts/errors.js';
import { randomToken, sha256Hex } from '../../lib/ids.js';
import { collections } from '../../lib/mongo.js';
import type { SessionDoc } from './documents.js';
import type { IdentityContext, RequestFacts } from './context.js';
import { normalizeEmail } from './email-address.js';
import type { Signin } from './signin.js';

/** How long a sign-in may take at the provider. */
export const OIDC_STATE_MS = 10 * 60_000;
/** What the service asks of the provider: who the person is, their address and their name. */
const SCOPE = 'openid email profile';

export type OidcFailure = 'state' | 'nonce' | 'provider' | 'token';

const failed = (reason: OidcFailure, detail: string) => new ServiceError('oidc_failed', detail, { reason });

/** The claim a failed check of openid-client (oauth4webapi) compared, if it says: `nonce`, `iss`, `aud`... */
function claimOf(err: unknown): string | undefined {
  for (let e = err as { cause?: unknown; claim?: unknown } | undefined, depth = 0; e && depth < 5; e = e.cause as typeof e, depth++) {
    if (typeof e.claim === 'string') return e.claim;
  }
  return undefined;
}

export function createOidc(ctx: IdentityContext, signin: Signin, providers: readonly OidcProvider[]) {
  const { oidcStates } = collections(ctx.db);
  const configs = new Map<string, Promise<client.Configuration>>();

  const providerOf = (id: string) => {
    const p = providers.find((candidate) => candidate.id === id);
    if (!p) throw new ServiceError('not_found', `There is no identity provider ${id} on this service.`);
    return p;
  };

  /** Where the provider sends the person back: registered with it as the redirect URI. */
  const redirectUri = (p: OidcProvider) => `${ctx.settings.baseUrl}/api/v1/auth/oidc/${p.id}/callback`;

  /** The provider's configuration, discovered once per process; a failed discovery is tried again on the next sign-in. */
  function configOf(p: OidcProvider): Promise<client.Configuration> {
    let found = configs.get(p.id);
    if (!found) {
      const insecure = new URL(p.issuer).protocol === 'http:'; // config allows it only for a loopback issuer
      found = client.discovery(
        new URL(p.issuer),
        p.clientId,
        undefined,
        client.ClientSecretBasic(p.clientSecret),
        insecure ? { execute: [client.allowInsecureRequests] } : undefined,
      );
      configs.set(p.id, found);
      found.catch(() => configs.delete(p.id));
    }
    return found.catch((err: Error) => {
      throw new ServiceError(
        'unavailable',
        `The identity provider ${p.name} could not be reached; try again in a moment.`,
        {},
        { cause: err, headers: { 'Retry-After': '5' } },
      );
    });
  }

  return {
    providers,
    redirectUri: (id: string) => redirectUri(providerOf(id)),

    /** Starts a sign-in: the provider's authorization URL, and the value for the browser's cookie that binds it. */
    async start(providerId: string): Promise<{ url: string; binding: string }> {
      const p = providerOf(providerId);
      const config = await configOf(p);
      const state = client.randomState();
      const nonce = client.randomNonce();
      const codeVerifier = client.randomPKCECodeVerifier();
      const binding = randomToken(32);
      const now = new Date();
      await oidcStates.deleteMany({ expiresAt: { $lt: now } }); // sign-ins never finished
      await oidcStates.insertOne({
        _id: sha256Hex(state),
        provider: p.id,
        nonce,
        codeVerifier,
        binding: sha256Hex(binding),
        createdAt: now,
        expiresAt: new Date(now.getTime() + OIDC_STATE_MS),
      });
      const url = client.buildAuthorizationUrl(config, {
        redirect_uri: redirectUri(p),
        scope: SCOPE,
        state,
        nonce,
        code_challenge: await client.calculatePKCECodeChallenge(codeVerifier),
        code_challenge_method: 'S256',
      });
      return { url: url.href, binding };
    },

    /**
     * Finishes a sign-in from the provider's redirect (`query`: the callback's query string) in the
     * browser holding `binding`, and signs the person in (replacing the browser's session, if any).
     */
    async callback(providerId: string, query: string, binding: string | undefined, facts: RequestFacts, replacing: SessionDoc | null) {
      const p = providerOf(providerId);
      const currentUrl = new URL(`${redirectUri(p)}?${query}`);
      const state = currentUrl.searchParams.get('state');
      // Taken only by the browser that started it: another's callback neither uses nor spends it.
      const pending =
        state && state.length <= 200 && binding
          ? await oidcStates.findOneAndDelete({
              _id: sha256Hex(state),
              provider: p.id,
              binding: sha256Hex(binding),
              expiresAt: { $gt: new Date() },
            })
          : null;
      if (!pending) {
        throw failed(
          'state',
          'The sign-in came back with a state this browser did not start, or it took more than 10 minutes: start it again.',
        );
      }
      const error = currentUrl.searchParams.get('error');
      if (error)
        throw failed('provider', `${p.name} did not sign you in (${error.slice(0, 100)}): start again, or ask its administrators.`);
      const config = await configOf(p);
      let tokens: Awaited<ReturnType<typeof client.authorizationCodeGrant>>;
      try {
        tokens = await client.authorizationCodeGrant(config, currentUrl, {
          pkceCodeVerifier: pending.codeVerifier,
          expectedState: state!,
          expectedNonce: pending.nonce,
          idTokenExpected: true,
        });
      } catch (err) {
        if (claimOf(err) === 'nonce')
          throw failed('nonce', "The ID token answers another sign-in (its nonce is not this one's): start again.");
        throw new ServiceError('oidc_failed', `${p.name}'s answer did not verify: start again.`, { reason: 'token' }, { cause: err });
      }
      const idClaims = tokens.claims()!;
      let { email, email_verified: verified } = idClaims as { email?: unknown; email_verified?: unknown };
      if (email === undefined) {
        // Providers that keep the ID token small give the address at the UserInfo endpoint only.
        const info = await client.fetchUserInfo(config, tokens.access_token, idClaims.sub).catch((err: Error) => {
          throw new ServiceError('oidc_failed', `${p.name} did not tell who you are: start again.`, { reason: 'token' }, { cause: err });
        });
        ({ email, email_verified: verified } = info as { email?: unknown; email_verified?: unknown });
      }
      const address = typeof email === 'string' ? normalizeEmail(email) : null;
      if (!address) throw new ServiceError('address_not_verified', `${p.name} gave no address for you: nothing was signed in.`);
      if (verified !== true)
        throw new ServiceError('address_not_verified', `${p.name} has not verified the address ${address}: nothing was signed in.`);
      const user = await ctx.users.byEmail(address);
      if (!user)
        throw new ServiceError(
          'forbidden',
          `No one on this service has the address ${address}: ask an account owner for an invitation, then sign in.`,
        );
      return signin.startSession(
        user,
        { method: 'oidc', provider: p.id },
        facts,
        replacing,
        replacing?.userId === user._id ? replacing.accountId : undefined,
      );
    },
  };
}

export type Oidc = ReturnType<typeof createOidc>;
