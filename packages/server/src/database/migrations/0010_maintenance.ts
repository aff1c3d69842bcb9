import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Maintenance windows. A window's status (upcoming, running, completed, cancelled) is never stored: it follows from
// starts_at, ends_at and deleted_at against the clock, so nothing has to run when a window starts or ends. A
// cancelled window keeps its row (deleted_at, deleted_by) as history. account_id is the quota subject
// (max_maintenance_windows counts across the account's orgs).
//
// maintenance_components: the monitors a window covers. A deleted monitor leaves the windows that listed it.
// The (target_id) index with the partial index on suppressing windows makes "is this monitor in a running,
// suppressing window now?" (asked by the incident writer for every result it folds) a pair of index lookups.
//
// maintenance_updates: the timeline of a window, capped at 50 per window by the service under the window's row lock.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE maintenance_windows (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      account_id uuid NOT NULL REFERENCES accounts(id) ON DELETE CASCADE,
      title text NOT NULL,
      description text NOT NULL,
      starts_at timestamptz NOT NULL,
      ends_at timestamptz NOT NULL,
      suppress_alerts boolean NOT NULL,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      deleted_at timestamptz,
      deleted_by uuid REFERENCES users(id) ON DELETE SET NULL,
      write_source text NOT NULL CHECK (write_source IN ('ui', 'api', 'iac')),
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK (ends_at > starts_at)
    )
  `
  yield* sql`CREATE INDEX maintenance_windows_org ON maintenance_windows (org_id, starts_at, id)`
  yield* sql`CREATE INDEX maintenance_windows_account_live ON maintenance_windows (account_id, ends_at) WHERE deleted_at IS NULL`
  yield* sql`
    CREATE INDEX maintenance_windows_suppressing ON maintenance_windows (id, starts_at, ends_at)
    WHERE suppress_alerts AND deleted_at IS NULL
  `
  yield* sql`
    CREATE TABLE maintenance_components (
      window_id uuid NOT NULL REFERENCES maintenance_windows(id) ON DELETE CASCADE,
      target_id uuid NOT NULL REFERENCES targets(id) ON DELETE CASCADE,
      position integer NOT NULL,
      PRIMARY KEY (window_id, target_id)
    )
  `
  yield* sql`CREATE INDEX maintenance_components_target ON maintenance_components (target_id, window_id)`
  yield* sql`
    CREATE TABLE maintenance_updates (
      id uuid PRIMARY KEY,
      window_id uuid NOT NULL REFERENCES maintenance_windows(id) ON DELETE CASCADE,
      message text NOT NULL,
      status text CHECK (status IN ('scheduled', 'in_progress', 'verifying', 'completed')),
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`CREATE INDEX maintenance_updates_window ON maintenance_updates (window_id, created_at, id)`
})
