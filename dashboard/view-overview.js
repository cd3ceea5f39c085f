//! The overview (`/dashboard`): the balance (with its low and zero states), the plan and its next
//! monthly allowance, the latest calls, every grant with what is left of it (paged with the API's
//! cursor), and a link to each of the dashboard's other views with what it is for.
import { credits, empty, errorBox, formatInt, h, loading, replace, stats, time, viewSection } from './dom.js';
import { createGrantsList } from './grants.js';
import { ledgerTable } from './ledger.js';

/** Calls shown here; the usage view has them all. */
const LATEST = 5;
const ROLLOVER = { none: 'the unused part lapses when the next one comes', keep: 'the unused part is kept' };

/** What the balance's level means for calls, when it means anything. */
function balanceNote(account) {
  if (account.balance === 0)
    return h('p', { class: 'balance-note warning' }, 'Out of credits: tool calls are refused with HTTP 402 until credits are added.');
  if (account.balance < account.lowBalanceThreshold) {
    return h('p', { class: 'balance-note warning' }, `Low balance: below ${formatInt(account.lowBalanceThreshold)} credits.`);
  }
  return null;
}

/** @param {import('./app.js').ViewContext} context */
export function createOverviewView({ client, showAccount, areas, kind }) {
  const summary = h('div', { id: 'overview-body' });
  const latestBody = h('div', { id: 'latest-body' });
  const { section: grantsSection, list: grants } = createGrantsList({
    client,
    id: 'grants',
    help: 'Every grant of credits, with what is left of it. What is left of a grant when it expires leaves the balance.',
    caption: 'Newest first. Calls spend the grant that expires first.',
  });
  const areaList = h('ul', { class: 'areas', 'aria-labelledby': 'areas-title' });
  // Owner tokens are for scripts: a person signed in with one is shown the way to a sign-in of their own.
  const tokenNote =
    kind() === 'token'
      ? h(
          'p',
          { class: 'notice', id: 'attach-note' },
          'You signed in with the owner token. ',
          h('a', { href: '/dashboard/attach' }, 'Attach yourself'),
          ' to the account to sign in with a password or a passkey instead.',
        )
      : null;
  const element = viewSection(
    'overview',
    'Overview',
    tokenNote,
    summary,
    h('section', { 'aria-labelledby': 'latest-title' }, h('h2', { id: 'latest-title' }, 'Latest calls'), latestBody),
    grantsSection,
    h('section', { 'aria-labelledby': 'areas-title' }, h('h2', { id: 'areas-title' }, 'Everything else'), areaList),
  );
  let account = null;

  /** The account and its latest calls, read together and shown together. */
  async function readSummary() {
    if (account === null) replace(summary, loading('balance and plan'));
    try {
      const [fresh, latest] = await Promise.all([client.account(), client.usage({ limit: LATEST })]);
      account = fresh;
      showAccount(account);
      renderSummary(new Date());
      renderLatest(latest.items.slice(0, LATEST));
    } catch (err) {
      if (err.name === 'AbortError') return;
      account = null;
      replace(summary, errorBox(err, { what: 'the balance and plan', retry: () => readSummary() }));
      latestBody.replaceChildren();
    }
  }

  function renderSummary(updatedAt) {
    const plan = account.plan;
    const next = account.nextAllowance;
    replace(
      summary,
      stats(
        ['Balance', 'balance', credits(account.balance)],
        ['Plan', 'plan-name', plan ? plan.name : 'None'],
        ['Monthly allowance', 'plan-allowance', credits(plan?.monthlyAllowance ?? 0)],
        ['Next allowance', 'next-allowance', next ? [credits(next.amount), h('span', { class: 'small' }, ' on '), time(next.at)] : 'None'],
      ),
      balanceNote(account),
      plan && plan.monthlyAllowance > 0
        ? h(
            'p',
            { class: 'muted small', id: 'plan-note' },
            `Granted each month on the day you joined the plan (the last day of shorter months); ${ROLLOVER[plan.rollover] ?? ''}.`,
          )
        : null,
      h('p', { class: 'muted small' }, 'Updated at ', time(updatedAt.toISOString()), '. Refreshed every minute while this tab is open.'),
    );
  }

  function renderLatest(rows) {
    if (rows.length === 0) {
      replace(latestBody, empty('No calls yet. ', h('a', { href: '/dashboard/keys' }, 'Create an API key'), ' and call a tool with it.'));
      return;
    }
    replace(
      latestBody,
      ledgerTable(rows, { class: 'latest-table', labelledBy: 'latest-title' }),
      h('p', {}, h('a', { href: '/dashboard/usage' }, 'All calls and the usage chart')),
    );
  }

  function renderAreas() {
    replace(
      areaList,
      areas()
        .filter((area) => area.description)
        .map((area) => h('li', {}, h('a', { href: area.path }, area.nav), h('span', { class: 'muted' }, ` ${area.description}`))),
    );
  }

  return {
    element,
    async load() {
      renderAreas();
      await Promise.all([readSummary(), grants.load()]);
    },
    close() {
      grants.close();
      account = null;
    },
  };
}
