//! The consent page an agent's authorization shows the signed-in person: which app asks, where its
//! answers go, the account it would act on (the person picks among theirs), the role it would act
//! with and what that role lets it do. Plain HTML and one form, no script; every value escaped.
import { escapeHtml } from '../../domain/mail/index.js';
import { GROUPS } from '../../domain/teams/index.js';
import type { Role } from '../../domain/membership/index.js';

export interface ConsentAccount {
  id: string;
  name: string | null;
  role: Role;
  /** Why it cannot be chosen (its sign-in policy), when it cannot. */
  unavailable?: string;
}

export interface ConsentView {
  action: string;
  clientName: string;
  clientId: string;
  redirectHost: string;
  /** A client whose metadata is a document at its client_id URL (its host vouches for it), rather than registered by anyone. */
  clientIdIsUrl: boolean;
  person: string;
  accounts: ConsentAccount[];
  stylesheet: string;
  error?: string;
}

/** What an app acting with `role` may do, in a sentence. */
export function roleAllows(role: Role): string {
  return (GROUPS.build as readonly Role[]).includes(role)
    ? "call every tool, each charged to this account's credits, and read its balance and usage"
    : `read this account's balance and usage only (a ${role} calls no tool)`;
}

function accountChoice(account: ConsentAccount, checked: boolean): string {
  const label = `${escapeHtml(account.name ?? account.id)} <span class="muted">(${escapeHtml(account.role)})</span>`;
  const detail = account.unavailable
    ? escapeHtml(account.unavailable)
    : `As ${escapeHtml(account.role)}, it may ${escapeHtml(roleAllows(account.role))}.`;
  return `<li><label><input type="radio" name="accountId" value="${escapeHtml(account.id)}"${checked ? ' checked' : ''}${account.unavailable ? ' disabled' : ''}> ${label}</label><br><span class="hint">${detail}</span></li>`;
}

export function consentPage(view: ConsentView): string {
  const choosable = view.accounts.filter((a) => !a.unavailable);
  const origin = view.clientIdIsUrl
    ? `Its description is published at ${escapeHtml(view.clientId)}.`
    : 'It registered itself with this service: its name is its own claim.';
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="referrer" content="no-referrer">
<title>Connect ${escapeHtml(view.clientName)} · Utility Tools</title>
<link rel="stylesheet" href="${escapeHtml(view.stylesheet)}">
</head>
<body>
<main id="main" class="consent">
<h1>Connect ${escapeHtml(view.clientName)}</h1>
<p><strong>${escapeHtml(view.clientName)}</strong> asks to use Utility Tools for you, signed in as ${escapeHtml(view.person)}. ${origin} If you allow it, its answers go to <strong>${escapeHtml(view.redirectHost)}</strong>.</p>
${view.error ? `<p class="error" role="alert">${escapeHtml(view.error)}</p>` : ''}
<form method="post" action="${escapeHtml(view.action)}">
<fieldset>
<legend>The account it would act on</legend>
<ul class="choices">
${view.accounts.map((a) => accountChoice(a, a === choosable[0])).join('\n')}
</ul>
</fieldset>
<p>You can disconnect it at any time in the dashboard, under Connected apps.</p>
<button type="submit" name="decision" value="allow"${choosable.length ? '' : ' disabled'}>Allow</button>
<button type="submit" name="decision" value="deny">Deny</button>
</form>
</main>
</body>
</html>
`;
}
