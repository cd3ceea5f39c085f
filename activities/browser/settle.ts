//! When a capture may be taken: as soon as the page has nothing under way, and never later than
//! its bound. "Under way" is what can still change the picture: the load event, a request in
//! flight, a web font or an image still loading, a timer due soon. Every wait here ends on an
//! event (a request ending, a font or picture arriving, a timer falling due), not on a fixed
//! quiet window, so a page that is done is captured at once.
import type { Page } from 'puppeteer-core';
import { callActivity, isNavigationRace, type PageState, type RequestWatch } from './page-activity.js';

/** How long settling may wait, milliseconds. Tests shorten them. */
export interface SettleLimits {
  /** The load event (every image, script and frame of the document). @default 15000 */
  loadMs: number;
  /**
   * Longest wait, after the load event, for the page to have nothing under way. A page that never
   * gets there (polling, a long-poll held open, endless timers) is captured at this bound.
   * @default 5000
   */
  idleMs: number;
  /**
   * A timer due within this counts as work under way: pages defer content by a moment after
   * load ("insert the image in 200 ms"). Later timers are delayed popups and rotations, not
   * waited for; keep it under the period of common clocks (1 s), or such a page waits for the
   * bound every time. @default 500
   */
  timerHorizonMs: number;
  /**
   * At each scroll step of a full-page capture, after a rendering frame, the page's timers falling
   * due are waited for up to this long (scroll handlers throttled by a timer). @default 150
   */
  scrollStepMs: number;
  /** Longest the scroll through a full page may take. @default 10000 */
  scrollMs: number;
}

export const DEFAULT_SETTLE: SettleLimits = {
  loadMs: 15_000,
  idleMs: 5_000,
  timerHorizonMs: 500,
  scrollStepMs: 150,
  scrollMs: 10_000,
};

/** What the settling ended on. */
export type Settled = 'idle' | 'bound';

/** What `within` answers when the time ran out first. */
const LATE = Symbol('late');

/** `work`, or LATE after `ms`; a rejection after that is dropped. */
function within<T>(work: Promise<T>, ms: number): Promise<T | typeof LATE> {
  work.catch(() => {});
  let timer: ReturnType<typeof setTimeout> | undefined;
  return Promise.race([work, new Promise<typeof LATE>((resolve) => (timer = setTimeout(() => resolve(LATE), Math.max(0, ms))))]).finally(
    () => clearTimeout(timer),
  );
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Evaluates `expression`; null when the document went away meanwhile (a navigation). */
async function ask<T>(page: Page, expression: string): Promise<T | null> {
  try {
    return (await page.evaluate(expression)) as T;
  } catch (err) {
    if (isNavigationRace(err)) return null;
    throw err;
  }
}

/** Waits for the load event, up to `ms`; a document replaced meanwhile is waited for in turn. */
export async function whenLoaded(page: Page, ms: number): Promise<void> {
  const until = Date.now() + ms;
  const loaded = `document.readyState === 'complete' || new Promise((resolve) => window.addEventListener('load', () => resolve(true), { once: true }))`;
  while (Date.now() < until) {
    if ((await within(ask<boolean>(page, loaded), until - Date.now())) !== null) return; // loaded, or out of time
    await sleep(20); // between two documents
  }
}

/**
 * The page's state now; `frame` lets one rendering update happen first (intersection observers
 * and lazy images act in it). Undefined without the activity script, null across a navigation.
 */
function probe(page: Page, horizonMs: number, frame: boolean): Promise<PageState | undefined | null> {
  const now = callActivity('probe', horizonMs);
  return ask(page, frame ? `Promise.resolve(${callActivity('frame')}).then(() => ${now})` : now);
}

/** Nothing under way by the page's own account: loaded, no web font or picture loading, no timer due within the horizon. */
const quiet = (state: PageState) => state.loaded && state.fonts === 0 && state.images === 0 && state.timerInMs < 0;

/**
 * What the page said of itself in answer to another call, and requests.started before that call:
 * it stands for a probe as long as no request has started since (then a probe would say the same).
 */
export interface Reported {
  state: PageState;
  mark: number;
}

const isState = (value: unknown): value is PageState => typeof value === 'object' && value !== null;

/**
 * Waits, after the load event, until nothing is under way or `until` (a Date.now() time) passes.
 * Settled means, at one moment: no request in flight (streams left out), and then, with no
 * request started meanwhile, the page reports no web font and no picture loading and no timer
 * due within the horizon. Without the activity script (a document it could not reach) the
 * requests alone decide. A state the page `reported` in answer to another call stands for the
 * first look when no request has started since (Reported).
 */
export async function settle(
  page: Page,
  requests: RequestWatch,
  limits: Pick<SettleLimits, 'timerHorizonMs'>,
  until: number,
  options: { frame: boolean; reported?: Reported },
): Promise<Settled> {
  let reported = options.reported;
  for (;;) {
    const left = until - Date.now();
    if (left <= 0) return 'bound';
    if (requests.inFlight > 0) {
      await within(requests.next(), left);
      continue;
    }
    const mark = requests.started;
    const state = reported?.mark === mark ? reported.state : await within(probe(page, limits.timerHorizonMs, options.frame), left);
    reported = undefined;
    if (state === LATE) return 'bound';
    if (state === null) {
      await within(requests.next(), Math.min(left, 20)); // a navigation: its requests show up
      continue;
    }
    if (requests.inFlight > 0 || requests.started !== mark) continue;
    if (state === undefined || quiet(state)) return 'idle';
    if (!state.loaded) {
      await whenLoaded(page, left);
    } else if (state.fonts > 0 || state.images > 0) {
      const drawn = await within(
        Promise.race([ask(page, callActivity('whenDrawn', left, limits.timerHorizonMs, options.frame)), requests.next()]),
        left,
      );
      if (isState(drawn)) reported = { state: drawn, mark };
    } else {
      await within(requests.next(), state.timerInMs + 1); // a timer due within the horizon
    }
  }
}

/**
 * Whether a page that settled is settled still: no request started since `mark` (requests.started
 * then) nor in flight, and nothing under way by the page's own account, by settle's measure.
 */
export async function stillSettled(
  page: Page,
  requests: RequestWatch,
  limits: Pick<SettleLimits, 'timerHorizonMs'>,
  mark: number,
): Promise<boolean> {
  if (requests.started !== mark || requests.inFlight > 0) return false;
  const state = await probe(page, limits.timerHorizonMs, false);
  return state === undefined || (state !== null && quiet(state));
}
