//! The /docs/errors page: one section per error code, `id="<code>"`, which is where every
//! problem answer's `type` URL points. Plain HTML and CSS, readable without JavaScript.
import { ERRORS, type ErrorCode } from '../../contracts/errors.js';
import { ERROR_GUIDE } from './error-guide.js';

const escapeHtml = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' })[c]!);

/** Writes `code`-looking words (quoted names, header and field names) as code. */
const prose = (text: string) =>
  escapeHtml(text).replace(
    /\b(Idempotency-Key|Retry-After|RateLimit-\*|TARGET_ALLOWLIST|RATE_LIMIT_PER_SECOND|GET \/api\/v1\/[a-z/]+)/g,
    '<code>$1</code>',
  );

function definitionList(entries: Readonly<Record<string, string>>): string {
  return `<dl class="members">${Object.entries(entries)
    .map(([name, meaning]) => `<dt><code>${escapeHtml(name)}</code></dt><dd>${prose(meaning)}</dd>`)
    .join('')}</dl>`;
}

function section(code: ErrorCode): string {
  const { status, title } = ERRORS[code];
  const guide = ERROR_GUIDE[code];
  // A problem's `type` may be written with hyphens in the fragment (docs/API.md); that spelling leads here too.
  const alias = code.includes('_') ? `<span id="${code.replaceAll('_', '-')}"></span>` : '';
  return `
<section id="${code}" aria-labelledby="${code}-title">
  ${alias}<h2 id="${code}-title"><code>${code}</code> <span class="title">${escapeHtml(title)}</span></h2>
  <p class="status">HTTP ${status}</p>
  <h3>When it happens</h3>
  <p>${prose(guide.when)}</p>
  <h3>What to do</h3>
  <p>${prose(guide.action)}</p>
  ${guide.members ? `<h3>Extra members</h3>${definitionList(guide.members)}` : ''}
  ${guide.headers ? `<h3>Headers</h3>${definitionList(guide.headers)}` : ''}
  <p class="top"><a href="#codes">All codes</a></p>
</section>`;
}

const STYLE = `
:root { color-scheme: light dark; --fg: #1b1f24; --bg: #fff; --muted: #4b5563; --rule: #d0d7de; --code: #f3f4f6; --link: #0b57d0; --mark: #fff6d5; }
@media (prefers-color-scheme: dark) { :root { --fg: #e6e6e6; --bg: #15171a; --muted: #a3aab5; --rule: #39404a; --code: #23272e; --link: #8ab4f8; --mark: #3a3420; } }
body { margin: 0; font: 1rem/1.55 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg); background: var(--bg); }
main, header { max-width: 52rem; margin: 0 auto; padding: 0 1.25rem; }
header { padding-top: 1.5rem; }
a { color: var(--link); }
code, pre { font-family: ui-monospace, SFMono-Regular, Menlo, Consolas, monospace; font-size: 0.92em; background: var(--code); border-radius: 4px; }
code { padding: 0.05em 0.3em; }
pre { padding: 0.8rem 1rem; overflow-x: auto; }
table { border-collapse: collapse; width: 100%; }
th, td { text-align: left; padding: 0.35rem 0.6rem; border-bottom: 1px solid var(--rule); vertical-align: top; }
section { border-top: 1px solid var(--rule); padding: 0.5rem 0 0.75rem; scroll-margin-top: 1rem; }
section:target { background: var(--mark); }
h2 { margin: 0.75rem 0 0.25rem; font-size: 1.3rem; }
h2 .title { font-weight: 600; }
h3 { margin: 0.9rem 0 0.2rem; font-size: 1rem; }
p { margin: 0.3rem 0; }
.status { color: var(--muted); font-weight: 600; }
.members dt { margin-top: 0.3rem; }
.members dd { margin-left: 1.25rem; }
.top { font-size: 0.9rem; }
.skip { position: absolute; left: -999px; }
.skip:focus { left: 1rem; top: 1rem; background: var(--bg); padding: 0.25rem 0.5rem; }
`;

/** The whole page. `baseUrl` is PUBLIC_BASE_URL, as in the problems' `type`. */
export function renderErrorsPage(baseUrl: string): string {
  const codes = Object.keys(ERRORS) as ErrorCode[];
  const example = {
    type: `${baseUrl}/docs/errors#insufficient_credits`,
    title: ERRORS.insufficient_credits.title,
    status: ERRORS.insufficient_credits.status,
    detail: 'This call costs 25 credits; the balance is 10.',
    code: 'insufficient_credits',
    requestId: 'req_4hQ2mV8kZr1xYt6pW0nLbC',
    balance: 10,
    cost: 25,
  };
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Errors - Utility Tools API</title>
<link rel="icon" href="data:,">
<style>${STYLE}</style>
</head>
<body>
<a class="skip" href="#codes">Skip to the list of codes</a>
<header>
  <p><a href="/docs">API reference</a></p>
  <h1>Errors</h1>
</header>
<main>
  <p>Every answer that is not 2xx, from tools, the account API, the operator API and unknown paths alike,
  is <code>application/problem+json</code> (RFC 9457). <code>code</code> is stable: branch on it, not on
  <code>title</code> or <code>detail</code>, which are for people. <code>type</code> links to the code's section below.
  <code>requestId</code> is also in the <code>X-Request-Id</code> header; quote it when you contact support.</p>
  <pre><code>${escapeHtml(JSON.stringify(example, null, 2))}</code></pre>
  <p>A tool call is charged only when it answers 200: every answer on this page leaves the balance as it was.</p>
  <h2 id="codes">Codes</h2>
  <table>
    <thead><tr><th scope="col">Code</th><th scope="col">Status</th><th scope="col">Title</th></tr></thead>
    <tbody>
${codes.map((c) => `      <tr><td><a href="#${c}"><code>${c}</code></a></td><td>${ERRORS[c].status}</td><td>${escapeHtml(ERRORS[c].title)}</td></tr>`).join('\n')}
    </tbody>
  </table>
${codes.map(section).join('\n')}
</main>
</body>
</html>
`;
}
