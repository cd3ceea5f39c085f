//! The OpenAPI operations of the operator API: accounts, their credits and plans (`api/routes/admin.ts`), beside the router
//! rather than inside it so the handlers' file stays about handling.
import { ChangePlanBody, CreateAccountBody, GrantCreditsBody } from '../bodies/admin.js';
import { json } from '../docs/openapi-parts.js';
import { ADMIN, BODY_CODES, example, jsonBody, plain, resource, type RouteOperation } from '../docs/operations.js';
import { ref } from '../docs/schema-parts.js';

/** The operations this router serves, as the OpenAPI document lists them. */
export function adminOperations(): RouteOperation[] {
  const operation = resource('operator', ADMIN, 'AccountId');
  return [
    operation('post', '/api/v1/admin/accounts', {
      operationId: 'openAccount',
      summary: 'Open an account',
      description:
        'Opens an account with a welcome grant of `credits` (FREE_CREDITS when left out, never expiring), an owner token and a first API key, on `plan` (`free` when left out), ' +
        'whose first allowance is granted at once. The body may be left out.',
      requestBody: {
        required: false,
        content: json(CreateAccountBody, example({ name: 'Acme Ltd', email: 'ops@acme.example', credits: 500, plan: 'free' })),
      },
      ok: plain('The account and its credentials, shown only here.', json(ref('OpenedAccount')), '201'),
      codes: [...BODY_CODES],
    }),
    operation('get', '/api/v1/admin/accounts/{id}', {
      operationId: 'getAccountAsOperator',
      summary: 'Get an account',
      ok: plain('The account.', json(ref('AdminAccount'))),
    }),
    operation('post', '/api/v1/admin/accounts/{id}/credits', {
      operationId: 'grantCredits',
      summary: 'Grant credits',
      description:
        'Adds credits as a grant and fires `credits.granted`. With `expiresAt`, what is left of the grant then lapses (an `expired` entry in the usage). ' +
        'With `idempotencyKey` (your payment id), the same key again grants nothing and answers the first grant (`Idempotent-Replayed: true`); with another body it is `idempotency_conflict`.',
      requestBody: jsonBody(GrantCreditsBody, { amount: 500, reason: 'purchase', idempotencyKey: 'pi_3PqK2Lm9' }),
      ok: plain('The new balance and the grant.', json(ref('Balance'))),
      codes: [...BODY_CODES, 'idempotency_conflict'],
    }),
    operation('put', '/api/v1/admin/accounts/{id}/plan', {
      operationId: 'changeAccountPlan',
      summary: 'Move an account to another plan',
      description:
        "The new plan applies from the account's next period (its anniversary stays); what is due under the old plan is granted first. " +
        "With `prorate`, the rest of the current period's share of the difference (when the new allowance is larger) is granted now. Moving to the plan it is on changes nothing.",
      requestBody: jsonBody(ChangePlanBody, { plan: 'pro', prorate: true }),
      ok: plain('The account.', json(ref('AdminAccount'))),
      codes: [...BODY_CODES],
    }),
  ];
}
