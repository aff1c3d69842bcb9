import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Region policy across regions (docs/incidents.md, "Regions").
//
// incident_engine.advisories: the monitor's per-region advisories (RegionAdvisory, encoded: region, status, since),
// written by the incident writer with the engine's state whenever they change, read beside every target answer.
//
// incidents.regions_down: the probe regions confirmed down while a monitor-opened incident was open (it only
// grows); empty on a declared incident. Before this migration only the built-in region local ever probed, so every
// monitor-opened incident was down there. `?region=` filters on it (GIN: containment).
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE incident_engine ADD COLUMN advisories jsonb NOT NULL DEFAULT '[]'`
  yield* sql`ALTER TABLE incidents ADD COLUMN regions_down text[] NOT NULL DEFAULT '{}'`
  yield* sql`UPDATE incidents SET regions_down = ARRAY['local'] WHERE origin = 'monitor'`
  yield* sql`CREATE INDEX incidents_regions_down ON incidents USING gin (regions_down)`
})
