//! The `route` label of the API's request metrics: the template of the route that matched
//! (`/api/v1/account/keys/:id`), never a router's prefix pattern. @koa/router leaves in
//! `_matchedRoute` the path of the last layer it ran, and for a request refused by a router's
//! own middleware (401, 429) that is the prefix as regular-expression text.

interface MatchedLayer {
  path: string | RegExp;
  methods: string[];
}

/** The last matched layer that is a route for this method; `unmatched` when none is. */
export function routeLabel(ctx: { method: string; matched?: MatchedLayer[] }): string {
  const matched = ctx.matched ?? [];
  for (let i = matched.length - 1; i >= 0; i--) {
    const { path, methods } = matched[i]!;
    if (typeof path === 'string' && methods.includes(ctx.method)) return path;
  }
  return 'unmatched';
}
