//! smtp-test: connects to a mail server through the target guard, reads the banner, sends EHLO,
//! upgrades with STARTTLS where offered (or speaks implicit TLS on 465 / `ssl`), reports the
//! certificate and, only when credentials were given, whether AUTH PLAIN or LOGIN accepts them.
//! Then QUIT: it never sends MAIL FROM, so it cannot send mail. Credentials never appear in a
//! step's reply, an error or a log line.
import type tls from 'node:tls';
import { precheck, type SmtpStep, type SmtpTestInput, type SmtpTestOutput } from '../../domain/tools/smtp-test.js';
import { ToolError } from '../../contracts/errors.js';
import type { NetworkAccess } from '../../lib/network-access.js';
import type { ResolvedTarget } from '../../lib/target-guard.js';
import type { ToolHandler } from '../../domain/tools/index.js';
import { summariseCertificate } from '../network/certificate-summary.js';
import { createSmtpConversation, type SmtpConversation, type SmtpLimits } from '../network/smtp-conversation.js';
import {
  capabilities,
  chooseMechanism,
  formatReply,
  loginResponse,
  plainResponse,
  redact,
  type Capabilities,
  type SmtpReply,
} from '../network/smtp-replies.js';

export interface SmtpTestDeps {
  net: Pick<NetworkAccess, 'sockets'>;
  /**
   * Whole session deadline, milliseconds: a server that drips bytes slowly cannot hold a worker
   * longer than this. @default 20000 (the catalogue's timeout leaves room for retries around it).
   */
  deadlineMs?: number;
  /** Name sent with EHLO. @default 'utility-tools.invalid' (no real host name of ours is disclosed). */
  ehloName?: string;
  limits?: SmtpLimits;
}

const elapsed = (since: number) => Math.round(performance.now() - since);

/** An AbortSignal that fires at the deadline (with an upstream timeout) or when the call is cancelled. */
function sessionDeadline(ms: number, where: string, caller: AbortSignal) {
  const controller = new AbortController();
  const timer = setTimeout(
    () =>
      controller.abort(
        new ToolError('upstream_error', `${where} did not finish the SMTP session within ${ms / 1000} s`, { reason: 'timeout' }),
      ),
    ms,
  );
  const onCancel = () => controller.abort(caller.reason);
  if (caller.aborted) onCancel();
  else caller.addEventListener('abort', onCancel, { once: true });
  return {
    signal: controller.signal,
    clear() {
      clearTimeout(timer);
      caller.removeEventListener('abort', onCancel);
    },
  };
}

function rejected(where: string, what: string, reply: SmtpReply): ToolError {
  return new ToolError('upstream_error', `${where} refused the session at ${what}: ${formatReply(reply, 300)}`, {
    reason: 'smtp_rejected',
    smtpCode: reply.code,
  });
}

export function createSmtpTest({
  net,
  deadlineMs = 20_000,
  ehloName = 'utility-tools.invalid',
  limits = {},
}: SmtpTestDeps): ToolHandler<SmtpTestInput, SmtpTestOutput> {
  return async (input, ctx) => {
    precheck(input);
    const { username, password } = input.username && input.password ? input : { username: undefined, password: undefined };
    const implicitTls = input.port === 465 || input.encryption === 'ssl';
    const where = `${input.host}:${input.port}`;
    const deadline = sessionDeadline(deadlineMs, where, ctx.signal);
    const steps: SmtpStep[] = [];
    const step = (name: string, since: number, reply: string) =>
      steps.push({ step: name, ms: elapsed(since), reply: redact(reply, username, password) });

    let started = performance.now();
    const conn = await net.sockets
      .connect({
        host: input.host,
        port: input.port,
        tls: implicitTls,
        rejectUnauthorized: false,
        timeoutMs: deadlineMs,
        signal: deadline.signal,
      })
      .catch((err) => {
        deadline.clear(); // no session to end: the finally below is not reached
        throw err;
      });
    let socket = conn.socket;
    const target: ResolvedTarget = conn.target;
    const at = `${target.hostname}:${target.port}`;
    let tlsState = implicitTls
      ? { socket: conn.socket as tls.TLSSocket, authorized: conn.authorized ?? false, error: conn.authorizationError }
      : undefined;
    const converse = (s: typeof socket) =>
      createSmtpConversation(s, { ...limits, host: target.hostname, port: target.port, signal: deadline.signal });
    let smtp: SmtpConversation = converse(socket);

    try {
      const banner = await smtp.read();
      step('CONNECT', started, formatReply(banner));
      if (banner.code !== 220) throw rejected(at, 'the greeting', banner);

      const hello = async (): Promise<Capabilities> => {
        started = performance.now();
        const ehlo = await smtp.command(`EHLO ${ehloName}`);
        step('EHLO', started, formatReply(ehlo));
        if (ehlo.code === 250) return capabilities(ehlo);
        // A server without ESMTP: HELO has no capabilities to report.
        started = performance.now();
        const helo = await smtp.command(`HELO ${ehloName}`);
        step('HELO', started, formatReply(helo));
        if (helo.code !== 250) throw rejected(at, 'HELO', helo);
        return { extensions: [], authMechanisms: [], startTls: false };
      };

      let caps = await hello();
      let encryption: SmtpTestOutput['encryption'] = implicitTls ? 'implicit-tls' : 'none';
      if (!implicitTls && input.encryption === 'starttls' && caps.startTls) {
        started = performance.now();
        const answer = await smtp.command('STARTTLS');
        step('STARTTLS', started, formatReply(answer));
        if (answer.code === 220) {
          if (smtp.detach().unread)
            throw new ToolError('upstream_error', `${at} sent data before the TLS handshake (STARTTLS injection)`, { reason: 'protocol' });
          const upgraded = await net.sockets.startTls(socket, {
            hostname: target.hostname,
            rejectUnauthorized: false,
            timeoutMs: deadlineMs,
            signal: deadline.signal,
          });
          socket = upgraded.socket;
          tlsState = { socket: upgraded.socket, authorized: upgraded.authorized, error: upgraded.authorizationError };
          steps.push({
            step: 'TLS',
            ms: Math.round(upgraded.handshakeMs),
            reply: `${upgraded.socket.getProtocol() ?? 'TLS'} ${upgraded.socket.getCipher()?.name ?? ''}`.trim(),
          });
          smtp = converse(socket);
          encryption = 'starttls';
          // RFC 3207: the server forgets what it said before TLS; ask again.
          caps = await hello();
        }
      }

      let authSucceeded = false;
      if (username && password) {
        started = performance.now();
        const mechanism = chooseMechanism(caps.authMechanisms);
        if (encryption === 'none' && input.encryption !== 'none') {
          step(
            'AUTH',
            started,
            'not sent: the session is not encrypted (the server offered no STARTTLS); choose encryption none to send credentials in the clear',
          );
        } else if (!mechanism) {
          step(
            'AUTH',
            started,
            `not sent: the server offers neither PLAIN nor LOGIN (offered: ${caps.authMechanisms.join(' ') || 'none'})`,
          );
        } else {
          const reply = await authenticate(smtp, mechanism, username, password);
          step(`AUTH ${mechanism}`, started, formatReply(reply));
          authSucceeded = reply.code === 235;
        }
      }

      started = performance.now();
      try {
        step('QUIT', started, formatReply(await smtp.command('QUIT')));
      } catch {
        // A server that hangs up instead of answering QUIT has told us everything already.
      }

      const cert = tlsState ? summariseCertificate(tlsState.socket.getPeerCertificate()) : undefined;
      return {
        host: target.hostname,
        port: target.port,
        encryption,
        authAttempted: Boolean(username && password),
        authSucceeded,
        certificateSubject: cert?.subject ?? null,
        certificateIssuer: cert?.issuer ?? null,
        certificateExpiresUtc: cert?.validTo ?? null,
        certificateValid: tlsState ? tlsState.authorized : null,
        ...(tlsState && !tlsState.authorized ? { certificateError: tlsState.error ?? 'UNKNOWN' } : {}),
        banner: redact(banner.lines[0] ?? '', username, password),
        extensions: caps.extensions,
        authMechanisms: caps.authMechanisms,
        steps,
      };
    } catch (err) {
      // Past the deadline (or on cancellation) every pending read fails somehow; say why once.
      throw deadline.signal.aborted ? deadline.signal.reason : err;
    } finally {
      socket.destroy();
      conn.socket.destroy();
      deadline.clear();
    }
  };
}

/** One AUTH exchange; returns the server's final reply (235 accepted, 535 and others refused). */
async function authenticate(smtp: SmtpConversation, mechanism: 'PLAIN' | 'LOGIN', username: string, password: string): Promise<SmtpReply> {
  if (mechanism === 'PLAIN') {
    const reply = await smtp.command(`AUTH PLAIN ${plainResponse(username, password)}`);
    // A server that ignores the initial response asks for it with an empty 334.
    return reply.code === 334 ? smtp.command(plainResponse(username, password)) : reply;
  }
  let reply = await smtp.command('AUTH LOGIN');
  for (const value of [username, password]) {
    if (reply.code !== 334) return reply;
    reply = await smtp.command(loginResponse(value));
  }
  return reply;
}
