//! Suggested download names from source URLs.
import test from 'ava';
import { fileNameFor } from '../../../activities/cpu/file-name.js';

test('the last path segment, decoded and cleaned, with the new extension', (t) => {
  const pdf = (url: string) => fileNameFor(url, { extension: 'pdf', fallback: 'document' });
  t.is(pdf('https://example.com/files/Quarterly%20Report%20(final).docx'), 'Quarterly-Report-final.pdf');
  t.is(pdf('https://example.com/a/b/r%C3%A9sum%C3%A9.odt?download=1#x'), 'résumé.pdf');
  t.is(pdf('https://example.com/dl/'), 'dl.pdf');
  t.is(pdf('https://example.com/'), 'document.pdf');
  t.is(pdf('https://example.com/..%2F..%2Fetc%2Fpasswd'), 'etc-passwd.pdf');
  t.is(pdf('https://example.com/100%.docx'), '100.pdf');
  t.is(pdf('https://example.com/' + 'x'.repeat(300) + '.rtf'), 'x'.repeat(100) + '.pdf');
  t.is(
    fileNameFor('https://example.com/cat.photo.JPEG', { extension: 'jpg', suffix: '-watermarked', fallback: 'image' }),
    'cat.photo-watermarked.jpg',
  );
  t.is(fileNameFor('not a url', { extension: 'png', suffix: '-x2', fallback: 'image' }), 'image-x2.png');
});
