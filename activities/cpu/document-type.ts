//! The word-processing format of a file, decided from its bytes (word-to-pdf): Word 97-2003
//! (.doc, an OLE2 compound file holding a WordDocument stream), Word 2007+ (.docx, a ZIP whose
//! [Content_Types].xml declares a WordprocessingML main part), OpenDocument text (.odt, a ZIP
//! whose `mimetype` entry says so) or RTF (`{\rtf`). Pure functions.
import { isZip, listZipEntries, readZipEntry } from './zip-entries.js';

export const DOCUMENT_TYPES = {
  doc: { label: 'Word 97-2003 (.doc)', extension: 'doc', filter: 'MS Word 97' },
  docx: { label: 'Word (.docx)', extension: 'docx', filter: 'MS Word 2007 XML' },
  odt: { label: 'OpenDocument text (.odt)', extension: 'odt', filter: 'writer8' },
  rtf: { label: 'RTF (.rtf)', extension: 'rtf', filter: 'Rich Text Format' },
} as const satisfies Record<string, { label: string; extension: string; filter: string }>;

export type DocumentType = keyof typeof DOCUMENT_TYPES;

const OLE2_SIGNATURE = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]);
const WORD_STREAM_NAME = Buffer.from('WordDocument\0', 'utf16le');

/** Main-part content types of Word documents and templates, macro-enabled or not. */
const DOCX_MAIN_TYPES = [
  'application/vnd.openxmlformats-officedocument.wordprocessingml.document.main+xml',
  'application/vnd.openxmlformats-officedocument.wordprocessingml.template.main+xml',
  'application/vnd.ms-word.document.macroEnabled.main+xml',
  'application/vnd.ms-word.template.macroEnabledTemplate.main+xml',
];
const ODT_MIMETYPES = ['application/vnd.oasis.opendocument.text', 'application/vnd.oasis.opendocument.text-template'];

/**
 * OLE2 files are also Excel, PowerPoint and Outlook files: a Word one has a directory entry named
 * "WordDocument" of type stream. Directory entries are 128-byte records in sectors of 512 or
 * 4096 bytes, so the name starts on a 128-byte boundary, followed at +64 by its byte length (26,
 * with the terminator) and at +66 by the entry type (2, stream).
 */
function isWordCompoundFile(bytes: Buffer): boolean {
  if (!bytes.subarray(0, 8).equals(OLE2_SIGNATURE)) return false;
  for (let at = bytes.indexOf(WORD_STREAM_NAME, 512); at >= 0; at = bytes.indexOf(WORD_STREAM_NAME, at + 1)) {
    if (at % 128 === 0 && at + 67 <= bytes.length && bytes.readUInt16LE(at + 64) === WORD_STREAM_NAME.length && bytes[at + 66] === 2) {
      return true;
    }
  }
  return false;
}

function zipDocumentType(bytes: Buffer): DocumentType | null {
  const entries = listZipEntries(bytes);
  if (!entries) return null;
  const mimetype = entries.find((e) => e.name === 'mimetype');
  if (mimetype) {
    const text = readZipEntry(bytes, mimetype, 256)?.toString('ascii').trim();
    return text && ODT_MIMETYPES.includes(text) ? 'odt' : null;
  }
  const contentTypes = entries.find((e) => e.name === '[Content_Types].xml');
  if (!contentTypes) return null;
  const xml = readZipEntry(bytes, contentTypes)?.toString('utf8') ?? '';
  const declared = [...xml.matchAll(/ContentType\s*=\s*["']([^"']+)["']/g)].map((m) => m[1]!.toLowerCase());
  return DOCX_MAIN_TYPES.some((type) => declared.includes(type.toLowerCase())) ? 'docx' : null;
}

/** The document's type, or null when it is none of .doc, .docx, .odt, .rtf. */
export function detectDocumentType(bytes: Buffer): DocumentType | null {
  if (bytes.subarray(0, 5).toString('latin1') === '{\\rtf') return 'rtf';
  if (isWordCompoundFile(bytes)) return 'doc';
  if (isZip(bytes)) return zipDocumentType(bytes);
  return null;
}
