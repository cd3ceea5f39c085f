//! The Team page's "Company sign-in" section, the owner's alone: require the members to sign in
//! through one of the service's identity providers, or lift the requirement. The service checks
//! that the session setting it was itself signed in through that provider, and ends the members'
//! sessions on the account that were not; this section says so before and after.
import { announce, errorBox, h, loading, replace } from './dom.js';
import { formProblems, postForm, selectField } from './forms.js';

/** The select's value for "no provider required". */
const ANY = '';

/** @param {{ client: import('./api.js').Client }} deps */
export function createSignInPolicySection({ client }) {
  const body = h('div', { id: 'sign-in-policy-body' });
  const status = h('p', { class: 'status-line', id: 'sign-in-policy-status', role: 'status' });
  const required = selectField({
    id: 'required-provider',
    label: 'Members sign in',
    name: 'requiredProvider',
    help: 'Requiring a provider ends, at once, the members’ sessions here that were not signed in through it; password and passkey sign-ins are then refused for this account. Owner tokens keep working. You must yourself be signed in through the provider to require it.',
    options: [],
  });
  const problems = formProblems({ fields: { '/requiredProvider': required } });
  const submit = h('button', { type: 'submit', class: 'primary' }, 'Save the sign-in policy');
  const form = postForm({ id: 'sign-in-policy-form', class: 'panel-form', send: save }, problems.summary, required.element, submit, status);
  const section = h(
    'section',
    { id: 'sign-in-policy', 'aria-labelledby': 'sign-in-policy-title', hidden: true },
    h('h2', { id: 'sign-in-policy-title', tabindex: '-1' }, 'Company sign-in'),
    body,
  );

  /** @type {{ requiredProvider: string | null, providers: { id: string, name: string }[] } | null} */
  let policy = null;

  function render() {
    if (!policy) return;
    if (policy.providers.length === 0) {
      replace(
        body,
        h('p', { class: 'muted' }, 'No identity provider is configured for this service: members sign in with a password or a passkey.'),
      );
      return;
    }
    const options = [
      { value: ANY, label: 'Any way: password, passkey or a provider' },
      ...policy.providers.map((p) => ({ value: p.id, label: `Only through ${p.name}` })),
    ];
    replace(
      required.input,
      options.map((o) => h('option', { value: o.value, selected: o.value === (policy.requiredProvider ?? ANY) }, o.label)),
    );
    replace(body, form);
  }

  async function save() {
    problems.clear();
    status.textContent = '';
    try {
      const next = await client.setSignInPolicy(required.input.value || null);
      policy = next;
      render();
      const provider = next.providers.find((p) => p.id === next.requiredProvider);
      const ended = next.sessionsEnded
        ? ` ${next.sessionsEnded} ${next.sessionsEnded === 1 ? 'session' : 'sessions'} not signed in through it ended.`
        : '';
      const said = provider ? `Members now sign in through ${provider.name}.${ended}` : 'Members sign in any way again.';
      status.textContent = said;
      announce(said);
    } catch (err) {
      if (err?.name === 'AbortError') return;
      problems.show(err, { focus: required.input });
    }
  }

  /** Shows the section to the owner (`isOwner`) and reads the policy; hides it from everyone else. */
  async function load(isOwner) {
    section.hidden = !isOwner;
    if (!isOwner) return;
    if (!policy) replace(body, loading('the sign-in policy'));
    try {
      policy = await client.signInPolicy();
      render();
    } catch (err) {
      if (err?.name === 'AbortError') return;
      policy = null;
      replace(body, errorBox(err, { what: 'the sign-in policy', retry: () => load(isOwner) }));
    }
  }

  return {
    section,
    load,
    close() {
      policy = null;
      status.textContent = '';
      problems.clear();
    },
  };
}
