//! The OpenAPI operations of sign-in through an identity provider (`api/routes/oidc.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { json } from '../docs/openapi-parts.js';
import { open, operation, plain, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function oidcOperations(): RouteOperation[] {
  const provider = {
    name: 'provider',
    in: 'path',
    required: true,
    schema: { type: 'string' },
    description: "The provider's id (OIDC_PROVIDERS).",
  };
  const redirect = (description: string) => ({
    '303': {
      description,
      headers: {
        Location: { description: 'Where the browser goes next.', schema: { type: 'string', format: 'uri-reference' } },
        'Set-Cookie': { description: 'The cookie this step sets.', schema: { type: 'string' } },
      },
    },
  });
  const limited = ['rate_limited', 'unavailable', 'internal_error'] as const;
  return [
    operation('get', '/api/v1/auth/oidc', {
      tag: 'auth',
      operationId: 'listIdentityProviders',
      summary: 'List the identity providers',
      ...open(),
      description: 'The OpenID Connect providers people may sign in through: a sign-in page shows a button for each.',
      ok: plain('The providers (an empty list when none is configured).', json(ref('IdentityProviders'))),
      codes: ['unavailable', 'internal_error'],
    }),
    operation('get', '/api/v1/auth/oidc/{provider}/start', {
      tag: 'auth',
      operationId: 'startOidcSignIn',
      summary: 'Sign in through an identity provider',
      ...open(),
      description:
        'Open it in the browser (not with fetch): it redirects to the provider (the authorization code flow with PKCE, a state and a nonce) and sets a cookie for the 10 minutes the sign-in may take. ' +
        '503 `unavailable` when the provider cannot be reached.',
      parameters: [provider],
      ok: redirect("To the provider's sign-in."),
      codes: ['not_found', ...limited],
    }),
    operation('get', '/api/v1/auth/oidc/{provider}/callback', {
      tag: 'auth',
      operationId: 'finishOidcSignIn',
      summary: 'Come back from an identity provider',
      ...open(),
      description:
        "Where the provider sends the browser back (register `PUBLIC_BASE_URL/api/v1/auth/oidc/<id>/callback` with it). Verifies the state (it must be this browser's, within 10 minutes, once), " +
        'exchanges the code, verifies the ID token and its nonce, and signs in the person whose address the provider verified: session cookie set, then on to the dashboard. ' +
        '400 `oidc_failed` for a wrong state or nonce or a token that does not verify; 403 `address_not_verified` when the provider has not verified the address; ' +
        '403 `forbidden` when no one here has it (nothing is joined); 403 `provider_required` when every account of the person requires another provider. ' +
        "A browser's navigation (`Accept` with `text/html` before JSON) is sent instead to `/dashboard/sign-in?problem=<code>` (303), where the sign-in page says what went wrong; so is a failed start.",
      parameters: [
        provider,
        { name: 'code', in: 'query', schema: { type: 'string' }, description: 'From the provider.' },
        { name: 'state', in: 'query', schema: { type: 'string' }, description: 'From the provider.' },
      ],
      ok: redirect('Signed in: on to the dashboard.'),
      codes: ['oidc_failed', 'address_not_verified', 'forbidden', 'provider_required', 'not_found', ...limited],
    }),
  ];
}
