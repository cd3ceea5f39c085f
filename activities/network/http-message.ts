//! Pure helpers for reading an HTTP response: its media type and charset, its body as text, and
//! its headers exactly as received (Node's own `headers` object drops repeats of some fields).

/** The media type of a Content-Type value, lower case without parameters (`text/html`), or null. */
export function mediaTypeOf(contentType: string | undefined): string | null {
  const type = contentType?.split(';', 1)[0]?.trim().toLowerCase();
  return type ? type : null;
}

/** The `charset` parameter of a Content-Type value, or null. */
export function charsetOf(contentType: string | undefined): string | null {
  const match = /;\s*charset\s*=\s*(?:"([^"]*)"|([^\s;]+))/i.exec(contentType ?? '');
  const label = (match?.[1] ?? match?.[2])?.trim();
  return label ? label : null;
}

/** windows-1252 bytes 0x80-0x9F (where it differs from ISO-8859-1): euro sign, curly quotes, dashes ... */
const CP1252_80_9F =
  '\u20ac\u0081\u201a\u0192\u201e\u2026\u2020\u2021\u02c6\u2030\u0160\u2039\u0152\u008d\u017d\u008f' +
  '\u0090\u2018\u2019\u201c\u201d\u2022\u2013\u2014\u02dc\u2122\u0161\u203a\u0153\u009d\u017e\u0178';

/**
 * The body as text in the charset the response declares; UTF-8 when it declares none or one the
 * runtime does not know. Bytes that are not valid in the charset become U+FFFD, so a binary body
 * still yields a string.
 */
export function decodeBody(body: Uint8Array, contentType: string | undefined): string {
  const label = charsetOf(contentType);
  let decoder: TextDecoder;
  try {
    decoder = new TextDecoder(label ?? 'utf-8');
  } catch {
    decoder = new TextDecoder('utf-8');
  }
  // WHATWG maps latin1, iso-8859-1 and ascii labels to windows-1252 too, but Node 20 decodes
  // windows-1252 as ISO-8859-1 (0x80 comes out as a control character, not the euro sign).
  if (decoder.encoding === 'windows-1252') {
    return Buffer.from(body.buffer, body.byteOffset, body.length)
      .toString('latin1')
      .replace(/[\x80-\x9f]/g, (c) => CP1252_80_9F[c.charCodeAt(0) - 0x80]!);
  }
  return decoder.decode(body);
}

/**
 * Every response header by lower-case name. A repeated field is joined with ", " (RFC 9110 5.3),
 * except Set-Cookie, whose values may contain commas: it is always an array.
 */
export function headersFromRaw(rawHeaders: readonly string[]): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < rawHeaders.length; i += 2) {
    const name = rawHeaders[i]!.toLowerCase();
    const value = rawHeaders[i + 1]!;
    const seen = out[name];
    if (name === 'set-cookie') out[name] = [...((seen as string[] | undefined) ?? []), value];
    else out[name] = seen === undefined ? value : `${seen as string}, ${value}`;
  }
  return out;
}
