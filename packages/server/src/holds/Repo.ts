/**
 * The holds' SQL: an account's monitors and status pages of its live orgs (oldest first, with the owner's pick),
 * the writes of a pick with the holds it decides (under the account's lock), and an org's held pages for the
 * dashboard. The database failing, or our own rows failing their schema, are defects at this boundary.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as AccountLock from "../database/AccountLock.js"
import * as Transaction from "../database/Transaction.js"

/** A monitor or status page as the holds see it. */
export const HoldableRow = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  created_at: Schema.DateFromSelf,
  kept: Schema.Boolean
})
export type HoldableRow = typeof HoldableRow.Type

const Ids = Schema.Array(Schema.String)
const Change = Schema.Struct({ account_id: Schema.String, ids: Ids })

export class HoldsRepo extends Effect.Service<HoldsRepo>()("Signalman/HoldsRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const transaction = Transaction.make(sql)

    // Soft-deleted orgs are outside the account's pool (auth-and-limits.md "Plans"): their monitors are held by the
    // deletion itself and their pages are not served, so neither is the owner's to pick.
    const monitors = SqlSchema.findAll({
      Request: Schema.String,
      Result: HoldableRow,
      execute: (accountId) => sql`
        SELECT t.id::text AS id, t.name, t.created_at, t.hold_kept AS kept
        FROM targets t JOIN orgs o ON o.id = t.org_id AND o.deleted_at IS NULL
        WHERE t.account_id = ${accountId}
        ORDER BY t.created_at, t.id
      `
    })

    const pages = SqlSchema.findAll({
      Request: Schema.String,
      Result: HoldableRow,
      execute: (accountId) => sql`
        SELECT p.id::text AS id, p.name, p.created_at, p.hold_kept AS kept
        FROM status_pages p JOIN orgs o ON o.id = p.org_id AND o.deleted_at IS NULL
        WHERE p.account_id = ${accountId}
        ORDER BY p.created_at, p.id
      `
    })

    const keepMonitors = SqlSchema.void({
      Request: Change,
      execute: ({ account_id, ids }) => sql`
        UPDATE targets SET hold_kept = (id::text = ANY(${ids}::text[]))
        WHERE account_id = ${account_id} AND hold_kept IS DISTINCT FROM (id::text = ANY(${ids}::text[]))
      `
    })

    const keepPages = SqlSchema.void({
      Request: Change,
      execute: ({ account_id, ids }) => sql`
        UPDATE status_pages SET hold_kept = (id::text = ANY(${ids}::text[]))
        WHERE account_id = ${account_id} AND hold_kept IS DISTINCT FROM (id::text = ANY(${ids}::text[]))
      `
    })

    // Only the live orgs' resources: a deleted org's monitors stay held by the deletion (engine/Upkeep.ts).
    const holdMonitors = SqlSchema.void({
      Request: Change,
      execute: ({ account_id, ids }) => sql`
        UPDATE schedules s SET held = (s.target_id::text = ANY(${ids}::text[]))
        FROM targets t JOIN orgs o ON o.id = t.org_id AND o.deleted_at IS NULL
        WHERE s.target_id = t.id AND t.account_id = ${account_id}
          AND s.held IS DISTINCT FROM (s.target_id::text = ANY(${ids}::text[]))
      `
    })

    const holdPages = SqlSchema.findAll({
      Request: Change,
      Result: Schema.Struct({ id: Schema.String }),
      execute: ({ account_id, ids }) => sql`
        UPDATE status_pages p SET held = (p.id::text = ANY(${ids}::text[]))
        FROM orgs o
        WHERE o.id = p.org_id AND o.deleted_at IS NULL AND p.account_id = ${account_id}
          AND p.held IS DISTINCT FROM (p.id::text = ANY(${ids}::text[]))
        RETURNING p.id::text AS id
      `
    })

    const heldPages = SqlSchema.findAll({
      Request: Schema.String,
      Result: Schema.Struct({ id: Schema.String }),
      execute: (orgId) => sql`SELECT id::text AS id FROM status_pages WHERE org_id = ${orgId} AND held`
    })

    return {
      transaction,
      /** The org's pages held now (not published), as the public surface sees them. */
      heldPages: (orgId: string) =>
        Effect.map(Effect.orDie(heldPages(orgId)), (rows): ReadonlySet<string> => new Set(rows.map((r) => r.id))),
      /** Holds the account's lock to the end of the transaction: a pick serialises with every quota write. */
      lockAccount: (accountId: string) => AccountLock.lock(sql, accountId),
      /** The monitors of the account's live orgs, oldest first, with the owner's pick. */
      monitors: (accountId: string) => Effect.orDie(monitors(accountId)),
      /** The status pages of the account's live orgs, oldest first, with the owner's pick. */
      pages: (accountId: string) => Effect.orDie(pages(accountId)),
      /** Stores the pick: exactly these are kept, every other of the account's is not. */
      keep: (accountId: string, monitorIds: ReadonlyArray<string>, pageIds: ReadonlyArray<string>) =>
        Effect.orDie(
          Effect.all([
            keepMonitors({ account_id: accountId, ids: monitorIds }),
            keepPages({ account_id: accountId, ids: pageIds })
          ])
        ),
      /** Holds exactly these of the account's live orgs' monitors and pages; answers the pages whose hold changed. */
      hold: (accountId: string, monitorIds: ReadonlyArray<string>, pageIds: ReadonlyArray<string>) =>
        Effect.orDie(
          Effect.zipRight(
            holdMonitors({ account_id: accountId, ids: monitorIds }),
            holdPages({ account_id: accountId, ids: pageIds })
          )
        )
    }
  })
}) {}
