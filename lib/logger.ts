//! Structured logging (pino). Secrets are redacted by path as a last line of defence; the first
//! is never to log tool input or credentials at all.
import { pino, type Logger } from 'pino';

export type { Logger };

const REDACT = [
  'password', '*.password', '*.*.password',
  'username', '*.username',
  'secret', '*.secret',
  'authorization', '*.authorization', 'headers.authorization', 'req.headers.authorization',
  'key', '*.key', 'ownerToken', '*.ownerToken',
];

export function createLogger(options: { level?: string; name: string }): Logger {
  return pino({
    name: options.name,
    level: options.level ?? 'info',
    redact: { paths: REDACT, censor: '[redacted]' },
    base: { pid: process.pid },
  });
}
