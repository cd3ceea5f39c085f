//! How `npm start` shows the service's log lines on its terminal. The processes always write JSON
//! lines (one event each, as production writes them for a log collector), and their log files keep
//! them so; on a terminal `npm start` renders them readable with pino-pretty: time, level, process
//! and message, then the fields. Piped elsewhere, or with NODE_ENV=production, the JSON passes
//! through unchanged (docs/OPERATING.md).
import PinoPretty from 'pino-pretty';

/** Whether `npm start` renders log lines readable: its output is a terminal and NODE_ENV is not production. */
export function readableLogs(env: NodeJS.ProcessEnv = process.env, stdout: { isTTY?: boolean } = process.stdout): boolean {
  return Boolean(stdout.isTTY) && env.NODE_ENV !== 'production';
}

/**
 * A line's readable form: a JSON log line as one line of text (an error's stack on the lines
 * after it); anything else (a crash's output before the logger existed) unchanged.
 */
export function readableLogLine(options: { colorize?: boolean } = {}): (line: string) => string {
  const pretty = PinoPretty.prettyFactory({
    colorize: options.colorize ?? PinoPretty.isColorSupported,
    translateTime: 'SYS:HH:MM:ss.l',
    ignore: 'pid,hostname',
    singleLine: true,
  });
  return (line) => {
    if (!line.startsWith('{')) return line;
    return pretty(line).replace(/\n$/, '');
  };
}

/** The echo format `npm start` gives its apps: readable lines on a terminal, else none (JSON as written). */
export function terminalLogFormat(): ((line: string) => string) | undefined {
  return readableLogs() ? readableLogLine() : undefined;
}
