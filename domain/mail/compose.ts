//! The service's mails as text and HTML from one description: the same words in both parts, an
//! action link written out in full in both (docs/API.md: a token travels in a link whose text
//! contains `token=<token>`), everything escaped, and nothing fetched when the mail is opened
//! (no remote images, no tracking pixel, no external style sheet).

/** What a mail says. Every string is plain text: the HTML part escapes it. */
export interface MailContent {
  /** One line; a line break is refused (it would end the header). */
  subject: string;
  /** The preview mail clients show beside the subject; hidden in the body. Default: none. */
  preheader?: string;
  /** The opening line, e.g. `Hello Ada,`. Default: none. */
  greeting?: string;
  /** The body, one string per paragraph; a `\n` inside one is a line break. */
  paragraphs: string[];
  /** The one thing to do: a button in HTML, the full URL under it and in the text part. http(s) only. */
  action?: { label: string; url: string };
  /** Small print after the body (why the mail came, what to do if it was not asked for). Default: none. */
  footer?: string;
}

export interface ComposedMail {
  subject: string;
  text: string;
  html: string;
}

/** `&`, `<`, `>`, `"` and `'` as entities: safe in element content and in quoted attributes. */
export function escapeHtml(value: string): string {
  return value.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);
}

/** An absolute http(s) URL, as given: a `javascript:` or relative link would be a trap or broken. */
function actionUrl(raw: string): string {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new Error('a mail action needs an absolute URL');
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') throw new Error(`a mail action must be an http(s) URL, not ${url.protocol}`);
  if (/\s/.test(raw)) throw new Error('a mail action URL must not contain white space');
  return raw;
}

const FONT = "-apple-system, BlinkMacSystemFont, 'Segoe UI', Roboto, Helvetica, Arial, sans-serif";
const INK = '#18181b';
const MUTED = '#52525b';
const ACCENT = '#1d4ed8';

/** A paragraph's text in HTML: escaped, its line breaks kept. */
const htmlLines = (text: string) => escapeHtml(text).replace(/\r?\n/g, '<br>');

function textPart(content: MailContent, url: string | undefined): string {
  const blocks: string[] = [];
  if (content.greeting) blocks.push(content.greeting);
  blocks.push(...content.paragraphs);
  // The URL alone on its line: every client makes it a link, and nothing wraps inside it.
  if (content.action) blocks.push(`${content.action.label}:\n${url}`);
  if (content.footer) blocks.push(`--\n${content.footer}`);
  return `${blocks.join('\n\n')}\n`;
}

function htmlPart(content: MailContent, url: string | undefined): string {
  const p = (text: string, style = '') => `<p style="margin:0 0 16px;${style}">${htmlLines(text)}</p>`;
  const body: string[] = [];
  if (content.greeting) body.push(p(content.greeting));
  for (const paragraph of content.paragraphs) body.push(p(paragraph));
  if (content.action && url) {
    const href = escapeHtml(url);
    body.push(
      `<p style="margin:24px 0;"><a href="${href}" style="display:inline-block;background:${ACCENT};color:#ffffff;padding:12px 20px;border-radius:6px;text-decoration:none;font-weight:600;">${escapeHtml(content.action.label)}</a></p>`,
      `<p style="margin:0 0 16px;font-size:14px;color:${MUTED};">If the button does not work, copy this link into your browser:<br><a href="${href}" style="color:${ACCENT};word-break:break-all;">${href}</a></p>`,
    );
  }
  const preheader = content.preheader
    ? `<div style="display:none;max-height:0;overflow:hidden;opacity:0;">${escapeHtml(content.preheader)}</div>\n`
    : '';
  const footer = content.footer
    ? `\n<p style="margin:16px 0 0;font-family:${FONT};font-size:12px;line-height:1.5;color:${MUTED};">${htmlLines(content.footer)}</p>`
    : '';
  // Tables and inline styles: what every mail client lays out alike; nothing loaded from elsewhere.
  return `<!DOCTYPE html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(content.subject)}</title>
</head>
<body style="margin:0;padding:0;background:#f4f4f5;">
${preheader}<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="background:#f4f4f5;">
<tr><td align="center" style="padding:24px 12px;">
<table role="presentation" width="100%" cellpadding="0" cellspacing="0" border="0" style="max-width:560px;background:#ffffff;border-radius:8px;">
<tr><td style="padding:32px;font-family:${FONT};font-size:16px;line-height:1.5;color:${INK};">
${body.join('\n')}
</td></tr>
</table>${footer}
</td></tr>
</table>
</body>
</html>
`;
}

/** The mail's subject and its two parts, saying the same. Throws on a subject with a line break or an action URL that is not absolute http(s). */
export function composeMail(content: MailContent): ComposedMail {
  if (/[\r\n]/.test(content.subject)) throw new Error('a mail subject must be one line');
  const url = content.action ? actionUrl(content.action.url) : undefined;
  return { subject: content.subject, text: textPart(content, url), html: htmlPart(content, url) };
}
