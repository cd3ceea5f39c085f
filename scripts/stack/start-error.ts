//! A part of the stack that did not start, as one line: which part, why, what to do. A failed
//! command's error (execFile's "Command failed ..." with its stdout and stderr Buffers) is boiled
//! down to the line that says why; the original is kept as `cause`.

export class StartError extends Error {
  override readonly name = 'StartError';

  constructor(
    /** The part that did not start: `PostgreSQL`, `the Temporal server`, `api-1` ... */
    readonly part: string,
    /** Why, in a phrase. */
    readonly reason: string,
    /** What to do about it. */
    readonly remedy: string,
    options?: { cause?: unknown },
  ) {
    super(oneLine(`${part} did not start: ${reason}; ${remedy}`), options);
  }
}

const MAX_REASON = 400;

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ').trim();
}

/** The lines a failed command wrote to stderr (execFile/execFileSync keep them on the error). */
function stderrLines(err: unknown): string[] {
  const stderr = (err as { stderr?: unknown }).stderr;
  const text = Buffer.isBuffer(stderr) ? stderr.toString('utf8') : typeof stderr === 'string' ? stderr : '';
  return text
    .split('\n')
    .map((l) => l.trim())
    .filter(Boolean);
}

/**
 * Why `err` happened, in one line: a command's own complaint (the stderr line that names an
 * error, else its last) rather than "Command failed: <argv>"; for a message with a log tail
 * below it, its first line and the tail's last.
 */
export function reasonOf(err: unknown): string {
  const lines = stderrLines(err);
  const complaint = lines.find((l) => /\b(error|fatal|panic)\b/i.test(l)) ?? lines.at(-1);
  let reason: string;
  if (complaint) {
    reason = complaint;
  } else {
    const message = err instanceof Error ? err.message : String(err);
    const [first = '', ...rest] = message
      .split('\n')
      .map((l) => l.trim())
      .filter(Boolean);
    const last = rest.at(-1);
    reason = last ? `${first} (last output: ${last})` : first;
  }
  reason = oneLine(reason);
  return reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON)}...` : reason;
}

/**
 * Runs one part's start; whatever it throws comes out as a StartError for that part, with the
 * error's own `reason` and `remedy` when it has them (PortInUseError), else `remedy`.
 */
export async function startingPart<T>(part: string, remedy: string, start: () => Promise<T>): Promise<T> {
  try {
    return await start();
  } catch (err) {
    if (err instanceof StartError) throw err;
    const own = err as { reason?: unknown; remedy?: unknown };
    const why = typeof own.reason === 'string' ? own.reason : reasonOf(err);
    throw new StartError(part, why, typeof own.remedy === 'string' ? own.remedy : remedy, { cause: err });
  }
}
