//! A file an MCP call made (word-to-pdf's PDF, watermark-image's and image-upscale's images, a
//! capture of an account that signs no render links), also as a signed, expiring link an agent can
//! hand on: `GET /api/v1/results/{file}?expires=<unix s>&signature=<hex>`. The bytes are kept in the
//! blob store beside the calls' outputs (swept with them, after a day); the link is signed as
//! api/signed-file-links.ts says, and opens the file, without a credential, for its hour.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolDefinition } from '../../domain/tools/index.js';
import type { BlobStore } from '../../lib/blob-store.js';
import { ServiceError } from '../../contracts/errors.js';
import { createSignedLinks } from '../signed-file-links.js';

type ResourceLink = Extract<CallToolResult['content'][number], { type: 'resource_link' }>;

export const RESULTS_PATH = '/api/v1/results/';

/** How long a result link opens its file. */
export const RESULT_LINK_TTL_S = 3_600;

/** A file's name in its link: the blob key and the type, base64url of `<mimeType>\n<key>`. */
export const RESULT_FILE = /^[A-Za-z0-9_-]{8,1024}$/;

const EXTENSIONS: Record<string, string> = {
  'application/pdf': 'pdf',
  'image/png': 'png',
  'image/jpeg': 'jpg',
  'image/webp': 'webp',
};

export function createMcpResultLinks(deps: { baseUrl: string; secretKey: Buffer; blobs: BlobStore }) {
  const links = createSignedLinks(
    {
      label: 'mcp-result-links',
      path: RESULTS_PATH,
      file: RESULT_FILE,
      ttlS: RESULT_LINK_TTL_S,
      noun: 'result link',
      renew: 'call the tool again',
    },
    deps,
  );

  /** The result link of the file in `output` (the tool's `fileField`), when it made one; the bytes kept first. */
  async function linkTo(tool: ToolDefinition, output: Record<string, unknown>, now = Date.now()): Promise<ResourceLink | undefined> {
    const data = tool.fileField ? output[tool.fileField] : undefined;
    const mimeType = output.mimeType;
    if (typeof data !== 'string' || typeof mimeType !== 'string') return undefined;
    const key = await deps.blobs.put(Buffer.from(data, 'base64'));
    const file = Buffer.from(`${mimeType}\n${key}`).toString('base64url');
    const { url, expires } = links.sign(file, now);
    const name = `${tool.name}.${EXTENSIONS[mimeType] ?? 'bin'}`;
    return {
      type: 'resource_link',
      uri: url,
      name,
      mimeType,
      description: `The file, until ${new Date(expires * 1000).toISOString()}; no credential needed.`,
    };
  }

  /** The file a link opens: its bytes, type and name; refused when the link is not one of ours, or expired. */
  async function open(file: string, rawQuery: string, now = Date.now()): Promise<{ bytes: Buffer; mimeType: string; expiresAt: number }> {
    const expiresAt = links.verify(file, rawQuery, now);
    const [mimeType, key] = Buffer.from(file, 'base64url').toString('utf8').split('\n') as [string, string];
    const bytes = await deps.blobs.get(key);
    if (!bytes) throw new ServiceError('not_found', 'The file is no longer kept.');
    return { bytes, mimeType, expiresAt };
  }

  return { linkTo, open };
}

export type McpResultLinks = ReturnType<typeof createMcpResultLinks>;
