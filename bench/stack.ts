//! The stack a benchmark measures: the one named by API_URL and ADMIN_TOKEN (e.g. a running
//! `npm start`, whose admin token is in .data/admin-token).
import { readFile } from 'node:fs/promises';

export interface BenchStack {
  apiUrl: string;
  adminToken: string;
  /** Opens an account with `credits` and returns its API key. */
  newApiKey(credits: number): Promise<string>;
}

async function locate(): Promise<{ apiUrl: string; adminToken: string }> {
  const apiUrl = process.env.API_URL ?? `http://127.0.0.1:${process.env.PORT ?? 8080}`;
  const adminToken = process.env.ADMIN_TOKEN ?? (await readFile('.data/admin-token', 'utf8').catch(() => '')).trim();
  if (!adminToken) throw new Error('Set API_URL and ADMIN_TOKEN, or run `npm start` first (it writes .data/admin-token).');
  return { apiUrl, adminToken };
}

export async function withBenchStack<T>(fn: (stack: BenchStack) => Promise<T>): Promise<T> {
  const { apiUrl, adminToken } = await locate();
  const ready = await fetch(`${apiUrl}/readyz`).catch(() => null);
  if (!ready?.ok) throw new Error(`${apiUrl} is not ready: start the stack (npm start) first`);
  return fn({
    apiUrl,
    adminToken,
    async newApiKey(credits) {
      const res = await fetch(`${apiUrl}/api/v1/admin/accounts`, {
        method: 'POST',
        headers: { authorization: `Bearer ${adminToken}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'bench', credits }),
      });
      if (res.status !== 201) throw new Error(`could not open a bench account: ${res.status}`);
      return ((await res.json()) as { apiKey: { key: string } }).apiKey.key;
    },
  });
}
