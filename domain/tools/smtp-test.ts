//! smtp-test: a mail server's greeting, TLS and (with credentials) authentication, never sending
//! mail. Its precheck needs no I/O: the port is one of the mail ports the service talks to
//! (25, 465, 587, 2525, docs/API.md; anything else is 422 `port_not_allowed`, so the tool cannot be
//! pointed at other services), and credentials come as a pair.
import { ToolError, invalidField } from '../../contracts/errors.js';
import { defineTool, FAILURES } from './definition.js';

export const SMTP_PORTS = [25, 465, 587, 2525] as const;

export interface SmtpTestInput {
  host: string;
  port: number;
  encryption: 'starttls' | 'ssl' | 'none';
  username?: string;
  password?: string;
}

export interface SmtpStep {
  /** CONNECT, EHLO, HELO, STARTTLS, TLS, AUTH or QUIT. */
  step: string;
  ms: number;
  /** The server's reply as sent (credentials redacted), or what the client observed. */
  reply: string;
}

export interface SmtpTestOutput {
  /** Additive: the host connected to (normalised). */
  host: string;
  /** Additive: the port connected to. */
  port: number;
  encryption: 'starttls' | 'implicit-tls' | 'none';
  authAttempted: boolean;
  authSucceeded: boolean;
  certificateSubject: string | null;
  certificateIssuer: string | null;
  certificateExpiresUtc: string | null;
  /** Additive: whether the certificate chain is trusted and covers the host; null without TLS. */
  certificateValid: boolean | null;
  /** Additive: why not, when certificateValid is false. */
  certificateError?: string;
  /** Additive: the server's greeting line. */
  banner: string;
  extensions: string[];
  authMechanisms: string[];
  steps: SmtpStep[];
}

export function precheck(input: SmtpTestInput): void {
  if (!(SMTP_PORTS as readonly number[]).includes(input.port)) {
    throw new ToolError(
      'port_not_allowed',
      `Port ${input.port} is not a mail submission or relay port; use one of ${SMTP_PORTS.join(', ')}.`,
      {
        allowedPorts: [...SMTP_PORTS],
      },
    );
  }
  const hasUser = input.username !== undefined && input.username !== '';
  const hasPassword = input.password !== undefined && input.password !== '';
  if (hasPassword && !hasUser) throw invalidField('/username', 'is required when a password is given');
  if (hasUser && !hasPassword) throw invalidField('/password', 'is required when a username is given');
}

export const smtpTest = defineTool<SmtpTestInput, SmtpTestOutput>()({
  name: 'smtp-test',
  group: 'network',
  cost: 3,
  pool: 'network',
  timeoutMs: 45_000,
  secretFields: ['username', 'password'],
  failures: [...FAILURES.connects, 'port_not_allowed'],
  precheck,
  targets: (input) => [{ host: input.host, port: input.port }],
});
