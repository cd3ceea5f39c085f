//! pdf-metadata: the information dictionary and page count of real PDFs (made with pdf-lib, and
//! encrypted ones made with qpdf), the type decided from the bytes, the 20 MiB limit, refused
//! and unreachable sources, and the same through the running stack.
import test from 'ava';
import type http from 'node:http';
import zlib from 'node:zlib';
import { createPdfMetadata } from '../../activities/tools/pdf-metadata.js';
import { pdfHeaderOffset } from '../../activities/network/pdf-info.js';
import { readInline } from '../../activities/network/readings.js';
import type { PdfMetadataInput } from '../../domain/tools/pdf-metadata.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { apiUrl, balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { startTestNetwork, type TestNetwork } from '../helpers/network-access.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';
import { closedPort, send, startPageServer, type PageServer } from '../fixtures/http-pages.js';
import { ENCRYPTED_PDFS, ENCRYPTED_SOURCE, makePdf, readFixtureFile } from '../fixtures/pdf-files.js';

const schemas = compileToolSchemas('pdf-metadata');
/** A context of its own per call: tests run concurrently and each call listens on its signal. */
const ctx = () => standaloneContext();
const MiB = 1024 * 1024;

let net: TestNetwork;
let pages: PageServer;
let plain: Buffer;
let unicode: Buffer;
let bare: Buffer;

test.before(async () => {
  [net, plain, unicode, bare] = await Promise.all([
    startTestNetwork(),
    makePdf({
      title: 'Quarterly report',
      author: 'Ada Lovelace',
      subject: 'Q3 figures',
      producer: 'Fixture Producer 1.0',
      creator: 'Fixture Writer',
      pages: 3,
    }),
    makePdf({ title: 'Zoë — 日本語', author: 'Ünïcode Äuthor' }),
    makePdf({ pages: 2 }),
  ]);
  const file =
    (body: Buffer, type = 'application/pdf', headers: http.OutgoingHttpHeaders = {}) =>
    (_req: http.IncomingMessage, res: http.ServerResponse) =>
      send(res, 200, type, body, headers);
  const routes: Record<string, ReturnType<typeof file>> = {
    '/plain.pdf': file(plain),
    '/unicode.pdf': file(unicode),
    '/bare.pdf': file(bare),
    // Servers label PDFs wrongly; the bytes decide.
    '/download': file(plain, 'application/octet-stream', { 'content-disposition': 'attachment; filename="report.pdf"' }),
    '/gzip.pdf': file(zlib.gzipSync(plain), 'application/pdf', { 'content-encoding': 'gzip' }),
    '/prefixed.pdf': file(Buffer.concat([Buffer.from('junk before the header\n'), plain])),
    '/not-a-pdf.pdf': file(Buffer.from('<!doctype html><title>Not a PDF</title>'), 'application/pdf'),
    '/broken.pdf': file(Buffer.from('%PDF-1.7\nthis is not the rest of a PDF file at all\n%%EOF\n')),
    '/empty.pdf': file(Buffer.alloc(0)),
    '/limit.pdf': file(Buffer.concat([plain, Buffer.alloc(20 * MiB - plain.length, 0x20)])),
    '/huge.pdf': file(Buffer.concat([plain, Buffer.alloc(20 * MiB + 1 - plain.length, 0x20)])),
  };
  for (const { file: name } of Object.values(ENCRYPTED_PDFS)) routes[`/${name}`] = file(readFixtureFile(name));
  pages = await startPageServer({ routes });
});

test.after.always(async () => {
  await Promise.all([pages?.close(), net?.close()]);
});

/** Reads in this thread (readings.ts keeps one pdf.js per thread, loaded once, as in the worker). */
const tool = () => createPdfMetadata({ http: net.http, reader: readInline });

async function run(t: Parameters<typeof validInput>[0], path: string) {
  const out = await tool()(validInput<PdfMetadataInput>(t, schemas.input, { fileUrl: pages.url(path) }), ctx());
  t.true(schemas.output(out), JSON.stringify(schemas.output.errors));
  return out;
}

// ===== Unit: the handler called directly against fixture servers (no stack) =====

test('a plain PDF: title, author, subject, producer, creator, pages, version and size', async (t) => {
  t.deepEqual(await run(t, '/plain.pdf'), {
    title: 'Quarterly report',
    author: 'Ada Lovelace',
    subject: 'Q3 figures',
    producer: 'Fixture Producer 1.0',
    creator: 'Fixture Writer',
    pageCount: 3,
    encrypted: false,
    passwordRequired: false,
    pdfVersion: '1.7',
    sizeBytes: plain.length,
  });
});

test('unset fields are null; text beyond Latin-1 is read', async (t) => {
  t.like(await run(t, '/bare.pdf'), {
    title: null,
    author: null,
    subject: null,
    producer: null,
    creator: null,
    pageCount: 2,
    encrypted: false,
  });
  t.like(await run(t, '/unicode.pdf'), { title: 'Zoë — 日本語', author: 'Ünïcode Äuthor', pageCount: 1 });
});

test('owner-password files (AES-256 and RC4) are read and reported encrypted', async (t) => {
  for (const fixture of [ENCRYPTED_PDFS.ownerAes256, ENCRYPTED_PDFS.ownerRc4]) {
    const out = await run(t, `/${fixture.file}`);
    t.deepEqual(
      out,
      {
        title: ENCRYPTED_SOURCE.title,
        author: ENCRYPTED_SOURCE.author,
        subject: ENCRYPTED_SOURCE.subject,
        producer: ENCRYPTED_SOURCE.producer,
        creator: ENCRYPTED_SOURCE.creator,
        pageCount: ENCRYPTED_SOURCE.pages,
        encrypted: true,
        passwordRequired: false,
        pdfVersion: out.pdfVersion,
        sizeBytes: readFixtureFile(fixture.file).length,
      },
      fixture.file,
    );
    t.regex(out.pdfVersion ?? '', /^\d\.\d$/);
  }
});

test('a user-password file is an answer: encrypted, password required, hidden fields null', async (t) => {
  t.like(await run(t, `/${ENCRYPTED_PDFS.userAes256.file}`), {
    encrypted: true,
    passwordRequired: true,
    title: null,
    author: null,
    subject: null,
    producer: null,
    pageCount: null,
  });
});

test('the bytes decide the type: mislabelled, gzip-encoded and prefixed PDFs are read', async (t) => {
  t.is((await run(t, '/download')).title, 'Quarterly report');
  t.is((await run(t, '/gzip.pdf')).pageCount, 3);
  t.is((await run(t, '/prefixed.pdf')).author, 'Ada Lovelace');
  t.is(
    pdfHeaderOffset(Buffer.concat([Buffer.alloc(1020, 0x20), Buffer.from('%PDF-1.4')])),
    -1,
    'the header must start in the first 1024 bytes',
  );
  t.is(pdfHeaderOffset(Buffer.concat([Buffer.alloc(1019, 0x20), Buffer.from('%PDF-1.4')])), 1019);
});

test('no %PDF- header, or a header over garbage, is 422 unsupported_source', async (t) => {
  for (const path of ['/not-a-pdf.pdf', '/empty.pdf', '/broken.pdf', '/article.html']) {
    await rejectsWith(t, tool()({ fileUrl: pages.url(path) }, ctx()), 'unsupported_source');
  }
});

test('20 MiB is read; one byte more is 422 source_too_large', async (t) => {
  t.is((await run(t, '/limit.pdf')).sizeBytes, 20 * MiB);
  const err = await rejectsWith(t, tool()({ fileUrl: pages.url('/huge.pdf') }, ctx()), 'source_too_large');
  t.regex(err.message, /20 MiB/);
});

test('redirects are followed and re-checked: to a PDF works, to a private address is 422', async (t) => {
  t.is((await run(t, '/redirect?to=/plain.pdf')).pageCount, 3);
  for (const [to, reason] of [
    ['http://10.0.0.1/x.pdf', 'private'],
    [`http://127.0.0.1:${pages.port}/plain.pdf`, 'loopback'],
  ] as const) {
    const err = await rejectsWith(t, tool()({ fileUrl: pages.url(`/redirect?to=${encodeURIComponent(to)}`) }, ctx()), 'target_not_allowed');
    t.is(err.extras.reason, reason);
  }
});

test('a missing file is 502 with its status; an unreachable host is 502; bad URLs 400', async (t) => {
  const missing = await rejectsWith(t, tool()({ fileUrl: pages.url('/status/404') }, ctx()), 'upstream_error');
  t.like(missing.extras, { reason: 'http_status', statusCode: 404 });
  const refused = await rejectsWith(t, tool()({ fileUrl: `http://127.0.0.2:${await closedPort()}/a.pdf` }, ctx()), 'upstream_error');
  t.is(refused.extras.reason, 'connection_refused');
  await rejectsWith(t, tool()({ fileUrl: 'file:///etc/passwd' }, ctx()), 'validation_failed', '/fileUrl');
});

test('input schema: fileUrl required, nothing else, example valid', (t) => {
  t.false(schemas.input({}));
  t.false(schemas.input({ url: 'http://x/a.pdf' }));
  t.true(schemas.input(structuredClone((schemas.input.schema as { examples: unknown[] }).examples[0])));
  t.true(schemas.output((schemas.output.schema as { examples: unknown[] }).examples[0]));
});

// ===== Integration: through HTTP against the running stack =====

test('stack: metadata of a plain and an encrypted PDF for 2 credits each', async (t) => {
  const account = await newAccount(20);
  const res = await callTool(account.apiKey, 'pdf-metadata', { fileUrl: pages.url('/plain.pdf') });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.true(schemas.output(res.body));
  t.like(res.body, { title: 'Quarterly report', pageCount: 3, encrypted: false });
  const locked = await callTool(account.apiKey, 'pdf-metadata', { fileUrl: pages.url(`/${ENCRYPTED_PDFS.userAes256.file}`) });
  t.is(locked.status, 200);
  t.like(locked.body, { encrypted: true, passwordRequired: true, pageCount: null });
  t.is(await balanceOf(account), 16);
});

test('stack: not a PDF, too large, private, redirected to the service, unreachable: refused or failed, never charged', async (t) => {
  const account = await newAccount(20);
  t.true(isProblem(await callTool(account.apiKey, 'pdf-metadata', { fileUrl: pages.url('/not-a-pdf.pdf') }), 422, 'unsupported_source'));
  t.true(isProblem(await callTool(account.apiKey, 'pdf-metadata', { fileUrl: pages.url('/huge.pdf') }), 422, 'source_too_large'));
  const self = await callTool(account.apiKey, 'pdf-metadata', {
    fileUrl: pages.url(`/redirect?to=${encodeURIComponent(`${apiUrl()}/api/v1/openapi.json`)}`),
  });
  t.true(isProblem(self, 422, 'target_not_allowed'), JSON.stringify(self.body));
  t.is(self.body.reason, 'loopback');
  t.true(isProblem(await callTool(account.apiKey, 'pdf-metadata', { fileUrl: 'http://172.16.0.1/a.pdf' }), 422, 'target_not_allowed'));
  t.true(isProblem(await callTool(account.apiKey, 'pdf-metadata', { fileUrl: pages.url('/status/404') }), 502, 'upstream_error'));
  t.true(
    isProblem(
      await callTool(account.apiKey, 'pdf-metadata', { fileUrl: `http://127.0.0.2:${await closedPort()}/a.pdf` }),
      502,
      'upstream_error',
    ),
  );
  t.true(isProblem(await callTool(account.apiKey, 'pdf-metadata', { fileUrl: 'ftp://127.0.0.2/a.pdf' }), 400, 'validation_failed'));
  t.is(await balanceOf(account), 20);
});
