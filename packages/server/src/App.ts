/**
 * The service as one layer, per role: `api` serves the HTTP API, docs and (later) pages; `worker` runs the
 * background work and answers only the operations probes; `all` does both in one process.
 */

import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpMiddleware from "@effect/platform/HttpMiddleware"
import type * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import type * as SqlClient from "@effect/sql/SqlClient"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as Layer from "effect/Layer"
import { Abuse } from "./abuse/Abuse.js"
import { Accounts } from "./accounts/Accounts.js"
import { ApiTokens } from "./auth/ApiTokens.js"
import { Attempts } from "./auth/Attempts.js"
import * as Authentication from "./auth/Authentication.js"
import { Fingerprint } from "./auth/Fingerprint.js"
import * as AuthHttp from "./auth/Http.js"
import { MagicLinks } from "./auth/MagicLinks.js"
import * as Pages from "./auth/Pages.js"
import { Sessions } from "./auth/Sessions.js"
import { SignIn } from "./auth/SignIn.js"
import { UsageDebounce } from "./auth/UsageDebounce.js"
import { Channels } from "./channels/Channels.js"
import * as ChannelsHttp from "./channels/Http.js"
import * as Config from "./config/Config.js"
import * as Database from "./database/Database.js"
import * as Engine from "./engine/Engine.js"
import * as EngineHttp from "./engine/Http.js"
import * as HeartbeatEvaluation from "./heartbeats/Evaluation.js"
import { Heartbeats } from "./heartbeats/Heartbeats.js"
import * as HeartbeatsHttp from "./heartbeats/Http.js"
import * as PingRoute from "./heartbeats/PingRoute.js"
import { Pings } from "./heartbeats/Pings.js"
import * as DocsPage from "./http/DocsPage.js"
import * as Liveness from "./http/Liveness.js"
import * as OpenApiRoute from "./http/OpenApiRoute.js"
import * as Serve from "./http/Serve.js"
import * as Shutdown from "./http/Shutdown.js"
import * as IncidentsHttp from "./incidents/Http.js"
import { Incidents } from "./incidents/Incidents.js"
import { IncidentWriter } from "./incidents/IncidentWriter.js"
import * as IncidentSeams from "./incidents/Seams.js"
import * as IncidentTargetPeriods from "./incidents/TargetPeriods.js"
import { Lifecycle } from "./infra/Lifecycle.js"
import { Mailer } from "./infra/Mailer.js"
import * as Logging from "./Logging.js"
import { Plans } from "./limits/Plans.js"
import { QuotaEvents } from "./limits/Quota.js"
import { RateBudgets } from "./limits/RateBudgets.js"
import * as Monitoring from "./Monitoring.js"
import * as MaintenanceHttp from "./maintenance/Http.js"
import { Maintenance } from "./maintenance/Maintenance.js"
import { ManualStates } from "./manual/ManualStates.js"
import * as ManualRestatement from "./manual/Restatement.js"
import * as MeHttp from "./me/Http.js"
import { MeService } from "./me/Me.js"
import { Deliveries } from "./notify/Deliveries.js"
import * as Notifier from "./notify/Notifier.js"
import * as Operations from "./operations/Http.js"
import * as OperatorHttp from "./operator/Http.js"
import * as OrgsHttp from "./orgs/Http.js"
import { carried as carriedInvitation, Invitations } from "./orgs/Invitations.js"
import { Orgs } from "./orgs/Orgs.js"
import * as InvitationPages from "./orgs/Pages.js"
import { Probes } from "./probes/Probes.js"
import * as PublicFastPath from "./publicpages/PublicFastPath.js"
import * as PublicHttp from "./publicpages/PublicHttp.js"
import * as PublicPages from "./publicpages/PublicPages.js"
import { PublicSnapshot } from "./publicpages/PublicSnapshot.js"
import * as SharesHttp from "./shares/Http.js"
import * as SharePage from "./shares/Page.js"
import { Shares } from "./shares/Shares.js"
import * as StatusPagesHttp from "./statuspages/Http.js"
import * as Logos from "./statuspages/Logos.js"
import { StatusPages } from "./statuspages/StatusPages.js"
import * as SubscriptionEnds from "./subscribers/Ends.js"
import * as SubscriptionsHttp from "./subscribers/Http.js"
import * as MaintenanceAnnouncements from "./subscribers/MaintenanceAnnouncements.js"
import * as SubscriberPages from "./subscribers/Pages.js"
import * as SubscriberMail from "./subscribers/SubscriberMail.js"
import { Subscribers } from "./subscribers/Subscribers.js"
import { Admission } from "./targets/Admission.js"
import { BulkActions } from "./targets/BulkActions.js"
import { Changes } from "./targets/Changes.js"
import { CheckTest } from "./targets/CheckTest.js"
import { Creation } from "./targets/Creation.js"
import * as TargetsHttp from "./targets/Http.js"
import { Regions as TargetRegions } from "./targets/Regions.js"
import { Targets } from "./targets/Targets.js"
import * as VariablesHttp from "./variables/Http.js"
import { Variables } from "./variables/Variables.js"
import * as ViewerRecords from "./viewers/Records.js"
import * as SignInPages from "./viewers/SignInPages.js"
import * as ViewerGate from "./viewers/ViewerGate.js"
import { Viewers } from "./viewers/Viewers.js"
import * as IncidentTicks from "./workers/IncidentTicks.js"
import * as Sweepers from "./workers/Sweepers.js"

export const DOCS_PATH = DocsPage.PATH

/** The incident writer with its ports bound to the outbox, maintenance windows and the delivery log. */
const incidentWriting = IncidentWriter.Default.pipe(Layer.provideMerge(IncidentSeams.layer))

/** The services behind sign-in, sessions, tokens, orgs and the limits. */
const identity = Layer.mergeAll(
  Accounts.Default,
  Sessions.Default,
  ApiTokens.Default,
  Attempts.Default,
  Fingerprint.Default,
  MagicLinks.Default,
  SignIn.Default.pipe(Layer.provide(carriedInvitation)),
  Invitations.Default,
  Plans.Default,
  QuotaEvents.Default,
  RateBudgets.Default,
  MeService.Default,
  Orgs.Default,
  UsageDebounce.Default
).pipe(Layer.provide(Mailer.layer))

const http = (config: Config.Values) => {
  const server = new Liveness.Server({ keepAliveTimeout: 65_000 })
  const maxBodyBytes = config["server.max_body_bytes"]
  const trustedProxies = config["server.trusted_proxies"]
  const serve =
    config.role === "worker"
      ? Serve.layer(
          Operations.WorkerApi,
          HttpApiBuilder.api(Operations.WorkerApi).pipe(Layer.provide(Operations.workerLayer)),
          {
            maxBodyBytes,
            trustedProxies
          }
        )
      : Serve.layer(
          SignalmanApi,
          Layer.mergeAll(
            OpenApiRoute.layer(SignalmanApi),
            DocsPage.layer(SignalmanApi),
            Pages.layer,
            InvitationPages.layer,
            Logos.layer,
            SignInPages.layer,
            PublicPages.layer,
            PublicPages.customDomain,
            SharePage.layer,
            SubscriberPages.layer,
            // Cache hits of public pages, answered by the listener from the same snapshots.
            PublicFastPath.layer(server)
          ).pipe(
            Layer.provideMerge(HttpApiBuilder.api(SignalmanApi)),
            Layer.provide([
              Operations.layer,
              AuthHttp.layer,
              MeHttp.layer,
              OrgsHttp.layer,
              OrgsHttp.publicLayer,
              OperatorHttp.layer,
              TargetsHttp.layer,
              VariablesHttp.layer,
              ChannelsHttp.layer,
              MaintenanceHttp.layer,
              IncidentsHttp.layer,
              HeartbeatsHttp.layer,
              EngineHttp.layer,
              StatusPagesHttp.layer,
              PublicHttp.layer,
              SharesHttp.layer,
              SubscriptionsHttp.layer
            ]),
            Layer.provide([PublicSnapshot.Default, Subscribers.Default]),
            // The gate the public status surface and the subscriptions ask (who may read a private page), and the owner's
            // records of a private page's viewers; their routes share these services.
            Layer.provide([ViewerGate.layer, ViewerRecords.layer]),
            Layer.provide(Viewers.Default.pipe(Layer.provide(Mailer.layer))),
            Layer.provide(StatusPages.Default),
            Layer.provide(SubscriptionEnds.layer),
            Layer.provide(Authentication.layer),
            Layer.provide(identity),
            Layer.provide(
              Engine.reading(Monitoring.resultObservers, Monitoring.uptimeExclusions).pipe(
                Layer.provide(incidentWriting)
              )
            ),
            Layer.provide(Probes.Default),
            Layer.provide([
              Creation.Default,
              Changes.Default,
              TargetRegions.Default,
              CheckTest.Default,
              BulkActions.Default,
              IncidentTargetPeriods.layer
            ]),
            Layer.provide([Heartbeats.Default, ManualStates.Default]),
            Layer.provide([Admission.Default, Targets.Default, Shares.Default]),
            Layer.provide([Abuse.Default, Variables.Default, Channels.Default, Deliveries.Default]),
            Layer.provide(Maintenance.Default),
            Layer.provide([Incidents.Default, incidentWriting])
          ),
          {
            maxBodyBytes,
            trustedProxies,
            extraRoutes: [
              { method: "GET", path: DOCS_PATH, body: "none" },
              { method: "GET", path: OpenApiRoute.PATH, body: "none" },
              ...Pages.routes,
              ...InvitationPages.routes,
              ...Logos.routes,
              ...SignInPages.routes,
              ...PublicPages.routes,
              ...SharePage.routes,
              ...SubscriberPages.routes
            ]
          }
        )
  // Background work: the worker role and the all-in-one process run it; an api process never does.
  const work =
    config.role === "api"
      ? Layer.empty
      : Layer.mergeAll(
          Sweepers.layer,
          Engine.work(Monitoring.resultObservers).pipe(Layer.provide(incidentWriting)),
          Notifier.layer,
          IncidentTicks.layer.pipe(Layer.provide(incidentWriting)),
          HeartbeatEvaluation.layer,
          ManualRestatement.layer,
          MaintenanceAnnouncements.layer
        )
  // Ping URLs are answered by the listener itself; a worker serves none.
  const pings = config.role === "worker" ? Layer.empty : PingRoute.layer(server)
  return Layer.mergeAll(Shutdown.layer(server), work, pings).pipe(
    Layer.provide(serve),
    // Outlives the server's drain (released after it): the pings acknowledged are written before the database goes.
    Layer.provide([HeartbeatEvaluation.Evaluation.Default, Pings.Default]),
    Layer.provide(Engine.monitorResults(Monitoring.resultObservers).pipe(Layer.provide(incidentWriting))),
    // The notifier's deliveries to page subscribers, wherever the notifier runs or is asked (SubscriberDelivery).
    Layer.provide(SubscriberMail.delivery),
    // No trace exporter is configured, so a span per request would be work nobody reads.
    Layer.provide(Layer.locallyScoped(HttpMiddleware.currentTracerDisabledWhen, () => true)),
    Layer.provideMerge(NodeHttpServer.layer(() => server, { port: config["server.port"], host: config["server.host"] }))
  )
}

/**
 * Everything a process of the given configuration runs. The output names the bound HTTP address and the
 * database client (for tools and tests that run beside the service).
 */
export const layer = (config: Config.Values): Layer.Layer<HttpServer.HttpServer | SqlClient.SqlClient, unknown> =>
  http(config).pipe(
    Layer.provideMerge(Database.layer),
    Layer.provide(Lifecycle.Default),
    Layer.provide(Config.layer(config)),
    Layer.provide(Logging.layer(config))
  )
