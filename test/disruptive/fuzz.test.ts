//! Fuzzing, bounded (in the disruptive phase, beside the cost bombs only: hundreds of calls a
//! minute would slow the suites of the main phase): schemathesis against /api/v1/openapi.json with a few examples per
//! operation (the browser captures and the slow file tools left out). No answer is a 500, every
//! error answer is problem+json with a contract code, and schemathesis' own checks pass (status
//! codes, content types, headers and bodies as documented; invalid input refused). `npm run
//! fuzz` is the full run.
import test from 'ava';
import path from 'node:path';
import { isErrorCode } from '../../contracts/errors.js';
import { testEnv } from '../helpers/env.js';
import { startReceiver } from '../helpers/webhook-receiver.js';
import { FIXTURE_HOST } from '../fixtures/http-pages.js';
import { startS3Server } from '../fixtures/s3-server.js';
import {
  fuzzGroups,
  fuzzResourceBindings,
  fuzzWebhookConfig,
  openFuzzAccount,
  resourceBindingsConfig,
  unfuzzedConfig,
} from './support/fuzz-account.js';
import { judge, runSchemathesis } from './support/schemathesis-run.js';

/** Deletes every monitor of the account (a page at a time). */
async function deleteMonitors(apiUrl: string, ownerToken: string): Promise<void> {
  const headers = { authorization: `Bearer ${ownerToken}` };
  for (;;) {
    const page = (await (await fetch(`${apiUrl}/api/v1/account/monitors?limit=100`, { headers })).json()) as {
      items: Array<{ id: string }>;
    };
    if (!page.items?.length) return;
    for (const m of page.items) await fetch(`${apiUrl}/api/v1/account/monitors/${m.id}`, { method: 'DELETE', headers });
  }
}

const SLOW_TOOLS = ['website-screenshot', 'html-to-image', 'broken-links', 'word-to-pdf', 'image-upscale'];

/**
 * Each group's pace, by its share of the requests (about 1,150 for the tools, 2,350 for the account,
 * 1,750 for the operator and the service), so the three end together (the run is CPU-bound: a group
 * left running alone at the end is time the others' cores sit idle): the two on the fuzz account stay
 * under its 60/s together; the operator's token has no account's rate, and the sign-in routes among
 * its operations keep their own per-address limit (a 429 is a documented answer).
 */
const GROUP_RATES: Record<string, string> = { tools: '19/s', account: '40/s', 'operator-and-service': '30/s' };

test('schemathesis: no 500, every error problem+json, every check passes', async (t) => {
  t.timeout(8 * 60_000);
  const account = await openFuzzAccount(testEnv.apiUrl(), testEnv.adminToken());
  const receiver = await startReceiver();
  t.teardown(() => receiver.close());
  const webhooks = await fuzzWebhookConfig(testEnv.apiUrl(), account.ownerToken, receiver.url());
  // A real bucket on the fixtures' address (which the stack's guard lets through) for the destinations.
  const s3 = await startS3Server({ host: FIXTURE_HOST });
  t.teardown(() => s3.stop());
  await s3.createBucket('fuzz');
  const bucket = {
    type: 's3',
    bucket: 'fuzz',
    endpoint: s3.endpoint,
    accessKeyId: s3.env.S3_ACCESS_KEY_ID,
    secretAccessKey: s3.env.S3_SECRET_ACCESS_KEY,
  };
  const resources = resourceBindingsConfig(await fuzzResourceBindings(testEnv.apiUrl(), account, bucket));
  // The monitors the run made or resumed would run on through the suites after it: gone with it.
  t.teardown(() => deleteMonitors(testEnv.apiUrl(), account.ownerToken));
  const results = await runSchemathesis({
    apiUrl: testEnv.apiUrl(),
    groups: fuzzGroups(
      { ...account, adminToken: testEnv.adminToken() },
      SLOW_TOOLS,
      webhooks + resources + unfuzzedConfig('account'),
      unfuzzedConfig('service'),
    ).map((group) => ({ ...group, rate: GROUP_RATES[group.name] })),
    maxExamples: 5,
    phases: 'examples,coverage,fuzzing',
    // The three groups at once, each at its GROUP_RATES pace (this one for any other).
    together: true,
    rate: '25/s',
    reportDir: path.join(testEnv.outputDir(), 'schemathesis'),
    log: (line) => t.log(line),
  });
  const verdict = judge(results, isErrorCode);
  t.log(`${verdict.cases} cases; statuses ${JSON.stringify(verdict.statuses)}`);
  t.true(verdict.cases > 500, 'schemathesis ran');
  t.deepEqual(
    verdict.serverErrors.map((e) => `${e.method} ${e.path}: ${e.body.slice(0, 200)}`),
    [],
  );
  t.deepEqual(
    verdict.notProblems.map((e) => `${e.method} ${e.path} ${e.status} ${e.contentType}`),
    [],
  );
  for (const r of results) t.is(r.exitCode, 0, `${r.name}:\n${r.failures || r.summary}`);
  // Every operation reached its code at least once: none only ever answered 404.
  for (const r of results) t.notRegex(r.summary + r.failures, /repeatedly returned 404/, r.name);
});
