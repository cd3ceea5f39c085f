//! Hostile inputs the cost-bomb suite serves: a DOCX whose document expands to gigabytes, a
//! document of nested elements that is slow to lay out, endless and dripping HTTP bodies.
import type http from 'node:http';
import { deflatedEntry, zip } from '../../fixtures/zip.js';

const CONTENT_TYPES = `<?xml version="1.0" encoding="UTF-8"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"><Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/><Default Extension="xml" ContentType="application/xml"/><Override PartName="/word/document.xml" ContentType="application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml"/></Types>`;
const RELS = `<?xml version="1.0" encoding="UTF-8"?><Relationships xmlns="http://schemas.openxmlformats.org/package/2006/relationships"><Relationship Id="rId1" Type="http://schemas.openxmlformats.org/officeDocument/2006/relationships/officeDocument" Target="word/document.xml"/></Relationships>`;

/**
 * A DOCX of about `expandedBytes / 1000` bytes whose word/document.xml inflates to
 * `expandedBytes`: one paragraph of spaces. Every part is valid; only the size is hostile.
 */
export async function zipBombDocx(expandedBytes: number): Promise<Buffer> {
  const head = Buffer.from(
    '<?xml version="1.0" encoding="UTF-8"?><w:document xmlns:w="http://schemas.openxmlformats.org/wordprocessingml/2006/main"><w:body><w:p><w:r><w:t xml:space="preserve">',
  );
  const tail = Buffer.from('</w:t></w:r></w:p></w:body></w:document>');
  const block = Buffer.alloc(1024 * 1024, ' ');
  function* document(): Generator<Buffer> {
    yield head;
    for (let left = expandedBytes; left > 0; left -= block.length) yield left >= block.length ? block : block.subarray(0, left);
    yield tail;
  }
  return zip([
    await deflatedEntry('[Content_Types].xml', [Buffer.from(CONTENT_TYPES)]),
    await deflatedEntry('_rels/.rels', [Buffer.from(RELS)]),
    await deflatedEntry('word/document.xml', document()),
  ]);
}

/**
 * Markup built to be slow to lay out: `depth` nested flex boxes (each level's size depends on
 * its children's), every one with a shadow and a filter, `width` of them per level.
 */
export function slowLayoutHtml(depth: number, width: number): string {
  const style = '<style>div{display:flex;flex-wrap:wrap;padding:1px;box-shadow:0 0 8px #0008;filter:blur(0.3px);border-radius:3px}</style>';
  const leaf = '<div>x</div>'.repeat(width);
  return `${style}${'<div>'.repeat(depth)}${leaf}${'</div>'.repeat(depth)}`.repeat(Math.max(1, Math.floor(200 / depth)));
}

/** A body that never ends: 64 KiB chunks as fast as the client reads, no length. */
export function endlessBody(_req: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'application/octet-stream' });
  const chunk = Buffer.alloc(64 * 1024, 'z');
  const pump = () => {
    while (!res.destroyed && res.write(chunk));
    if (!res.destroyed) res.once('drain', pump);
  };
  pump();
}

/** A body that drips one byte a second and never ends. */
export function drippingBody(_req: http.IncomingMessage, res: http.ServerResponse): void {
  res.writeHead(200, { 'content-type': 'text/plain' });
  const timer = setInterval(() => (res.destroyed ? clearInterval(timer) : res.write('.')), 1000);
  res.on('close', () => clearInterval(timer));
}
