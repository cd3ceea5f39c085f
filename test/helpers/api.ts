//! HTTP helpers for integration tests against the stack `npm test` started.

/**
 * JSON the service answered (or logged, or delivered), as a test reads it: the shape the API
 * documents, which the test's own assertions check field by field. Left unchecked by the compiler
 * on purpose: typing each answer here would restate the OpenAPI document, which
 * test/api/openapi.test.ts already holds the service to. The one `any` of the tests.
 */
// biome-ignore lint/suspicious/noExplicitAny: the tests' unchecked JSON, named once (above)
export type UncheckedJson = any;

export interface Answer<T = UncheckedJson> {
  status: number;
  headers: Headers;
  body: T;
}

function required(name: string): string {
  const value = process.env[name];
  if (!value) throw new Error(`${name} is not set: run integration tests through \`npm test\`, which starts the stack`);
  return value;
}

export const apiUrl = () => required('API_URL');
export const adminToken = () => required('ADMIN_TOKEN');

export async function request<T = UncheckedJson>(
  method: string,
  path: string,
  options: { token?: string; body?: unknown; rawBody?: string; headers?: Record<string, string>; baseUrl?: string } = {},
): Promise<Answer<T>> {
  const headers: Record<string, string> = { ...options.headers };
  if (options.token) headers.authorization = `Bearer ${options.token}`;
  let body: string | undefined = options.rawBody;
  if (options.body !== undefined) {
    body = JSON.stringify(options.body);
    headers['content-type'] ??= 'application/json';
  }
  const res = await fetch((options.baseUrl ?? apiUrl()) + path, { method, headers, body });
  const text = await res.text();
  const type = res.headers.get('content-type') ?? '';
  return { status: res.status, headers: res.headers, body: /json/.test(type) && text ? JSON.parse(text) : (text as T) };
}

export interface TestAccount {
  id: string;
  apiKey: string;
  apiKeyId: string;
  ownerToken: string;
}

/** Opens a fresh account through the operator API. */
export async function newAccount(credits = 100, name = 'test'): Promise<TestAccount> {
  const res = await request('POST', '/api/v1/admin/accounts', { token: adminToken(), body: { name, credits } });
  if (res.status !== 201) throw new Error(`could not open an account: ${res.status} ${JSON.stringify(res.body)}`);
  return { id: res.body.account.id, apiKey: res.body.apiKey.key, apiKeyId: res.body.apiKey.id, ownerToken: res.body.ownerToken };
}

export function callTool<T = UncheckedJson>(
  key: string,
  tool: string,
  body: unknown,
  headers: Record<string, string> = {},
): Promise<Answer<T>> {
  return request<T>('POST', `/api/v1/tools/${tool}`, { token: key, body, headers });
}

export async function balanceOf(account: TestAccount): Promise<number> {
  const res = await request('GET', '/api/v1/account', { token: account.ownerToken });
  if (res.status !== 200) throw new Error(`could not read the balance: ${res.status}`);
  return res.body.balance;
}

/** Asserts the answer is an RFC 9457 problem with the given status and code. */
export function isProblem(res: Answer, status: number, code: string): boolean {
  return (
    res.status === status &&
    (res.headers.get('content-type') ?? '').startsWith('application/problem+json') &&
    res.body?.code === code &&
    res.body?.status === status &&
    typeof res.body?.type === 'string' &&
    res.body.type.endsWith(`/docs/errors#${code}`) &&
    typeof res.body?.title === 'string' &&
    typeof res.body?.detail === 'string' &&
    typeof res.body?.requestId === 'string' &&
    res.headers.get('x-request-id') === res.body.requestId
  );
}
