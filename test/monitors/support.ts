//! What the monitor suites share: a monitor made, read and paused over HTTP, its runs, and a
//! webhook endpoint that receives its account's monitor events.
import { request, type TestAccount, type UncheckedJson } from '../helpers/api.js';
import { withTemporalClient } from '../helpers/temporal.js';
import { eventually, type Receiver } from '../helpers/webhook-receiver.js';

export const MONITOR_EVENTS = ['monitor.down', 'monitor.degraded', 'monitor.up', 'monitor.changed', 'monitor.paused'];

export async function createMonitor(account: TestAccount, body: Record<string, unknown>): Promise<UncheckedJson> {
  const res = await request('POST', '/api/v1/account/monitors', { token: account.ownerToken, body });
  if (res.status !== 201) throw new Error(`creating a monitor answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function readMonitor(account: TestAccount, id: string): Promise<UncheckedJson> {
  const res = await request('GET', `/api/v1/account/monitors/${id}`, { token: account.ownerToken });
  if (res.status !== 200) throw new Error(`reading monitor ${id} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body;
}

export async function runsOf(account: TestAccount, id: string): Promise<UncheckedJson[]> {
  const res = await request('GET', `/api/v1/account/monitors/${id}/runs?limit=200`, { token: account.ownerToken });
  if (res.status !== 200) throw new Error(`reading the runs of ${id} answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.items;
}

/** Pauses it (no more runs start), then waits until no run of it is under way: its runs and its calls then hold still. */
export async function pauseAndSettle(account: TestAccount, id: string): Promise<UncheckedJson[]> {
  const res = await request('PATCH', `/api/v1/account/monitors/${id}`, { token: account.ownerToken, body: { paused: true } });
  if (res.status !== 200) throw new Error(`pausing ${id} answered ${res.status}: ${JSON.stringify(res.body)}`);
  await settled(account, id);
  return runsOf(account, id);
}

/** Waits until no call of the monitor's runs is running (Temporal's own list of its workflows). */
export async function settled(account: TestAccount, id: string): Promise<void> {
  const query = `WorkflowId STARTS_WITH "call-${account.id}-${id}" AND ExecutionStatus = "Running"`;
  await withTemporalClient((client) =>
    eventually(
      async () => (await client.workflow.count(query)).count,
      (n) => n === 0,
      60_000,
      `no run of ${id} running`,
    ),
  );
}

/** The account's usage entries of the monitor's runs. */
export async function monitorUsage(account: TestAccount, id: string): Promise<UncheckedJson[]> {
  const res = await request('GET', '/api/v1/account/usage?limit=200', { token: account.ownerToken });
  if (res.status !== 200) throw new Error(`usage answered ${res.status}`);
  return res.body.items.filter((u: UncheckedJson) => u.monitorId === id);
}

/** Registers `receiver`'s `path` for the account's monitor events; answers the endpoint's signing secret. */
export async function monitorEndpoint(account: TestAccount, receiver: Receiver, path: string): Promise<string> {
  const res = await request('POST', '/api/v1/account/webhooks', {
    token: account.ownerToken,
    body: { url: receiver.url(path), eventTypes: MONITOR_EVENTS },
  });
  if (res.status !== 201) throw new Error(`registering the endpoint answered ${res.status}: ${JSON.stringify(res.body)}`);
  return res.body.secret;
}

/** The events of `kind` delivered to `path`, once each (a retried delivery counts once). */
export function delivered(receiver: Receiver, path: string, kind: string): UncheckedJson[] {
  const seen = new Map<string, UncheckedJson>();
  for (const d of receiver.deliveries(path)) if (d.body?.event === kind) seen.set(d.body.id, d.body);
  return [...seen.values()];
}
