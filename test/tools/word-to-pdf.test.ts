//! word-to-pdf: .doc, .docx, .odt and .rtf become PDFs with their pages and text; the type comes
//! from the bytes; size, type and target refusals; two conversions at once; a stuck conversion
//! killed at the hard timeout with its listener replaced and its temporary files removed; a listener failing for its own state
//! replaced and the document converted on a fresh one; no network during conversion.
import test from 'ava';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { createOfficeConverter } from '../../activities/cpu/office-converter.js';
import { createWordToPdf } from '../../activities/tools/word-to-pdf.js';
import type { WordToPdfInput } from '../../domain/tools/word-to-pdf.js';
import { standaloneContext } from '../../domain/tools/index.js';
import { balanceOf, callTool, isProblem, newAccount } from '../helpers/api.js';
import { compileToolSchemas, rejectsWith, validInput } from '../helpers/tools.js';
import { DOC_FIXTURE_PAGES, docFixture, makeDocx, makeOdt, makeRtf, readPdf, zipStored } from '../fixtures/documents.js';
import { closedPort } from '../fixtures/file-server.js';
import { download, files } from './support/source-files.js';
import { makeImage } from '../fixtures/images.js';

// ===== Unit: the handler called directly, with real LibreOffice listeners (no stack) =====

/**
 * Normal conversions take 20-200 ms on a quiet machine; the stuck one below waits this long. Every
 * conversion in this file has the same limit, and the one converting beside the stuck one must end
 * within it, so it leaves room for a busy machine.
 */
const HARD_TIMEOUT_MS = 12_000;

const workDir = mkdtempSync(path.join(os.tmpdir(), 'word-to-pdf-office-'));
const office = createOfficeConverter({ listeners: 2, conversionTimeoutMs: HARD_TIMEOUT_MS, workDir });
/** The temporary folders (`TMPDIR`) of the first slot's listener starts that are still there. */
const firstSlotTempDirs = () => readdirSync(path.join(workDir, 'profile-0')).filter((name) => name.startsWith('tmp-'));
const wordToPdf = createWordToPdf({ download, office });
const schemas = compileToolSchemas('word-to-pdf');
/** A fresh context (and abort signal) per call, as every activity has its own. */
const ctx = () => standaloneContext();
test.before(() => office.whenReady());
test.after.always(() => office.close());

const PAGES = ['First page of the fixture, with ümlauts and € signs.', 'Second page: the end.'];

/**
 * Whether every process of the group has ended and been reaped. A killed group is reaped when the
 * machine gets to it: a generous bound on waiting, never a verdict on its pace.
 */
async function processGroupGone(pgid: number): Promise<boolean> {
  for (let i = 0; i < 600; i++) {
    try {
      process.kill(-pgid, 0);
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ESRCH') return true;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return false;
}

/** Whether `dir` is removed (it goes once its listener's exit is seen): a generous bound, as above. */
async function removedSoon(dir: string): Promise<boolean> {
  for (let i = 0; i < 600 && existsSync(dir); i++) await new Promise((resolve) => setTimeout(resolve, 50));
  return !existsSync(dir);
}

async function convertServed(path: string, body: Buffer) {
  const output = await wordToPdf({ fileUrl: files.put(path, body) }, ctx());
  const pdf = Buffer.from(output.fileBase64, 'base64');
  return { output, pdf, read: await readPdf(pdf) };
}

test('docx, odt, rtf and doc become PDFs with every page and its text', async (t) => {
  const cases = [
    ['/docs/report.docx', await makeDocx(PAGES), PAGES, 'report.pdf'],
    ['/docs/notes.odt', makeOdt(PAGES), PAGES, 'notes.pdf'],
    ['/docs/letter.rtf', makeRtf(PAGES), PAGES, 'letter.pdf'],
    ['/docs/legacy.doc', docFixture(), DOC_FIXTURE_PAGES, 'legacy.pdf'],
  ] as const;
  for (const [path, body, pages, fileName] of cases) {
    const { output, pdf, read } = await convertServed(path, body);
    t.true(schemas.output(output), JSON.stringify(schemas.output.errors));
    t.like(output, { mimeType: 'application/pdf', fileName, sizeBytes: pdf.length }, path);
    t.is(pdf.subarray(0, 5).toString('latin1'), '%PDF-', path);
    t.is(read.pageCount, pages.length, path);
    t.deepEqual(read.pages, [...pages], path);
  }
});

test('the type comes from the bytes: RTF served as .docx with a Word Content-Type converts as RTF', async (t) => {
  const docxType = 'application/vnd.openxmlformats-officedocument.wordprocessingml.document';
  const output = await wordToPdf({ fileUrl: files.put('/misnamed.docx', { body: makeRtf(['Really RTF']), contentType: docxType }) }, ctx());
  t.is(output.fileName, 'misnamed.pdf');
  t.deepEqual((await readPdf(Buffer.from(output.fileBase64, 'base64'))).pages, ['Really RTF']);
});

test('a URL that names no file gives document.pdf; redirects are followed', async (t) => {
  files.put('/files/a.rtf', makeRtf(['Redirected']));
  const output = await wordToPdf({ fileUrl: files.redirect('/', '/files/a.rtf') }, ctx());
  t.is(output.fileName, 'document.pdf');
  t.deepEqual((await readPdf(Buffer.from(output.fileBase64, 'base64'))).pages, ['Redirected']);
});

test('files that are not Word, ODT or RTF documents are 422 unsupported_source, whatever their name', async (t) => {
  const ole2Spreadsheet = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(4096)]);
  const cases: [string, Buffer][] = [
    ['/pdf.docx', Buffer.from('%PDF-1.7\n%%EOF\n')],
    ['/image.doc', await makeImage('png', 8, 8, 0xff0000ff)],
    ['/text.rtf', Buffer.from('just some text, not {\\rtf')],
    ['/archive.docx', zipStored([{ name: 'readme.txt', data: Buffer.from('hello') }])],
    ['/sheet.odt', zipStored([{ name: 'mimetype', data: Buffer.from('application/vnd.oasis.opendocument.spreadsheet') }])],
    ['/sheet.doc', ole2Spreadsheet],
    ['/empty.docx', Buffer.alloc(0)],
  ];
  for (const [path, body] of cases) {
    const err = await rejectsWith(t, wordToPdf({ fileUrl: files.put(path, body) }, ctx()), 'unsupported_source');
    t.regex(err.message, /\.doc, \.docx, \.odt, \.rtf/, path);
  }
});

/** A .docx by its parts that LibreOffice cannot open: its document is cut short. */
function brokenDocx(): Buffer {
  const contentTypes = `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
  return zipStored([
    { name: '[Content_Types].xml', data: Buffer.from(contentTypes) },
    { name: 'word/document.xml', data: Buffer.from('<w:document') },
  ]);
}

test('a document of the right type that LibreOffice cannot open is 422 unsupported_source', async (t) => {
  const err = await rejectsWith(t, wordToPdf({ fileUrl: files.put('/broken.docx', brokenDocx()) }, ctx()), 'unsupported_source');
  t.regex(err.message, /could not open it/);
});

test('a document over 20 MiB is 422 source_too_large naming the limit; exactly 20 MiB is read', async (t) => {
  const rtfOf = (size: number) => Buffer.concat([makeRtf(['Big']).subarray(0, -1), Buffer.alloc(size, 0x20)]).subarray(0, size);
  const limit = 20 * 1024 * 1024;
  const err = await rejectsWith(t, wordToPdf({ fileUrl: files.put('/big.rtf', rtfOf(limit + 1)) }, ctx()), 'source_too_large');
  t.regex(err.message, /20 MiB/);
  t.is(err.extras.limitBytes, limit);
  // At the limit the download is accepted (converting 20 MiB of blanks would only time the office suite).
  const { bytes } = await download(files.put('/limit.rtf', rtfOf(limit)), 'document');
  t.is(bytes.length, limit);
});

test('private targets are 422 target_not_allowed, also by redirect; unreachable and failing sources are 502', async (t) => {
  await rejectsWith(t, wordToPdf({ fileUrl: 'http://127.0.0.1:9/report.docx' }, ctx()), 'target_not_allowed');
  await rejectsWith(t, wordToPdf({ fileUrl: 'http://10.0.0.1/report.docx' }, ctx()), 'target_not_allowed');
  const viaRedirect = await rejectsWith(
    t,
    wordToPdf({ fileUrl: files.redirect('/to-private', 'http://127.0.0.1:9/x.docx') }, ctx()),
    'target_not_allowed',
  );
  t.regex(viaRedirect.message, /^Redirect refused/);
  await rejectsWith(t, wordToPdf({ fileUrl: `http://127.0.0.2:${await closedPort()}/report.docx` }, ctx()), 'upstream_error');
  const missing = await rejectsWith(t, wordToPdf({ fileUrl: `${files.origin}/missing.docx` }, ctx()), 'upstream_error');
  t.regex(missing.message, /HTTP 404/);
});

test.serial('a stuck conversion is killed at the hard timeout and its listener replaced, while the other keeps converting', async (t) => {
  await office.whenReady();
  const before = office.status();
  // Freeze the first listener's whole process group (bridge and soffice): a hang, as a document
  // that sends LibreOffice into an endless layout loop would cause.
  const frozen = before[0]!.pid!;
  // LibreOffice keeps its temporary files in its start's own folder, not in the machine's /tmp.
  const [frozenTemp, ...others] = firstSlotTempDirs();
  t.deepEqual(others, []);
  t.true(readdirSync(path.join(workDir, 'profile-0', frozenTemp!)).length > 0, 'LibreOffice wrote nothing under its TMPDIR');
  process.kill(-frozen, 'SIGSTOP');
  const started = Date.now();
  let stuckSettled = false;
  const stuck = rejectsWith(t, wordToPdf({ fileUrl: files.put('/stuck.rtf', makeRtf(['Stuck'])) }, ctx()), 'tool_timeout');
  void stuck.finally(() => (stuckSettled = true));

  // Meanwhile the second listener converts: two conversions are in progress at once. It starts
  // once the stuck one holds the frozen listener (its download first: a fixed pause raced it).
  while (office.status()[0]!.state !== 'busy' && !stuckSettled) await new Promise((resolve) => setTimeout(resolve, 20));
  const meanwhile = await wordToPdf({ fileUrl: files.put('/meanwhile.rtf', makeRtf(['Meanwhile'])) }, ctx());
  t.false(stuckSettled, 'the second conversion finished while the first was still stuck');
  t.deepEqual((await readPdf(Buffer.from(meanwhile.fileBase64, 'base64'))).pages, ['Meanwhile']);

  const err = await stuck;
  t.true(Date.now() - started >= HARD_TIMEOUT_MS - 50);
  t.regex(err.message, new RegExp(`did not finish within ${HARD_TIMEOUT_MS / 1000} s`));
  t.true(await processGroupGone(frozen), 'the frozen process group is gone');

  await office.whenReady();
  const after = office.status();
  t.is(after[0]!.starts, before[0]!.starts + 1);
  t.not(after[0]!.pid, frozen);
  // The killed start's temporary files went with it (a zip bomb's unpacked parts would be gigabytes).
  t.true(await removedSoon(path.join(workDir, 'profile-0', frozenTemp!)), 'the killed listener left its temporary files');
  t.is(firstSlotTempDirs().length, 1);
  const next = await Promise.all(['Next one', 'And another'].map((text, i) => convertServed(`/next-${i}.rtf`, makeRtf([text]))));
  t.deepEqual(
    next.map((n) => n.read.pages),
    [['Next one'], ['And another']],
  );
});

test.serial(
  'a listener that fails a valid document for its own state is replaced, and the same call converts on a fresh one',
  async (t) => {
    // A converter of its own, with one listener and a time limit no conversion here comes near.
    const one = createOfficeConverter({ listeners: 1, conversionTimeoutMs: 60_000 });
    const convertOn = createWordToPdf({ download, office: one });
    t.teardown(() => one.close());
    await one.whenReady();
    const [listener] = one.status();
    const pgid = listener!.pid!;
    const officePid = Number(
      execFileSync('ps', ['-o', 'pid=,comm=', '-g', String(pgid)], { encoding: 'utf8' })
        .split('\n')
        .find((line) => line.includes('soffice.bin'))!
        .trim()
        .split(/\s+/)[0],
    );
    // The listener is frozen, handed the document, and its office process ended before it wakes:
    // it then fails the conversion (a load error, as a broken listener answers valid documents).
    process.kill(-pgid, 'SIGSTOP');
    const converting = convertOn({ fileUrl: files.put('/fresh.rtf', makeRtf(['Fresh listener'])) }, ctx());
    while (one.status()[0]!.state !== 'busy') await new Promise((resolve) => setTimeout(resolve, 20));
    process.kill(officePid, 'SIGKILL');
    process.kill(-pgid, 'SIGCONT');
    const output = await converting;
    t.deepEqual((await readPdf(Buffer.from(output.fileBase64, 'base64'))).pages, ['Fresh listener']);
    t.like(one.status()[0], { starts: listener!.starts + 1, state: 'idle' });
    t.not(one.status()[0]!.pid, pgid);
    // A document no listener can open is refused by the fresh one, which then stays.
    const before = one.status()[0]!;
    const err = await rejectsWith(t, convertOn({ fileUrl: files.put('/still-broken.docx', brokenDocx()) }, ctx()), 'unsupported_source');
    t.regex(err.message, /could not open it/);
    await one.whenReady();
    t.is(one.status()[0]!.starts, before.starts + 1, 'one replacement: the first listener, not the fresh one that refused it');
  },
);

test.serial('two conversions run at once on the two listeners', async (t) => {
  await office.whenReady();
  const before = office.status().map((s) => s.conversions);
  const results = await Promise.all([1, 2].map((n) => convertServed(`/pair-${n}.docx`, makeRtf([`Pair ${n}`]))));
  t.deepEqual(
    results.map((r) => r.read.pages),
    [['Pair 1'], ['Pair 2']],
  );
  const after = office.status().map((s) => s.conversions);
  t.deepEqual(
    after.map((n, i) => n - before[i]!),
    [1, 1],
    'each listener took one',
  );
});

test('LibreOffice fetches nothing: a linked image is not requested in the network namespace, and is without it', async (t) => {
  files.put('/linked.png', { body: await makeImage('png', 16, 16, 0x00ff00ff), contentType: 'image/png' });
  const odt = makeOdt(['Has a linked image'], { linkedImageUrl: `${files.origin}/linked.png` });
  const output = await wordToPdf({ fileUrl: files.put('/linked.odt', odt) }, ctx());
  t.deepEqual((await readPdf(Buffer.from(output.fileBase64, 'base64'))).pages, ['Has a linked image']);
  t.is(files.hits('/linked.png'), 0, 'isolated: no request reached the server');

  // The same document on a listener outside a namespace does fetch it: the check above can see a fetch.
  const open = createOfficeConverter({ listeners: 1, conversionTimeoutMs: HARD_TIMEOUT_MS, isolation: 'none' });
  try {
    await open.convert(odt, 'odt');
    t.true(files.hits('/linked.png') >= 1, 'not isolated: the linked image was requested');
  } finally {
    await open.close();
  }
});

test('when LibreOffice cannot start, conversions fail at once with the reason instead of waiting for the deadline', async (t) => {
  const broken = createOfficeConverter({
    listeners: 1,
    conversionTimeoutMs: HARD_TIMEOUT_MS,
    listener: { soffice: '/nonexistent/soffice' },
  });
  try {
    // Without a deadline of its own, a conversion that waited for a listener would never end.
    const err = await t.throwsAsync(broken.convert(makeRtf(['x']), 'rtf'));
    t.regex(err!.message, /no office listener could be started.*nonexistent\/soffice/);
    await t.throwsAsync(broken.convert(makeRtf(['x']), 'rtf'), { message: /no office listener could be started/ });
  } finally {
    await broken.close();
  }
});

test('input schema: fileUrl required, no unknown fields; the precheck refuses non-http URLs', async (t) => {
  t.false(schemas.input({}));
  t.false(schemas.input({ fileUrl: 'https://example.com/a.docx', format: 'pdf' }));
  const input = validInput<WordToPdfInput>(t, schemas.input, { fileUrl: 'https://example.com/a.docx' });
  t.deepEqual(input, { fileUrl: 'https://example.com/a.docx' });
  const { examples } = schemas.input.schema as { examples: unknown[] };
  t.true(schemas.input(structuredClone(examples[0])));
  await rejectsWith(t, wordToPdf({ fileUrl: 'file:///etc/passwd' }, ctx()), 'validation_failed', '/fileUrl');
});

// ===== Integration: through HTTP against the running stack =====

test('HTTP: a .docx answers 200 with its PDF and is charged 15 credits', async (t) => {
  const account = await newAccount(100);
  const res = await callTool(account.apiKey, 'word-to-pdf', { fileUrl: files.put('/http/quarterly report.docx', await makeDocx(PAGES)) });
  t.is(res.status, 200, JSON.stringify(res.body));
  t.is(res.headers.get('x-credits-charged'), '15');
  t.like(res.body, { mimeType: 'application/pdf', fileName: 'quarterly-report.pdf' });
  const read = await readPdf(Buffer.from(res.body.fileBase64, 'base64'));
  t.deepEqual(read.pages, PAGES);
  t.is(await balanceOf(account), 85);
});

test('HTTP: a mistyped source is 422 unsupported_source and a private one 422 target_not_allowed, neither charged', async (t) => {
  const account = await newAccount(100);
  const mistyped = await callTool(account.apiKey, 'word-to-pdf', {
    fileUrl: files.put('/http/photo.docx', await makeImage('jpeg', 8, 8, 0xffffffff)),
  });
  t.true(isProblem(mistyped, 422, 'unsupported_source'), JSON.stringify(mistyped.body));
  const privateSource = await callTool(account.apiKey, 'word-to-pdf', { fileUrl: 'http://127.0.0.1:9/report.docx' });
  t.true(isProblem(privateSource, 422, 'target_not_allowed'), JSON.stringify(privateSource.body));
  t.is(await balanceOf(account), 100);
});
