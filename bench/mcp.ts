//! `npm run bench:mcp`: hash-text through MCP (`/mcp`, the SDK's client over Streamable HTTP) vs
//! the same call through REST (`POST /api/v1/tools/hash-text`), on one stack in one run: p50 at
//! concurrency 1 and calls per second at 16, the rows taking turns so that the machine's drift
//! falls on both alike (measureInterleaved), and their ratios. Both paths run the same checks and
//! workflow; what differs is JSON-RPC, the SDK's transport and the server built per request.
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { measureInterleaved, postJson, printTable, type Figures } from './measure.js';
import { settle, withBenchStack } from './stack.js';

/** Turns of each row; each turn is one call per lane (16 at c=16). */
const TURNS = Number(process.env.BENCH_TURNS ?? 150);
const CONCURRENCY = 16;

async function mcpClient(apiUrl: string, key: string): Promise<Client> {
  const client = new Client({ name: 'bench-mcp', version: '1.0.0' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${apiUrl}/mcp`), { requestInit: { headers: { Authorization: `Bearer ${key}` } } }),
  );
  return client;
}

const ratio = (a: number, b: number) => `${(a / b).toFixed(2)}x`;

await withBenchStack(async (stack) => {
  const calls = TURNS * (1 + CONCURRENCY) * 2 + 1_000;
  const [restKey, mcpKey] = [await stack.newApiKey(calls), await stack.newApiKey(calls)];
  const client = await mcpClient(stack.apiUrl, mcpKey);
  const url = `${stack.apiUrl}/api/v1/tools/hash-text`;
  let n = 0;
  const rest = () => postJson(url, { text: `bench ${n++}` }, restKey);
  const mcp = async () => {
    const result = (await client.callTool({ name: 'hash-text', arguments: { text: `bench ${n++}` } })) as CallToolResult;
    if (result.isError) throw new Error(JSON.stringify(result.content));
  };
  try {
    await settle(stack.processes);
    const rows: Figures[] = await measureInterleaved(
      [
        { label: 'hash-text via REST', op: rest },
        { label: 'hash-text via MCP', op: mcp },
        { label: 'hash-text via REST', op: rest, concurrency: CONCURRENCY },
        { label: 'hash-text via MCP', op: mcp, concurrency: CONCURRENCY },
      ],
      { turns: TURNS, warmupTurns: 10 },
    );
    printTable(`hash-text, MCP vs REST (${TURNS} turns per row, taking turns)`, rows);
    const [rest1, mcp1, rest16, mcp16] = rows as [Figures, Figures, Figures, Figures];
    console.log(
      `\nMCP / REST: c=1 p50 ${ratio(mcp1.p50Ms, rest1.p50Ms)}, c=${CONCURRENCY} calls/s ${ratio(mcp16.callsPerSecond, rest16.callsPerSecond)}`,
    );
  } finally {
    await client.close();
  }
});
