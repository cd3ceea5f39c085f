//! What a page still has under way, seen from both sides. From outside: every request in flight,
//! in every frame, HTTPS included (the browser's network events; the proxy only sees tunnels).
//! From inside, a script installed before the page's own: the timers it has set, web fonts and
//! images still loading, the load event. settle.ts decides on these when a capture may be taken.
import type { HTTPRequest, Page } from 'puppeteer-core';

/**
 * Request types that never hold a capture back: streams that stay open for as long as the page
 * does (EventSource, media), and requests whose answer nothing draws (beacons, prefetches,
 * reports). WebSockets are not requests and never show up.
 */
const STREAM_AND_BACKGROUND_TYPES: ReadonlySet<string> = new Set([
  'eventsource',
  'websocket',
  'media',
  'ping',
  'prefetch',
  'cspviolationreport',
  'manifest',
]);

/** The page's requests in flight, counted from the browser's network events. */
export interface RequestWatch {
  /** Requests started and not yet finished or failed (streams and background requests left out). */
  readonly inFlight: number;
  /** Requests started so far: a change means the page asked for something new. */
  readonly started: number;
  /** Resolves at the next request that starts, finishes or fails. */
  next(): Promise<void>;
  stop(): void;
}

export function watchRequests(page: Page): RequestWatch {
  const pending = new Set<HTTPRequest>();
  let started = 0;
  let wake: Array<() => void> = [];
  const changed = () => {
    const waiting = wake;
    wake = [];
    for (const resolve of waiting) resolve();
  };
  // A redirect finishes one request and starts the next (puppeteer makes one object per hop).
  const onRequest = (request: HTTPRequest) => {
    if (STREAM_AND_BACKGROUND_TYPES.has(request.resourceType())) return;
    pending.add(request);
    started++;
    changed();
  };
  const onDone = (request: HTTPRequest) => {
    if (pending.delete(request)) changed();
  };
  page.on('request', onRequest);
  page.on('requestfinished', onDone);
  page.on('requestfailed', onDone);
  return {
    get inFlight() {
      return pending.size;
    },
    get started() {
      return started;
    },
    next: () => new Promise<void>((resolve) => wake.push(resolve)),
    stop() {
      page.off('request', onRequest);
      page.off('requestfinished', onDone);
      page.off('requestfailed', onDone);
      changed();
    },
  };
}

/** What the page reports about itself at one moment (see ACTIVITY_SCRIPT's `probe`). */
export interface PageState {
  /** The load event has fired. */
  loaded: boolean;
  /** Web fonts still loading. */
  fonts: number;
  /** Pictures on their way (eager ones with a source, lazy ones begun) not complete yet. */
  images: number;
  /** Milliseconds until the earliest timer due within the horizon; -1 when none is. */
  timerInMs: number;
}

/** The global the script answers on; a page that meddles with it only makes its own capture wait for the bounds. */
const GLOBAL = '__utilityToolsActivity';

/**
 * Installed in the page's main world before its scripts run (and before `setContent` for
 * markup): it tracks the timers the page sets, because a timer is how a page defers work to
 * "a moment after load" (insert an image, swap in a font, render a widget) while nothing is in
 * flight. setTimeout and requestIdleCallback count until they fire or are cleared; setInterval
 * counts until its first tick only, since repeating work (clocks, carousels, polling) never
 * ends. The wrappers are proxies of the native functions, so they still read as native code.
 * Its own waits use the native timers and are never counted.
 */
const ACTIVITY_SCRIPT = `(() => {
  if (Object.prototype.hasOwnProperty.call(window, '${GLOBAL}')) return;
  const nativeSetTimeout = window.setTimeout.bind(window);
  const nativeClearTimeout = window.clearTimeout.bind(window);
  const nativeFrame = window.requestAnimationFrame.bind(window);
  const now = () => performance.now();
  const timers = new Map();
  const track = (name, kind, due) => {
    const native = window[name];
    if (typeof native !== 'function') return;
    window[name] = new Proxy(native, {
      apply(target, self, args) {
        const [handler, ...rest] = args;
        if (typeof handler !== 'function') return Reflect.apply(target, self, args);
        let id;
        let first = true;
        const wrapped = function (...callArgs) {
          if (first) {
            first = false;
            timers.delete(kind + id);
          }
          return Reflect.apply(handler, this, callArgs);
        };
        id = Reflect.apply(target, self, [wrapped, ...rest]);
        timers.set(kind + id, due(rest[0]));
        return id;
      },
    });
  };
  const untrack = (name, kind) => {
    const native = window[name];
    if (typeof native !== 'function') return;
    window[name] = new Proxy(native, {
      apply(target, self, args) {
        timers.delete(kind + args[0]);
        return Reflect.apply(target, self, args);
      },
    });
  };
  const after = (delay) => now() + Math.max(0, Number(delay) || 0);
  track('setTimeout', 't', after);
  track('setInterval', 't', after);
  track('requestIdleCallback', 'i', () => now());
  untrack('clearTimeout', 't');
  untrack('clearInterval', 't');
  untrack('cancelIdleCallback', 'i');
  // Pictures on their way: an eager one is fetched as soon as it has a source; a lazy one only
  // once it comes near the viewport (until then it has no current source, and is not waited for).
  const loading = () => Array.from(document.images).filter((img) => !img.complete && (img.getAttribute('src') || img.getAttribute('srcset')) && (img.loading !== 'lazy' || img.currentSrc));
  const fontsLoading = () => (document.fonts ? Array.from(document.fonts).filter((f) => f.status === 'loading').length : 0);
  const sleep = (ms) => new Promise((resolve) => nativeSetTimeout(resolve, ms));
  const frame = () => new Promise((resolve) => {
    // A rendering update (lazy loading and intersection observers run in it), or a while in a page that draws no frames.
    const fallback = nativeSetTimeout(resolve, 100);
    nativeFrame(() => nativeSetTimeout(() => { nativeClearTimeout(fallback); resolve(); }, 0));
  });
  const api = {
    probe(horizonMs) {
      // Style and layout now: text needing a web font starts its load, CSS images start theirs.
      if (document.documentElement) document.documentElement.getBoundingClientRect();
      let soonest = Infinity;
      const t = now();
      for (const due of timers.values()) soonest = Math.min(soonest, Math.max(0, due - t));
      return {
        loaded: document.readyState === 'complete',
        fonts: fontsLoading(),
        images: loading().length,
        timerInMs: soonest <= horizonMs ? Math.ceil(soonest) : -1,
      };
    },
    // Answers the state after the wait (a rendering update first with frame), saving a probe.
    whenDrawn(ms, horizonMs, withFrame) {
      const pictures = loading().map((img) => new Promise((resolve) => { img.addEventListener('load', resolve, { once: true }); img.addEventListener('error', resolve, { once: true }); }));
      const fonts = document.fonts ? document.fonts.ready : Promise.resolve();
      return Promise.race([Promise.all([fonts, ...pictures]), sleep(ms)])
        .then(() => (withFrame ? frame() : undefined))
        .then(() => api.probe(horizonMs));
    },
    // What setContent does (document.open keeps this window and its globals), then the load
    // event in the same call: one round trip instead of three. Answers the state then.
    write(html, loadMs, horizonMs) {
      document.open();
      document.write(html);
      document.close();
      const loaded = document.readyState === 'complete' ? Promise.resolve() : new Promise((resolve) => window.addEventListener('load', resolve, { once: true }));
      return Promise.race([loaded, sleep(loadMs)]).then(() => api.probe(horizonMs));
    },
    frame,
    async scrollThrough(maxHeight, stepMs, totalMs) {
      const deadline = now() + totalMs;
      const step = Math.max(200, Math.floor(window.innerHeight * 0.9));
      const height = () => Math.max(document.documentElement.scrollHeight, document.body ? document.body.scrollHeight : 0);
      // At each step: a frame for observers to see what came into view, then, for up to stepMs, the
      // page's timers falling due (throttled scroll handlers), so content passed over gets its
      // chance to load.
      const pause = async () => {
        await frame();
        const until = Math.min(deadline, now() + stepMs);
        for (let timer = api.probe(stepMs).timerInMs; timer >= 0 && now() < until; timer = api.probe(stepMs).timerInMs) await sleep(Math.min(timer, until - now()) + 1);
      };
      for (let y = 0; y < Math.min(height(), maxHeight) && now() < deadline; y += step) {
        window.scrollTo(0, y);
        await pause();
      }
      window.scrollTo(0, Math.min(height(), maxHeight));
      await pause();
      window.scrollTo(0, 0);
      return true;
    },
  };
  Object.defineProperty(window, '${GLOBAL}', { value: api, enumerable: false });
})();`;

/**
 * Puts the activity script in the page: in its current document (markup is written into it) and
 * in every document it navigates to. The pool does it to every page it opens, off any capture's
 * clock.
 */
export async function prepareForCapture(page: Page): Promise<void> {
  await page.evaluateOnNewDocument(ACTIVITY_SCRIPT);
  await page.evaluate(ACTIVITY_SCRIPT);
}

/** The document was replaced while the page was asked something: ask the new one. */
export function isNavigationRace(err: unknown): boolean {
  const message = err instanceof Error ? err.message : '';
  return /Execution context was destroyed|Cannot find context with specified id|Execution context is not available in detached frame/.test(
    message,
  );
}

/**
 * Writes `html` as the page's document and waits for its load event, up to `loadMs`, in one call
 * into the page; answers the page's state then (timers due within `horizonMs`). Answers undefined
 * when the load is still to be waited for: the markup navigated away, or the page has no activity
 * script (puppeteer's setContent writes the markup then). No timeout of its own: markup that
 * never finishes parsing runs into the caller's deadline.
 */
export async function writeMarkup(page: Page, html: string, loadMs: number, horizonMs: number): Promise<PageState | undefined> {
  let state: PageState | undefined;
  try {
    state = (await page.evaluate(callActivity('write', html, Math.round(loadMs), Math.round(horizonMs)))) as PageState | undefined;
  } catch (err) {
    if (isNavigationRace(err)) return undefined;
    throw err;
  }
  if (state === undefined) await page.setContent(html, { waitUntil: 'domcontentloaded', timeout: 0 });
  return state;
}

/** Calls `method` of the page's activity script; undefined where the document has none. */
export function callActivity(method: string, ...args: Array<number | string | boolean>): string {
  return `window.${GLOBAL} ? window.${GLOBAL}.${method}(${args.map((a) => JSON.stringify(a)).join(', ')}) : undefined`;
}
