//! `renderLink()`: a render link signed where the secret is kept (your server), with WebCrypto, so
//! it runs unchanged in Node 20+, Deno, Bun and browsers. Never ship a link secret to a browser:
//! sign on the server and hand the page the finished URL. The signature is the service's
//! (lib/render-link-signature.ts): lowercase hex HMAC-SHA256 of the path after `/api/v1/render/`,
//! `?`, and the query up to `&signature=`.
import type { ToolInput } from './tools.js';

/** The tools a render link calls: those whose answer is an image. */
export type RenderToolName = 'website-screenshot' | 'html-to-image' | 'qr-generate';

export interface RenderLinkOptions<T extends RenderToolName> {
  /** The service's address, e.g. `https://api.example.com`. */
  baseUrl: string;
  /** The link secret's id (`lks_...`) and the secret (`lksec_...`), from `POST /api/v1/account/link-secrets`. */
  secretId: string;
  secret: string;
  tool: T;
  /** The tool's input, as for a call; each field becomes a query parameter. */
  input: ToolInput<T>;
  /** When the link stops working (403 `link_expired`): a Date, or seconds from now. Never, when left out. */
  expires?: Date | { inSeconds: number };
  /** How old a stored render the link accepts, in seconds (the service's default: 4 hours; 0: always fresh). */
  maxAge?: number;
}

const hex = (bytes: ArrayBuffer) => Array.from(new Uint8Array(bytes), (b) => b.toString(16).padStart(2, '0')).join('');

async function hmacSha256Hex(secret: string, text: string): Promise<string> {
  const encoder = new TextEncoder();
  const key = await globalThis.crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  return hex(await globalThis.crypto.subtle.sign('HMAC', key, encoder.encode(text)));
}

/** A signed render link for an `<img src>`: `{baseUrl}/api/v1/render/{secretId}/{tool}?{input}[&expires][&maxAge]&signature=`. */
export async function renderLink<T extends RenderToolName>(options: RenderLinkOptions<T>): Promise<string> {
  const pairs = Object.entries(options.input as Record<string, unknown>).map(([k, v]) => {
    if (typeof v !== 'string' && typeof v !== 'number' && typeof v !== 'boolean')
      throw new TypeError(`renderLink: input.${k} must be a string, number or boolean`);
    return `${encodeURIComponent(k)}=${encodeURIComponent(String(v))}`;
  });
  const { expires } = options;
  if (expires !== undefined) {
    const at = expires instanceof Date ? expires.getTime() / 1000 : Date.now() / 1000 + expires.inSeconds;
    pairs.push(`expires=${Math.floor(at)}`);
  }
  if (options.maxAge !== undefined) pairs.push(`maxAge=${options.maxAge}`);
  const path = `${encodeURIComponent(options.secretId)}/${encodeURIComponent(options.tool)}`;
  const query = pairs.join('&');
  const signature = await hmacSha256Hex(options.secret, `${path}?${query}`);
  return `${options.baseUrl.replace(/\/+$/, '')}/api/v1/render/${path}?${query}&signature=${signature}`;
}
