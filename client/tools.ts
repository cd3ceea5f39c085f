//! The tool methods: `client.tools.hashText(input)` for every tool of the OpenAPI document, typed
//! from its generated types, and `.async(input)` for a call that answers 202 and is polled.
import type { components, operations, paths } from './api-types.js';
import { UtilityToolsError } from './errors.js';
import { sleep, type RetryOptions, type Transport } from './http.js';

/** Every tool's name, as its path `/api/v1/tools/<name>` in the document. */
export type ToolName = keyof paths extends infer P ? (P extends `/api/v1/tools/${infer T}` ? T : never) : never;

/** The tools, listed at run time; the type check fails while this list and the document differ. */
export const TOOL_NAMES = [
  'hash-text',
  'bcrypt-hash',
  'bcrypt-verify',
  'argon2-verify',
  'qr-generate',
  'watermark-image',
  'image-upscale',
  'word-to-pdf',
  'http-request',
  'web-scrape',
  'seo-meta',
  'broken-links',
  'pdf-metadata',
  'ping',
  'dns-lookup',
  'ssl-check',
  'smtp-test',
  'gold-price',
  'website-screenshot',
  'html-to-image',
] as const satisfies readonly ToolName[];
type Listed = (typeof TOOL_NAMES)[number];
// A tool of the document missing from the list makes this `false`, and the assignment fails.
const everyToolListed: [ToolName] extends [Listed] ? true : false = true;
void everyToolListed;

type Pascal<S extends string> = S extends `${infer Head}-${infer Tail}` ? `${Capitalize<Head>}${Pascal<Tail>}` : Capitalize<S>;
/** `hash-text` -> `hashText`. */
export type MethodName<T extends string> = Uncapitalize<Pascal<T>>;

type JsonBody<T> = T extends { content: { 'application/json': infer B } } ? B : never;
export type ToolInput<T extends ToolName> = JsonBody<operations[T]['requestBody']>;
export type ToolOutput<T extends ToolName> = JsonBody<operations[T]['responses'][200]>;
type Schemas = components['schemas'];
/** The tools that make a file, which a destination can take: those with a `<Tool>StoredOutput` schema. */
export type FileToolName = { [T in ToolName]: `${Pascal<T>}StoredOutput` extends keyof Schemas ? T : never }[ToolName];
/** What a call with `Output-Destination` answers: `stored` (where the file went) in place of its base64. */
export type StoredToolOutput<T extends FileToolName> = Schemas[`${Pascal<T>}StoredOutput` & keyof Schemas];

/** Binary outputs, decoded: `fileBase64` is also `file`, `imageBase64` also `image`. */
export type Decoded<O> = { readonly [K in keyof O as K extends `${infer Name}Base64` ? Name : never]: Uint8Array };

export interface CallMeta {
  /** Credits this call took (`X-Credits-Charged`). */
  charged: number;
  /** The account's balance after it (`X-Credits-Remaining`). */
  balance: number;
  /** `X-Request-Id`: the call's id, for support and `client.calls.get`. */
  requestId: string;
  /** True when the service answered a repeat of an earlier call with its stored answer. */
  replayed: boolean;
}
/** A tool's output, its binary fields decoded, and what the call cost. */
export type ToolResult<T extends ToolName> = ToolOutput<T> & Decoded<ToolOutput<T>> & CallMeta;
/** What an asynchronous call's record tells: no balance (the account's balance moves on). */
export type AsyncToolResult<T extends ToolName> = ToolOutput<T> & Decoded<ToolOutput<T>> & Omit<CallMeta, 'balance'>;

export interface CallOptions {
  /**
   * Makes the call safe to repeat; the client sends a fresh random key when none is given. Give
   * your own (an order id, say) to make a repeat across processes or restarts charge once.
   */
  idempotencyKey?: string;
  signal?: AbortSignal;
  retry?: RetryOptions;
}

export type Call = components['schemas']['Call'];
export type CallPage = components['schemas']['CallPage'];
export type CallAccepted = components['schemas']['CallAccepted'];

export interface ResultOptions {
  /**
   * How long `result()` polls before it gives up with `timeout` (ms); the call itself runs on.
   * @default 600000
   */
  timeoutMs?: number;
  signal?: AbortSignal;
}

/** An asynchronous call that was accepted: poll it with `result()`. */
export interface CallHandle<T extends ToolName> {
  readonly requestId: string;
  readonly tool: T;
  /** The key the call was started with: starting it again with it answers this same call. */
  readonly idempotencyKey: string;
  /** How the call stood when accepted (`running`, or where a repeat found it). */
  readonly status: CallAccepted['status'];
  /** Polls until the call ends: its output, or its problem thrown as UtilityToolsError. */
  result(options?: ResultOptions): Promise<AsyncToolResult<T>>;
}

export interface ToolMethod<T extends ToolName> {
  (input: ToolInput<T>, options?: CallOptions): Promise<ToolResult<T>>;
  /** Starts the call with `Prefer: respond-async` (202) and returns its handle. */
  async(input: ToolInput<T>, options?: CallOptions): Promise<CallHandle<T>>;
}

export type Tools = { readonly [T in ToolName as MethodName<T>]: ToolMethod<T> } & {
  /** Any tool by its name, for code that picks the tool at run time. */
  call<T extends ToolName>(tool: T, input: ToolInput<T>, options?: CallOptions): Promise<ToolResult<T>>;
  /**
   * Calls a tool that makes a file with `Output-Destination: destination`: the file is written to
   * that destination's bucket (`{prefix}/{requestId}/0.{ext}`) and the answer says where.
   */
  store<T extends FileToolName>(
    tool: T,
    input: ToolInput<T>,
    destination: string,
    options?: CallOptions,
  ): Promise<StoredToolOutput<T> & CallMeta>;
};

export const methodName = <T extends string>(tool: T) => tool.replace(/-(\w)/g, (_, c: string) => c.toUpperCase()) as MethodName<T>;

type BufferLike = { from(data: string, encoding: 'base64'): Uint8Array };

/** Base64 to bytes: Node's and Bun's Buffer (a Uint8Array) where there is one, atob elsewhere. */
export function decodeBase64(text: string): Uint8Array {
  const buffer = (globalThis as { Buffer?: BufferLike }).Buffer;
  if (buffer) return buffer.from(text, 'base64');
  const binary = atob(text);
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/**
 * The output with its `<name>Base64` fields also offered as bytes under `<name>`: decoded when
 * first read and not enumerable, so the object still serialises as the API's JSON.
 */
function withBytes<O extends object>(output: O): O {
  for (const [key, value] of Object.entries(output)) {
    const match = /^(.+)Base64$/.exec(key);
    if (!match || typeof value !== 'string' || match[1]! in output) continue;
    let bytes: Uint8Array | undefined;
    Object.defineProperty(output, match[1]!, { enumerable: false, get: () => (bytes ??= decodeBase64(value)) });
  }
  return output;
}

export function newKey(): string {
  return globalThis.crypto.randomUUID();
}

const headerNumber = (headers: Headers, name: string) => {
  const value = headers.get(name);
  return value === null ? NaN : Number(value);
};

export function createTools(transport: Transport, token: () => string): Tools {
  async function call<T extends ToolName>(
    tool: T,
    input: ToolInput<T>,
    options: CallOptions = {},
    headers: Record<string, string> = {},
  ): Promise<ToolResult<T>> {
    const answer = await transport.send({
      method: 'POST',
      path: `/api/v1/tools/${tool}`,
      token: token(),
      body: input,
      headers: { 'idempotency-key': options.idempotencyKey ?? newKey(), ...headers },
      repeatable: true,
      signal: options.signal,
      retry: options.retry,
    });
    const meta: CallMeta = {
      charged: headerNumber(answer.headers, 'x-credits-charged'),
      balance: headerNumber(answer.headers, 'x-credits-remaining'),
      requestId: answer.headers.get('x-request-id') ?? '',
      replayed: answer.headers.get('idempotent-replayed') === 'true',
    };
    return withBytes(Object.assign(answer.body as object, meta)) as ToolResult<T>;
  }

  async function start<T extends ToolName>(tool: T, input: ToolInput<T>, options: CallOptions = {}): Promise<CallHandle<T>> {
    const idempotencyKey = options.idempotencyKey ?? newKey();
    const answer = await transport.send({
      method: 'POST',
      path: `/api/v1/tools/${tool}`,
      token: token(),
      body: input,
      headers: { 'idempotency-key': idempotencyKey, prefer: 'respond-async' },
      repeatable: true,
      signal: options.signal,
      retry: options.retry,
    });
    const accepted = answer.body as CallAccepted;
    const firstWait = Number(answer.headers.get('retry-after') ?? 1);
    return {
      requestId: accepted.requestId,
      tool,
      idempotencyKey,
      status: accepted.status,
      result: (resultOptions) => poll<T>(transport, token, accepted.requestId, firstWait, resultOptions),
    };
  }

  const store = <T extends FileToolName>(tool: T, input: ToolInput<T>, destination: string, options?: CallOptions) =>
    call(tool, input, options, { 'output-destination': destination }) as unknown as Promise<StoredToolOutput<T> & CallMeta>;
  const tools: Record<string, unknown> = {
    call: (tool: ToolName, input: never, options?: CallOptions) => call(tool, input, options),
    store,
  };
  for (const tool of TOOL_NAMES) {
    const method = (input: never, options?: CallOptions) => call(tool, input, options);
    method.async = (input: never, options?: CallOptions) => start(tool, input, options);
    tools[methodName(tool)] = method;
  }
  return tools as Tools;
}

/** Reads the call until it ends, waiting what the service asks (`Retry-After`) between reads. */
async function poll<T extends ToolName>(
  transport: Transport,
  token: () => string,
  requestId: string,
  firstWait: number,
  options: ResultOptions = {},
): Promise<AsyncToolResult<T>> {
  const deadline = Date.now() + (options.timeoutMs ?? 600_000);
  let wait = firstWait;
  for (;;) {
    const answer = await transport.send({
      method: 'GET',
      path: `/api/v1/calls/${encodeURIComponent(requestId)}`,
      token: token(),
      signal: options.signal,
    });
    const record = answer.body as Call;
    if (record.status === 'succeeded') {
      const meta = { charged: record.charged, requestId: record.requestId, replayed: false };
      return withBytes(Object.assign(record.output as object, meta)) as AsyncToolResult<T>;
    }
    if (record.status === 'failed') {
      if (record.problem) throw UtilityToolsError.fromProblem(record.problem as never);
      throw new UtilityToolsError({
        status: 500,
        code: record.code === null ? 'internal_error' : (record.code as never),
        detail: 'The call failed.',
        requestId,
      });
    }
    const next = Number(answer.headers.get('retry-after') ?? wait) || 1;
    if (Date.now() + next * 1000 > deadline) {
      throw new UtilityToolsError({
        status: 0,
        code: 'timeout',
        detail: `Call ${requestId} still running after ${options.timeoutMs ?? 600_000} ms.`,
        requestId,
      });
    }
    await sleep((wait = next) * 1000, options.signal);
  }
}
