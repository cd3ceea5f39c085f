// The main phase of `npm test` (scripts/test.mjs): every suite but the disruptive, cluster, image,
// Kubernetes and trace ones, four files at a time against the one test stack.
import { TYPESCRIPT_TESTS } from './ava.shared.mjs';
import path from 'node:path';

/**
 * The files that take longest, longest first. ava starts files in this order and the rest after
 * them (alphabetically): a long file started last would run on alone while the other slots sit
 * idle, so the long ones go first and the short ones fill the gaps at the end. Order only: a
 * file missing here still runs. Refresh from a run's per-file times when the list drifts.
 */
export const LONGEST_FIRST = [
  'test/tools/website-screenshot-http.test.ts',
  'test/tools/website-screenshot-capture.test.ts',
  'test/tools/website-screenshot-network.test.ts',
  'test/dashboard/layout.test.ts',
  'test/scripts/stack/wiredtiger-settings.test.ts',
  'test/docs/python-client.test.ts',
  'test/tools/image-upscale.test.ts',
  'test/workflows/tool-call-task-retry.test.ts',
  'test/tools/word-to-pdf.test.ts',
  'test/dashboard/people.test.ts',
  'test/workflows/tool-call-outcomes.test.ts',
  'test/workflows/tool-call-steps.test.ts',
  'test/monitors/visual.test.ts',
  'test/webhooks/failures.test.ts',
  'test/workflows/batch-runner-runs.test.ts',
  'test/workflows/batch-runner-yield.test.ts',
  'test/dashboard/router.test.ts',
  'test/dashboard/form-refusals.test.ts',
  'test/dashboard/team-members.test.ts',
  'test/dashboard/team-sign-in-policy.test.ts',
  'test/monitors/credits.test.ts',
  'test/dashboard/session.test.ts',
  'test/client/package.test.ts',
  'test/dashboard/keys-usage.test.ts',
  'test/webhooks/delivery.test.ts',
  'test/workflows/webhook-endpoint.test.ts',
  'test/mcp/conformance.test.ts',
  'test/api/destinations-output.test.ts',
  'test/api/destinations-setup.test.ts',
  'test/billing/auto-recharge.test.ts',
  'test/identity/settings.test.ts',
  'test/api/secrets.test.ts',
  'test/activities/browser/page-activity.test.ts',
  'test/dashboard/webhook-requests.test.ts',
  'test/dashboard/webhooks.test.ts',
  'test/api/openapi.test.ts',
  'test/tools/html-to-image.test.ts',
];

const root = path.dirname(new URL(import.meta.url).pathname);
const rank = new Map(LONGEST_FIRST.map((file, i) => [path.join(root, file), i]));

export default {
  files: ['test/**/*.test.ts', '!test/disruptive/**', '!test/cluster/**', '!test/traces/**', '!test/k8s/**', '!test/images/**'],
  ...TYPESCRIPT_TESTS,
  timeout: '2m',
  // Four at a time: much of a file's time is waiting (pages going idle, mail, deliveries), so the
  // third and fourth use the cores the others leave idle (docs/DEVELOPING.md has the figures).
  concurrency: 4,
  sortTestFiles: (a, b) => (rank.get(a) ?? Infinity) - (rank.get(b) ?? Infinity) || a.localeCompare(b),
};
