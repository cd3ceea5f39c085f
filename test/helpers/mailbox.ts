//! The mail the service sent, read back from the test stack's real SMTP server (MailDev, through
//! its REST API at MAIL_API_URL). Polls until the mail is there, never sleeps a fixed time. Give
//! each test an address of its own (`uniqueAddress()`), so files running side by side never read
//! each other's mail.
import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { testEnv } from './env.js';

/** One received mail: both parts, every recipient address and every link it carries. */
export interface ReceivedMail {
  /** MailDev's id of it. */
  id: string;
  subject: string;
  text: string;
  html: string;
  /** The To addresses. */
  to: string[];
  from: string[];
  /** When it was sent, to the second (MailDev reads the mail's Date header, which has no milliseconds). */
  time: Date;
  /** Every link, in order, once each: the HTML part's `href`s, then URLs written in the text part. */
  links: string[];
  headers: Record<string, string | string[]>;
}

export interface WaitOptions {
  /** Only a mail whose subject matches. */
  subject?: RegExp;
  /**
   * Only a mail sent at or after this time (e.g. taken just before the request that sends it).
   * Compared to the second, as mail times are: a mail of the same second counts.
   */
  since?: Date;
  /** Only a mail that arrived after this one (to tell apart two mails of the same second). */
  after?: Pick<ReceivedMail, 'id'>;
  /** How long to wait. Default 60 s (the stack's workers send within a second or two when idle). */
  timeoutMs?: number;
  /** Another MailDev than the stack's (a test's own): its base URL. */
  mailApiUrl?: string;
}

/** MailDev's JSON of one mail (the fields read here). */
interface MailDevEmail {
  id: string;
  time: string;
  subject?: string;
  text?: string;
  html?: string;
  to?: Array<{ address: string }>;
  from?: Array<{ address: string }>;
  headers?: Record<string, string | string[]>;
}

/** An address no other test uses, at a domain nothing delivers to: `<label>-<random>@mail.test`. */
export function uniqueAddress(label = 'user'): string {
  return `${label}-${randomBytes(6).toString('hex')}@mail.test`;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', '#39': "'", apos: "'" };
const decodeEntities = (s: string) => s.replace(/&(amp|lt|gt|quot|#39|apos);/g, (_, e: string) => ENTITIES[e]!);

/** The links of a mail: `href`s of its HTML part, then http(s) URLs of its text part; each once. */
export function linksOf(html: string, text: string): string[] {
  const links = [...html.matchAll(/href\s*=\s*"([^"]*)"/gi)].map((m) => decodeEntities(m[1]!));
  links.push(...[...text.matchAll(/https?:\/\/[^\s<>"]+/g)].map((m) => m[0]));
  return [...new Set(links)];
}

function received(m: MailDevEmail): ReceivedMail {
  const html = m.html ?? '';
  const text = m.text ?? '';
  return {
    id: m.id,
    subject: m.subject ?? '',
    text,
    html,
    to: (m.to ?? []).map((a) => a.address),
    from: (m.from ?? []).map((a) => a.address),
    time: new Date(m.time),
    links: linksOf(html, text),
    headers: m.headers ?? {},
  };
}

/** Every mail received so far for `to` (any case), in the order MailDev received them. */
export async function mailsTo(to: string, mailApiUrl = testEnv.mailApiUrl()): Promise<ReceivedMail[]> {
  const res = await fetch(`${mailApiUrl}/api/email`, { signal: AbortSignal.timeout(10_000) });
  if (!res.ok) throw new Error(`MailDev answered GET /api/email with ${res.status}`);
  const all = (await res.json()) as MailDevEmail[];
  const wanted = to.toLowerCase();
  return all.filter((m) => (m.to ?? []).some((a) => a.address.toLowerCase() === wanted)).map(received);
}

/**
 * The newest mail to `to` that matches, once there is one. Fails after `timeoutMs`, naming what
 * did arrive for that address.
 */
export async function waitForMail(to: string, opts: WaitOptions = {}): Promise<ReceivedMail> {
  const timeoutMs = opts.timeoutMs ?? 60_000;
  const deadline = Date.now() + timeoutMs;
  const sinceSecond = opts.since && Math.floor(opts.since.getTime() / 1000) * 1000;
  const matches = (m: ReceivedMail) =>
    (!opts.subject || opts.subject.test(m.subject)) && (sinceSecond === undefined || m.time.getTime() >= sinceSecond);
  for (;;) {
    const mails = await mailsTo(to, opts.mailApiUrl);
    const afterIndex = opts.after ? mails.findIndex((m) => m.id === opts.after!.id) : -1;
    const found = mails
      .slice(afterIndex + 1)
      .filter(matches)
      .at(-1);
    if (found) return found;
    if (Date.now() > deadline) {
      const seen = mails.map((m) => `"${m.subject}" at ${m.time.toISOString()}`).join(', ') || 'none';
      throw new Error(
        `no mail to ${to}${opts.subject ? ` with a subject matching ${opts.subject}` : ''}${opts.since ? ` since ${opts.since.toISOString()}` : ''} within ${timeoutMs / 1000} s; mail to that address: ${seen}`,
      );
    }
    await sleep(200);
  }
}

/** The `token=` value of the mail's link that carries one (docs/API.md: every mail with a token does). */
export function tokenFrom(mail: Pick<ReceivedMail, 'links' | 'subject'>): string {
  for (const link of mail.links) {
    const token = /[?&#]token=([^&#\s]+)/.exec(link)?.[1];
    if (token) return decodeURIComponent(token);
  }
  throw new Error(`the mail "${mail.subject}" has no link with token=: ${mail.links.join(', ') || 'no links'}`);
}
