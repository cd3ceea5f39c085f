//! The client's renderLink signs with WebCrypto exactly as the service verifies: the same URL as
//! the service's own signer, and a link the service answers with the image.
import test from 'ava';
import { renderLink } from 'utility-tools/client';
import { buildRenderLink } from '../../lib/render-link-signature.js';
import { apiUrl, newAccount, request } from '../helpers/api.js';

test('renderLink makes the URL the service signs, character for character', async (t) => {
  const common = { baseUrl: 'https://api.example.com/', secretId: 'lks_4hQ2mV8kZr1xYt6pW0nLbC', secret: 'lksec_example' };
  const input = { text: 'Grüße & more/?=', size: 256, errorCorrection: 'H' as const };
  const expires = new Date('2030-01-01T00:00:00Z');
  t.is(
    await renderLink({ ...common, tool: 'qr-generate', input, expires, maxAge: 60 }),
    buildRenderLink({ ...common, tool: 'qr-generate', input, expires: expires.getTime() / 1000, maxAge: 60 }),
  );
  const shot = { url: 'https://example.com/a b', fullPage: true, width: 800 };
  t.is(
    await renderLink({ ...common, tool: 'website-screenshot', input: shot }),
    buildRenderLink({ ...common, tool: 'website-screenshot', input: shot }),
  );
});

test('a link signed by renderLink is answered with the image', async (t) => {
  const account = await newAccount(10);
  const secret = (await request('POST', '/api/v1/account/link-secrets', { token: account.ownerToken })).body;
  const url = await renderLink({
    baseUrl: apiUrl(),
    secretId: secret.id,
    secret: secret.secret,
    tool: 'qr-generate',
    input: { text: 'from the client', size: 100 },
    expires: { inSeconds: 600 },
  });
  const res = await fetch(url);
  t.is(res.status, 200);
  t.is(res.headers.get('content-type'), 'image/png');
});
