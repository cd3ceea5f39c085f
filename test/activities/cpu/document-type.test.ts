//! Word, OpenDocument and RTF documents told apart by their bytes, and look-alikes refused.
import test from 'ava';
import { detectDocumentType } from '../../../activities/cpu/document-type.js';
import { listZipEntries, readZipEntry } from '../../../activities/cpu/zip-entries.js';
import { docFixture, makeDocx, makeOdt, makeRtf, zipStored } from '../../fixtures/documents.js';

const CONTENT_TYPES = (type: string, quote = '"') =>
  Buffer.from(
    `<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Override PartName="/word/document.xml" ContentType=${quote}${type}${quote}/></Types>`,
  );

test('documents made by their tools are recognised', async (t) => {
  t.is(detectDocumentType(await makeDocx(['x'])), 'docx');
  t.is(detectDocumentType(makeOdt(['x'])), 'odt');
  t.is(detectDocumentType(makeRtf(['x'])), 'rtf');
  t.is(detectDocumentType(docFixture()), 'doc');
});

test('docx: any Word main part (templates, macro-enabled, single quotes) in a deflated [Content_Types].xml', async (t) => {
  for (const type of [
    'application/vnd.ms-word.document.macroEnabled.main+xml',
    'application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml',
  ]) {
    t.is(detectDocumentType(zipStored([{ name: '[Content_Types].xml', data: CONTENT_TYPES(type, "'") }])), 'docx', type);
  }
  const docx = await makeDocx(['x']); // docx writes deflated entries
  const entry = listZipEntries(docx)!.find((e) => e.name === '[Content_Types].xml')!;
  t.is(entry.method, 8);
  t.regex(readZipEntry(docx, entry)!.toString('utf8'), /wordprocessingml\.document\.main\+xml/);
});

test('look-alikes are not documents: spreadsheets, presentations, plain ZIPs, other OLE2 files, PDFs', (t) => {
  const xlsx = zipStored([
    { name: '[Content_Types].xml', data: CONTENT_TYPES('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml') },
  ]);
  const ods = zipStored([{ name: 'mimetype', data: Buffer.from('application/vnd.oasis.opendocument.spreadsheet') }]);
  const ole2 = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(2048)]);
  // "WordDocument" as text somewhere, not as a directory entry: still not a Word file.
  const misaligned = Buffer.concat([ole2, Buffer.alloc(3), Buffer.from('WordDocument\0', 'utf16le'), Buffer.alloc(200)]);
  for (const bytes of [
    xlsx,
    ods,
    zipStored([{ name: 'a.txt', data: Buffer.from('a') }]),
    ole2,
    misaligned,
    Buffer.from('%PDF-1.4'),
    Buffer.from('{\\rt'),
    Buffer.alloc(0),
  ]) {
    t.is(detectDocumentType(bytes), null);
  }
});

test('a cut or corrupt ZIP is not a document (and does not throw)', async (t) => {
  const docx = await makeDocx(['x']);
  t.is(detectDocumentType(docx.subarray(0, docx.length - 30)), null);
  const badEntry = zipStored([{ name: '[Content_Types].xml', data: Buffer.from('x') }]);
  badEntry.writeUInt16LE(8, 8); // claims deflate over data that is not deflated
  t.is(detectDocumentType(badEntry), null);
});
