//! When a capture's page load is made again: for Chromium's ERR_NETWORK_CHANGED only (the host's
//! network changed under the load), once, and not past the call's deadline. A test cannot change
//! the host's network, and no Chromium interface (request interception, the DevTools protocol's
//! error reasons) reports that error on demand, so the decision and the retry around a load are
//! tested here with errors worded as puppeteer words Chromium's; a real load failing with another
//! network error, never made again, is in test/tools/website-screenshot-network.test.ts, and the guard
//! checking each host again in filtering-proxy.test.ts.
import test from 'ava';
import { netErrorCode, onceMoreIfNetworkChanged, retriesNavigation, TRANSIENT_NET_ERROR } from '../../../activities/browser/navigation.js';

/** A failed `page.goto`, as puppeteer reports Chromium's net error. */
const failed = (code: string) => new Error(`net::${code} at https://example.com/page?token=secret`);
const aborted = () => {
  const controller = new AbortController();
  controller.abort(new Error('deadline'));
  return controller.signal;
};

test('only ERR_NETWORK_CHANGED is made again, and not once the deadline has passed', (t) => {
  t.is(TRANSIENT_NET_ERROR, 'ERR_NETWORK_CHANGED');
  t.is(netErrorCode(failed('ERR_NETWORK_CHANGED')), 'ERR_NETWORK_CHANGED');
  t.true(retriesNavigation(failed('ERR_NETWORK_CHANGED')));
  t.true(retriesNavigation(failed('ERR_NETWORK_CHANGED'), new AbortController().signal));
  t.false(retriesNavigation(failed('ERR_NETWORK_CHANGED'), aborted()), 'past the deadline');
  for (const code of [
    'ERR_INTERNET_DISCONNECTED',
    'ERR_CONNECTION_RESET',
    'ERR_CONNECTION_REFUSED',
    'ERR_NAME_NOT_RESOLVED',
    'ERR_TUNNEL_CONNECTION_FAILED',
    'ERR_ABORTED',
    'ERR_CERT_AUTHORITY_INVALID',
    'ERR_NETWORK_ACCESS_DENIED',
  ])
    t.false(retriesNavigation(failed(code)), code);
  t.false(retriesNavigation(new Error('Navigating frame was detached')));
  t.false(retriesNavigation(new Error('ERR_NETWORK_CHANGED without net::')));
});

test('a load the network change aborted is made once more, between the two the session is told', async (t) => {
  const seen: string[] = [];
  let loads = 0;
  const answer = await onceMoreIfNetworkChanged(
    async () => {
      if (++loads === 1) throw failed('ERR_NETWORK_CHANGED');
      return 'page';
    },
    (code) => seen.push(`${code} after ${loads}`),
  );
  t.is(answer, 'page');
  t.is(loads, 2);
  t.deepEqual(seen, ['ERR_NETWORK_CHANGED after 1']);
});

test('never a third time: a second network change fails the load with it', async (t) => {
  let loads = 0;
  const err = await t.throwsAsync(
    onceMoreIfNetworkChanged(
      async () => {
        loads++;
        throw failed('ERR_NETWORK_CHANGED');
      },
      () => {},
    ),
  );
  t.is(netErrorCode(err), 'ERR_NETWORK_CHANGED');
  t.is(loads, 2);
});

test('another failure, or one past the deadline, is not made again', async (t) => {
  for (const [why, error, signal] of [
    ['another net error', failed('ERR_CONNECTION_RESET'), undefined],
    ['not a net error', new Error('Target closed'), undefined],
    ['past the deadline', failed('ERR_NETWORK_CHANGED'), aborted()],
  ] as const) {
    let loads = 0;
    let retried = false;
    const err = await t.throwsAsync(
      onceMoreIfNetworkChanged(
        async () => {
          loads++;
          throw error;
        },
        () => (retried = true),
        signal,
      ),
    );
    t.is(err, error, why);
    t.is(loads, 1, why);
    t.false(retried, why);
  }
});
