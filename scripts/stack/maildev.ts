//! MailDev (npm `maildev`, a dev dependency, so `npm ci` installed it): a real SMTP server with a
//! web inbox, which `npm start` and the test stacks hand the service's mail to. Its REST API lists
//! what arrived (`GET /api/email`); its page is served only to requests that accept `text/html`
//! (a browser's do; curl's `*/*` gets a 404).
import { existsSync, mkdirSync } from 'node:fs';
import net from 'node:net';
import path from 'node:path';
import { assertPortFree, waitForHttp, waitUntil } from './net.js';
import { redactUrl } from './services.js';
import type { ManagedProcess, Supervisor } from './supervisor.js';

export interface MailDevOptions {
  /** Repository root: MailDev runs from its node_modules. */
  root: string;
  smtpPort: number;
  /** The inbox page and the REST API. */
  webPort: number;
  /** Where mail is kept across restarts (`npm start`); in memory when unset. */
  mailDirectory?: string;
  /** Fail with this hint when a port is taken (fixed ports); unset: not checked (free ports). */
  portHint?: string;
  /** Process name (log file `<name>.log`). Default `maildev`. */
  name?: string;
  /** How long it may take to answer. Default 60 s. */
  timeoutMs?: number;
}

export interface RunningMailDev {
  /** SMTP_URL for the service: plain SMTP, no login. */
  smtpUrl: string;
  /** The inbox page for a person's browser, e.g. `http://localhost:1080`. */
  webUrl: string;
  /** The same server for programs (the REST API under `/api/`), by address: `http://127.0.0.1:1080`. */
  apiUrl: string;
  process: ManagedProcess;
}

/** MailDev's CLI inside node_modules (its package exports no bin path, so by file). */
export function mailDevBinary(root: string): string {
  return path.join(root, 'node_modules', 'maildev', 'dist', 'bin', 'maildev.js');
}

/** Answers once something accepts a TCP connection on 127.0.0.1:port. */
function tcpOpen(port: number): Promise<boolean> {
  return new Promise((resolve, reject) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    socket.setTimeout(2_000, () => socket.destroy(new Error(`no answer on port ${port}`)));
    socket.once('connect', () => {
      socket.end();
      resolve(true);
    });
    socket.once('error', reject);
  });
}

export async function startMailDev(supervisor: Supervisor, options: MailDevOptions): Promise<RunningMailDev> {
  const binary = mailDevBinary(options.root);
  if (!existsSync(binary)) throw new Error(`MailDev is not installed (${path.relative(process.cwd(), binary)} is missing): run npm ci`);
  if (options.portHint !== undefined) {
    await assertPortFree(options.smtpPort, 'MailDev SMTP', options.portHint);
    await assertPortFree(options.webPort, 'MailDev inbox', options.portHint);
  }
  const args = ['--smtp', String(options.smtpPort), '--ip', '127.0.0.1', '--web', String(options.webPort), '--web-ip', '127.0.0.1'];
  if (options.mailDirectory) {
    mkdirSync(options.mailDirectory, { recursive: true });
    args.push('--mail-directory', options.mailDirectory);
  }
  // Its MAILDEV_* variables would override the flags (a login on the inbox, other ports): not here.
  const env = Object.fromEntries(Object.entries(process.env).filter(([name]) => !name.startsWith('MAILDEV_')));
  const proc = supervisor.start({
    name: options.name ?? 'maildev',
    command: process.execPath,
    args: [binary, ...args],
    env,
    cwd: options.root,
    layer: 0,
    stopTimeoutMs: 5_000,
  });
  const apiUrl = `http://127.0.0.1:${options.webPort}`;
  const wait = { timeoutMs: options.timeoutMs ?? 60_000, processes: [proc] };
  await Promise.all([
    waitForHttp(`${apiUrl}/api/healthz`, { what: 'MailDev inbox', ...wait }),
    waitUntil(() => tcpOpen(options.smtpPort), { what: 'MailDev SMTP', ...wait }),
  ]);
  return { smtpUrl: `smtp://127.0.0.1:${options.smtpPort}`, webUrl: `http://localhost:${options.webPort}`, apiUrl, process: proc };
}

/** Where `npm start` and `npm run start:cluster` run MailDev: its own default ports. */
export const LOCAL_MAILDEV_PORTS = { smtp: 1025, web: 1080 } as const;

/**
 * The apps' mail settings of a local start, known before MailDev answers (its ports are fixed),
 * so the apps can start beside it: nothing when the user set SMTP_URL, else the local MailDev.
 */
export function localMailEnv(): NodeJS.ProcessEnv {
  return process.env.SMTP_URL ? {} : { SMTP_URL: `smtp://127.0.0.1:${LOCAL_MAILDEV_PORTS.smtp}` };
}

export interface LocalMail {
  /** What the apps need on top of the user's environment: SMTP_URL of the MailDev started, or nothing. */
  env: NodeJS.ProcessEnv;
  /** The start summary's line: the inbox to open, or the mail server SMTP_URL names. */
  line: string;
}

/** The start summary's line of a local MailDev. */
export function inboxLine(mailDev: Pick<RunningMailDev, 'webUrl' | 'smtpUrl'>): string {
  return `  Inbox        ${mailDev.webUrl}  (MailDev: every mail the service sends, e.g. a sign-up's verification; SMTP ${mailDev.smtpUrl})`;
}

/**
 * The mail of a local start: the server SMTP_URL names when the user set one, else a MailDev on
 * LOCAL_MAILDEV_PORTS that keeps its mail in `mailDirectory` across restarts. An npm package,
 * installed with the rest: nothing to fetch or build. It takes a few seconds on a busy machine,
 * so the starts run it beside their other parts, never before them.
 */
export async function startLocalMail(supervisor: Supervisor, options: { root: string; mailDirectory: string }): Promise<LocalMail> {
  if (process.env.SMTP_URL) return { env: {}, line: `  Mail         ${redactUrl(process.env.SMTP_URL)} (SMTP_URL)` };
  const mailDev = await startMailDev(supervisor, {
    root: options.root,
    smtpPort: LOCAL_MAILDEV_PORTS.smtp,
    webPort: LOCAL_MAILDEV_PORTS.web,
    mailDirectory: options.mailDirectory,
    portHint: 'another MailDev? set SMTP_URL=smtp://127.0.0.1:1025 to send to it, or stop it',
  });
  return { env: localMailEnv(), line: inboxLine(mailDev) };
}
