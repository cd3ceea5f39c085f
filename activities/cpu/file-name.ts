//! Suggested download names derived from a source URL: the last path segment, decoded and made
//! safe for any file system, with the extension of what the tool produced. Pure functions.

/** Longest stem kept; names past it are cut (the extension is always kept whole). */
const MAX_STEM = 100;

/** The last non-empty path segment of the URL, percent-decoded; '' when there is none. */
function lastSegment(url: string): string {
  let pathname: string;
  try {
    pathname = new URL(url).pathname;
  } catch {
    return '';
  }
  const segment = pathname.split('/').filter(Boolean).pop() ?? '';
  try {
    return decodeURIComponent(segment);
  } catch {
    return segment; // a stray '%' is kept as typed
  }
}

/**
 * The name without its extension, keeping letters and digits of any script, '.', '-' and '_';
 * every other run of characters (separators, control and reserved characters, spaces) becomes
 * one '-'.
 */
export function safeStem(name: string): string {
  const withoutExtension = name.replace(/\.[A-Za-z0-9]{1,5}$/, '');
  const cleaned = withoutExtension
    .normalize('NFC')
    .replace(/[^\p{L}\p{N}._-]+/gu, '-')
    .replace(/^[.-]+|[.-]+$/g, '')
    .slice(0, MAX_STEM)
    .replace(/[.-]+$/, '');
  return cleaned;
}

/**
 * `<stem><suffix>.<extension>` for the source URL, e.g. `report.pdf` for `.../report.docx` or
 * `cat-x2.png` for `.../cat.png`; `fallback` stands in when the URL names no file.
 */
export function fileNameFor(sourceUrl: string, options: { extension: string; suffix?: string; fallback: string }): string {
  const stem = safeStem(lastSegment(sourceUrl)) || options.fallback;
  return `${stem}${options.suffix ?? ''}.${options.extension}`;
}
