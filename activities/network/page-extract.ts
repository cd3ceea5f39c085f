//! What web-scrape, seo-meta and broken-links read from an HTML page, as pure functions of the
//! parsed document and its base URL: no I/O, so each is tested on a string of HTML.
import * as cheerio from 'cheerio';
import type { CheerioAPI } from 'cheerio';
import type { MetaValue, PageHeading } from '../../domain/tools/fetched-page.js';
import type { PageImage, PageLink } from '../../domain/tools/web-scrape.js';
import { charsetOf } from './http-message.js';

/** A parsed page and the URL its relative references resolve against. */
export interface ParsedPage {
  $: CheerioAPI;
  /** The page's URL, or its `<base href>` when it declares one. */
  baseUrl: URL;
  /** The URL the page was fetched from (after redirects): what "internal" is judged against. */
  pageUrl: URL;
}

/**
 * A fetched page as bytes with what decides how they are read: the URL they came from (after
 * redirects) and the declared Content-Type. Plain data, so it can be handed to a worker thread.
 */
export interface PageSource {
  body: Uint8Array;
  url: string;
  contentType?: string;
}

/** parsePage of a PageSource (whose body may arrive in a thread as a plain Uint8Array). */
export function parseSource(source: PageSource): ParsedPage {
  const body = Buffer.isBuffer(source.body) ? source.body : Buffer.from(source.body.buffer, source.body.byteOffset, source.body.byteLength);
  return parsePage(body, source.url, source.contentType);
}

/** The parts of a DOM node the text walks read (domhandler's node shape, which cheerio uses). */
interface DomNode {
  type: string;
  name?: string;
  data?: string;
  attribs?: Record<string, string>;
  children?: DomNode[];
}

/**
 * Parses HTML bytes the way a browser picks their encoding: byte order mark, then the charset of
 * the Content-Type header, then a `<meta charset>` in the first bytes, then UTF-8 (WHATWG).
 */
export function parsePage(html: Buffer | string, pageUrl: string | URL, contentType?: string): ParsedPage {
  const url = new URL(pageUrl);
  const $ =
    typeof html === 'string'
      ? cheerio.load(html)
      : cheerio.loadBuffer(html, {
          encoding: { transportLayerEncodingLabel: charsetOf(contentType) ?? undefined, defaultEncoding: 'utf-8' },
        });
  return { $, pageUrl: url, baseUrl: baseUrlOf($, url) };
}

function baseUrlOf($: CheerioAPI, pageUrl: URL): URL {
  // Only the first <base href> counts (HTML: "the first base element with an href attribute").
  const href = $('base[href]').first().attr('href');
  const base = href === undefined ? undefined : resolve(href, pageUrl);
  return base && (base.protocol === 'http:' || base.protocol === 'https:') ? base : pageUrl;
}

/** `href` resolved against `base`, or undefined when it does not parse. */
export function resolve(href: string, base: URL): URL | undefined {
  try {
    return new URL(href.trim(), base);
  } catch {
    return undefined;
  }
}

/** Runs of white space as one space, trimmed: how text is shown. */
export function collapseWhitespace(text: string): string {
  return text.replace(/\s+/g, ' ').trim();
}

// ---------------------------------------------------------------------------------------------
// Head: title and meta

/** The title as `document.title` gives it (white space collapsed), or null without a `<title>`. */
export function documentTitle($: CheerioAPI): string | null {
  const title = $('title').first();
  return title.length ? collapseWhitespace(title.text()) : null;
}

/** The `content` of the first `<meta name=...>` (name case-insensitive), as written; null when absent. */
export function metaNamed($: CheerioAPI, name: string): string | null {
  const meta = $('meta[name][content]').filter((_, el) => $(el).attr('name')!.trim().toLowerCase() === name);
  return meta.length ? meta.first().attr('content')! : null;
}

/** The first `<link rel=canonical>` href, resolved against the base URL; null when absent or unparsable. */
export function canonicalUrl(page: ParsedPage): string | null {
  const link = page.$('link[rel][href]').filter((_, el) => relTokens(page.$(el).attr('rel')).includes('canonical'));
  const href = link.first().attr('href');
  return href === undefined ? null : (resolve(href, page.baseUrl)?.href ?? null);
}

/**
 * Every `<meta>` whose `property` or `name` starts with `prefix` (`og:`, `twitter:`), keyed by
 * that property in lower case. Sites use both attributes for both vocabularies.
 */
export function metaProperties($: CheerioAPI, prefix: string): Record<string, MetaValue> {
  const out: Record<string, MetaValue> = {};
  $('meta[content]').each((_, el) => {
    const meta = $(el);
    const key = (meta.attr('property') ?? meta.attr('name') ?? '').trim().toLowerCase();
    if (!key.startsWith(prefix) || key.length === prefix.length) return;
    const value = meta.attr('content')!;
    const seen = out[key];
    out[key] = seen === undefined ? value : [...(Array.isArray(seen) ? seen : [seen]), value];
  });
  return out;
}

// ---------------------------------------------------------------------------------------------
// Body: headings, links, images, selector matches

/** Characters kept of a heading's or a link's text. */
export const MAX_LABEL_CHARS = 1_000;

/** Headings returned at most: an outline far longer than any real page's. */
export const MAX_HEADINGS = 1_000;

/** The h1-h6 in document order (the first `MAX_HEADINGS`) with level and text. */
export function headings($: CheerioAPI): PageHeading[] {
  return $('h1, h2, h3, h4, h5, h6')
    .toArray()
    .slice(0, MAX_HEADINGS)
    .map((el) => ({ level: Number(el.tagName[1]), text: elementText(el, MAX_LABEL_CHARS) }));
}

function relTokens(rel: string | undefined): string[] {
  return (rel ?? '').toLowerCase().split(/\s+/).filter(Boolean);
}

/**
 * Every distinct http(s) link of the page in document order: `<a href>` resolved against the base
 * URL, the fragment dropped. In-page anchors (`href="#..."`) and other schemes (mailto:, tel:,
 * javascript:) lead to no other page and are left out.
 */
export function pageLinks(page: ParsedPage): PageLink[] {
  const { $ } = page;
  const byUrl = new Map<string, PageLink>();
  $('a[href]').each((_, el) => {
    const a = $(el);
    const href = a.attr('href')!.trim();
    if (href.startsWith('#')) return;
    const url = resolve(href, page.baseUrl);
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) return;
    url.hash = '';
    const text =
      elementText(el, MAX_LABEL_CHARS) ||
      a.find('img[alt]').first().attr('alt')?.trim() ||
      a.attr('aria-label')?.trim() ||
      a.attr('title')?.trim() ||
      '';
    const nofollow = relTokens(a.attr('rel')).includes('nofollow');
    const seen = byUrl.get(url.href);
    if (seen) {
      seen.occurrences += 1;
      seen.nofollow &&= nofollow;
      if (!seen.text) seen.text = text;
      return;
    }
    byUrl.set(url.href, { url: url.href, text, internal: url.hostname === page.pageUrl.hostname, nofollow, occurrences: 1 });
  });
  return [...byUrl.values()];
}

/** A declared width or height in CSS pixels: leading digits, as browsers read `width="120px"`; null otherwise. */
export function declaredDimension(value: string | undefined): number | null {
  const match = /^\s*(\d+)(?:\.\d*)?\s*(?:px)?\s*$/i.exec(value ?? '');
  return match ? Number(match[1]) : null;
}

/**
 * Every `<img>` in document order with its URL resolved against the base URL (`data-src` when a
 * lazy-loading script left `src` out). Inline `data:` images are left out: their "URL" is the
 * whole image.
 */
export function pageImages(page: ParsedPage): PageImage[] {
  const { $ } = page;
  const out: PageImage[] = [];
  $('img').each((_, el) => {
    const img = $(el);
    const src = img.attr('src')?.trim() || img.attr('data-src')?.trim();
    const url = src ? resolve(src, page.baseUrl) : undefined;
    if (!url || url.protocol === 'data:') return;
    out.push({
      url: url.href,
      alt: img.attr('alt') ?? null,
      width: declaredDimension(img.attr('width')),
      height: declaredDimension(img.attr('height')),
    });
  });
  return out;
}

/**
 * The text of the elements a simple selector (tag, .class or #id, checked by the precheck)
 * matches, in document order: at most `maxMatches`, each cut at `maxChars` characters. Matches
 * may nest (`div` inside `div`), so each text is gathered with a bound rather than whole.
 */
export function selectorTexts($: CheerioAPI, selector: string, maxMatches: number, maxChars: number): string[] {
  return $(selector)
    .toArray()
    .slice(0, maxMatches)
    .map((el) => elementText(el, maxChars));
}

/**
 * An element's text with white space collapsed, at most `maxChars` characters. Gathered with a
 * bound: elements nest (a `div` in a `div`, a heading in a heading's `div`), and reading each
 * one's whole text would cost the square of the page's size.
 */
export function elementText(el: unknown, maxChars: number): string {
  return collapseWhitespace(boundedText(el as DomNode, maxChars * 2)).slice(0, maxChars);
}

/** The text content of a node, stopping once `max` characters are gathered (past it by one text node at most). */
export function boundedText(root: DomNode, max: number): string {
  let text = '';
  const walk = (node: DomNode): boolean => {
    if (node.type === 'text') text += node.data ?? '';
    else for (const child of node.children ?? []) if (!walk(child)) return false;
    return text.length < max;
  };
  walk(root);
  return text;
}

// ---------------------------------------------------------------------------------------------
// Readable text and word count

/** Elements whose content is never shown as text. */
const UNSHOWN = new Set([
  'head',
  'script',
  'style',
  'noscript',
  'template',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'audio',
  'video',
  'select',
  'datalist',
]);

/** Elements that start a new line of text. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'br',
  'caption',
  'dd',
  'details',
  'dialog',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'li',
  'main',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'td',
  'th',
  'tr',
  'ul',
]);

/** Hidden by the `hidden` attribute or an inline `display: none` / `visibility: hidden`. */
function isHidden(attribs: Record<string, string> = {}): boolean {
  if ('hidden' in attribs) return true;
  const style = (attribs.style ?? '').toLowerCase().replace(/\s+/g, '');
  return style.includes('display:none') || style.includes('visibility:hidden');
}

/**
 * The text a reader sees in the body: scripts, styles, templates, embedded objects and elements
 * hidden inline are left out; each block element starts a line; white space is collapsed within
 * lines and empty lines dropped. Stylesheets are not applied, so text hidden by a class still
 * counts: it is an approximation, as the spec allows.
 */
export function readableText($: CheerioAPI): string {
  const parts: string[] = [];
  const walk = (node: DomNode) => {
    if (node.type === 'text') {
      parts.push(node.data ?? '');
      return;
    }
    if (node.type === 'tag' || node.type === 'script' || node.type === 'style') {
      const name = node.name?.toLowerCase() ?? '';
      if (UNSHOWN.has(name) || isHidden(node.attribs)) return;
      const block = BLOCK.has(name);
      if (block) parts.push('\n');
      for (const child of node.children ?? []) walk(child);
      if (block) parts.push('\n');
      return;
    }
    for (const child of node.children ?? []) walk(child); // the document root
  };
  const body = $('body')[0] as unknown as DomNode | undefined;
  if (body) walk(body);
  return parts.join('').split('\n').map(collapseWhitespace).filter(Boolean).join('\n');
}

/**
 * Words in a text: runs between white space that hold a letter or digit (a lone dash or bullet is
 * no word). Scripts written without spaces (Chinese, Japanese, Thai) count one word per run.
 */
export function countWords(text: string): number {
  let count = 0;
  for (const token of text.split(/\s+/)) if (/[\p{L}\p{N}]/u.test(token)) count += 1;
  return count;
}
