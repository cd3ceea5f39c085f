//! Assembles the Koa application from its parts; no I/O happens here.
import { DatabaseBlobStore, type BlobStore } from '../lib/blob-store.js';
import { createOutputBodies } from './output-body.js';
import Koa from 'koa';
import type { Db } from 'mongodb';
import type { Client } from '@temporalio/client';
import type { Config } from '../lib/config.js';
import type { Logger } from '../lib/logger.js';
import type { Metrics } from '../lib/metrics.js';
import type { Tracer } from '@opentelemetry/api';
import { httpTracing } from './http-tracing.js';
import { publishedCatalogueSchemas } from '../domain/tools/index.js';
import { createAccounts } from '../domain/accounts/index.js';
import { createEventRecorder, type EventSink } from '../domain/events/index.js';
import { createResolver } from '../lib/resolver.js';
import { createTargetGuard } from '../lib/target-guard.js';
import { createWebhookFanout, createWebhookService } from '../domain/webhooks/index.js';
import { createDestinationService } from '../domain/destinations/index.js';
import { createLedger, createGrants } from '../domain/ledger/index.js';
import { createPlans, createAllowances } from '../domain/plans/index.js';
import { createAuthenticator } from './auth.js';
import { problems, requestId } from './problem.js';
import { routeLabel } from './route-label.js';
import { createRateLimiter } from './rate-limit.js';
import { createToolCalls } from './tool-calls.js';
import { createValidators } from './validation.js';
import { buildOpenApi } from './openapi.js';
import { toolRoutes } from './routes/tools.js';
import { accountRoutes } from './routes/account.js';
import { auditLogRoutes } from './routes/audit-log.js';
import { createAuditLog } from '../domain/audit/index.js';
import { adminRoutes } from './routes/admin.js';
import { planRoutes } from './routes/plans.js';
import { serviceRoutes } from './routes/service.js';
import { docsRoutes } from './routes/docs.js';
import { webhookRoutes } from './routes/webhooks.js';
import { destinationRoutes } from './routes/destinations.js';
import { eventRoutes } from './routes/events.js';
import { callRoutes } from './routes/calls.js';
import { batchRoutes } from './routes/batches.js';
import { createBatchRequests } from './batch-requests.js';
import { resumingOnGrant } from '../domain/batches/index.js';
import { dashboardRoutes } from './routes/dashboard.js';
import { renderRoutes } from './routes/render.js';
import { renderLinkRoutes } from './routes/render-links.js';
import { createLinkSecrets } from '../domain/link-secrets.js';
import { createRenderCache } from '../domain/render-cache.js';
import { createRenderCalls } from './render-calls.js';
import { billingRoutes } from './routes/billing.js';
import { createStripeApi } from '../domain/billing/index.js';
import { createIdentity, type MailSender } from '../domain/identity/index.js';
import { authRoutes } from './routes/auth.js';
import { perClientLimit } from './person-session.js';
import { teamRoutes } from './routes/teams.js';
import { oidcRoutes } from './routes/oidc.js';
import { mcpRoutes } from './routes/mcp.js';
import { createAgentSignIn } from './oauth/index.js';
import { createCallAdmission, type CallAdmission } from './call-admission.js';
import { createMcpSessions } from '../domain/mcp-sessions.js';
import { createMcpRenderLinks } from './mcp/render-links.js';
import { createMcpResultLinks } from './mcp/result-links.js';
import { createTeams } from '../domain/teams/index.js';
import { cookieSettings } from './session-cookie.js';
import { createMailer } from '../domain/mail/index.js';
import { createMonitorService } from '../domain/monitors/index.js';
import { monitorRoutes } from './routes/monitors.js';
import { createMonitorDiffLinks } from './monitor-diff-links.js';

export interface AppDeps {
  config: Config;
  db: Db;
  client: Client;
  log: Logger;
  metrics: Metrics;
  /** Where recorded events go; default the webhook fan-out (domain/webhooks/fanout.ts). */
  onEvent?: EventSink;
  /** Where big outputs wait (BLOB_STORE_URL), as the workers write them; the database when absent. */
  blobs?: BlobStore;
  /** The process's tracer when tracing is on (lib/tracing.ts); absent, requests are not traced. */
  tracer?: Tracer;
  /** Where mail goes; default the durable outbox (domain/mail/outbox.ts) through Temporal. */
  mailer?: MailSender;
}

export function createApp(deps: AppDeps): Koa {
  const { config, db } = deps;
  const schemas = publishedCatalogueSchemas();
  const onEvent = resumingOnGrant(db, deps.client, deps.onEvent ?? createWebhookFanout({ db, client: deps.client, log: deps.log }).onEvent);
  const accounts = createAccounts(db, onEvent);
  const identity = createIdentity({
    db,
    accounts,
    mailer: deps.mailer ?? createMailer({ client: deps.client, secretKey: config.secretKey, log: deps.log }),
    settings: {
      baseUrl: config.publicBaseUrl,
      signup: config.signup,
      freeCredits: config.freeCredits,
      timeouts: { idleMs: config.sessionIdleHours * 3_600_000, maxMs: config.sessionMaxDays * 86_400_000 },
    },
    onEvent,
    oidcProviders: config.oidcProviders,
  });
  const teams = createTeams(identity);
  const cookie = cookieSettings(config.publicBaseUrl);
  const auth = createAuthenticator(db, { sessions: identity.sessions, cookie });
  const limiter = createRateLimiter({ perSecond: config.rateLimitPerSecond, db, log: deps.log });
  const rateLimit = limiter.middleware();
  const ledger = createLedger(db, onEvent);
  const grants = createGrants(db, onEvent);
  const plans = createPlans(db);
  const allowances = createAllowances(db, onEvent);
  const auditLog = createAuditLog(db);
  const openapi = buildOpenApi({ baseUrl: config.publicBaseUrl, schemas });
  const blobs = deps.blobs ?? new DatabaseBlobStore(db);
  const outputs = createOutputBodies({ blobs, log: deps.log });
  const validators = createValidators(schemas);
  const toolCalls = createToolCalls({ db, client: deps.client, secretKey: config.secretKey, ledger });
  const linkSecrets = createLinkSecrets(db, config.secretKey);
  const renderCache = createRenderCache({ db, blobs });
  const renders = createRenderCalls({ toolCalls, cache: renderCache, outputs, metrics: deps.metrics, log: deps.log });

  // The client address is X-Forwarded-For's entry from the proxies the operator trusts, else the socket's.
  const app = new Koa({ proxy: config.trustedProxyHops > 0, maxIpsCount: config.trustedProxyHops });
  app.use(requestId());
  if (deps.tracer) app.use(httpTracing(deps.tracer));
  app.use(async (ctx, next) => {
    const end = deps.metrics.httpRequests.startTimer({ method: ctx.method });
    try {
      await next();
    } finally {
      end({ route: routeLabel(ctx as Parameters<typeof routeLabel>[0]), status: String(ctx.status) });
    }
  });
  app.use(problems({ baseUrl: config.publicBaseUrl, log: deps.log }));

  const guard = createTargetGuard({ allowlist: config.targetAllowlist, resolver: createResolver({ servers: config.dnsServers }) });
  const destinations = createDestinationService({ db, secretKey: config.secretKey, guard });
  // Agents sign in through the service's own authorization server, for `/mcp` only.
  const agents = createAgentSignIn({ db, config, guard, identity, auth, rateLimit, perClient: perClientLimit(limiter), log: deps.log });
  // What a tool call needs, through REST and through MCP alike.
  const calls = { baseUrl: config.publicBaseUrl, auth, schemas, toolCalls, outputs, metrics: deps.metrics };
  const admission = createCallAdmission({ validators, guard });
  const monitoring = monitorParts(deps, admission, blobs);
  const routers = [
    serviceRoutes({ db, client: deps.client, openapi: () => openapi }),
    toolRoutes({ ...calls, rateLimit, validators, guard, destinations, renders }),
    // The same calls for AI agents: the same checks, workflow and ledger (api/call-admission.ts).
    mcpRoutes({
      ...calls,
      admission,
      links: createMcpRenderLinks({ baseUrl: config.publicBaseUrl, linkSecrets, renders }),
      results: createMcpResultLinks({ baseUrl: config.publicBaseUrl, secretKey: config.secretKey, blobs }),
      sessions: createMcpSessions(db),
      monitors: monitoring.monitors,
      limiter,
      accounts,
      db,
      log: deps.log,
      oauth: agents.bearer,
    }),
    ...agents.routers(),
    renderRoutes({ linkSecrets, rateLimit, validators, schemas, guard, renders }),
    renderLinkRoutes({ baseUrl: config.publicBaseUrl, auth, rateLimit, linkSecrets, renderCache, validators }),
    authRoutes({ identity, teams, auth, cookie, rateLimit, limiter }),
    oidcRoutes({ identity, log: deps.log, auth, cookie, perClient: perClientLimit(limiter) }),
    accountRoutes({
      db,
      auth,
      rateLimit,
      accounts,
      grants,
      allowances,
      renderCache,
      members: teams.members,
      accountRate: config.rateLimitPerSecond,
    }),
    teamRoutes({ teams, auth, rateLimit, providers: identity.providers }),
    planRoutes({ adminToken: config.adminToken, plans }),
    adminRoutes({ adminToken: config.adminToken, accounts, grants, plans, allowances, freeCredits: config.freeCredits }),
    auditLogRoutes({ auth, rateLimit, adminToken: config.adminToken, auditLog }),
    webhookRoutes({
      auth,
      rateLimit,
      webhooks: createWebhookService({
        db,
        client: deps.client,
        log: deps.log,
        secretKey: config.secretKey,
        allowLocalhost: config.webhooksAllowLocalhost,
        guard,
        record: createEventRecorder(db, onEvent),
      }),
    }),
    destinationRoutes({ auth, rateLimit, destinations }),
    monitorRoutes({ auth, rateLimit, ...monitoring }),
    eventRoutes({ db, auth, rateLimit }),
    callRoutes({ db, auth, rateLimit, baseUrl: config.publicBaseUrl, outputs }),
    batchRoutes({
      auth,
      rateLimit,
      baseUrl: config.publicBaseUrl,
      outputs,
      requests: createBatchRequests({ db, client: deps.client, secretKey: config.secretKey, validators, guard, destinations, onEvent }),
    }),
    ...billingRoutes({
      db,
      client: deps.client,
      log: deps.log,
      auth,
      rateLimit,
      adminToken: config.adminToken,
      baseUrl: config.publicBaseUrl,
      stripe: config.stripe && { api: createStripeApi(config.stripe), webhookSecret: config.stripe.webhookSecret },
    }),
    docsRoutes({ baseUrl: config.publicBaseUrl }),
    dashboardRoutes(),
  ];
  for (const r of routers) app.use(r.routes());
  return app;
}

/** The monitor service and the signer of its diff links, as the monitor routes (and MCP) use them. */
function monitorParts(deps: AppDeps, admission: CallAdmission, blobs: BlobStore) {
  const { config } = deps;
  return {
    monitors: createMonitorService({
      db: deps.db,
      client: deps.client,
      checkInput: admission.input,
      minIntervalS: config.monitorMinIntervalS,
      perAccount: config.monitorsPerAccount,
    }),
    diffLinks: createMonitorDiffLinks({ baseUrl: config.publicBaseUrl, secretKey: config.secretKey, blobs }),
  };
}
