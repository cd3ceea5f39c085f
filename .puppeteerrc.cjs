// Chromium comes from the system package (apt); puppeteer must never download a browser.
module.exports = { skipDownload: true };
