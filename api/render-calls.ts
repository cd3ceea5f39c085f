//! A capture tool's call through the render cache (domain/render-cache.ts), for render links and
//! for a `POST` that sends `Cache-Control`: a stored render young enough is a hit, answered with
//! its bytes without a workflow or the ledger; otherwise the ordinary call runs, is charged as
//! usual, and its image is stored for the next; an identical miss meanwhile on this API instance
//! waits for that render and takes it as a hit. The cache is a help, never a failure: a store out
//! of reach is a miss, and an answer whose image could not be kept is still answered.
import type { Context } from 'koa';
import { renderCacheId, renderOfOutput, type RenderCache, type StoredRender } from '../domain/render-cache.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { RenderCacheDoc } from '../domain/calls/index.js';
import { chargedOutput, type ChargedOutput } from './call-outcome.js';
import type { CallRequest } from './call-request.js';
import type { OutputBodies } from './output-body.js';
import type { CallWatch, ToolCalls } from './tool-calls.js';

/** A render from the cache. */
export interface RenderHit {
  hit: true;
  render: StoredRender;
}

/** A render made by an ordinary call, charged. */
export interface RenderMiss extends ChargedOutput {
  hit: false;
  requestId: string;
  replayed: boolean;
  /** The output's JSON, as a `POST` answers it. */
  json: Buffer;
  image: Buffer;
  mimeType: string;
  /** The entry it was stored as; undefined when the cache could not keep it. */
  entry?: RenderCacheDoc;
}

const cacheIdOf = (req: CallRequest) => renderCacheId(req.accountId, req.tool.name, req.input);

export function createRenderCalls(deps: {
  toolCalls: ToolCalls;
  cache: RenderCache;
  outputs: OutputBodies;
  metrics: Metrics;
  log: Logger;
}) {
  /**
   * A stored render of `req` at most `maxAgeS` old, counted as a hit; undefined for a miss (a store
   * out of reach is one). `id`: its entry, when the caller has it already.
   */
  async function lookup(req: CallRequest, maxAgeS: number, id = cacheIdOf(req)): Promise<RenderHit | undefined> {
    if (maxAgeS <= 0) return undefined;
    const render = await deps.cache.lookup(id, maxAgeS).catch((err: unknown) => {
      deps.log.warn({ err, tool: req.tool.name }, 'render cache lookup failed: rendering afresh');
      return undefined;
    });
    if (!render) return undefined;
    deps.cache.countHit(render.entry, (err) => deps.log.warn({ err }, "render cache hits could not be added to the owner's usage"));
    return { hit: true, render };
  }

  /**
   * Renders of this process under way, by cache entry: an identical miss that arrives meanwhile
   * waits for the one under way and takes its render as a hit (free), instead of rendering and
   * paying again. Kept in memory only, so a process that dies leaves nothing behind.
   */
  const underWay = new Map<string, Promise<StoredRender | undefined>>();

  /** The render of `req`: a stored one at most `maxAgeS` old (0: always a fresh one), else a call's. */
  async function run(req: CallRequest, maxAgeS: number, watch?: CallWatch): Promise<RenderHit | RenderMiss> {
    // Named once: an html-to-image input may be megabytes to digest.
    const id = cacheIdOf(req);
    const hit = await lookup(req, maxAgeS, id);
    if (hit) return hit;
    // Joined once at most: when that render fails, this call renders itself (its own key's limits,
    // its own deadline), whatever became of the other.
    const other = maxAgeS > 0 ? underWay.get(id) : undefined;
    if (other !== undefined) {
      const render = await other;
      if (render) {
        deps.cache.countHit(render.entry, (err) => deps.log.warn({ err }, "render cache hits could not be added to the owner's usage"));
        return { hit: true, render };
      }
    }
    let done!: (render: StoredRender | undefined) => void;
    const mine = new Promise<StoredRender | undefined>((resolve) => (done = resolve));
    if (!underWay.has(id)) underWay.set(id, mine);
    try {
      const miss = await renderAfresh(req, id, watch);
      done(miss.entry && { entry: miss.entry, image: miss.image, ageS: 0 });
      return miss;
    } finally {
      done(undefined);
      if (underWay.get(id) === mine) underWay.delete(id);
    }
  }

  /** The ordinary call, charged; its render stored under `id`. `watch`: an MCP session's, which may cancel it. */
  async function renderAfresh(req: CallRequest, id: string, watch?: CallWatch): Promise<RenderMiss> {
    const answer = await deps.toolCalls.call(req, watch);
    const charged = chargedOutput(deps.metrics, req.tool, answer.result);
    const json = await deps.outputs.json(charged.output);
    const render = renderOfOutput(json, req.tool.image!.field);
    const entry = await deps.cache
      .store({ id, accountId: req.accountId, tool: req.tool.name, ...render, cost: charged.charged })
      .catch((err: unknown) => {
        deps.log.warn({ err, tool: req.tool.name }, 'a render could not be kept in the render cache');
        return undefined;
      });
    return {
      hit: false,
      requestId: answer.requestId,
      replayed: answer.replayed,
      ...charged,
      json,
      image: render.image,
      mimeType: render.mimeType,
      entry,
    };
  }

  return { lookup, run };
}

export type RenderCalls = ReturnType<typeof createRenderCalls>;

/** A render's ETag: the image's digest; its JSON answer (a `POST`'s) is another representation. */
export function renderEtag(entry: RenderCacheDoc, representation: 'image' | 'json'): string {
  return `"${entry.digest}${representation === 'json' ? '-json' : ''}"`;
}

/** Whether the request's If-None-Match names `etag` (weakly compared, `*` included). */
export function notModified(ctx: Context, etag: string): boolean {
  const header = ctx.get('If-None-Match');
  if (!header) return false;
  return header.split(',').some((tag) => {
    const t = tag.trim();
    return t === '*' || t.replace(/^W\//, '') === etag;
  });
}

/**
 * The headers of an answer through the cache. A hit: `X-Cache: HIT`, its `Age`, free; its ETag
 * either way when the render is stored. Answers 304 (no body) when If-None-Match names a hit's
 * ETag; returns whether it did.
 */
export function setRenderHeaders(
  ctx: Context,
  answer: RenderHit | RenderMiss,
  representation: 'image' | 'json',
  cacheControl: string,
): boolean {
  ctx.set('Cache-Control', cacheControl);
  const entry = answer.hit ? answer.render.entry : answer.entry;
  if (entry) ctx.set('ETag', renderEtag(entry, representation));
  if (!answer.hit) {
    ctx.state.requestId = answer.requestId;
    if (answer.replayed) ctx.set('Idempotent-Replayed', 'true');
    ctx.set('X-Cache', 'MISS');
    ctx.set('X-Credits-Charged', String(answer.charged));
    ctx.set('X-Credits-Remaining', String(answer.balance));
    return false;
  }
  ctx.set('X-Cache', 'HIT');
  ctx.set('Age', String(answer.render.ageS));
  ctx.set('X-Credits-Charged', '0');
  if (!notModified(ctx, renderEtag(answer.render.entry, representation))) return false;
  ctx.status = 304;
  return true;
}

/** What is left of `maxAgeS` for an answer `ageS` old. */
export const freshFor = (maxAgeS: number, ageS: number) => Math.max(0, maxAgeS - ageS);
