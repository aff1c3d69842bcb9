/**
 * Numbered migrations, run at boot by the `@effect/sql` migrator. The migrator takes a table lock, so several
 * processes booting at once run each migration once. A landed migration is never edited.
 */
import * as Migrator from "@effect/sql/Migrator"
import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import m0001 from "./migrations/0001_instance.js"
import m0002 from "./migrations/0002_identity.js"
import m0003 from "./migrations/0003_targets.js"
import m0004 from "./migrations/0004_variables.js"

export const loader = Migrator.fromRecord({
  "0001_instance": m0001,
  "0002_identity": m0002,
  "0003_targets": m0003,
  "0004_variables": m0004
})

const run = Migrator.make({})

export const layer = Layer.effectDiscard(
  Effect.gen(function* () {
    const done = yield* run({ loader, table: "signalman_migrations" })
    const sql = yield* SqlClient.SqlClient
    const rows = yield* sql<{ id: string }>`SELECT id FROM instance`
    yield* Effect.logInfo("Database ready").pipe(
      Effect.annotateLogs({ migrations_applied: done.map(([id, name]) => `${id}_${name}`), instance: rows[0]?.id })
    )
  })
)
