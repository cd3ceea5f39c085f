//! smtp-test checks that need no I/O: the port is one of the mail ports the service talks to
//! (SPEC: 25, 465, 587, 2525; anything else is 422 `port_not_allowed`, so the tool cannot be
//! pointed at other services), and credentials come as a pair.
import { ToolError } from '../../lib/errors.js';
import { invalidField } from './invalid-field.js';

export const SMTP_PORTS = [25, 465, 587, 2525] as const;

export interface SmtpTestInput {
  host: string;
  port: number;
  encryption: 'starttls' | 'ssl' | 'none';
  username?: string;
  password?: string;
}

export function precheck(input: SmtpTestInput): void {
  if (!(SMTP_PORTS as readonly number[]).includes(input.port)) {
    throw new ToolError('port_not_allowed', `Port ${input.port} is not a mail submission or relay port; use one of ${SMTP_PORTS.join(', ')}.`, {
      allowedPorts: [...SMTP_PORTS],
    });
  }
  const hasUser = input.username !== undefined && input.username !== '';
  const hasPassword = input.password !== undefined && input.password !== '';
  if (hasPassword && !hasUser) throw invalidField('/username', 'is required when a password is given');
  if (hasUser && !hasPassword) throw invalidField('/password', 'is required when a username is given');
}
