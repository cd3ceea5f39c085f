//! Connected apps (`/dashboard/connected-apps`): the AI agents and MCP clients members signed in to
//! this account through OAuth, each acting with the role of the member who connected it; listed with
//! where its answers go and when it was last used, and disconnected after confirmation, which ends
//! its tokens at once.
import { code, dataTable, h, help, time, viewSection } from './dom.js';
import { createList } from './list.js';
import { confirmedRowButton } from './row-action.js';

/** @param {import('./app.js').ViewContext} context */
export function createConnectedAppsView({ client }) {
  const container = h('div', { id: 'connected-apps-body' });
  const element = viewSection(
    'connected-apps',
    'Connected apps',
    help(
      'Apps you or your team let act on this account by signing in, such as an AI assistant pointed at ',
      code('/mcp'),
      '. Each acts with the role of the member who connected it, and its calls are charged like any other.',
    ),
    container,
  );
  const list = createList({
    body: container,
    loadingWhat: 'connected apps',
    read: () => client.connectedApps(),
    emptyText: 'No connected apps. An app connects when a member allows it on the sign-in page it opens.',
    table: (apps) =>
      dataTable({
        name: 'connected-apps',
        columns: ['App', 'Answers go to', 'Connected by', 'Connected', 'Last used', 'Actions'],
        rowHeader: 0,
        rows: apps.map(row),
      }),
  });

  function row(app) {
    return {
      attrs: { dataset: { appId: app.id } },
      cells: [
        app.clientName,
        code(app.redirectHost),
        code(app.userId),
        time(app.createdAt),
        app.lastUsedAt ? time(app.lastUsedAt) : 'Not yet',
        confirmedRowButton({
          label: 'Disconnect',
          name: `Disconnect ${app.clientName}`,
          confirm: {
            body: 'Its tokens stop working at once. To use this account again it must ask a member, who must allow it again.',
            confirmLabel: 'Disconnect',
          },
          act: () => client.disconnectApp(app.id),
          reload: list.load,
          announcement: `${app.clientName} disconnected.`,
        }),
      ],
    };
  }

  return { element, load: list.load, close: list.close };
}
