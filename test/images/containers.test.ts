//! The service as its five role containers, run as production runs them (scripts/images/containers.ts):
//! each healthy; inside each, the app as user 1000 with no capabilities, no new privileges, a seccomp
//! filter and a read-only root; a call served by each pool's container through the API's, charged
//! once; a webhook and a sign-up mail sent by the core container; Chromium rendering with its sandbox
//! and LibreOffice converting offline (a linked image it must not fetch, and a control container
//! without the isolation that does fetch it); a worker stopped mid-call drains it, charged once.
import test from 'ava';
import { appendFileSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import {
  containerLogs,
  containerState,
  execIn,
  removeContainer,
  startRoleContainer,
  stopContainer,
  type Role,
  type RoleContainerOptions,
} from '../../scripts/images/containers.js';
import { balanceOf, callTool, newAccount, request, type Answer, type TestAccount } from '../helpers/api.js';
import { registerEndpoint, startReceiver } from '../helpers/webhook-receiver.js';
import { client, signUp } from '../helpers/people.js';
import { verifyWebhook } from '../../lib/webhook-signature.js';
import { startBrowserPages } from '../fixtures/browser-pages.js';
import type { PageServer } from '../fixtures/http-pages.js';
import { makeOdt, readPdf } from '../fixtures/documents.js';
import { startFileServer, type FileServer } from '../fixtures/file-server.js';
import { makeImage } from '../fixtures/images.js';
import { processStatus, statusOfApp, renderersOf, sofficesOf, metricValue } from './support/inside.js';

const containers = JSON.parse(readFileSync(process.env.CONTAINERS_JSON!, 'utf8')) as Record<Role, RoleContainerOptions>;
const ROLES = Object.keys(containers) as Role[];
const nameOf = (role: Role) => containers[role].name;
const operatorUrl = (role: Role) => `http://127.0.0.1:${containers[role].env.METRICS_PORT}`;

let costs: Record<string, number>;
let files: FileServer;
let pages: PageServer;

/** Each call's outcome, for the run's closing line (scripts/test-images.mjs). */
function record(tool: string, chargedOnce: boolean) {
  appendFileSync(process.env.IMAGES_RESULTS!, `${JSON.stringify({ tool, chargedOnce })}\n`);
}

/** Calls a tool on a fresh account and checks it was charged its cost exactly once. */
async function callChargedOnce(t: { is: (a: unknown, b: unknown, m?: string) => void }, tool: string, input: unknown) {
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, tool, input);
  t.is(res.status, 200, `${tool}: ${JSON.stringify(res.body).slice(0, 400)}`);
  const charged = Number(res.headers.get('x-credits-charged'));
  const balance = await balanceOf(account);
  const once = res.status === 200 && charged === costs[tool] && balance === 100 - costs[tool]!;
  t.is(balance, 100 - costs[tool]!, `${tool}: charged ${costs[tool]} once`);
  record(tool, once);
  return res;
}

test.before(async () => {
  const catalogue = await request('GET', '/api/v1/tools');
  costs = Object.fromEntries(catalogue.body.tools.map((tool: { name: string; cost: number }) => [tool.name, tool.cost]));
  files = await startFileServer();
  pages = await startBrowserPages();
});
test.after.always(async () => {
  await files?.close();
  await pages?.close();
});

test.serial('every container answers its health: the API its readiness, each worker its /healthz', async (t) => {
  for (const role of ROLES) {
    const url = role === 'api' ? `http://127.0.0.1:${containers.api.env.PORT}/readyz` : `${operatorUrl(role)}/healthz`;
    const res = await fetch(url);
    t.is(res.status, 200, `${role}: ${await res.text()}`);
  }
});

test.serial(
  'inside every container the app runs as 1000 with no capabilities, no new privileges, a seccomp filter and a read-only root',
  async (t) => {
    for (const role of ROLES) {
      const status = await statusOfApp(nameOf(role));
      t.regex(status.Uid ?? '', /^1000\s+1000\s+1000\s+1000$/, `${role} uid`);
      t.regex(status.Gid ?? '', /^1000\s+1000\s+1000\s+1000$/, `${role} gid`);
      t.is(status.NoNewPrivs, '1', `${role} NoNewPrivs`);
      t.is(status.Seccomp, '2', `${role} seccomp filtering`);
      for (const set of ['CapInh', 'CapPrm', 'CapEff', 'CapBnd', 'CapAmb']) t.is(status[set], '0000000000000000', `${role} ${set}`);
      const write = await execIn(nameOf(role), ['sh', '-c', 'echo x > /app/probe']);
      t.not(write.code, 0, `${role} wrote into /app`);
      t.regex(write.output, /Read-only file system/, role);
      t.is((await execIn(nameOf(role), ['sh', '-c', 'echo x > /tmp/probe && rm /tmp/probe'])).code, 0, `${role} /tmp writable`);
    }
  },
);

test.serial('each worker container starts from the workflow bundle built into its image, bundling nothing', async (t) => {
  for (const role of ROLES.filter((r) => r !== 'api')) {
    const logs = await containerLogs(nameOf(role), 100_000);
    const polling = logs.split('\n').find((line) => line.includes('"workers polling"'));
    t.truthy(polling, `${role}: polling`);
    t.is(JSON.parse(polling!).bundleFromCache, true, `${role}: ${polling}`);
    t.notRegex(logs, /workflow bundle not cached/, role);
  }
});

test.serial('a call served by each pool through the API container, each charged its cost once', async (t) => {
  const before = await Promise.all(
    (['worker-cpu', 'worker-browser', 'worker-network'] as const).map((r) => metricValue(operatorUrl(r), 'tool_duration_seconds_count')),
  );
  await callChargedOnce(t, 'hash-text', { text: 'hello' });
  const qr = await callChargedOnce(t, 'qr-generate', { text: 'https://example.com/images' });
  t.is(qr.body.mimeType, 'image/png');
  const image = await callChargedOnce(t, 'html-to-image', { html: '<h1 style="color:#c00">Made in a container</h1>' });
  t.is(image.body.mimeType, 'image/png');
  const shot = await callChargedOnce(t, 'website-screenshot', { url: pages.url('/browser/title') });
  t.like(shot.body, { mimeType: 'image/png', width: 1440, height: 900 });
  const dns = await callChargedOnce(t, 'dns-lookup', { hostname: 'mail.test', recordType: 'MX' });
  t.like(dns.body, { hostname: 'mail.test', found: true });
  const upscaled = await callChargedOnce(t, 'image-upscale', {
    fileUrl: files.put('/small.png', await makeImage('png', 32, 24, 0xff0000ff)),
    factor: 2,
  });
  t.like(upscaled.body, { width: 64, height: 48 });
  const after = await Promise.all(
    (['worker-cpu', 'worker-browser', 'worker-network'] as const).map((r) => metricValue(operatorUrl(r), 'tool_duration_seconds_count')),
  );
  // Each pool's own container ran tools (their durations are recorded where they ran).
  after.forEach((count, i) => t.true(count > before[i]!, `pool ${i} recorded its tool runs`));
});

test.serial(
  'word-to-pdf converts in the cpu container while LibreOffice reaches no network: its linked image is never fetched',
  async (t) => {
    const odt = makeOdt(['Converted in a container'], { linkedImageUrl: `${files.origin}/linked-isolated.png` });
    files.put('/linked-isolated.png', { body: await makeImage('png', 8, 8, 0x00ff00ff), contentType: 'image/png' });
    const res = await callChargedOnce(t, 'word-to-pdf', { fileUrl: files.put('/isolated.odt', odt) });
    t.deepEqual((await readPdf(Buffer.from(res.body.fileBase64, 'base64'))).pages, ['Converted in a container']);
    t.is(files.hits('/linked-isolated.png'), 0, 'no request reached the file server');
    // Its listeners live in namespaces of their own: a nested PID namespace, and only a loopback.
    const soffices = await sofficesOf(nameOf('worker-cpu'));
    t.true(soffices.length >= 1, 'soffice runs');
    for (const pid of soffices) {
      const status = await processStatus(nameOf('worker-cpu'), pid);
      t.true((status.NSpid ?? '').split(/\s+/).length >= 2, `soffice ${pid} in a nested PID namespace: ${status.NSpid}`);
      const dev = await execIn(nameOf('worker-cpu'), ['cat', `/proc/${pid}/net/dev`]);
      t.deepEqual(
        dev.output
          .split('\n')
          .slice(2)
          .map((l) => l.split(':')[0]!.trim())
          .filter(Boolean),
        ['lo'],
        `soffice ${pid}'s interfaces`,
      );
    }
  },
);

test.serial(
  'the control: a cpu container whose LibreOffice is not isolated does fetch the linked image, so the check above can see a fetch',
  async (t) => {
    const cpu = containers['worker-cpu'];
    const control = { ...cpu, name: `${cpu.name}-open`, env: { ...cpu.env, OFFICE_NETWORK_ISOLATION: 'none' } };
    await removeContainer(cpu.name);
    try {
      await startRoleContainer(control);
      const odt = makeOdt(['Converted without isolation'], { linkedImageUrl: `${files.origin}/linked-open.png` });
      files.put('/linked-open.png', { body: await makeImage('png', 8, 8, 0x00ff00ff), contentType: 'image/png' });
      await callChargedOnce(t, 'word-to-pdf', { fileUrl: files.put('/open.odt', odt) });
      t.true(files.hits('/linked-open.png') >= 1, 'not isolated: LibreOffice requested the linked image');
    } finally {
      await removeContainer(control.name);
      await startRoleContainer(cpu);
    }
  },
);

test.serial(
  'Chromium renders with its sandbox in the browser container: its renderers in namespaces of their own, under its own seccomp filter',
  async (t) => {
    const browser = nameOf('worker-browser');
    // A capture just ran; another makes sure a renderer is alive while we look.
    await callChargedOnce(t, 'html-to-image', { html: '<p>sandboxed</p>' });
    const renderers = await renderersOf(browser);
    t.true(renderers.length >= 1, 'a renderer runs');
    for (const { pid, args } of renderers) {
      t.false(args.includes('--no-sandbox'), `renderer ${pid} runs without --no-sandbox`);
      const status = await processStatus(browser, pid);
      t.true((status.NSpid ?? '').split(/\s+/).length >= 2, `renderer ${pid} in a nested PID namespace: ${status.NSpid}`);
      t.true(Number(status.Seccomp_filters) >= 2, `renderer ${pid}: the container's filter and Chromium's own (${status.Seccomp_filters})`);
      t.is(status.CapEff, '0000000000000000');
    }
    const browsers = (await renderersOf(browser, 'chromium-headless-shell')).filter((p) => !p.args.includes('--type='));
    t.true(browsers.length >= 1 && browsers.every((p) => !p.args.includes('--no-sandbox')), 'the browser starts without --no-sandbox');
  },
);

test.serial('the core container delivers a signed webhook and sends a sign-up mail', async (t) => {
  const receiver = await startReceiver();
  try {
    const account = await newAccount(10);
    const endpoint = await registerEndpoint(account, receiver.url('/images'));
    const sent = await request('POST', `/api/v1/account/webhooks/${endpoint.id}/test`, { token: account.ownerToken });
    t.is(sent.status, 202);
    const isTest = (d: { body: { event?: string } }) => d.body?.event === 'webhook.test';
    const delivery = (await receiver.waitFor((all) => all.some(isTest), 60_000, 'the test event')).find(isTest);
    t.true(verifyWebhook(endpoint.secret, delivery!.headers, delivery!.rawBody, delivery!.receivedAt));
  } finally {
    await receiver.close();
  }
  const person = await signUp(client());
  t.truthy(person.accountId, 'the mailed link verified the address');
});

test.serial(
  'a worker stopped in the middle of calls drains them: each answers 200, charged once, and it leaves before its grace period',
  async (t) => {
    const cpu = containers['worker-cpu'];
    // A second cpu worker beside it, as production runs more than one.
    const second = { ...cpu, name: `${cpu.name}-2`, env: { ...cpu.env, METRICS_PORT: String(Number(cpu.env.METRICS_PORT) + 1) } };
    await startRoleContainer(second);
    try {
      const source = files.put('/drain.png', await makeImage('png', 128, 96, 0x3366ccff));
      const accounts: TestAccount[] = await Promise.all([0, 1, 2, 3].map(() => newAccount(100)));
      const calls: Promise<Answer>[] = accounts.map((a) => callTool(a.apiKey, 'image-upscale', { fileUrl: source, factor: 4 }));
      // Stop the first once it is running a call (its local activity slots say so), not after a guess at its pace.
      for (;;) {
        const busy = await metricValue(operatorUrl('worker-cpu'), 'temporal_worker_task_slots_used', 'worker_type="LocalActivityWorker"');
        if (busy > 0) break;
        await sleep(50);
      }
      await stopContainer(cpu.name);
      const { running, exitCode } = await containerState(cpu.name);
      t.false(running);
      t.not(exitCode, 137, 'it ended on its own, not killed at the end of its grace period');
      const answers = await Promise.all(calls);
      for (const [i, res] of answers.entries()) {
        t.is(res.status, 200, JSON.stringify(res.body).slice(0, 300));
        const once = (await balanceOf(accounts[i]!)) === 100 - costs['image-upscale']!;
        t.true(once, `call ${i} charged once`);
        record('image-upscale', once && res.status === 200);
      }
    } finally {
      await removeContainer(second.name);
    }
  },
);
