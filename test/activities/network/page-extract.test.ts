//! What the page tools read from HTML, on strings of HTML (no I/O): title and meta, canonical and
//! base URL resolution, link merging and flags, images and their declared sizes, og:/twitter:
//! properties, simple selectors, readable text and word counts, bounded work on nested markup.
import test from 'ava';
import {
  boundedText,
  canonicalUrl,
  countWords,
  declaredDimension,
  documentTitle,
  headings,
  metaNamed,
  metaProperties,
  pageImages,
  pageLinks,
  parsePage,
  readableText,
  selectorTexts,
  MAX_HEADINGS,
  MAX_LABEL_CHARS,
} from '../../../activities/network/page-extract.js';
import { ARTICLE_WORDS, articlePage } from '../../fixtures/http-pages.js';

const ORIGIN = 'http://site.test:8080';
const page = (html: string, url = `${ORIGIN}/dir/page.html`) => parsePage(html, url);

test('title as browsers show it; null without a title element', (t) => {
  t.is(documentTitle(page('<title>\n  Hello \t  world </title>').$), 'Hello world');
  t.is(documentTitle(page('<title></title>').$), '');
  t.is(documentTitle(page('<p>no title</p>').$), null);
  t.is(documentTitle(page('<title>First</title><title>Second</title>').$), 'First');
});

test('meta by name is case-insensitive and returns the raw content; null when absent', (t) => {
  const { $ } = page(
    '<meta name="Description" content="  Raw   value "><meta name="robots" content="noindex,nofollow"><meta name="description" content="second">',
  );
  t.is(metaNamed($, 'description'), '  Raw   value ');
  t.is(metaNamed($, 'robots'), 'noindex,nofollow');
  t.is(metaNamed($, 'keywords'), null);
  t.is(metaNamed(page('<meta name="description">').$, 'description'), null, 'no content attribute');
});

test('canonical and links resolve against <base href>, itself resolved against the page', (t) => {
  const p = page(
    '<base href="/docs/v2/"><link rel="canonical" href="index.html"><a href="intro.html">Intro</a><a href="../up.html">Up</a><a href="//cdn.test/x">CDN</a>',
  );
  t.is(p.baseUrl.href, `${ORIGIN}/docs/v2/`);
  t.is(canonicalUrl(p), `${ORIGIN}/docs/v2/index.html`);
  t.deepEqual(
    pageLinks(p).map((l) => l.url),
    [`${ORIGIN}/docs/v2/intro.html`, `${ORIGIN}/docs/up.html`, 'http://cdn.test/x'],
  );
  t.is(canonicalUrl(page('<link rel="alternate canonical" href="https://other.test/a">')), 'https://other.test/a', 'rel is a token list');
  t.is(canonicalUrl(page('<p>none</p>')), null);
  t.is(page('<base href="javascript:alert(1)"><a href="x">x</a>').baseUrl.href, `${ORIGIN}/dir/page.html`, 'a non-http base is ignored');
});

test('links: merged by URL without fragment, document order, first non-empty text, nofollow only when every occurrence says so', (t) => {
  const links = pageLinks(
    page(`
    <a href="/a#one"></a>
    <a href="/b" rel="nofollow">B</a>
    <a href="/a#two">A text</a>
    <a href="/b">B again</a>
    <a href="/c" rel="NOFOLLOW ugc">C</a>
    <a href="/d" aria-label="Labelled"></a>
    <a href="/e"><img src="e.png" alt="Image alt"></a>
    <a href="/f" title="Titled"> </a>
    <a href="https://other.test/x">Out</a>
    <a href="http://site.test:9999/port">Same host, other port</a>
    <a href="#local">Anchor</a><a href="mailto:x@site.test">Mail</a><a href="tel:123">Tel</a><a href="javascript:void(0)">JS</a><a href="">Self</a><a href="http://[bad">Bad</a>`),
  );
  const byPath = Object.fromEntries(links.map((l) => [new URL(l.url).pathname, l]));
  t.deepEqual(
    links.map((l) => l.url),
    ['/a', '/b', '/c', '/d', '/e', '/f']
      .map((p) => ORIGIN + p)
      .concat(['https://other.test/x', 'http://site.test:9999/port', `${ORIGIN}/dir/page.html`]),
  );
  t.like(byPath['/a'], { text: 'A text', occurrences: 2, nofollow: false, internal: true });
  t.like(byPath['/b'], { text: 'B', occurrences: 2, nofollow: false });
  t.like(byPath['/c'], { nofollow: true });
  t.is(byPath['/d']!.text, 'Labelled');
  t.is(byPath['/e']!.text, 'Image alt');
  t.is(byPath['/f']!.text, 'Titled');
  t.false(byPath['/x']!.internal);
  t.true(byPath['/port']!.internal, 'internal means the same host name');
});

test('images: resolved URL, alt as written (null when missing), declared dimensions in pixels', (t) => {
  const images = pageImages(
    page(`<img src="a.png" alt="A" width="640" height=" 480 "><img src="/b.png" alt="" width="100px" height="50%">
      <img data-src="lazy.webp"><img src="data:image/png;base64,AAAA" alt="inline"><img alt="no source"><img src="c.png" width="12.5" height="x">`),
  );
  t.deepEqual(images, [
    { url: `${ORIGIN}/dir/a.png`, alt: 'A', width: 640, height: 480 },
    { url: `${ORIGIN}/b.png`, alt: '', width: 100, height: null },
    { url: `${ORIGIN}/dir/lazy.webp`, alt: null, width: null, height: null },
    { url: `${ORIGIN}/dir/c.png`, alt: null, width: 12, height: null },
  ]);
  t.is(declaredDimension('0'), 0);
  t.is(declaredDimension(undefined), null);
});

test('og: and twitter: properties by property or name, repeated ones as arrays, other vocabularies ignored', (t) => {
  const { $ } =
    page(`<meta property="og:title" content="T"><meta property="OG:Image" content="1.png"><meta property="og:image" content="2.png">
    <meta name="og:site_name" content="Named"><meta name="twitter:card" content="summary"><meta property="twitter:site" content="@s">
    <meta property="og:" content="empty key"><meta property="article:author" content="A"><meta property="og:description">`);
  t.deepEqual(metaProperties($, 'og:'), { 'og:title': 'T', 'og:image': ['1.png', '2.png'], 'og:site_name': 'Named' });
  t.deepEqual(metaProperties($, 'twitter:'), { 'twitter:card': 'summary', 'twitter:site': '@s' });
  t.deepEqual(metaProperties(page('<p>x</p>').$, 'og:'), {});
});

test('headings in document order with level and collapsed text', (t) => {
  t.deepEqual(headings(page('<h2>B  <em>b</em></h2><h1>A</h1><div><h6>F</h6></div><h3></h3>').$), [
    { level: 2, text: 'B b' },
    { level: 1, text: 'A' },
    { level: 6, text: 'F' },
    { level: 3, text: '' },
  ]);
});

test('simple selectors: tag, class and id, text collapsed, bounded in count and length', (t) => {
  const { $ } = page('<p class="x y">One <b>two</b></p><div class="x">Three</div><span id="only">Four</span><p>Five</p>');
  t.deepEqual(selectorTexts($, 'p', 10, 100), ['One two', 'Five']);
  t.deepEqual(selectorTexts($, '.x', 10, 100), ['One two', 'Three']);
  t.deepEqual(selectorTexts($, '#only', 10, 100), ['Four']);
  t.deepEqual(selectorTexts($, '.missing', 10, 100), []);
  t.deepEqual(selectorTexts($, 'p', 1, 3), ['One']);
});

test('deeply nested matches are read with a bound, not whole (no quadratic blow-up)', (t) => {
  const depth = 5_000;
  const html = `${'<div>'.repeat(depth)}${'word '.repeat(20_000)}${'</div>'.repeat(depth)}`;
  const { $ } = page(html);
  const texts = selectorTexts($, 'div', 1_000, 10_000);
  t.is(texts.length, 1_000);
  t.true(texts.every((text) => text.length <= 10_000));
  // The work, not only the answer, is bounded: the walk stops within one text node of the bound,
  // however much text lies below. (Counted in characters gathered, not timed.)
  const many = page(`<div id="many">${'<span>ab</span>'.repeat(50_000)}</div>`)
    .$('#many')
    .get(0)!;
  t.is(boundedText(many, 100).length, 100);
  const long = headings(page(`<h1>${'x'.repeat(MAX_LABEL_CHARS * 3)}</h1>`).$);
  t.is(long[0]!.text.length, MAX_LABEL_CHARS);
  t.is(headings(page('<h2>h</h2>'.repeat(MAX_HEADINGS + 5)).$).length, MAX_HEADINGS);
});

test('readable text: one line per block, no scripts, styles, templates or inline-hidden elements', (t) => {
  const { $ } = page(`<html><head><title>Not body</title><style>p{}</style></head><body>
    <h1>Head<span>line</span></h1><p>First   para,<br>second line.</p>
    <script>never()</script><style>.x{}</style><noscript>no</noscript><template>tpl</template>
    <div hidden>hidden</div><p style="DISPLAY : none">gone</p><p style="visibility:hidden">gone too</p>
    <ul><li>one</li><li>two</li></ul><svg><text>svg text</text></svg><select><option>opt</option></select>
    <table><tr><td>c1</td><td>c2</td></tr></table><span>inline</span> <span>pieces</span></body></html>`);
  t.is(readableText($), 'Headline\nFirst para,\nsecond line.\none\ntwo\nc1\nc2\ninline pieces');
  t.is(readableText(page('').$), '');
});

test('word count: runs with a letter or digit, any script', (t) => {
  t.is(countWords(''), 0);
  t.is(countWords('  one two\nthree  '), 3);
  t.is(countWords('a — b • c 42 $5.00'), 5);
  t.is(countWords('naïve café Grüße'), 3);
  t.is(countWords('日本語の文章 です'), 2);
  const article = parsePage(articlePage(ORIGIN), `${ORIGIN}/article.html`);
  t.is(countWords(readableText(article.$)), ARTICLE_WORDS);
});

test('bytes are decoded by BOM, then the header charset, then <meta charset>, then UTF-8', (t) => {
  const latin1 = Buffer.from('<meta charset="iso-8859-1"><title>Café</title>', 'latin1');
  t.is(documentTitle(parsePage(latin1, ORIGIN).$), 'Café');
  const header = Buffer.from('<title>Niño</title>', 'latin1');
  t.is(documentTitle(parsePage(header, ORIGIN, 'text/html; charset=ISO-8859-1').$), 'Niño');
  const utf8 = Buffer.from('<title>Grüße 🚀</title>', 'utf8');
  t.is(documentTitle(parsePage(utf8, ORIGIN, 'text/html').$), 'Grüße 🚀');
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('<title>Ünïcode</title>')]);
  t.is(documentTitle(parsePage(bom, ORIGIN, 'text/html; charset=windows-1252').$), 'Ünïcode', 'a BOM outranks the header');
});
