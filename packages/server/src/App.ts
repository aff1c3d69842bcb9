/**
 * The service as one layer, per role: `api` serves the HTTP API, docs and (later) pages; `worker` runs the
 * background work and answers only the operations probes (and `/metrics` when enabled); `all` does both in one
 * process.
 */

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import type * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type * as SqlClient from "@effect/sql/SqlClient"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as Layer from "effect/Layer"
import { Accounts } from "./accounts/Accounts.js"
import * as AgentsHttp from "./agents/Http.js"
import * as LocalBrowser from "./agents/LocalBrowser.js"
import * as AgentStream from "./agents/Stream.js"
import { MagicLinks } from "./auth/MagicLinks.js"
import { Sessions } from "./auth/Sessions.js"
import { SignIn } from "./auth/SignIn.js"
import * as ConfiguredProvider from "./billing/ConfiguredProvider.js"
import * as BillingHttp from "./billing/Http.js"
import { BillingWebhook } from "./billing/Webhook.js"
import * as BillingWebhookRoute from "./billing/WebhookRoute.js"
import * as ChannelsHttp from "./channels/Http.js"
import * as Config from "./config/Config.js"
import { Assets } from "./dashboard/Assets.js"
import * as Dashboard from "./dashboard/Dashboard.js"
import * as Database from "./database/Database.js"
import * as Discovery from "./discovery/Discovery.js"
import * as EngineHttp from "./engine/Http.js"
import * as HeartbeatEvaluation from "./heartbeats/Evaluation.js"
import * as HeartbeatsHttp from "./heartbeats/Http.js"
import * as PingRoute from "./heartbeats/PingRoute.js"
import { Pings } from "./heartbeats/Pings.js"
import * as HoldsHttp from "./holds/Http.js"
import * as Liveness from "./http/Liveness.js"
import * as OpenApiRoute from "./http/OpenApiRoute.js"
import * as Serve from "./http/Serve.js"
import * as Shutdown from "./http/Shutdown.js"
import * as IncidentsHttp from "./incidents/Http.js"
import { Incidents } from "./incidents/Incidents.js"
import * as IncidentTargetAdvisories from "./incidents/TargetAdvisories.js"
import * as IncidentTargetPeriods from "./incidents/TargetPeriods.js"
import * as Writing from "./incidents/Writing.js"
import { Lifecycle } from "./infra/Lifecycle.js"
import { Mailer } from "./infra/Mailer.js"
import * as Logging from "./Logging.js"
import { Plans } from "./limits/Plans.js"
import * as AuthHttp from "./login/Http.js"
import * as Pages from "./login/Pages.js"
import * as Monitoring from "./Monitoring.js"
import * as MaintenanceHttp from "./maintenance/Http.js"
import { Maintenance } from "./maintenance/Maintenance.js"
import * as ManualRestatement from "./manual/Restatement.js"
import * as McpHttp from "./mcp/Http.js"
import * as MeHttp from "./me/Http.js"
import * as MetricsHttp from "./metrics/Http.js"
import * as Metrics from "./metrics/Metrics.js"
import * as Notifier from "./notify/Notifier.js"
import * as OAuthHttp from "./oauth/Http.js"
import { OAuth } from "./oauth/OAuth.js"
import * as OAuthPages from "./oauth/Pages.js"
import * as OnCallHttp from "./oncall/Http.js"
import * as Operations from "./operations/Http.js"
import * as OperatorHttp from "./operator/Http.js"
import * as OrgsHttp from "./orgs/Http.js"
import { carried as carriedInvitation } from "./orgs/Invitations.js"
import * as InvitationPages from "./orgs/Pages.js"
import { Passkeys } from "./passkeys/Passkeys.js"
import * as PublicFastPath from "./publicpages/PublicFastPath.js"
import * as PublicHttp from "./publicpages/PublicHttp.js"
import * as PublicPages from "./publicpages/PublicPages.js"
import { PublicSnapshot } from "./publicpages/PublicSnapshot.js"
import * as SharesHttp from "./shares/Http.js"
import * as SharePage from "./shares/Page.js"
import * as StatusPagesHttp from "./statuspages/Http.js"
import * as Logos from "./statuspages/Logos.js"
import { StatusPages } from "./statuspages/StatusPages.js"
import * as SubscriptionEnds from "./subscribers/Ends.js"
import * as SubscriptionsHttp from "./subscribers/Http.js"
import * as MaintenanceAnnouncements from "./subscribers/MaintenanceAnnouncements.js"
import * as SubscriberPages from "./subscribers/Pages.js"
import * as SubscriberMail from "./subscribers/SubscriberMail.js"
import * as DefaultRegions from "./targets/DefaultRegions.js"
import * as TargetsHttp from "./targets/Http.js"
import * as Tracing from "./tracing/Tracing.js"
import * as VariablesHttp from "./variables/Http.js"
import * as ViewerRecords from "./viewers/Records.js"
import * as SignInPages from "./viewers/SignInPages.js"
import * as ViewerGate from "./viewers/ViewerGate.js"
import { Viewers } from "./viewers/Viewers.js"
import * as EscalationWalks from "./workers/EscalationWalks.js"
import * as IncidentTicks from "./workers/IncidentTicks.js"
import * as Sweepers from "./workers/Sweepers.js"

// Ports bound where the features meet (docs/architecture.md). Each is one value, shared by every group and page
// that asks, so the services behind it are one per process: Effect memoizes a layer by reference within a build.

/** The status pages' service, ending a removed page's subscriptions. */
const statusPages = StatusPages.Default.pipe(Layer.provide(SubscriptionEnds.layer))

/** Who may read a private page: asked by the public status surface, its pages and the subscriptions. */
const viewerGate = ViewerGate.layer.pipe(Layer.provide([statusPages, Viewers.Default]))

/** A private page's viewers, as its owner manages them. */
const viewerRecords = ViewerRecords.layer.pipe(Layer.provide([statusPages, SubscriptionEnds.layer]))

/** Passkeys: the auth group's ceremonies, the me group's removal and the account page's list share one. */
const passkeys = Passkeys.Default.pipe(Layer.provide(SignIn.Default), Layer.provide(carriedInvitation))

/** A monitor's incident periods, listed by the targets group. */
const incidentPeriods = IncidentTargetPeriods.layer.pipe(Layer.provide(Incidents.Default))

/**
 * The API's groups, each providing the services its handlers use; what is left is a port bound above, the engine's
 * readings (`Monitoring.reading`) or the shared infrastructure.
 */
const apiGroups = Layer.mergeAll(
  Operations.layer,
  // Sign-in accepts an invitation the link carried.
  AuthHttp.layer.pipe(Layer.provide([carriedInvitation, passkeys])),
  // The data export lists the account's status pages.
  MeHttp.layer.pipe(Layer.provide([statusPages, passkeys])),
  // Signing in with a provider accepts an invitation the dance carried.
  OAuthHttp.layer.pipe(Layer.provide(carriedInvitation)),
  OrgsHttp.layer,
  OrgsHttp.publicLayer,
  OperatorHttp.layer,
  // Agents' results are stored like the engine's own: the same result store, observed by the incident writer.
  AgentsHttp.layer.pipe(Layer.provide(Monitoring.reading)),
  TargetsHttp.layer.pipe(Layer.provide([incidentPeriods, IncidentTargetAdvisories.layer])),
  VariablesHttp.layer,
  ChannelsHttp.layer,
  MaintenanceHttp.layer,
  IncidentsHttp.layer,
  OnCallHttp.layer,
  HeartbeatsHttp.layer,
  EngineHttp.layer.pipe(Layer.provide(Monitoring.reading)),
  StatusPagesHttp.layer.pipe(Layer.provide([viewerRecords, SubscriptionEnds.layer])),
  PublicHttp.layer.pipe(Layer.provide([viewerGate, Monitoring.reading])),
  SharesHttp.layer,
  SubscriptionsHttp.layer.pipe(Layer.provide(viewerGate)),
  // The payment provider `billing.provider` names, or none (every billing route then 404 BILLING_UNAVAILABLE).
  BillingHttp.layer.pipe(Layer.provide(ConfiguredProvider.layer)),
  HoldsHttp.layer
)

/** The pages and documents served beside the API, with their services. */
const pages = (server: Liveness.Server) =>
  Layer.mergeAll(
    OpenApiRoute.layer(SignalmanApi),
    // The API catalog, the documentation (HTML and Markdown) and the discovery headers of `/` and `/login`.
    Discovery.layer(SignalmanApi),
    Pages.layer,
    OAuthPages.layer,
    Dashboard.layer,
    InvitationPages.layer,
    Logos.layer,
    SignInPages.layer,
    PublicPages.layer,
    PublicPages.customDomain,
    SharePage.layer,
    SubscriberPages.layer,
    // The payment provider's webhook: its body read raw, for the signature.
    BillingWebhookRoute.layer.pipe(Layer.provide(BillingWebhook.Default)),
    // Cache hits of public pages, answered by the listener from the same snapshots.
    PublicFastPath.layer(server)
  ).pipe(
    Layer.provide([
      MagicLinks.Default,
      OAuth.Default,
      SignIn.Default,
      Accounts.Default,
      Sessions.Default,
      statusPages,
      Viewers.Default,
      PublicSnapshot.Default,
      viewerGate,
      passkeys,
      Assets.Default,
      // The billing page reads the subscription through the same service as the API.
      ConfiguredProvider.layer
    ]),
    Layer.provide([carriedInvitation, Monitoring.reading, Maintenance.Default, Plans.Default])
  )

/** `GET /metrics` where `metrics.enabled` mounts it (api, worker and all roles): its layer and its route. */
const metricsRoute = (config: Config.Values) =>
  config["metrics.enabled"]
    ? { layer: MetricsHttp.layer, routes: MetricsHttp.routes }
    : { layer: Layer.empty, routes: [] }

/** The MCP server (`mcp.enabled`), reading and moving monitors and incidents through the API's own services. */
const mcp = McpHttp.layer.pipe(Layer.provide([statusPages, IncidentTargetAdvisories.layer, Monitoring.reading]))

/** What an `api` process serves: the contract's groups, the pages and the documents, and the MCP server. */
const api = (
  server: Liveness.Server,
  options: Serve.Options,
  metrics: ReturnType<typeof metricsRoute>,
  mcpEnabled: boolean
) =>
  Serve.layer(
    SignalmanApi,
    Layer.mergeAll(pages(server), metrics.layer, mcpEnabled ? mcp : Layer.empty).pipe(
      Layer.provideMerge(HttpApiBuilder.api(SignalmanApi)),
      Layer.provide(apiGroups)
    ),
    {
      ...options,
      extraRoutes: [
        ...metrics.routes,
        ...Discovery.routes,
        { method: "GET", path: OpenApiRoute.PATH, body: "none" },
        ...Pages.routes,
        ...OAuthPages.routes,
        ...Dashboard.routes,
        ...InvitationPages.routes,
        ...Logos.routes,
        ...SignInPages.routes,
        ...PublicPages.routes,
        ...SharePage.routes,
        ...SubscriberPages.routes,
        ...BillingWebhookRoute.routes,
        ...(mcpEnabled ? McpHttp.routes : [])
      ]
    }
  )

/** What a `worker` process serves: the operations probes (and its metrics, when enabled). */
const workerApi = (options: Serve.Options, metrics: ReturnType<typeof metricsRoute>) =>
  Serve.layer(
    Operations.WorkerApi,
    HttpApiBuilder.api(Operations.WorkerApi).pipe(Layer.provide(Operations.workerLayer), Layer.merge(metrics.layer)),
    { ...options, extraRoutes: metrics.routes }
  )

/** The background work a `worker` process runs (and an `all` process beside the API). */
const work = Layer.mergeAll(
  Sweepers.layer,
  Monitoring.work,
  // The local region's checks run here, so here is where its browser (flows in local) is looked for.
  LocalBrowser.layer,
  Notifier.layer,
  IncidentTicks.layer.pipe(Layer.provide(Writing.layer)),
  EscalationWalks.layer,
  HeartbeatEvaluation.layer,
  ManualRestatement.layer,
  MaintenanceAnnouncements.layer
)

const http = (config: Config.Values) => {
  const server = new Liveness.Server({ keepAliveTimeout: 65_000 })
  const options = { maxBodyBytes: config["server.max_body_bytes"], trustedProxies: config["server.trusted_proxies"] }
  const metrics = metricsRoute(config)
  const serve =
    config.role === "worker" ? workerApi(options, metrics) : api(server, options, metrics, config["mcp.enabled"])
  // Background work: the worker role and the all-in-one process run it; an api process never does.
  const background = config.role === "api" ? Layer.empty : work
  // Ping URLs are answered by the listener itself; a worker serves none.
  const pings = config.role === "worker" ? Layer.empty : PingRoute.layer(server)
  // The agents' stream is upgraded on the listener, beside the API's agent routes; a worker serves neither. The
  // API also says at boot which default regions are not there (checker.default_regions).
  const agents =
    config.role === "worker"
      ? Layer.empty
      : Layer.merge(AgentStream.layer(server).pipe(Layer.provide(Monitoring.reading)), DefaultRegions.report)
  return Layer.mergeAll(Shutdown.layer(server), background, pings, agents).pipe(
    Layer.provide(serve),
    // Outlives the server's drain (released after it): the pings acknowledged are written before the database goes.
    Layer.provide([HeartbeatEvaluation.Evaluation.Default, Pings.Default]),
    Layer.provide(Monitoring.monitorResults),
    // The notifier's deliveries to page subscribers, wherever the notifier runs or is asked (SubscriberDelivery).
    Layer.provide(SubscriberMail.delivery),
    // The platform's request span records whole URLs and headers; ours (http/RequestSpan.ts) is used instead.
    Layer.provide(Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true)),
    Layer.provideMerge(NodeHttpServer.layer(() => server, { port: config["server.port"], host: config["server.host"] }))
  )
}

/**
 * Everything a process of the given configuration runs. The output names the bound HTTP address and the
 * database client (for tools and tests that run beside the service). `tracing` is the process's tracing
 * (`Tracing.layer` of the OTel environment, which `main.ts` reads); none unless given.
 */
export const layer = (
  config: Config.Values,
  tracing: Layer.Layer<never> = Tracing.layer(null)
): Layer.Layer<HttpServer.HttpServer | SqlClient.SqlClient, unknown> =>
  http(config).pipe(
    // The infrastructure every feature shares.
    Layer.provide(Mailer.layer),
    // What the features record for /metrics: nothing unless metrics.enabled.
    Layer.provide(Metrics.layer),
    Layer.provideMerge(Database.layer),
    Layer.provide(Lifecycle.Default),
    Layer.provide(Config.layer(config)),
    Layer.provide(Logging.layer(config)),
    // Outermost, so released last: spans of the drain and the last requests are flushed after they end.
    Layer.provide(tracing)
  )
