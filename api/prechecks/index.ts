//! Every tool's I/O-free precheck, keyed by tool name. The API runs it after JSON Schema
//! validation (defaults applied) and before a workflow starts; the worker runs it again.
import { precheck as argon2Verify } from './argon2-verify.js';
import { precheck as bcryptHash } from './bcrypt-hash.js';
import { precheck as bcryptVerify } from './bcrypt-verify.js';
import { precheck as brokenLinks } from './broken-links.js';
import { precheck as hashText } from './hash-text.js';
import { precheck as httpRequest } from './http-request.js';
import { precheck as imageUpscale } from './image-upscale.js';
import { precheck as pdfMetadata } from './pdf-metadata.js';
import { precheck as qrGenerate } from './qr-generate.js';
import { precheck as seoMeta } from './seo-meta.js';
import { precheck as watermarkImage } from './watermark-image.js';
import { precheck as webScrape } from './web-scrape.js';
import { precheck as wordToPdf } from './word-to-pdf.js';
import { precheck as dnsLookup } from './dns-lookup.js';
import { precheck as ping } from './ping.js';
import { precheck as smtpTest } from './smtp-test.js';
import { precheck as sslCheck } from './ssl-check.js';

/** Throws a ToolError when the input cannot be served; returns nothing otherwise. */
export type Precheck = (input: Record<string, unknown>) => void;

/** Input reaching a precheck has passed its tool's schema: the cast states that, once. */
const forSchemaValidInput = <I>(check: (input: I) => void): Precheck => (input) => check(input as I);

export const PRECHECKS: Readonly<Record<string, Precheck>> = {
  'hash-text': forSchemaValidInput(hashText),
  'bcrypt-hash': forSchemaValidInput(bcryptHash),
  'bcrypt-verify': forSchemaValidInput(bcryptVerify),
  'argon2-verify': forSchemaValidInput(argon2Verify),
  'qr-generate': forSchemaValidInput(qrGenerate),
  'watermark-image': forSchemaValidInput(watermarkImage),
  'image-upscale': forSchemaValidInput(imageUpscale),
  'word-to-pdf': forSchemaValidInput(wordToPdf),
  'http-request': forSchemaValidInput(httpRequest),
  'web-scrape': forSchemaValidInput(webScrape),
  'seo-meta': forSchemaValidInput(seoMeta),
  'broken-links': forSchemaValidInput(brokenLinks),
  'pdf-metadata': forSchemaValidInput(pdfMetadata),
  ping: forSchemaValidInput(ping),
  'dns-lookup': forSchemaValidInput(dnsLookup),
  'ssl-check': forSchemaValidInput(sslCheck),
  'smtp-test': forSchemaValidInput(smtpTest),
};
