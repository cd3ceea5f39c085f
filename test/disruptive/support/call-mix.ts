//! The tool calls the chaos and load suites send: weighted like real traffic (mostly cheap CPU
//! and network tools, a few secret-carrying and capture calls), all aimed at the test fixtures.
import { FIXTURE_NAMES } from '../../fixtures/dns-server.js';

export interface MixEntry {
  tool: string;
  /** Credits charged when the call answers 200 (the catalogue's cost). */
  cost: number;
  /** Relative frequency. */
  weight: number;
  /** The request body of the i-th call of this tool (varied, so answers are not cached alike). */
  body(i: number): Record<string, unknown>;
}

export interface MixTargets {
  /** Origin of the fixture page server, e.g. `http://127.0.0.2:40123`. */
  pagesUrl: string;
}

/** The cheap tools only: what the chaos suite sends most, and the load suite's bulk. */
export function cheapMix(targets: MixTargets): MixEntry[] {
  const article = `${targets.pagesUrl}/article.html`;
  return [
    { tool: 'hash-text', cost: 1, weight: 30, body: (i) => ({ text: `call ${i}`, algorithm: i % 2 ? 'sha256' : 'sha512' }) },
    { tool: 'qr-generate', cost: 1, weight: 10, body: (i) => ({ text: `https://example.com/${i}`, size: 128 }) },
    { tool: 'gold-price', cost: 1, weight: 8, body: (i) => ({ currency: i % 2 ? 'EUR' : 'USD' }) },
    {
      tool: 'dns-lookup',
      cost: 1,
      weight: 12,
      body: (i) => ({ hostname: i % 3 ? FIXTURE_NAMES.public : FIXTURE_NAMES.mail, recordType: i % 3 ? 'A' : 'MX' }),
    },
    { tool: 'http-request', cost: 2, weight: 10, body: () => ({ url: article }) },
    { tool: 'seo-meta', cost: 2, weight: 5, body: () => ({ url: article }) },
    { tool: 'web-scrape', cost: 3, weight: 5, body: () => ({ url: article, includeText: false }) },
    // Secret fields: sealed before the workflow starts, opened by the worker (call keys).
    { tool: 'bcrypt-hash', cost: 2, weight: 5, body: (i) => ({ password: `secret ${i}`, workFactor: 4 }) },
  ];
}

/** Calls that stay in flight for `ms` (the fixture page answers late): a fault lands mid-call. */
export function slowMix(targets: MixTargets, ms = 3_000): MixEntry[] {
  return [{ tool: 'http-request', cost: 2, weight: 1, body: (i) => ({ url: `${targets.pagesUrl}/slow?ms=${ms}&call=${i}` }) }];
}

/** Browser captures: heavy (25 credits, seconds of Chromium each); real traffic has a few. */
export function captureMix(targets: MixTargets): MixEntry[] {
  return [
    { tool: 'website-screenshot', cost: 25, weight: 2, body: () => ({ url: `${targets.pagesUrl}/article.html`, width: 800, height: 600 }) },
    {
      tool: 'html-to-image',
      cost: 25,
      weight: 2,
      body: (i) => ({ html: `<h1>Call ${i}</h1><p>Rendered under load.</p>`, width: 480, height: 320 }),
    },
    // A PNG of noise, ~470 KB: its output goes through the blob store (lib/output-blobs.ts).
    { tool: 'html-to-image', cost: 25, weight: 1, body: (i) => ({ html: noiseCanvas(i), width: 400, height: 300 }) },
  ];
}

/** A page that paints seeded noise on a 400x300 canvas: a PNG that does not compress. */
export function noiseCanvas(seed: number): string {
  const script = `let s=${seed + 1};const c=document.querySelector('canvas'),x=c.getContext('2d'),d=x.createImageData(400,300);
for(let i=0;i<d.data.length;i++){s=(s*1103515245+12345)%2147483648;d.data[i]=i%4===3?255:s%256}x.putImageData(d,0,0);`;
  return `<body style="margin:0"><canvas width="400" height="300"></canvas><script>${script}</script></body>`;
}

/** Picks entries by weight with the given random source (seeded runs repeat). */
export function weightedPicker(mix: readonly MixEntry[], random: () => number = Math.random): () => MixEntry {
  const total = mix.reduce((sum, e) => sum + e.weight, 0);
  return () => {
    let r = random() * total;
    for (const e of mix) {
      r -= e.weight;
      if (r < 0) return e;
    }
    return mix[mix.length - 1]!;
  };
}

/** A small seeded generator (mulberry32): a failing chaos run can be repeated with its seed. */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
