//! The database's commands as spans of the trace that issued them (the ledger's reserve and
//! settle, a key's lookup): command, collection, database and server, never the command's
//! documents or filters (they hold balances, hashes, sealed secrets). Installed by connectMongo
//! only in a traced process; a command with no recording span active (a sweep, a heartbeat, an
//! unsampled call) makes none.
import type { CommandFailedEvent, CommandStartedEvent, CommandSucceededEvent, MongoClient } from 'mongodb';
import type { Span } from '@opentelemetry/api';
import { isRecordingTrace, spanFailed, startSpan } from './trace-context.js';

export function traceCommands(client: MongoClient): void {
  const open = new Map<number, Span>();
  client.on('commandStarted', (e: CommandStartedEvent) => {
    if (!isRecordingTrace()) return;
    const collection: unknown = e.command[e.commandName];
    const attributes: Record<string, string> = {
      'db.system': 'mongodb',
      'db.operation.name': e.commandName,
      'db.namespace': e.databaseName,
      'server.address': e.address,
    };
    if (typeof collection === 'string') attributes['db.collection.name'] = collection;
    open.set(e.requestId, startSpan(typeof collection === 'string' ? `${e.commandName} ${collection}` : e.commandName, attributes));
  });
  const end = (e: CommandSucceededEvent | CommandFailedEvent, failure?: Error) => {
    const span = open.get(e.requestId);
    if (!span) return;
    open.delete(e.requestId);
    if (failure) spanFailed(span, failure);
    span.end();
  };
  client.on('commandSucceeded', (e) => end(e));
  client.on('commandFailed', (e) => end(e, e.failure));
}
