//! composeMail: the text and the HTML part say the same, the action link is written out in full
//! in both (a token's `token=` readable in the link's text), whatever a caller puts in is escaped,
//! and opening the mail fetches nothing.
import test from 'ava';
import { composeMail, type MailContent } from '../../domain/mail/compose.js';
import { linksOf, tokenFrom } from '../helpers/mailbox.js';

const TOKEN = 'tok_AbC-123_xyz';
const URL_WITH_TOKEN = `https://tools.example.com/verify?token=${TOKEN}&next=%2Fdashboard`;

const CONTENT: MailContent = {
  subject: 'Confirm your address',
  preheader: 'One click and your account is ready.',
  greeting: 'Hello Ada,',
  paragraphs: ['Someone, hopefully you, signed up with this address.', 'The link works once,\nfor 24 hours.'],
  action: { label: 'Confirm my address', url: URL_WITH_TOKEN },
  footer: 'If you did not sign up, ignore this mail.',
};

test('both parts carry the greeting, every paragraph, the footer and the whole action URL', (t) => {
  const mail = composeMail(CONTENT);
  t.is(mail.subject, 'Confirm your address');
  for (const part of [mail.text, mail.html]) {
    t.true(part.includes('Hello Ada,'));
    t.true(part.includes('Someone, hopefully you, signed up with this address.'));
    t.true(part.includes('If you did not sign up, ignore this mail.'));
  }
  // The text part: the URL alone on its line, under the action's label.
  t.true(mail.text.includes(`Confirm my address:\n${URL_WITH_TOKEN}\n`));
  t.true(mail.text.includes('The link works once,\nfor 24 hours.'));
  t.true(mail.html.includes('The link works once,<br>for 24 hours.'));
  // The HTML part: a button and the URL written out as a link's text, `&` escaped in both.
  const escaped = URL_WITH_TOKEN.replace('&', '&amp;');
  t.true(mail.html.includes(`<a href="${escaped}"`));
  t.true(mail.html.includes(`>${escaped}</a>`), 'the link text is the URL itself, token= readable');
  t.deepEqual(linksOf(mail.html, mail.text), [URL_WITH_TOKEN]);
  t.is(tokenFrom({ links: linksOf(mail.html, mail.text), subject: mail.subject }), TOKEN);
});

test('the preheader is in the HTML part only, hidden', (t) => {
  const mail = composeMail(CONTENT);
  t.regex(mail.html, /<div style="display:none;[^"]*">One click and your account is ready\.<\/div>/);
  t.false(mail.text.includes('One click'));
});

test('what a caller puts in is escaped in the HTML part, and left as it is in the text part', (t) => {
  const hostile = `<script>alert("x")</script> & <img src="https://evil.example/p.gif"> 'q'`;
  const mail = composeMail({
    subject: 'A <b>bold</b> subject & more',
    greeting: hostile,
    paragraphs: [hostile],
    action: { label: '<i>Go</i>', url: 'https://tools.example.com/a?x="><script>' },
    footer: hostile,
  });
  t.false(/<script|<img|<b>|<i>/i.test(mail.html), 'no tag from the input survives');
  t.true(
    mail.html.includes(
      '&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt; &amp; &lt;img src=&quot;https://evil.example/p.gif&quot;&gt; &#39;q&#39;',
    ),
  );
  t.true(mail.html.includes('<title>A &lt;b&gt;bold&lt;/b&gt; subject &amp; more</title>'));
  t.true(mail.html.includes('href="https://tools.example.com/a?x=&quot;&gt;&lt;script&gt;"'), 'the quote cannot leave the attribute');
  t.true(mail.text.includes(hostile), 'plain text needs no escaping');
});

test('opening the mail fetches nothing: no image, no style sheet, no script, no remote URL but the action', (t) => {
  const { html } = composeMail(CONTENT);
  t.false(/<img|<link|<script|<iframe|<object|<embed|<video|<audio|@import|url\(|\bsrc\s*=|background\s*=/i.test(html));
  const urls = [...html.matchAll(/https?:\/\/[^\s"'<>)]+/g)].map((m) => m[0].replaceAll('&amp;', '&'));
  t.deepEqual([...new Set(urls)], [URL_WITH_TOKEN]);
});

test('a mail without an action or the optional parts is still complete', (t) => {
  const mail = composeMail({ subject: 'Your password was changed', paragraphs: ['Your password was changed just now.'] });
  t.is(mail.text, 'Your password was changed just now.\n');
  t.true(mail.html.includes('<p style="margin:0 0 16px;">Your password was changed just now.</p>'));
  t.false(mail.html.includes('href='));
  t.regex(mail.html, /^<!DOCTYPE html>\n<html lang="en">/);
});

test('a subject with a line break and an action that is not an absolute http(s) URL are refused', (t) => {
  t.throws(() => composeMail({ subject: 'Hi\r\nBcc: victim@example.com', paragraphs: ['x'] }), { message: /one line/ });
  t.throws(() => composeMail({ subject: 'Hi', paragraphs: ['x'], action: { label: 'Go', url: 'javascript:alert(1)' } }), {
    message: /http\(s\)/,
  });
  t.throws(() => composeMail({ subject: 'Hi', paragraphs: ['x'], action: { label: 'Go', url: '/relative?token=x' } }), {
    message: /absolute/,
  });
});
