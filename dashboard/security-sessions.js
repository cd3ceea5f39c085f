//! The Security page's sessions: where the sign-in is in use (browser, address, how and when it
//! signed in), "this device" marked; another session ended, or all the others at once.
import { announce, code, dataTable, h, help, problemText, replace, subSection, time } from './dom.js';
import { createList } from './list.js';
import { announcedAction, rowButton } from './row-action.js';

const METHODS = {
  password: 'with a password',
  passkey: 'with a passkey',
  verification: 'by confirming the address',
  invitation: 'by accepting an invitation',
};

/** "Chrome on Linux" from a user agent: enough to tell one's devices apart. */
export function deviceName(userAgent) {
  const ua = userAgent ?? '';
  if (!ua) return 'Unknown device';
  const browser = /Edg\//.test(ua)
    ? 'Edge'
    : /OPR\//.test(ua)
      ? 'Opera'
      : /Firefox\//.test(ua)
        ? 'Firefox'
        : /(HeadlessChrome|Chrome|Chromium)\//.test(ua)
          ? 'Chrome'
          : /Safari\//.test(ua)
            ? 'Safari'
            : /curl|node|undici|python|Go-http|okhttp/i.test(ua)
              ? 'A program'
              : 'A browser';
  const os = /Windows/.test(ua)
    ? 'Windows'
    : /Android/.test(ua)
      ? 'Android'
      : /iPhone|iPad/.test(ua)
        ? 'iOS'
        : /Mac OS X/.test(ua)
          ? 'macOS'
          : /CrOS/.test(ua)
            ? 'ChromeOS'
            : /Linux/.test(ua)
              ? 'Linux'
              : null;
  return os ? `${browser} on ${os}` : browser;
}

/** An IPv4 address as people write it (the service may give it IPv4-mapped: `::ffff:127.0.0.1`). */
const address = (ip) => (ip ? ip.replace(/^::ffff:(\d+\.\d+\.\d+\.\d+)$/, '$1') : null);

/** @param {{ client: import('./api.js').Client }} deps */
export function createSessionsSection({ client }) {
  const sessionsBody = h('div', { id: 'sessions-body' });
  const endOthers = h(
    'button',
    { type: 'button', class: 'danger', id: 'end-other-sessions', onclick: endOtherSessions },
    'End all other sessions',
  );
  const sessionsSection = subSection(
    'sessions',
    'Sessions',
    help('Where your sign-in is in use. End a session you do not recognise, then change your password.'),
    sessionsBody,
    h('div', { class: 'actions' }, endOthers),
  );
  const list = createList({
    body: sessionsBody,
    loadingWhat: 'sessions',
    failedWhat: 'your sessions',
    read: () => client.sessions(),
    render: renderSessions,
  });

  function endOne(s, button) {
    return announcedAction({
      button,
      act: async () => {
        await client.endSession(s.id);
        await list.load();
        return `The session of ${deviceName(s.userAgent)} has ended.`;
      },
      heading: sessionsSection.querySelector('h2'),
      refused: (err) => announce(`Could not end the session: ${problemText(err)}`),
    });
  }

  function endOtherSessions() {
    return announcedAction({
      button: endOthers,
      confirm: {
        title: 'End all other sessions?',
        body: 'Every device but this one is signed out at once. This one stays signed in.',
        confirmLabel: 'End other sessions',
      },
      act: async () => {
        const { ended } = await client.endOtherSessions();
        await list.load();
        return ended === 1 ? 'One other session has ended.' : `${ended} other sessions have ended.`;
      },
      heading: sessionsSection.querySelector('h2'),
      refused: (err) => announce(`Could not end the sessions: ${problemText(err)}`),
    });
  }

  function renderSessions(sessions) {
    endOthers.hidden = !sessions.some((s) => !s.current);
    replace(
      sessionsBody,
      dataTable({
        name: 'sessions',
        caption: 'Newest sign-in first.',
        columns: ['Device', 'Address', 'Signed in', 'Last seen', 'Actions'],
        rowHeader: 0,
        rows: sessions.map(row),
      }),
    );
  }

  function row(s) {
    const device = deviceName(s.userAgent);
    return {
      attrs: { dataset: { sessionId: s.id }, class: s.current ? 'current-session' : null },
      cells: [
        [device, s.current ? [' ', h('span', { class: 'badge active' }, 'This device')] : null],
        s.ip ? code(address(s.ip)) : h('span', { class: 'muted' }, 'Unknown'),
        [time(s.createdAt), METHODS[s.method] ? h('span', { class: 'muted small' }, ` ${METHODS[s.method]}`) : null],
        time(s.lastSeenAt),
        s.current
          ? h('span', { class: 'muted' }, 'Sign out below')
          : rowButton({
              label: 'End',
              name: `End the session of ${device} at ${address(s.ip) ?? 'an unknown address'}`,
              small: true,
              kind: 'danger',
              onclick: (button) => endOne(s, button),
            }),
      ],
    };
  }

  return { section: sessionsSection, load: list.load };
}
