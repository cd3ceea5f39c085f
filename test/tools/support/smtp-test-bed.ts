//! smtp-test's handler called directly, no stack (test/tools/smtp-test-*.test.ts): the tool behind a
//! target guard on the fixture DNS server that allowlists the fixture addresses, and the SMTP
//! servers a file asks for: nodemailer's smtp-server with STARTTLS, implicit TLS and AUTH on the
//! mail ports the tool accepts, or raw servers that misbehave on port 25 of addresses of their own.
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import test, { type ExecutionContext } from 'ava';
import { plainResponse } from '../../../activities/network/smtp-replies.js';
import { createSmtpTest } from '../../../activities/tools/smtp-test.js';
import type { SmtpTestInput, SmtpTestOutput } from '../../../domain/tools/smtp-test.js';
import { createGuardedSockets } from '../../../lib/guarded-sockets.js';
import { createResolver } from '../../../lib/resolver.js';
import { createTargetGuard } from '../../../lib/target-guard.js';
import { standaloneContext } from '../../../domain/tools/index.js';
import { FIXTURE_NAMES as N, startDnsServer, type DnsServer } from '../../fixtures/dns-server.js';
import {
  FIXTURE_USERS,
  startRawSmtp,
  startSmtpServer,
  type RawBehaviour,
  type RawFixture,
  type SmtpFixture,
} from '../../fixtures/smtp-server.js';
import { caFromEnv, createCa, issueLeaf, selfSigned } from '../../fixtures/tls-certs.js';
import { compileToolSchemas, validInput } from '../../helpers/tools.js';

export const schemas = compileToolSchemas('smtp-test');
export const ctx = standaloneContext();
export const [USER, PASSWORD] = Object.entries(FIXTURE_USERS)[0]!;

/** Raw misbehaving servers, each on port 25 of its own loopback address (only 4 ports are allowed). */
export const RAW: Record<RawBehaviour, string> = {
  drip: '127.0.0.4',
  'huge-line': '127.0.0.5',
  reject: '127.0.0.6',
  garbage: '127.0.0.7',
  injection: '127.0.0.8',
  'helo-only': '127.0.0.9',
  'echo-auth': '127.0.0.10',
};

let dns: DnsServer;
export let smtp: ReturnType<typeof createSmtpTest>;
/** A tool with a short session deadline, for the dripping server. */
export let impatient: ReturnType<typeof createSmtpTest>;
export const fixtures: Record<string, SmtpFixture> = {};
const raws: RawFixture[] = [];

/**
 * The file's tool and servers. `servers`: the smtp-server fixtures, on fixed ports of 127.0.0.2 and
 * 127.0.0.3 (so one file only may start them); `raw`: the misbehaving ones.
 */
export function useSmtpTool(options: { servers?: boolean; raw?: boolean }): void {
  test.before(async () => {
    const ca = process.env.TEST_CA_CERT ? await caFromEnv() : await createCa(await mkdtemp(path.join(os.tmpdir(), 'smtp-test-ca-')));
    if (options.servers) {
      const [cert, self] = await Promise.all([issueLeaf(ca, { names: [N.fixture, '127.0.0.2', '127.0.0.3'] }), selfSigned([N.fixture])]);
      // 127.0.0.2: the address the test stack allowlists, on every port smtp-test accepts but 25 (kept closed).
      fixtures.starttls = await startSmtpServer({ port: 2525, tls: cert });
      fixtures.implicit = await startSmtpServer({ port: 465, tls: cert, implicitTls: true });
      fixtures.plain = await startSmtpServer({ port: 587, allowInsecureAuth: true });
      fixtures.loginOnly = await startSmtpServer({ host: '127.0.0.3', port: 587, tls: cert, authMethods: ['LOGIN'] });
      fixtures.selfSigned = await startSmtpServer({ host: '127.0.0.3', port: 465, tls: self, implicitTls: true });
    }
    if (options.raw)
      for (const [behaviour, host] of Object.entries(RAW)) raws.push(await startRawSmtp(behaviour as RawBehaviour, { host, port: 25 }));

    dns = await startDnsServer();
    const allowlist = ['127.0.0.2/32', '127.0.0.3/32', ...Object.values(RAW).map((ip) => `${ip}/32`)];
    const guard = createTargetGuard({ allowlist, resolver: createResolver({ servers: [dns.address] }) });
    const net = { sockets: createGuardedSockets({ guard, ca: ca.cert }) };
    smtp = createSmtpTest({ net });
    impatient = createSmtpTest({ net, deadlineMs: 1_500 });
  });
  test.after.always(async () => {
    await Promise.allSettled([...Object.values(fixtures).map((f) => f.close()), ...raws.map((r) => r.close()), dns?.close()]);
  });
}

export async function run(t: ExecutionContext, fields: Partial<SmtpTestInput>, tool = smtp): Promise<SmtpTestOutput> {
  const out = await tool(validInput<SmtpTestInput>(t, schemas.input, fields), ctx);
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return out;
}

export const stepNames = (out: SmtpTestOutput) => out.steps.map((s) => s.step);

/** No trace of the credentials in anything the tool answers. */
export function assertNoCredentials(t: ExecutionContext, out: unknown) {
  const text = JSON.stringify(out);
  for (const secret of [PASSWORD, USER, Buffer.from(PASSWORD).toString('base64'), plainResponse(USER, PASSWORD)])
    t.false(text.includes(secret), `leaked ${secret}`);
}
