//! SMTP replies (RFC 5321 4.2) and what smtp-test reads from them. Pure: lines in, values out.

export interface SmtpReply {
  /** Three-digit reply code. */
  code: number;
  /** The text of each line, without code and separator; the first line is the greeting or message. */
  lines: string[];
}

export interface ReplyLine {
  code: number;
  /** False for `250-...` (more lines follow), true for `250 ...` or a bare `250`. */
  last: boolean;
  text: string;
}

/** Parses one reply line; null when it is not `ddd`, `ddd text` or `ddd-text`. */
export function parseReplyLine(line: string): ReplyLine | null {
  const m = /^([2-5]\d\d)(?:([ -])(.*))?$/.exec(line);
  if (!m) return null;
  return { code: Number(m[1]), last: m[2] !== '-', text: m[3] ?? '' };
}

/** The reply as it was sent, one `ddd-text` / `ddd text` line each, for the steps list. */
export function formatReply(reply: SmtpReply, maxChars = 2000): string {
  const text = reply.lines.map((l, i) => `${reply.code}${i === reply.lines.length - 1 ? ' ' : '-'}${l}`.trimEnd()).join('\n');
  return text.length > maxChars ? `${text.slice(0, maxChars)}...` : text;
}

export interface Capabilities {
  /** Every EHLO keyword line after the greeting, as advertised (keyword upper-cased). */
  extensions: string[];
  /** SASL mechanisms from `AUTH ...` (and the pre-standard `AUTH=...`), upper case, no duplicates. */
  authMechanisms: string[];
  startTls: boolean;
}

export function capabilities(ehlo: SmtpReply): Capabilities {
  const extensions: string[] = [];
  const mechanisms = new Set<string>();
  for (const line of ehlo.lines.slice(1)) {
    const text = line.trim();
    if (!text) continue;
    const [keyword = '', ...params] = text.split(/\s+/);
    extensions.push([keyword.toUpperCase(), ...params].join(' '));
    const auth = /^AUTH(?:=|$)(.*)$/i.exec(keyword);
    if (auth) for (const m of [auth[1]!, ...params].join(' ').split(/\s+/)) if (m) mechanisms.add(m.toUpperCase());
  }
  return { extensions, authMechanisms: [...mechanisms], startTls: extensions.some((e) => e.split(' ')[0] === 'STARTTLS') };
}

export type AuthMechanism = 'PLAIN' | 'LOGIN';

/** PLAIN where offered (one round trip), else LOGIN; null when the server offers neither. */
export function chooseMechanism(offered: readonly string[]): AuthMechanism | null {
  if (offered.includes('PLAIN')) return 'PLAIN';
  if (offered.includes('LOGIN')) return 'LOGIN';
  return null;
}

const b64 = (text: string) => Buffer.from(text, 'utf8').toString('base64');

/** RFC 4616 initial response: authorization identity (empty), authentication identity, password. */
export function plainResponse(username: string, password: string): string {
  return b64(`\0${username}\0${password}`);
}

export function loginResponse(value: string): string {
  return b64(value);
}

/**
 * Replaces the credentials, and every encoding of them this client sent, in text that a server
 * controls (a reply may echo what it was sent), so no reply shown to the client or logged carries
 * them.
 */
export function redact(text: string, username: string | undefined, password: string | undefined): string {
  const secrets = new Set<string>();
  if (password) [password, b64(password)].forEach((s) => secrets.add(s));
  if (username && password) secrets.add(plainResponse(username, password));
  // A one- or two-letter user name would garble every reply and says little; longer ones go.
  if (username && username.length >= 3) [username, b64(username)].forEach((s) => secrets.add(s));
  let out = text;
  // Longest first, so a secret inside a longer one (the PLAIN blob) does not leave a fragment.
  for (const secret of [...secrets].sort((a, b) => b.length - a.length)) out = out.split(secret).join('[redacted]');
  return out;
}
