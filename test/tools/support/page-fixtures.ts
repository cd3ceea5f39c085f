//! The page-reading tools' fixtures for one test file (test/tools/http-request.test.ts,
//! web-scrape.test.ts): a guarded client and the page fixture over HTTP and HTTPS
//! (helpers/network-access.ts), started before the file's tests and closed after them. Importing
//! this module registers the hooks; its bindings hold the fixtures once they have started.
import test from 'ava';
import { startPageFixtures, type PageFixtures, type TestNetwork } from '../../helpers/network-access.js';
import type { PageServer } from '../../fixtures/http-pages.js';

export let net: TestNetwork;
export let pages: PageServer;
export let securePages: PageServer;
let fixtures: PageFixtures | undefined;

test.before(async () => {
  fixtures = await startPageFixtures();
  ({ net, pages, securePages } = fixtures);
});

test.after.always(() => fixtures?.close());
