import * as SqlClient from "@effect/sql/SqlClient"
import * as Effect from "effect/Effect"

// Holds (docs/billing.md "Holds and account deletion"). When the account's plan no longer covers its monitors or
// status pages, the excess is held, never deleted: a monitor through its schedules' `held` (0008, set by the
// engine's upkeep), a status page through `status_pages.held` here (a held page is not published: the public
// surface answers 404). `hold_kept` is the owner's pick (`PUT /api/v1/account/holds`): kept resources rank before
// the others when the plan decides which are held; the pick stays stored while the plan covers everything, so it
// decides again at the next downgrade.
export default Effect.gen(function* () {
  const sql = yield* SqlClient.SqlClient
  yield* sql`ALTER TABLE targets ADD COLUMN hold_kept boolean NOT NULL DEFAULT false`
  yield* sql`ALTER TABLE status_pages ADD COLUMN held boolean NOT NULL DEFAULT false`
  yield* sql`ALTER TABLE status_pages ADD COLUMN hold_kept boolean NOT NULL DEFAULT false`
})
