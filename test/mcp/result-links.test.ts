//! A file an MCP call made, as its result link: against the running stack, the link in the result
//! opens the very bytes without a credential, and a link changed in any part is refused; on its own
//! (a directory blob store, the clock given), a link past its hour is refused as expired and one
//! whose file was swept as not found.
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { findTool } from '../../domain/tools/catalogue.js';
import { DirectoryBlobStore } from '../../lib/blob-store.js';
import { ServiceError } from '../../contracts/errors.js';
import { createMcpResultLinks, RESULT_LINK_TTL_S } from '../../api/mcp/result-links.js';
import { apiUrl, isProblem, newAccount, request } from '../helpers/api.js';

const local = (uri: string) => {
  const url = new URL(uri);
  return url.pathname + url.search;
};

test("a call's file is a result link that opens the same bytes without a credential; a changed link is refused", async (t) => {
  const account = await newAccount(10);
  const client = new Client({ name: 'result-links-test', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${apiUrl()}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${account.apiKey}` } },
    }),
  );
  t.teardown(() => client.close());
  const result = (await client.callTool({ name: 'qr-generate', arguments: { text: 'a result link', size: 128 } })) as CallToolResult;
  const link = result.content.find((c) => c.type === 'resource_link') as { uri: string; mimeType: string };
  t.regex(link.uri, /\/api\/v1\/results\/[\w-]+\?expires=\d+&signature=[0-9a-f]{64}$/);

  const opened = await fetch(apiUrl() + local(link.uri));
  t.is(opened.status, 200);
  t.is(opened.headers.get('content-type'), 'image/png');
  t.regex(opened.headers.get('content-security-policy')!, /^sandbox/);
  const bytes = Buffer.from(await opened.arrayBuffer());
  t.true(bytes.equals(Buffer.from((result.structuredContent as { imageBase64: string }).imageBase64, 'base64')));

  const url = new URL(link.uri);
  const expires = Number(url.searchParams.get('expires'));
  const later = local(link.uri).replace(`expires=${expires}`, `expires=${expires + 3600}`);
  t.true(isProblem(await request('GET', later), 401, 'invalid_signature'), 'a later expiry is not signed');
  const otherFile = local(link.uri).replace(/results\/[\w-]{4}/, 'results/AAAA');
  t.true(isProblem(await request('GET', otherFile), 401, 'invalid_signature'), 'another file is not signed');
  t.true(isProblem(await request('GET', url.pathname), 401, 'invalid_signature'), 'no signature');
  t.true(isProblem(await request('POST', local(link.uri)), 405, 'method_not_allowed'));
});

test('a result link past its hour is refused as expired; one whose file was swept, as not found', async (t) => {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'result-links-'));
  t.teardown(() => rm(dir, { recursive: true, force: true }));
  const blobs = new DirectoryBlobStore(dir);
  const links = createMcpResultLinks({ baseUrl: 'https://tools.example', secretKey: randomBytes(32), blobs });
  const tool = findTool('word-to-pdf')!;
  const output = { fileBase64: Buffer.from('%PDF-1.7 a test').toString('base64'), mimeType: 'application/pdf' };
  const made = Date.now() - (RESULT_LINK_TTL_S + 1) * 1000;
  const link = (await links.linkTo(tool, output, made))!;
  t.like(link, { name: 'word-to-pdf.pdf', mimeType: 'application/pdf' });
  const url = new URL(link.uri);
  const file = url.pathname.split('/').at(-1)!;
  const query = url.search.slice(1);
  // Opened while it was fresh: the bytes.
  t.is((await links.open(file, query, made + 1000)).bytes.toString(), '%PDF-1.7 a test');
  const expired = await t.throwsAsync(links.open(file, query), { instanceOf: ServiceError });
  t.is(expired.code, 'link_expired');
  t.is(expired.extras.expiredAt, new Date((Math.floor(made / 1000) + RESULT_LINK_TTL_S) * 1000).toISOString());

  await blobs.sweep(new Date(Date.now() + 3_600_000));
  const swept = await t.throwsAsync(links.open(file, query, made + 1000), { instanceOf: ServiceError });
  t.is(swept.code, 'not_found');
});
