//! Monitors and runs as the account API, MCP and events show them. A diff image is shown as a
//! link the caller signs (the API: api/routes/monitors.ts), so only its key is known here.
import { type Static, type TUnsafe, Type } from '@sinclair/typebox';
import { ErrorCode } from '../../lib/error-code-schema.js';
import { ComponentRef, Credits, Id, Nullable, NullableTimestampText, StringEnum, TimestampText } from '../../lib/schema-types.js';
import { CreateMonitorBody } from './body-schema.js';
import { MONITOR_STATES, RUN_OUTCOMES, type MonitorDoc, type MonitorRunDoc } from './documents.js';
import { UPTIME_WINDOWS, uptimeOf } from './uptime.js';

/** Makes the link to a diff image, from its key and the run's id; none: the run shows no link. */
export type DiffLinker = (diffKey: string, runId: string) => string;

export function runView(run: MonitorRunDoc, diffUrl?: DiffLinker): RunView {
  const change = run.change && {
    paths: run.change.paths,
    ...(run.change.ratio !== undefined ? { ratio: run.change.ratio } : {}),
    ...(run.change.diffKey && diffUrl ? { diffUrl: diffUrl(run.change.diffKey, run._id) } : {}),
  };
  return {
    id: run._id,
    at: run.at.toISOString(),
    scheduledAt: run.scheduledAt ? run.scheduledAt.toISOString() : null,
    durationMs: run.durationMs,
    outcome: run.outcome,
    requestId: run._id,
    charged: run.charged,
    assertions: run.assertions,
    change,
    error: run.error,
    state: run.state,
  };
}

/** A run as an event carries it: what happened, without the diff link (which would expire in the event log). */
export function runSummary(run: MonitorRunDoc): RunSummary {
  const { state: _state, ...view } = runView(run);
  return view;
}

/** What the monitor's owner chose: what it calls, how often, what it judges and whom it alerts. */
export function monitorDefinition(doc: MonitorDoc) {
  return {
    name: doc.name,
    tool: doc.tool,
    input: doc.input,
    schedule: doc.schedule,
    assertions: doc.assertions,
    alert: doc.alert,
    monthlyCreditLimit: doc.monthlyCreditLimit,
  };
}

/** A run's time and outcome, in the run's answer and in the monitor's recent runs. */
export const RunDuration = Type.Integer({
  minimum: 0,
  description: "The tool's run, all attempts, in ms (0 when the call was refused first).",
});
export const RunOutcome = StringEnum(RUN_OUTCOMES, {
  description:
    '`pass`; `degraded` (only checks of `/durationMs` failed); `fail` (another check failed); `error` (the call did not answer 200: refused, or the tool failed).',
});
/** A monitor's state, in its answer and in each run's. */
export const MonitorState = StringEnum(MONITOR_STATES, {
  description: '`pending` until its first judged run; `paused` while no runs are made.',
});

// The answer shows every field of the body, defaults applied: none is optional there.
const body = Type.Required(CreateMonitorBody).properties;

/** One assertion as a run found it: the `MonitorAssertionResult` schema of the OpenAPI document. */
export const MonitorAssertionResult = Type.Object(
  {
    path: Type.String({ description: 'The pointer read (a visual check: the image field).', examples: ['/status'] }),
    op: body.assertions.items.properties.op,
    // Absent for `changed`.
    value: Type.Optional(Type.Unknown({ description: "What it was compared with (a visual check's threshold); absent for `changed`." })),
    actual: Type.Unknown({
      description: 'What the answer held there (long texts cut); the share of changed pixels for a visual check; null when absent.',
    }),
    pass: Type.Boolean({ description: 'Whether it held. For a change check: false when it fired.' }),
  },
  { description: 'One assertion as this run found it.' },
);

const CHANGE =
  'Set when a change check fired: the pointers that changed, and for a visual change the share of pixels and a link to the diff image (signed, an hour).';
const changeFields = { paths: Type.Array(Type.String()), ratio: Type.Optional(Type.Number({ minimum: 0, maximum: 1 })) };

/** What a run's answer and its event share. */
const runFields = {
  id: Type.String({
    description: "The run's call: its request id, as in usage (`via: monitor`).",
    examples: ['call-acc_4hQ2mV8kZr1xYt6pW0nLbC-mon_7Tn3pLq9Vx2Rk5Yb8Mc1Dz-2026-05-01T09:30:00Z'],
  }),
  at: TimestampText('When the run started.'),
  scheduledAt: NullableTimestampText('When its schedule meant it to start; null for a run asked for now.'),
  durationMs: RunDuration,
  outcome: RunOutcome,
  requestId: Type.String({ description: 'The same as `id`.' }),
  charged: Credits("Credits charged: the tool's cost when it answered 200, else 0."),
  assertions: Type.Array(ComponentRef('MonitorAssertionResult', MonitorAssertionResult)),
  change: Nullable(
    Type.Object(
      {
        ...changeFields,
        diffUrl: Type.Optional(
          Type.String({
            format: 'uri',
            description: 'The diff image (PNG): changed pixels in red. Opens without a credential until the link expires.',
          }),
        ),
      },
      { description: CHANGE },
    ),
  ),
  error: Nullable(
    Type.Object(
      { code: ComponentRef('ErrorCode', ErrorCode), message: Type.String() },
      { description: "Why the call did not answer 200: the problem's code and detail." },
    ),
  ),
};

/** A run as the API answers it: its type, and the `MonitorRun` schema of the OpenAPI document. */
export const MonitorRunView = Type.Object(
  { ...runFields, state: StringEnum(MONITOR_STATES, { description: "The monitor's state after this run was judged." }) },
  { description: 'One run of a monitor, newest first in its list (kept 90 days).' },
);
export type RunView = Static<typeof MonitorRunView>;

/** A run as its monitor's events carry it. */
export const MonitorRunSummary = Type.Object(
  { ...runFields, change: Nullable(Type.Object(changeFields, { description: CHANGE })) },
  { description: 'The run that moved it (as `GET .../runs` shows it, without `state` and without a diff link).' },
);
export type RunSummary = Static<typeof MonitorRunSummary>;
const uptimeShare = Nullable(Type.Number({ minimum: 0, maximum: 100 }));
const uptimeShares = Object.fromEntries(Object.keys(UPTIME_WINDOWS).map((w) => [w, uptimeShare])) as Record<
  keyof typeof UPTIME_WINDOWS,
  TUnsafe<number | null>
>;

/** A monitor as the API answers it: its type, and the `Monitor` schema of the OpenAPI document. */
export const Monitor = Type.Object(
  {
    id: Id('mon', 'Monitor id.'),
    name: body.name,
    tool: body.tool,
    input: Type.Unsafe<Record<string, unknown>>({ type: 'object', description: "The tool's input, defaults applied." }),
    schedule: body.schedule,
    assertions: Type.Array(body.assertions.items, { description: "Its checks (a visual check's `path` is the image field)." }),
    alert: Type.Object(Type.Required(body.alert).properties, { description: 'The alert policy, defaults applied.' }),
    monthlyCreditLimit: body.monthlyCreditLimit,
    state: MonitorState,
    stateReason: Nullable(
      Type.String({
        description:
          'Why it is not up: the first failed check (`/status eq 200: got 500`) or error; `paused` (by a member), `insufficient_credits` or `monitor_credit_limit` (paused by the service). null when up.',
      }),
    ),
    lastRunAt: NullableTimestampText('When its last judged run started.'),
    nextRunAt: NullableTimestampText('When its next run is due; null while paused.'),
    uptime: Type.Object(uptimeShares, {
      description:
        'Share of good runs (passed or only degraded), in percent, over the whole hours of each window; null without runs. Runs refused for credits do not count.',
    }),
    recentRuns: Type.Array(
      Type.Object({ at: TimestampText('When it ran.'), durationMs: RunDuration, outcome: RunOutcome }, { description: '' }),
      { maxItems: 30, description: 'Its last runs, oldest first: the latency line.' },
    ),
    createdAt: TimestampText('When it was created.'),
  },
  { description: 'A tool run on a schedule and judged by its assertions.' },
);
export type MonitorView = Static<typeof Monitor>;

/** The monitor as the API answers it; `nextRunAt` is Temporal's (null when paused or unknown). */
export function monitorView(doc: MonitorDoc, nextRunAt: Date | null, now = new Date()): MonitorView {
  return {
    id: doc._id,
    ...monitorDefinition(doc),
    state: doc.state,
    stateReason: doc.stateReason,
    lastRunAt: doc.lastRun ? doc.lastRun.at.toISOString() : null,
    // Paused, it has none, whether or not its schedule has been told yet.
    nextRunAt: nextRunAt && doc.state !== 'paused' ? nextRunAt.toISOString() : null,
    uptime: uptimeOf(doc.hours, now),
    recentRuns: doc.recent.map((r) => ({ at: r.at.toISOString(), durationMs: r.durationMs, outcome: r.outcome })),
    createdAt: doc.createdAt.toISOString(),
  };
}
