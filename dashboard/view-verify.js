//! The link of the sign-up mail (`/dashboard/verify?token=...`): confirms the address, which opens
//! the account with its welcome credits and signs the person in; the app then starts for them on
//! the overview, and the token leaves the address bar. A link that is bad, used or expired says so
//! and offers to sign up again (or to sign in, for one that was used).
import { anonymousClient } from './api.js';
import { errorBox, focusOn, h, replace, viewSection } from './dom.js';
import { APP_ROOT } from './router.js';

/** @param {import('./app.js').ViewContext} context */
export function createVerifyView({ signedInAsPerson }) {
  const body = h('div', { id: 'verify-body' });
  const element = viewSection('verify', 'Confirm your address', body);
  element.classList.add('sign-in');

  const again = () =>
    h(
      'p',
      {},
      h('a', { href: '/dashboard/sign-up', id: 'verify-sign-up' }, 'Sign up again'),
      ' to get a new link, or ',
      h('a', { href: '/dashboard/sign-in' }, 'sign in'),
      ' if you confirmed the address already.',
    );

  async function confirm(token) {
    replace(body, h('p', { class: 'loading', role: 'status' }, 'Confirming your address…'));
    try {
      const answer = await anonymousClient().verify(token);
      signedInAsPerson(answer, {
        to: APP_ROOT,
        message: `Your address is confirmed and your account is open. Signed in as ${answer.user.email}.`,
      });
    } catch (err) {
      if (err?.code === 'invalid_token' || err?.code === 'validation_failed') {
        replace(
          body,
          h(
            'div',
            { class: 'error-box', role: 'alert', id: 'verify-problem' },
            h('p', {}, h('strong', {}, 'This link does not work. '), 'It is mistyped, was used already, or is more than 24 hours old.'),
          ),
          again(),
        );
      } else {
        replace(body, errorBox(err, { what: 'the confirmation', retry: () => confirm(token) }));
      }
      focusOn(element.querySelector('h1'));
    }
  }

  return {
    element,
    load(route) {
      const token = route.query.get('token');
      if (!token) {
        replace(
          body,
          h('p', { id: 'verify-problem' }, 'This page confirms an address with the link of the sign-up mail; open the link from the mail.'),
          again(),
        );
        return undefined;
      }
      return confirm(token);
    },
  };
}
