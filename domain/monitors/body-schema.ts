//! A monitor's body as the API takes it (POST and PATCH of /api/v1/account/monitors, MCP's
//! `monitor-create`): its shape, declared once for validation, the OpenAPI document and the type
//! `MonitorBody` the service reads. What a shape cannot say (either an interval or a cron
//! expression, an interval's minimum, a pointer, an operator's value) is checked by definition.ts;
//! both answer 400 `invalid_request` naming the field.
import { type Static, Type } from '@sinclair/typebox';
import { ClosedObject, Nullable, StringEnum } from '../../lib/schema-types.js';
import { CATALOGUE } from '../tools/index.js';
import { ASSERTION_OPS, type MonitorSchedule } from './definition.js';

/** Assertions of one monitor, rectangles of one visual check, members one alert names: plenty, and bounded. */
export const MAX_ASSERTIONS = 20;
export const MAX_IGNORED_RECTS = 20;
export const MAX_NOTIFIED = 20;

const pixels = (description: string, minimum = 0) => Type.Integer({ minimum, maximum: 100_000, description });

/** Either `every` or `cron` (with a zone or not): definition.ts refuses any other mix before the type is relied on. */
const schedule = Type.Unsafe<MonitorSchedule>(
  ClosedObject(
    {
      every: Type.Optional(Type.String({ maxLength: 16, description: 'An interval: a number and a unit, s, m or h.', examples: ['5m'] })),
      cron: Type.Optional(
        Type.String({ minLength: 1, maxLength: 120, description: 'A five-field cron expression.', examples: ['0 9 * * MON-FRI'] }),
      ),
      timezone: Type.Optional(
        Type.String({
          minLength: 1,
          maxLength: 64,
          description: 'The IANA time zone the cron expression is read in.',
          examples: ['Europe/Paris'],
        }),
      ),
    },
    {
      minProperties: 1,
      description:
        'When it runs: `{ "every": "<n>s|m|h" }` (at least MONITOR_MIN_INTERVAL_S, default 60 s; at most 24 h), or `{ "cron": "<minute hour day month weekday>", "timezone": "<IANA zone>" }` (UTC when no zone). ' +
        "An interval's runs start at a fixed phase of it chosen by the monitor's id (so many monitors spread over the interval); a cron run up to 30 s after its time.",
    },
  ),
);

const assertion = ClosedObject(
  {
    path: Type.Optional(
      Type.String({
        maxLength: 500,
        description: 'A JSON pointer into the answer, or `/durationMs`. Not taken by `visual_change`.',
        examples: ['/status'],
      }),
    ),
    op: StringEnum(ASSERTION_OPS, { description: 'The comparison.' }),
    value: Type.Optional(
      Type.Unknown({
        description: 'What the value at `path` is compared with (any JSON; a number for the order comparisons, a pattern for `matches`).',
        examples: [200],
      }),
    ),
    threshold: Type.Optional(
      Type.Number({
        minimum: 0,
        maximum: 1,
        description: '`visual_change`: the share of pixels (0 to 1) that must change for it to fire.',
        examples: [0.01],
      }),
    ),
    ignore: Type.Optional(
      Type.Array(
        ClosedObject({ x: pixels('Left edge.'), y: pixels('Top edge.'), width: pixels('Width.', 1), height: pixels('Height.', 1) }),
        {
          maxItems: MAX_IGNORED_RECTS,
          description: '`visual_change`: rectangles (image pixels) left out of the comparison, such as a clock or an ad slot.',
        },
      ),
    ),
  },
  {
    description:
      "A check of the tool's 200 answer. `path`: a JSON pointer into the answer (`/status`, `/records/0/value`), or `/durationMs` (the tool's run in ms; when only such checks fail the run is `degraded`). " +
      '`op`: `eq`, `ne` (JSON equality), `contains`, `not_contains` (a text holds a text, a list an element, an object a key), `lt`, `lte`, `gt`, `gte` (numbers), `matches` (a regular expression, read on the first 100,000 characters), each with `value`; ' +
      "`changed` (no `value`): fires `monitor.changed` when the value differs from the previous answer's; `visual_change` (website-screenshot and html-to-image, png) with `threshold` and `ignore`: fires when that share of pixels differs from the baseline. Change checks never fail a run.",
  },
);

const alert = ClosedObject(
  {
    downAfter: Type.Optional(
      Type.Integer({
        minimum: 1,
        maximum: 20,
        default: 2,
        description: 'Failed runs in a row before the monitor is down (degraded runs: degraded).',
      }),
    ),
    upAfter: Type.Optional(
      Type.Integer({ minimum: 1, maximum: 20, default: 1, description: 'Good runs in a row before a down or degraded monitor is up.' }),
    ),
    notify: Type.Optional(
      Type.Array(Type.String({ minLength: 1, maxLength: 64 }), {
        maxItems: MAX_NOTIFIED,
        uniqueItems: true,
        default: ['owners'],
        description:
          'Members mailed each notice: `owners` (every owner of the account) and user ids of members. `[]`: nobody (webhooks only).',
      }),
    ),
    remindEvery: Type.Optional(
      Nullable(
        Type.String({
          maxLength: 16,
          default: null,
          description: '`<n>m|h`: while down, `monitor.down` again (with `reminder: true`) this often; null: never.',
          examples: ['1h'],
        }),
      ),
    ),
  },
  { description: 'Who is told of a change of state, and when. Fields left out take their defaults.' },
);

/** The fields of a monitor, each as a change may give it alone. */
const fields = {
  name: Type.String({ minLength: 1, maxLength: 100, description: 'A label for your own reference.', examples: ['Shop front page'] }),
  tool: StringEnum([...CATALOGUE.keys()], { description: 'The catalogue tool each run calls.', examples: ['http-request'] }),
  input: Type.Unsafe<Record<string, unknown>>({
    type: 'object',
    description:
      "The tool's input, as `POST /api/v1/tools/{tool}` takes it (validated the same way; secret fields cannot be kept by a monitor).",
    examples: [{ url: 'https://example.com/', method: 'GET' }],
  }),
  schedule,
  assertions: Type.Array(assertion, {
    maxItems: MAX_ASSERTIONS,
    description: 'Checks of each answer; none: a run passes when the call answers 200.',
  }),
  alert: Type.Optional(alert),
  paused: Type.Optional(Type.Boolean({ description: 'Created or set paused: no runs until resumed (`paused: false`).' })),
  monthlyCreditLimit: Type.Optional(
    Nullable(
      Type.Integer({
        minimum: 1,
        description:
          "Credits the monitor's runs may spend per calendar month (UTC); a run past it is refused free and the monitor pauses (`stateReason: monitor_credit_limit`). null: no cap.",
      }),
    ),
  ),
};

/** A new monitor: all required but the alert, `paused` and the cap. */
export const CreateMonitorBody = ClosedObject(fields);
export type MonitorBody = Static<typeof CreateMonitorBody>;

/** A change: any field, those left out stay. */
export const UpdateMonitorBody = Type.Partial(ClosedObject(fields), {
  minProperties: 1,
  description:
    'Any field of a monitor; those left out stay. `paused: true` pauses it, `paused: false` resumes it (judged afresh, as a new monitor).',
});
export type MonitorChange = Static<typeof UpdateMonitorBody>;
