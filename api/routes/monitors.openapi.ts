//! The OpenAPI operations of the monitor routes (`api/routes/monitors.ts`), beside them rather than
//! inside them so the handlers' file stays about handling.
import type { ErrorCode } from '../../contracts/errors.js';
import { CreateMonitorBody, UpdateMonitorBody } from '../../domain/monitors/index.js';
import {
  pageParameters,
  signedLinkParameters,
  answer,
  jsonBody,
  linkedById,
  operation,
  OWNER,
  plain,
  resource,
  type RouteOperation,
} from '../docs/operations.js';
import { MONITORS_DEFAULT_LIMIT, MONITORS_MAX_LIMIT } from './monitors.js';
import { DIFF_FILE, DIFF_LINK_TTL_S, MONITOR_DIFFS_PATH } from '../monitor-diff-links.js';

/** Reading a monitor's body: its problems are `invalid_request` (JSON that is no object stays `invalid_json`). */
const MONITOR_BODY_CODES: readonly ErrorCode[] = ['invalid_json', 'invalid_request', 'payload_too_large', 'unsupported_media_type'];

/** The operations on one monitor, each taking its id: what a new monitor's answer links to. */
const MONITOR_OPERATIONS = [
  'getMonitor',
  'updateMonitor',
  'deleteMonitor',
  'runMonitor',
  'acceptMonitorBaseline',
  'listMonitorRuns',
] as const;

const EXAMPLE = {
  name: 'Shop front page',
  tool: 'http-request',
  input: { url: 'https://shop.example.com/', method: 'GET' },
  schedule: { every: '5m' },
  assertions: [
    { path: '/status', op: 'eq', value: 200 },
    { path: '/body', op: 'contains', value: 'Add to cart' },
    { path: '/durationMs', op: 'lt', value: 2000 },
  ],
  alert: { downAfter: 2, upAfter: 1, notify: ['owners'], remindEvery: '1h' },
};

export function monitorOperations(): RouteOperation[] {
  const tag = 'monitors' as const;
  const monitor = resource(tag, OWNER, 'MonitorId');
  return [
    monitor('get', '/api/v1/account/monitors', {
      operationId: 'listMonitors',
      summary: 'List monitors',
      parameters: pageParameters('Monitors', MONITORS_MAX_LIMIT, MONITORS_DEFAULT_LIMIT),
      ok: answer('The monitors, newest first, each with its state, uptime and latest runs.', 'MonitorPage'),
      codes: ['validation_failed'],
    }),
    monitor('post', '/api/v1/account/monitors', {
      operationId: 'createMonitor',
      summary: 'Create a monitor',
      description:
        'Runs `tool` with `input` on `schedule`, each run an ordinary call of the tool charged to the account (its cost if and only if it answers 200; in the usage with `via: monitor`), and judges each answer with `assertions`. ' +
        'Its state is `pending` until its first run, then `up`, `down` or `degraded` after `alert.downAfter` runs in a row (and `upAfter` to recover), each change an event (`monitor.down`, `monitor.degraded`, `monitor.up`) and a mail to the members `alert.notify` names. ' +
        'A run refused for credits is free and pauses the monitor (`monitor.paused`). An account has at most MONITORS_PER_ACCOUNT monitors (100 unless the operator changed it).',
      requestBody: jsonBody(CreateMonitorBody, EXAMPLE),
      ok: linkedById(answer('The new monitor; `Location` names it.', 'Monitor', '201'), MONITOR_OPERATIONS),
      codes: [...MONITOR_BODY_CODES, 'monitor_limit'],
    }),
    monitor('get', '/api/v1/account/monitors/{id}', {
      operationId: 'getMonitor',
      summary: 'Read a monitor',
      ok: answer('The monitor.', 'Monitor'),
      codes: ['not_found'],
    }),
    monitor('patch', '/api/v1/account/monitors/{id}', {
      operationId: 'updateMonitor',
      summary: 'Change, pause or resume a monitor',
      description:
        'Any field of the monitor; those left out stay, and its schedule follows. `{ "paused": true }` stops its runs, `{ "paused": false }` resumes it (after a pause for credits too), judged afresh from `pending`. ' +
        'Changing its assertions, tool or input forgets what its change checks compared with.',
      requestBody: jsonBody(UpdateMonitorBody, { paused: true }),
      ok: answer('The monitor.', 'Monitor'),
      codes: [...MONITOR_BODY_CODES, 'not_found'],
    }),
    monitor('delete', '/api/v1/account/monitors/{id}', {
      operationId: 'deleteMonitor',
      summary: 'Delete a monitor',
      description:
        'Its schedule goes first, then the monitor with its runs and images. A run already under way ends as a call and is left unjudged.',
      ok: answer('Deleted.', undefined, '204'),
      codes: ['not_found'],
    }),
    monitor('post', '/api/v1/account/monitors/{id}/run', {
      operationId: 'runMonitor',
      summary: 'Run a monitor now',
      description:
        'One run now, beside its schedule (a paused monitor too): the same call, judged the same way. Its run appears in the runs once judged, with `id` equal to `runId`.',
      ok: answer('The run is started.', 'MonitorRunStarted', '202'),
      codes: ['not_found'],
    }),
    monitor('post', '/api/v1/account/monitors/{id}/baseline', {
      operationId: 'acceptMonitorBaseline',
      summary: "Accept a visual monitor's latest capture as its baseline",
      description:
        'From now on its visual checks compare with the latest capture, and a change that fired may fire again. Until then the baseline is its first capture. ' +
        'A monitor without a `visual_change` check is 400 `invalid_request`; one with no capture yet 404.',
      ok: answer('The monitor.', 'Monitor'),
      codes: ['not_found', 'invalid_request'],
    }),
    monitor('get', '/api/v1/account/monitors/{id}/runs', {
      operationId: 'listMonitorRuns',
      summary: "A monitor's runs",
      description: `Newest first, kept 90 days: each run's time, duration, outcome, charge, assertions as found and, for a fired change, what changed with a link to its diff image (open ${DIFF_LINK_TTL_S / 60} minutes; read the runs again for a fresh one).`,
      parameters: pageParameters('Runs'),
      ok: answer('The runs.', 'MonitorRunPage'),
      codes: ['not_found', 'validation_failed'],
    }),
    operation('get', `${MONITOR_DIFFS_PATH}{file}`, {
      tag,
      operationId: 'monitorDiffImage',
      summary: "A run's diff image",
      security: [],
      description: `The diff image of a visual monitor's run, by the \`diffUrl\` of its change: the link's signature is the credential, for ${DIFF_LINK_TTL_S / 60} minutes.`,
      parameters: signedLinkParameters(DIFF_FILE, 'image'),
      ok: plain('The diff image.', { 'image/png': { schema: { type: 'string', format: 'binary' } } }),
      codes: ['invalid_signature', 'link_expired', 'not_found', 'unavailable', 'internal_error'],
    }),
  ];
}
