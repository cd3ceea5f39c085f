//! Just enough of the ZIP format to tell office documents apart: list the central directory and
//! read one small entry. OOXML (.docx) and ODF (.odt) files are ZIP archives; which one, and
//! whether it is a text document, is written in named entries inside. Pure functions on bytes.
import { inflateRawSync } from 'node:zlib';

export interface ZipEntry {
  name: string;
  /** 0 stored, 8 deflated; others are not read. */
  method: number;
  compressedSize: number;
  uncompressedSize: number;
  /** Offset of the entry's local header. */
  localHeaderOffset: number;
}

const EOCD_SIGNATURE = 0x06054b50;
const CENTRAL_SIGNATURE = 0x02014b50;
const LOCAL_SIGNATURE = 0x04034b50;
/** The end record is 22 bytes plus a comment of at most 65535. */
const EOCD_SEARCH = 22 + 0xffff;

const view = (bytes: Uint8Array) => new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);

export function isZip(bytes: Uint8Array): boolean {
  return bytes.length >= 4 && view(bytes).getUint32(0, true) === LOCAL_SIGNATURE;
}

/** Entries of the central directory, or null when the archive is cut or malformed. */
export function listZipEntries(bytes: Uint8Array): ZipEntry[] | null {
  if (bytes.length < 22) return null;
  const v = view(bytes);
  let eocd = -1;
  for (let at = bytes.length - 22; at >= Math.max(0, bytes.length - EOCD_SEARCH); at--) {
    if (v.getUint32(at, true) === EOCD_SIGNATURE) {
      eocd = at;
      break;
    }
  }
  if (eocd < 0) return null;
  const count = v.getUint16(eocd + 10, true);
  let at = v.getUint32(eocd + 16, true);
  const entries: ZipEntry[] = [];
  for (let i = 0; i < count; i++) {
    if (at + 46 > bytes.length || v.getUint32(at, true) !== CENTRAL_SIGNATURE) return null;
    const nameLength = v.getUint16(at + 28, true);
    const extraLength = v.getUint16(at + 30, true);
    const commentLength = v.getUint16(at + 32, true);
    if (at + 46 + nameLength > bytes.length) return null;
    entries.push({
      name: Buffer.from(bytes.subarray(at + 46, at + 46 + nameLength)).toString('utf8'),
      method: v.getUint16(at + 10, true),
      compressedSize: v.getUint32(at + 20, true),
      uncompressedSize: v.getUint32(at + 24, true),
      localHeaderOffset: v.getUint32(at + 42, true),
    });
    at += 46 + nameLength + extraLength + commentLength;
  }
  return entries;
}

/**
 * The entry's content, or null when it cannot be read or would inflate past `maxBytes` (the
 * entries looked at are a few KiB; the cap keeps a crafted one from inflating without bound).
 */
export function readZipEntry(bytes: Uint8Array, entry: ZipEntry, maxBytes = 1024 * 1024): Buffer | null {
  const v = view(bytes);
  const at = entry.localHeaderOffset;
  if (at + 30 > bytes.length || v.getUint32(at, true) !== LOCAL_SIGNATURE) return null;
  const start = at + 30 + v.getUint16(at + 26, true) + v.getUint16(at + 28, true);
  const end = start + entry.compressedSize;
  if (end > bytes.length) return null;
  const data = bytes.subarray(start, end);
  try {
    if (entry.method === 0) return data.length <= maxBytes ? Buffer.from(data) : null;
    if (entry.method === 8) return inflateRawSync(data, { maxOutputLength: maxBytes });
  } catch {
    return null; // corrupt deflate data, or over maxBytes
  }
  return null;
}
