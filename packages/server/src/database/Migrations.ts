/**
 * Numbered migrations, run at boot by the `@effect/sql` migrator. The migrator takes a table lock, so several
 * processes booting at once run each migration once. A landed migration is never edited: `migrations.sha256` holds
 * the hash of each, and CI (`.ci/check-migrations`) refuses a change to one or a migration without its line.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import m0001 from "./migrations/0001_instance.js"
import m0002 from "./migrations/0002_identity.js"
import m0003 from "./migrations/0003_targets.js"
import m0004 from "./migrations/0004_variables.js"
import m0005 from "./migrations/0005_channels.js"
import m0006 from "./migrations/0006_audit.js"
import m0007 from "./migrations/0007_bulk.js"
import m0008 from "./migrations/0008_engine.js"
import m0009 from "./migrations/0009_notifications.js"
import m0010 from "./migrations/0010_maintenance.js"
import m0011 from "./migrations/0011_heartbeats.js"
import m0012 from "./migrations/0012_incidents.js"
import m0013 from "./migrations/0013_status_pages.js"
import m0014 from "./migrations/0014_page_viewers.js"
import m0015 from "./migrations/0015_monitor_shares.js"
import m0016 from "./migrations/0016_page_subscribers.js"
import m0017 from "./migrations/0017_subscriber_admission.js"
import m0018 from "./migrations/0018_agents.js"
import m0019 from "./migrations/0019_region_advisories.js"
import m0020 from "./migrations/0020_flow_evidence.js"
import m0021 from "./migrations/0021_one_off_runs.js"
import m0022 from "./migrations/0022_managed_by.js"
import m0023 from "./migrations/0023_credential_events.js"
import m0024 from "./migrations/0024_oauth.js"
import m0025 from "./migrations/0025_passkeys.js"
import m0026 from "./migrations/0026_billing.js"
import m0027 from "./migrations/0027_holds.js"
import m0028 from "./migrations/0028_oncall.js"
import m0029 from "./migrations/0029_escalations.js"

export const loader = Migrator.fromRecord({
  "0001_instance": m0001,
  "0002_identity": m0002,
  "0003_targets": m0003,
  "0004_variables": m0004,
  "0005_channels": m0005,
  "0006_audit": m0006,
  "0007_bulk": m0007,
  "0008_engine": m0008,
  "0009_notifications": m0009,
  "0010_maintenance": m0010,
  "0011_heartbeats": m0011,
  "0012_incidents": m0012,
  "0013_status_pages": m0013,
  "0014_page_viewers": m0014,
  "0015_monitor_shares": m0015,
  "0016_page_subscribers": m0016,
  "0017_subscriber_admission": m0017,
  "0018_agents": m0018,
  "0019_region_advisories": m0019,
  "0020_flow_evidence": m0020,
  "0021_one_off_runs": m0021,
  "0022_managed_by": m0022,
  "0023_credential_events": m0023,
  "0024_oauth": m0024,
  "0025_passkeys": m0025,
  "0026_billing": m0026,
  "0027_holds": m0027,
  "0028_oncall": m0028,
  "0029_escalations": m0029
})

const run = Migrator.make({})

export const layer = Layer.effectDiscard(
  Effect.gen(function* () {
    const done = yield* run({ loader, table: "signalman_migrations" })
    const sql = yield* SqlClient.SqlClient
    const instance = yield* SqlSchema.findOne({
      Request: Schema.Void,
      Result: Schema.Struct({ id: Schema.String }),
      execute: () => sql`SELECT id FROM instance`
    })(undefined)
    yield* Effect.logInfo("Database ready").pipe(
      Effect.annotateLogs({
        migrations_applied: done.map(([id, name]) => `${id}_${name}`),
        instance: Option.getOrUndefined(Option.map(instance, (row) => row.id))
      })
    )
  })
)
