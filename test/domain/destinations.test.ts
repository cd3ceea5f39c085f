//! A tool's file as a destination takes it (domain/destinations/stored-file.ts): the bytes and type
//! out of the output, the object's key, and the answer with `stored` in place of the bytes.
import test from 'ava';
import { fileOf, objectKey, storedOutput } from '../../domain/destinations/stored-file.js';
import { CATALOGUE } from '../../domain/tools/catalogue.js';
import { publishedCatalogueSchemas } from '../../domain/tools/schemas.js';

const PNG = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 1, 2, 255]);

test("the file is the decoded base64 of the tool's file field, typed and named by its mimeType", (t) => {
  const output = { imageBase64: PNG.toString('base64'), mimeType: 'image/png', size: 64 };
  t.deepEqual(fileOf(output, 'imageBase64'), { bytes: PNG, contentType: 'image/png', extension: 'png' });
  const extensions = ['image/jpeg', 'image/webp', 'application/pdf', 'application/x-unknown'].map(
    (mimeType) => fileOf({ fileBase64: '', mimeType }, 'fileBase64').extension,
  );
  t.deepEqual(extensions, ['jpg', 'webp', 'pdf', 'bin']);
  t.throws(() => fileOf({ mimeType: 'image/png' }, 'fileBase64'), { message: /no file in fileBase64/ });
});

test("the key is {prefix}/{folder}/{name}.{ext}, without a prefix at the bucket's root", (t) => {
  t.is(objectKey('renders/2026', { folder: 'call-acc_x-1', name: '0' }, 'png'), 'renders/2026/call-acc_x-1/0.png');
  t.is(objectKey('', { folder: 'bat_1', name: '17' }, 'pdf'), 'bat_1/17.pdf');
});

test('the answer keeps every field but the file, and says where it went', (t) => {
  const stored = { bucket: 'b', key: 'k/0.png', size: PNG.length, contentType: 'image/png' };
  t.deepEqual(storedOutput({ fileBase64: 'AAAA', mimeType: 'image/png', width: 10 }, 'fileBase64', stored), {
    stored,
    mimeType: 'image/png',
    width: 10,
  });
});

test('exactly the tools that make a file name their file field, and it carries base64 with a mimeType', (t) => {
  const withFile = [...CATALOGUE.values()]
    .filter((tool) => tool.fileField)
    .map((tool) => tool.name)
    .sort();
  t.deepEqual(withFile, ['html-to-image', 'image-upscale', 'qr-generate', 'watermark-image', 'website-screenshot', 'word-to-pdf']);
  const schemas = publishedCatalogueSchemas();
  for (const tool of CATALOGUE.values()) {
    if (!tool.fileField) continue;
    const output = schemas.get(tool.name)!.output as { required: string[]; properties: Record<string, { contentEncoding?: string }> };
    t.is(output.properties[tool.fileField]?.contentEncoding, 'base64', `${tool.name}.${tool.fileField} is base64`);
    t.true(
      output.required.includes(tool.fileField) && output.required.includes('mimeType'),
      `${tool.name} always answers its file and mimeType`,
    );
  }
});
