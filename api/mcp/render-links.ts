//! A capture's image as a render link, for an account that signs render links: the call runs
//! through the render cache (api/render-calls.ts), so its render is kept, and the answer carries a
//! link signed with the account's newest live link secret that expires in an hour and accepts a
//! render up to that old: fetched in time it is that very render, free. An agent gets a URL to
//! hand on instead of megabytes of base64 in its context.
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { LinkSecrets } from '../../domain/link-secrets.js';
import type { ToolDefinition } from '../../domain/tools/index.js';
import { buildRenderLink, type QueryValue } from '../../lib/render-link-signature.js';
import type { CallWatch } from '../tool-calls.js';
import type { CallRequest } from '../call-request.js';
import type { RenderCalls, RenderMiss } from '../render-calls.js';

/** How long a link works, and how old a render it accepts. */
export const MCP_LINK_TTL_S = 60 * 60;
/** Longer links are left out (an html-to-image input is the whole markup): some clients and proxies cut URLs past 8 KiB. */
const MAX_LINK_LENGTH = 8 * 1024;

type Signer = { id: string; secret: string };
type ResourceLink = Extract<CallToolResult['content'][number], { type: 'resource_link' }>;

export function createMcpRenderLinks(deps: {
  baseUrl: string;
  linkSecrets: Pick<LinkSecrets, 'signer'>;
  renders: Pick<RenderCalls, 'run'>;
}) {
  /** The signer of a capture's link: null for any other tool, or an account without a live link secret. */
  async function signerFor(tool: ToolDefinition, accountId: string): Promise<Signer | null> {
    return tool.image ? deps.linkSecrets.signer(accountId) : null;
  }

  /** The call, run fresh and its render kept in the cache (a cached render is never answered here: a call is a call). */
  async function render(request: CallRequest, watch?: CallWatch): Promise<RenderMiss> {
    const answer = await deps.renders.run(request, 0, watch);
    if (answer.hit) throw new Error('a render cache hit for a call that accepts no stored render');
    return answer;
  }

  /** The link to `args`' render, as a resource link; undefined when it would be too long. */
  function linkTo(signer: Signer, tool: ToolDefinition, args: Record<string, unknown>, mimeType: string): ResourceLink | undefined {
    const expires = Math.floor(Date.now() / 1000) + MCP_LINK_TTL_S;
    const uri = buildRenderLink({
      baseUrl: deps.baseUrl,
      secretId: signer.id,
      secret: signer.secret,
      tool: tool.name,
      input: args as Record<string, QueryValue>,
      expires,
      maxAge: MCP_LINK_TTL_S,
    });
    if (uri.length > MAX_LINK_LENGTH) return undefined;
    const extension = mimeType.split('/')[1] ?? 'bin';
    return {
      type: 'resource_link',
      uri,
      name: `${tool.name}.${extension}`,
      mimeType,
      description: `The image, until ${new Date(expires * 1000).toISOString()}; no credential needed.`,
    };
  }

  return { signerFor, render, linkTo };
}

export type McpRenderLinks = ReturnType<typeof createMcpRenderLinks>;
