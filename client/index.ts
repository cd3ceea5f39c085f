//! `utility-tools/client`: the service's client. Tool calls typed from the OpenAPI document,
//! safe retries under an Idempotency-Key, asynchronous calls with handles, problem+json as one
//! error class, batches, and the account API. Needs only `fetch` at run time.
//!
//! ```ts
//! const client = new UtilityTools({ baseUrl: 'https://api.example.com', apiKey: process.env.UTILITY_TOOLS_KEY });
//! const { hash, charged, balance } = await client.tools.hashText({ text: 'hello' });
//! ```
import { createBatches, type Batches } from './batches.js';
import { createAccount, type AccountApi, type PageQuery, type RequestOptions } from './account.js';
import { Transport, type TransportOptions } from './http.js';
import { createTools, type Call, type CallPage, type Tools } from './tools.js';

export interface ClientOptions extends TransportOptions {
  /** `utk_...`: calls tools and reads asynchronous calls. */
  apiKey?: string;
  /** `uto_...`: the account API (keys, webhooks, events, usage). */
  ownerToken?: string;
}

function needs(value: string | undefined, what: string): () => string {
  return () => {
    if (!value) throw new TypeError(`UtilityTools: ${what} is required for this method`);
    return value;
  };
}

export class UtilityTools {
  /** One method per tool: `client.tools.hashText({ text })`, `.async(...)` for a polled call. */
  readonly tools: Tools;
  /** Asynchronous calls of the API key's account. */
  readonly calls: {
    get(requestId: string, options?: RequestOptions): Promise<Call>;
    list(query?: PageQuery, options?: RequestOptions): Promise<CallPage>;
  };
  /** Batches of the API key's account: `create`, then the handle's `progress()` and `results()`. */
  readonly batches: Batches;
  /** The account API, with the owner token. */
  readonly account: AccountApi;

  constructor(options: ClientOptions) {
    const transport = new Transport(options);
    const apiKey = needs(options.apiKey, 'apiKey');
    this.tools = createTools(transport, apiKey);
    this.calls = {
      get: async (requestId, o = {}) =>
        (
          await transport.send({
            method: 'GET',
            path: `/api/v1/calls/${encodeURIComponent(requestId)}`,
            token: apiKey(),
            signal: o.signal,
            retry: o.retry,
          })
        ).body as Call,
      list: async (query = {}, o = {}) =>
        (
          await transport.send({
            method: 'GET',
            path: '/api/v1/calls',
            query: { ...query },
            token: apiKey(),
            signal: o.signal,
            retry: o.retry,
          })
        ).body as CallPage,
    };
    this.batches = createBatches(transport, apiKey);
    this.account = createAccount(transport, needs(options.ownerToken, 'ownerToken'));
  }
}

export const createClient = (options: ClientOptions) => new UtilityTools(options);

export { UtilityToolsError, type ClientErrorCode, type ErrorCode, type FieldError, type Problem } from './errors.js';
export { decodeBase64, TOOL_NAMES, methodName } from './tools.js';
export { renderLink, type RenderLinkOptions, type RenderToolName } from './render-link.js';
export type {
  AsyncToolResult,
  Call,
  CallAccepted,
  CallHandle,
  CallMeta,
  CallOptions,
  CallPage,
  MethodName,
  ResultOptions,
  ToolInput,
  ToolMethod,
  ToolName,
  ToolOutput,
  ToolResult,
  Tools,
} from './tools.js';
export type { RetryOptions, TransportOptions } from './http.js';
export type {
  Batch,
  BatchHandle,
  BatchItem,
  BatchItemPage,
  BatchItemQuery,
  BatchOptions,
  BatchPage,
  Batches,
  NewBatch,
} from './batches.js';
export type * from './account.js';
export type { components, operations, paths } from './api-types.js';
export { verifyWebhook, checkWebhook, WEBHOOK_HEADERS } from '../lib/webhook-signature.js';
