//! Passkeys (WebAuthn, through SimpleWebAuthn): a signed-in person registers, names and removes
//! them, and signs in with one without typing an address (a discoverable credential finds its
//! person by its id). Every ceremony's challenge is kept server-side, single use, for 5 minutes;
//! the relying party id and origin come from PUBLIC_BASE_URL.
import {
  generateAuthenticationOptions,
  generateRegistrationOptions,
  verifyAuthenticationResponse,
  verifyRegistrationResponse,
  type AuthenticationResponseJSON,
  type RegistrationResponseJSON,
  type AuthenticatorTransport,
} from '@simplewebauthn/server';
import { ServiceError } from '../../contracts/errors.js';
import { collections } from '../../lib/mongo.js';
import type { PasskeyDoc, SessionDoc } from './documents.js';
import { userActing, type IdentityContext, type RequestFacts } from './context.js';
import { requireRecentSignIn } from './passwords.js';
import type { Signin } from './signin.js';
import { unauthenticated } from './problems.js';

const CHALLENGE_MS = 5 * 60_000;
/** Passkeys one person may hold. */
export const MAX_PASSKEYS = 20;
const SERVICE_NAME = 'Utility Tools';

export const passkeyView = (p: PasskeyDoc) => ({
  id: p._id,
  name: p.name,
  createdAt: p.createdAt,
  lastUsedAt: p.lastUsedAt,
  deviceType: p.deviceType,
  backedUp: p.backedUp,
  transports: p.transports,
});

/** The challenge a response answers, from its clientDataJSON (verified against the stored one afterwards). */
function challengeOf(response: { response?: { clientDataJSON?: unknown } }): string | null {
  try {
    const clientData = JSON.parse(Buffer.from(String(response.response?.clientDataJSON ?? ''), 'base64url').toString('utf8')) as {
      challenge?: unknown;
    };
    return typeof clientData.challenge === 'string' ? clientData.challenge : null;
  } catch {
    return null;
  }
}

const refused = (detail: string) =>
  new ServiceError('validation_failed', `The passkey was refused: ${detail}.`, { errors: [{ field: '/response', message: detail }] });

export function createPasskeys(ctx: IdentityContext, signin: Signin) {
  const { passkeys, webauthnChallenges } = collections(ctx.db);
  const base = new URL(ctx.settings.baseUrl);
  const rpID = base.hostname;
  const origin = base.origin;

  async function keep(challenge: string, purpose: 'registration' | 'authentication', userId: string | null) {
    await webauthnChallenges.insertOne({ _id: challenge, purpose, userId, expiresAt: new Date(Date.now() + CHALLENGE_MS) });
  }

  /** Takes the stored challenge this response answers: once, while it is fresh, for its purpose (and person). */
  async function take(
    response: { response?: { clientDataJSON?: unknown } },
    purpose: 'registration' | 'authentication',
    userId: string | null,
  ) {
    const challenge = challengeOf(response);
    if (!challenge) throw refused('it answers no challenge');
    const doc = await webauthnChallenges.findOneAndDelete({
      _id: challenge,
      purpose,
      expiresAt: { $gt: new Date() },
      ...(userId ? { userId } : {}),
    });
    if (!doc) throw refused('its challenge is unknown, used or expired; start again');
    return challenge;
  }

  return {
    list: (userId: string) => passkeys.find({ userId }).sort({ createdAt: 1 }).toArray(),

    async registrationOptions(session: SessionDoc) {
      requireRecentSignIn(session);
      const user = await ctx.users.get(session.userId);
      if (!user) throw unauthenticated();
      const existing = await passkeys.find({ userId: user._id }).toArray();
      const options = await generateRegistrationOptions({
        rpName: SERVICE_NAME,
        rpID,
        userName: user.email,
        userDisplayName: user.name ?? user.email,
        userID: new TextEncoder().encode(user._id),
        attestationType: 'none',
        excludeCredentials: existing.map((p) => ({ id: p._id, transports: p.transports as AuthenticatorTransport[] })),
        authenticatorSelection: { residentKey: 'required', userVerification: 'preferred' },
      });
      await keep(options.challenge, 'registration', user._id);
      return options;
    },

    async register(session: SessionDoc, input: { response: RegistrationResponseJSON; name?: string }, facts: RequestFacts) {
      requireRecentSignIn(session);
      if ((await passkeys.countDocuments({ userId: session.userId })) >= MAX_PASSKEYS)
        throw new ServiceError('validation_failed', `You hold ${MAX_PASSKEYS} passkeys: remove one first.`, {
          errors: [{ field: '/response', message: 'too many passkeys' }],
        });
      const expectedChallenge = await take(input.response, 'registration', session.userId);
      const verification = await verifyRegistrationResponse({
        response: input.response,
        expectedChallenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: false,
      }).catch((err: Error) => {
        throw refused(err.message);
      });
      if (!verification.verified || !verification.registrationInfo) throw refused("the authenticator's answer did not verify");
      const { credential, credentialDeviceType, credentialBackedUp } = verification.registrationInfo;
      const count = await passkeys.countDocuments({ userId: session.userId });
      const doc: PasskeyDoc = {
        _id: credential.id,
        userId: session.userId,
        name: input.name?.trim() || `Passkey ${count + 1}`,
        publicKey: Buffer.from(credential.publicKey).toString('base64url'),
        counter: credential.counter,
        transports: credential.transports ?? [],
        deviceType: credentialDeviceType,
        backedUp: credentialBackedUp,
        createdAt: new Date(),
        lastUsedAt: null,
      };
      try {
        await passkeys.insertOne(doc);
      } catch {
        throw new ServiceError('already_exists', 'This passkey is registered already.');
      }
      await ctx.users.record(session.userId, 'user.passkey_added', { name: [null, doc.name] }, userActing(session.userId, facts), {
        type: 'passkey',
        id: doc._id,
      });
      return doc;
    },

    async rename(userId: string, id: string, name: string) {
      const doc = await passkeys.findOneAndUpdate({ _id: id, userId }, { $set: { name: name.trim() } }, { returnDocument: 'after' });
      if (!doc) throw new ServiceError('not_found', `You have no passkey ${id}.`);
      return doc;
    },

    async remove(session: SessionDoc, id: string, facts: RequestFacts) {
      requireRecentSignIn(session);
      const doc = await passkeys.findOneAndDelete({ _id: id, userId: session.userId });
      if (!doc) throw new ServiceError('not_found', `You have no passkey ${id}.`);
      await ctx.users.record(session.userId, 'user.passkey_removed', { name: [doc.name, null] }, userActing(session.userId, facts), {
        type: 'passkey',
        id,
      });
    },

    /** Options for a sign-in with any passkey of this site: the authenticator offers its own. */
    async authenticationOptions() {
      const options = await generateAuthenticationOptions({ rpID, allowCredentials: [], userVerification: 'preferred' });
      await keep(options.challenge, 'authentication', null);
      return options;
    },

    async signin(response: AuthenticationResponseJSON, facts: RequestFacts, replacing: SessionDoc | null) {
      const expectedChallenge = await take(response, 'authentication', null);
      const passkey = typeof response.id === 'string' ? await passkeys.findOne({ _id: response.id }) : null;
      if (!passkey) throw new ServiceError('invalid_credentials', 'This passkey is not registered here (it may have been removed).');
      const verification = await verifyAuthenticationResponse({
        response,
        expectedChallenge,
        expectedOrigin: origin,
        expectedRPID: rpID,
        requireUserVerification: false,
        credential: {
          id: passkey._id,
          publicKey: Buffer.from(passkey.publicKey, 'base64url'),
          counter: passkey.counter,
          transports: passkey.transports as AuthenticatorTransport[],
        },
      }).catch(() => ({ verified: false as const, authenticationInfo: undefined }));
      if (!verification.verified) throw new ServiceError('invalid_credentials', 'The passkey did not prove itself.');
      await passkeys.updateOne(
        { _id: passkey._id },
        { $set: { counter: verification.authenticationInfo!.newCounter, lastUsedAt: new Date() } },
      );
      const user = await ctx.users.get(passkey.userId);
      if (!user) throw new ServiceError('invalid_credentials', 'This passkey belongs to no one any more.');
      return signin.startSession(user, 'passkey', facts, replacing, replacing?.accountId);
    },
  };
}

export type Passkeys = ReturnType<typeof createPasskeys>;
