import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Monitoring as code (docs/decisions.md, "Monitoring as code: managed_by"): which config project and key manage a
// target, notification channel, variable, status page or maintenance window. Both columns are null (nobody manages
// it) or both set. Within an org, one live resource of a kind holds a (project, key): the unique index is also what
// `?managed_by=<project>` reads through, its leading columns being (org_id, managed_by_project).
//
// Targets, channels, variables and status pages are deleted outright, which frees their key. A cancelled maintenance
// window stays as history (deleted_at) with its managed_by, outside the unique index; so the CLI's per-project list
// of windows has its own index, cancelled ones included. A window that has ended still holds its key until a write
// claims it (the service clears it from the ended window in the claiming transaction): the index cannot follow the
// clock.
const tables = ["targets", "channels", "variables", "status_pages", "maintenance_windows"] as const

export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  for (const table of tables) {
    yield* sql`
      ALTER TABLE ${sql(table)}
        ADD COLUMN managed_by_project text,
        ADD COLUMN managed_by_key text,
        ADD CONSTRAINT ${sql(`${table}_managed_by_pair`)}
          CHECK ((managed_by_project IS NULL) = (managed_by_key IS NULL))
    `
  }
  for (const table of ["targets", "channels", "variables", "status_pages"] as const) {
    yield* sql`
      CREATE UNIQUE INDEX ${sql(`${table}_managed_by`)} ON ${sql(table)} (org_id, managed_by_project, managed_by_key)
      WHERE managed_by_project IS NOT NULL
    `
  }
  yield* sql`
    CREATE UNIQUE INDEX maintenance_windows_managed_by
    ON maintenance_windows (org_id, managed_by_project, managed_by_key)
    WHERE managed_by_project IS NOT NULL AND deleted_at IS NULL
  `
  yield* sql`
    CREATE INDEX maintenance_windows_managed_project ON maintenance_windows (org_id, managed_by_project)
    WHERE managed_by_project IS NOT NULL
  `
})
