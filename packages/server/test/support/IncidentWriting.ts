/**
 * The incident writer and the escalation walker as a worker runs them, built over a running server's own database
 * client, for tests that drive them with explicit clock times.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Config from "../../src/config/Config.js"
import { EscalationWalker } from "../../src/escalations/Walker.js"
import { IncidentWriter } from "../../src/incidents/IncidentWriter.js"
import * as IncidentSeams from "../../src/incidents/Seams.js"
import { QuotaEvents } from "../../src/limits/Quota.js"
import { Maintenance } from "../../src/maintenance/Maintenance.js"
import { MaintenanceRepo } from "../../src/maintenance/Repo.js"
import { Notices } from "../../src/notify/Notices.js"
import { PageChanges } from "../../src/statuspages/PageChanges.js"
import { PageEvents } from "../../src/subscribers/PageEvents.js"
import type * as TestServer from "./TestServer.js"

/** The server's database client, and the default settings (the plans' cache reads one). */
export const over = (server: Pick<TestServer.Running, "sql">) =>
  Layer.merge(Layer.succeed(SqlClient.SqlClient, server.sql), Config.layer(Config.fromEnv({})))

/**
 * The writer's layer with its ports bound to the outbox and maintenance windows (status pages' caches left alone),
 * needing only a database client and settings (`over`).
 */
export const writerLayer = IncidentWriter.Default.pipe(
  Layer.provide(Layer.mergeAll(IncidentSeams.outboxNotices, IncidentSeams.maintenanceSuppression)),
  Layer.provide([Notices.Default, Maintenance.DefaultWithoutDependencies]),
  Layer.provide([MaintenanceRepo.Default, QuotaEvents.Default, PageEvents.Default, PageChanges.Test])
)

/** The writer a worker runs, over the server's own database client. */
export const writer = (server: Pick<TestServer.Running, "sql">) =>
  Effect.provide(IncidentWriter, writerLayer.pipe(Layer.provide(over(server))))

/** An escalation walker: another one per call, as another worker process would have. */
export const walker = (server: Pick<TestServer.Running, "sql">) =>
  Effect.provide(EscalationWalker, EscalationWalker.Default.pipe(Layer.provide(over(server))))
