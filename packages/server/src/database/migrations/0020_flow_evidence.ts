import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Evidence kept beside a result (docs/engine.md, "Flow results"): a failed flow's PNG screenshot of the page at the
// failing step. Results have no id (check_results is a partitioned log), so the evidence row's id is what names
// the screenshot in `details.screenshot_url`. The row is written in the result's transaction; `expires_at` is the
// result's time plus the account's `evidence_days` then, and the engine's upkeep deletes rows past it (and rows of
// deleted monitors: there is no foreign key, so a monitor deleted while its result is written can never fail the
// batch the result rides in). PNG is compressed already: `png` is stored out of line without another try at it.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`
    CREATE TABLE result_evidence (
      id uuid PRIMARY KEY,
      target_id uuid NOT NULL,
      region text NOT NULL,
      checked_at timestamptz NOT NULL,
      png bytea NOT NULL,
      expires_at timestamptz NOT NULL
    )
  `
  yield* sql`ALTER TABLE result_evidence ALTER COLUMN png SET STORAGE EXTERNAL`
  yield* sql`CREATE INDEX result_evidence_expires ON result_evidence (expires_at)`
})
