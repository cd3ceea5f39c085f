//! Destinations on the dashboard: a destination created through the API is listed with its bucket,
//! where the objects go and its access key id, never its secret; Delete asks first, then removes it.
import { randomBytes } from 'node:crypto';
import test from 'ava';
import { newAccount, request } from '../helpers/api.js';
import { FIXTURE_HOST } from '../fixtures/http-pages.js';
import { startS3Server, type S3Server } from '../fixtures/s3-server.js';
import { browserForFile } from './browser-for-file.js';
import { focused, openDashboard, screenshot, signIn, textOf, waitForText } from './page.js';

const SECRET = `dashboard-secret-${randomBytes(8).toString('hex')}`;

const browser = browserForFile();
let s3: S3Server;
test.before(async () => {
  s3 = await startS3Server({ host: FIXTURE_HOST, secretKey: SECRET });
});
test.after.always(async () => {
  await s3?.stop();
});

test.serial('a destination is listed without its secret, and deleted after confirming', async (t) => {
  const account = await newAccount(10);
  await s3.createBucket('dashboard-renders');
  const created = await request('POST', '/api/v1/account/destinations', {
    token: account.ownerToken,
    body: {
      type: 's3',
      bucket: 'dashboard-renders',
      prefix: 'shots',
      endpoint: s3.endpoint,
      accessKeyId: s3.env.S3_ACCESS_KEY_ID,
      secretAccessKey: SECRET,
    },
  });
  t.is(created.status, 201);
  const { page, problems, close } = await openDashboard(browser(), { path: '/dashboard/destinations' });
  try {
    await signIn(page, account.ownerToken);
    const row = await waitForText(page, '#destinations-body tbody tr:first-child', /dashboard-renders/);
    t.true(row.includes(created.body.id));
    t.true(row.includes('shots/{requestId}/0.{ext}'));
    t.true(row.includes(s3.endpoint));
    t.true(row.includes(s3.env.S3_ACCESS_KEY_ID));
    t.false((await page.content()).includes(SECRET), 'the page never holds the secret');
    await screenshot(page, 'destinations');

    await page.click('#destinations-body tr:first-child button.danger');
    await page.waitForSelector('#confirm-dialog[open]');
    t.regex(await textOf(page, '#confirm-title'), /Delete destination dashboard-renders/);
    t.is((await focused(page)).id, 'confirm-cancel', 'the safe choice has focus');
    await page.click('#confirm-ok');
    await waitForText(page, '#destinations-body', /No destinations yet/);
    t.is((await focused(page)).id, 'destinations-title');
    const listed = await request('GET', '/api/v1/account/destinations', { token: account.ownerToken });
    t.deepEqual(listed.body, []);
    t.deepEqual(problems, []);
  } finally {
    await close();
  }
});
