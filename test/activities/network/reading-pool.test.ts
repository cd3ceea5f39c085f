//! The reading threads: the same readings as in the calling thread (the page's bytes and declared
//! charset cross intact, a refusal crosses as the same ServiceError), off the calling thread's event
//! loop, and stoppable.
import test from 'ava';
import { createReadingPool, type ReadingPool } from '../../../activities/network/reading-pool.js';
import { readInline } from '../../../activities/network/readings.js';
import type { PageSource } from '../../../activities/network/page-extract.js';
import { ServiceError } from '../../../contracts/errors.js';
import { articlePage, largeArticlePage } from '../../fixtures/http-pages.js';
import { makePdf } from '../../fixtures/pdf-files.js';

let pool: ReadingPool;
test.before(() => {
  pool = createReadingPool({ threads: 1 });
});
test.after.always(() => pool?.close());

const ORIGIN = 'http://127.0.0.2:8080';
const article: PageSource = { body: Buffer.from(articlePage(ORIGIN)), url: `${ORIGIN}/docs/article.html`, contentType: 'text/html' };

/** About 4 MiB of article: seconds of parsing, far beyond one timer tick. */
const largePage = (): PageSource => ({ ...article, body: Buffer.from(largeArticlePage(ORIGIN, 4 * 1024 * 1024)) });

test.serial('every reading answers on the threads exactly as in the calling thread', async (t) => {
  const options = { selector: 'h2', includeText: true };
  t.deepEqual(await pool.read('scrape', [article, options]), await readInline('scrape', [article, options]));
  t.deepEqual(await pool.read('seo', [article]), await readInline('seo', [article]));
  const links = await pool.read('links', [article]);
  t.true(links.length > 0);
  t.deepEqual(links, await readInline('links', [article]));
});

test.serial('the bytes reach the thread as bytes: the declared charset still decides', async (t) => {
  const cp1252: PageSource = {
    body: Buffer.concat([Buffer.from('<title>Caf'), Buffer.from([0xe9, 0x20, 0x80]), Buffer.from('</title>')]),
    url: `${ORIGIN}/`,
    contentType: 'text/html; charset=windows-1252',
  };
  t.is((await pool.read('seo', [cp1252])).title, 'Café €');
});

test.serial('a PDF is read on the threads as in the calling thread; not a PDF is refused with the same code', async (t) => {
  const pdf = await makePdf({ title: 'Threads', author: 'Reading pool', pages: 3 });
  const info = await pool.read('pdf', [pdf]);
  t.like(info, { title: 'Threads', author: 'Reading pool', pageCount: 3, encrypted: false });
  t.deepEqual(info, await readInline('pdf', [pdf]));
  const refused = await t.throwsAsync(pool.read('pdf', [Buffer.from('plain text, no PDF header')]), { instanceOf: ServiceError });
  t.is(refused?.code, 'unsupported_source');
});

test.serial('a large page is read off the calling thread: a 1 ms timer fires before the reading ends', async (t) => {
  const page = largePage();
  let ticked = false;
  const timer = setTimeout(() => (ticked = true), 1);
  const reading = await pool.read('scrape', [page, { includeText: false }]);
  clearTimeout(timer);
  t.true(ticked, 'the event loop ran while the thread parsed');
  t.true(reading.wordCount > 100_000);
});

test.serial('an aborted reading rejects at once and the pool reads the next page', async (t) => {
  const controller = new AbortController();
  const reading = pool.read('scrape', [largePage(), { includeText: true }], controller.signal);
  setTimeout(() => controller.abort(), 20);
  await t.throwsAsync(reading, { name: 'AbortError' });
  t.is((await pool.read('seo', [article])).title, 'Fixture article');
});
