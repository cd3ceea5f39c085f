//! Component schemas of monitors, their runs and their events' `data`.
import {
  CreateMonitorBody,
  Monitor,
  MonitorAssertionResult,
  MonitorRunSummary,
  MonitorRunView,
  MonitorState,
} from '../../domain/monitors/index.js';
import { page, id, record, type JsonSchema } from './schema-parts.js';

const { properties: body } = CreateMonitorBody;

export const MONITOR_SCHEMAS: Record<string, JsonSchema> = {
  MonitorAssertionResult,
  MonitorRun: MonitorRunView,
  MonitorRunPage: page('Runs, newest first.', 'MonitorRun'),
  MonitorRunStarted: record('A run asked for now.', {
    runId: { type: 'string', description: "Its request id: the run's `id` once it is judged." },
  }),
  Monitor,
  MonitorPage: page('Monitors, newest first.', 'Monitor'),
};

const example = {
  monitorId: 'mon_7Tn3pLq9Vx2Rk5Yb8Mc1Dz',
  name: 'Shop front page',
  state: 'down',
  reason: '/status eq 200: got 503',
  run: {
    id: 'call-acc_4hQ2mV8kZr1xYt6pW0nLbC-mon_7Tn3pLq9Vx2Rk5Yb8Mc1Dz-2026-05-01T09:30:00Z',
    at: '2026-05-01T09:30:00.412Z',
    scheduledAt: '2026-05-01T09:30:00.000Z',
    durationMs: 212,
    outcome: 'fail',
    requestId: 'call-acc_4hQ2mV8kZr1xYt6pW0nLbC-mon_7Tn3pLq9Vx2Rk5Yb8Mc1Dz-2026-05-01T09:30:00Z',
    charged: 1,
    assertions: [{ path: '/status', op: 'eq', value: 200, actual: 503, pass: false }],
    change: null,
    error: null,
  },
};

const eventData = record('', {
  monitorId: id('mon', 'The monitor.'),
  name: body.name,
  state: { ...MonitorState, description: 'Its state now.' },
  reason: { type: ['string', 'null'], description: 'Why: the failed check, the error, the change, or why it paused; null when up.' },
  run: MonitorRunSummary,
});
const reminderData = {
  ...eventData,
  properties: {
    ...(eventData.properties as object),
    reminder: { type: 'boolean', const: true, description: 'A reminder (alert.remindEvery): the monitor is still down.' },
  },
};

/** The monitor events' `data` (api/docs/event-schemas.ts lists them with the others). */
export const MONITOR_EVENT_PAYLOADS = {
  'monitor.down': {
    schema: 'MonitorDown',
    summary:
      'A monitor is down: `alert.downAfter` runs in a row failed (a check failed, or the call did not answer 200). While it stays down, sent again every `alert.remindEvery` with `reminder: true`.',
    data: reminderData,
    example,
  },
  'monitor.degraded': {
    schema: 'MonitorDegraded',
    summary:
      'A monitor is degraded: `alert.downAfter` runs in a row were not good, and not all failed (only its checks of `/durationMs` failed in some).',
    data: eventData,
    example: { ...example, state: 'degraded', reason: '/durationMs lt 500: got 812' },
  },
  'monitor.up': {
    schema: 'MonitorUp',
    summary: 'A down or degraded monitor is up again: `alert.upAfter` good runs in a row.',
    data: eventData,
    example: {
      ...example,
      state: 'up',
      reason: null,
      run: { ...example.run, outcome: 'pass', assertions: [{ path: '/status', op: 'eq', value: 200, actual: 200, pass: true }] },
    },
  },
  'monitor.changed': {
    schema: 'MonitorChanged',
    summary:
      "A monitor's change check fired: a `changed` value differs from the previous answer's, or a capture differs from the baseline past its `threshold` (once, until it goes back or a new baseline is accepted). The run's diff image is in its runs.",
    data: eventData,
    example: {
      ...example,
      state: 'up',
      reason: 'changed: /fileBase64',
      run: { ...example.run, outcome: 'pass', assertions: [], change: { paths: ['/fileBase64'], ratio: 0.042 } },
    },
  },
  'monitor.paused': {
    schema: 'MonitorPaused',
    summary:
      "The service paused a monitor: its run was refused, free, for the account's credits (`insufficient_credits`) or its monthly cap (`monitor_credit_limit`). It runs again once a member resumes it.",
    data: eventData,
    example: {
      ...example,
      state: 'paused',
      reason: 'insufficient_credits',
      run: {
        ...example.run,
        outcome: 'error',
        charged: 0,
        durationMs: 0,
        assertions: [],
        error: { code: 'insufficient_credits', message: 'This call costs 1 credits; the balance is 0.' },
      },
    },
  },
} as const;
