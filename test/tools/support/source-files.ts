//! The sources of the file-reading tools' handler tests (image-upscale, watermark-image,
//! word-to-pdf): a source downloader allowed only the file fixture's address (127.0.0.2), and the
//! file fixture, started before the file's tests and closed after them. Importing this module
//! registers the hooks; `files` holds the fixture once it has started.
import test from 'ava';
import { createSourceDownloader } from '../../../activities/cpu/source-download.js';
import { createNetworkAccess } from '../../../lib/network-access.js';
import { startFileServer, type FileServer } from '../../fixtures/file-server.js';

export const download = createSourceDownloader({
  http: createNetworkAccess({ dnsServers: [], targetAllowlist: ['127.0.0.2/32'] }).http,
});
export let files: FileServer;

test.before(async () => {
  files = await startFileServer();
});
test.after.always(async () => {
  await files?.close();
});
