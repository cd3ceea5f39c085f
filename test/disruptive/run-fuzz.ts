//! `npm run fuzz`: the full fuzz run. schemathesis against /api/v1/openapi.json, every operation
//! (browser captures and file tools included), FUZZ_EXAMPLES (default 25) examples per operation
//! and phase, with an account of plenty of credits; prints cases, statuses and failures, and
//! exits 1 on a 500, an error answer that is not problem+json, or a failed check.
import path from 'node:path';
import { isErrorCode } from '../../contracts/errors.js';
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
import { withTestStack } from './support/test-like-stack.js';

const examples = Number(process.env.FUZZ_EXAMPLES ?? 25);

const failed = await withTestStack('fuzz', async (stack) => {
  const account = await openFuzzAccount(stack.apiUrl, stack.adminToken);
  const receiver = await startReceiver();
  const webhooks = await fuzzWebhookConfig(stack.apiUrl, account.ownerToken, receiver.url());
  const s3 = await startS3Server({ host: FIXTURE_HOST });
  await s3.createBucket('fuzz');
  const bucket = {
    type: 's3',
    bucket: 'fuzz',
    endpoint: s3.endpoint,
    accessKeyId: s3.env.S3_ACCESS_KEY_ID,
    secretAccessKey: s3.env.S3_SECRET_ACCESS_KEY,
  };
  const resources = resourceBindingsConfig(await fuzzResourceBindings(stack.apiUrl, account, bucket));
  const started = performance.now();
  const results = await runSchemathesis({
    apiUrl: stack.apiUrl,
    groups: fuzzGroups(
      { ...account, adminToken: stack.adminToken },
      [],
      webhooks + resources + unfuzzedConfig('account'),
      unfuzzedConfig('service'),
    ),
    maxExamples: examples,
    phases: 'examples,coverage,fuzzing',
    rate: '40/s',
    reportDir: path.join(stack.outputDir, 'schemathesis'),
    log: (line) => console.log(line),
  });
  const verdict = judge(results, isErrorCode);
  for (const r of results) console.log(`\n--- ${r.name} (exit ${r.exitCode})\n${r.failures}\n${r.summary}`);
  console.log(
    `\nfuzz: ${verdict.cases} cases in ${((performance.now() - started) / 1000).toFixed(0)} s; statuses ${JSON.stringify(verdict.statuses)}`,
  );
  console.log(`500 answers: ${verdict.serverErrors.length}; error answers not problem+json: ${verdict.notProblems.length}`);
  for (const e of [...verdict.serverErrors, ...verdict.notProblems].slice(0, 20))
    console.log(`  ${e.method} ${e.path} ${e.status} ${e.contentType} ${e.body.slice(0, 200)}`);
  await receiver.close();
  await s3.stop();
  return verdict.serverErrors.length > 0 || verdict.notProblems.length > 0 || results.some((r) => r.exitCode !== 0);
});
process.exit(failed ? 1 : 0);
