//! The fenced code samples of a Markdown text, for the tests that run them.

export interface Sample {
  /** The fence's language (`sh`, `js`, `ts`, `python` ...), '' when none. */
  lang: string;
  code: string;
  /** Why the sample is not run, from a `<!-- sample: not run (why) -->` line just above it. */
  notRun?: string;
}

export const RUNNABLE = new Set(['sh', 'bash', 'js', 'ts', 'python']);

export function samplesOf(markdown: string): Sample[] {
  const found: Sample[] = [];
  const fence = /(?:<!-- sample: not run \(([^)]*)\) -->\n)?^```(\w*)\n([\s\S]*?)^```$/gm;
  for (const m of markdown.matchAll(fence)) found.push({ lang: m[2]!, code: m[3]!, ...(m[1] ? { notRun: m[1] } : {}) });
  return found;
}
