import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Incidents (docs/incidents.md).
//
// incident_engine: the incident engine's state per monitor (IncidentMachine.State, encoded), locked FOR UPDATE by
// whichever worker folds an event into it, so each transition happens once however many workers run. wake_at is
// when the clock must tick it next (a reminder or the end of a recovery wait); the tick loop claims due rows.
//
// incidents: both origins. A monitor-opened incident is keyed by (target_id, number), the engine's own count, so
// the writer addresses rows by what the engine knows. A monitor's incidents go with it when it is deleted (its
// engine state and results do too, and an open incident nothing could close again must not linger); a declared
// incident only loses the component.
//
// incident_components: the monitors a declared incident names (a monitor-opened one names its own target).
//
// incident_updates: the timeline; people's updates (kind update, with a phase) and the engine's system notes
// (kind note).
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE incident_engine (
      target_id uuid PRIMARY KEY REFERENCES targets(id) ON DELETE CASCADE,
      state jsonb NOT NULL,
      wake_at timestamptz,
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `
  yield* sql`CREATE INDEX incident_engine_wake ON incident_engine (wake_at) WHERE wake_at IS NOT NULL`
  yield* sql`
    CREATE TABLE incidents (
      id uuid PRIMARY KEY,
      org_id uuid NOT NULL REFERENCES orgs(id) ON DELETE CASCADE,
      target_id uuid REFERENCES targets(id) ON DELETE CASCADE,
      origin text NOT NULL CHECK (origin IN ('monitor', 'declared')),
      number integer,
      title text,
      public_title text,
      public_description text,
      severity text CHECK (severity IN ('critical', 'major', 'minor')),
      impact text NOT NULL CHECK (impact IN ('degraded', 'partial_outage', 'major_outage')),
      counts_as_downtime boolean NOT NULL,
      started_at timestamptz NOT NULL,
      ended_at timestamptz,
      acknowledged_at timestamptz,
      acknowledged_by uuid REFERENCES users(id) ON DELETE SET NULL,
      resolved_by uuid REFERENCES users(id) ON DELETE SET NULL,
      close_reason text CHECK (close_reason IN ('recovered', 'resolved')),
      recovering_since timestamptz,
      recovered jsonb NOT NULL DEFAULT '[]',
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((origin = 'monitor') = (number IS NOT NULL))
    )
  `
  yield* sql`CREATE UNIQUE INDEX incidents_monitor_number ON incidents (target_id, number) WHERE origin = 'monitor'`
  yield* sql`CREATE INDEX incidents_org_started ON incidents (org_id, started_at DESC, id)`
  yield* sql`CREATE INDEX incidents_org_open ON incidents (org_id, started_at DESC) WHERE ended_at IS NULL`
  yield* sql`
    CREATE TABLE incident_components (
      incident_id uuid NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
      target_id uuid NOT NULL REFERENCES targets(id) ON DELETE CASCADE,
      PRIMARY KEY (incident_id, target_id)
    )
  `
  yield* sql`CREATE INDEX incident_components_target ON incident_components (target_id)`
  yield* sql`
    CREATE TABLE incident_updates (
      id uuid PRIMARY KEY,
      -- Insertion order: entries written in the same millisecond keep the order they were written in.
      position bigint GENERATED ALWAYS AS IDENTITY,
      incident_id uuid NOT NULL REFERENCES incidents(id) ON DELETE CASCADE,
      kind text NOT NULL CHECK (kind IN ('update', 'note')),
      phase text CHECK (phase IN ('investigating', 'identified', 'monitoring', 'resolved', 'postmortem')),
      message text NOT NULL,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      CHECK ((kind = 'update') = (phase IS NOT NULL))
    )
  `
  yield* sql`CREATE INDEX incident_updates_incident ON incident_updates (incident_id, created_at, position)`
  yield* sql`
    CREATE TABLE incident_postmortems (
      incident_id uuid PRIMARY KEY REFERENCES incidents(id) ON DELETE CASCADE,
      body text NOT NULL,
      created_by uuid REFERENCES users(id) ON DELETE SET NULL,
      updated_by uuid REFERENCES users(id) ON DELETE SET NULL,
      created_at timestamptz NOT NULL DEFAULT now(),
      updated_at timestamptz NOT NULL DEFAULT now()
    )
  `
})
