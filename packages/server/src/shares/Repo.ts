/**
 * Share links' SQL. A row is core's `MonitorShare` with the sealed token in place of the token and its URL
 * (timestamps arrive as `Date`s, hence the `FromDate` fields); a link is live when it is not revoked and not past
 * its expiry at the database's clock. The account's share counts are taken under the account's lock. Also the few
 * columns of a monitor and its incidents the share page shows: never the check.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import { AccountId, OrgId } from "@signalman/core/Identity"
import { MonitorShare } from "@signalman/core/MonitorShare"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Struct from "effect/Struct"
import * as AccountLock from "../database/AccountLock.js"
import * as Transaction from "../database/Transaction.js"

/** A stored share link. */
export const ShareRow = Schema.Struct({
  ...Struct.pick(MonitorShare.fields, "id", "label"),
  token_sealed: Schema.String,
  expires_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  created_at: Schema.DateTimeUtcFromDate
})
export type ShareRow = typeof ShareRow.Type

/** The monitor a live link opens, with its org and account. */
export const SharedRow = Schema.Struct({
  id: Schema.String,
  target_id: Schema.String,
  org_id: OrgId,
  account_id: AccountId
})

/** A new link's row: the token sealed (to show again) and hashed (to look up), never in the clear. */
export const NewShare = Schema.Struct({
  id: Schema.String,
  target_id: Schema.String,
  org_id: OrgId,
  account_id: AccountId,
  label: Schema.NullOr(Schema.String),
  token_sealed: Schema.String,
  token_hash: Schema.Uint8ArrayFromSelf,
  expires_at: Schema.NullOr(Schema.DateTimeUtcFromDate),
  created_by: Schema.String
})

/** What the share page shows of a monitor: its name and kind, whether it runs, and its worst scheduled status. */
export const MonitorRow = Schema.Struct({
  name: Schema.String,
  kind: Schema.String,
  enabled: Schema.Boolean,
  scheduled_status: Schema.NullOr(Schema.String)
})

/** What the share page shows of an incident. */
export const IncidentRow = Schema.Struct({
  public_title: Schema.NullOr(Schema.String),
  impact: Schema.String,
  started_at: Schema.DateFromSelf,
  ended_at: Schema.NullOr(Schema.DateFromSelf)
})
export type IncidentRow = typeof IncidentRow.Type

const Usage = Schema.Struct({ on_monitor: Schema.Int, shared: Schema.Int })
const Id = Schema.Struct({ id: Schema.String })
const OfOrg = Schema.Struct({ org_id: OrgId, target_id: Schema.String })

export class SharesRepo extends Effect.Service<SharesRepo>()("Signalman/SharesRepo", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient

    /** A live link: not revoked and not past its expiry, at the database's clock. */
    const live = sql`s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > now())`

    const target = SqlSchema.findOne({
      Request: OfOrg,
      Result: Id,
      execute: ({ org_id, target_id }) => sql`SELECT id FROM targets WHERE id = ${target_id} AND org_id = ${org_id}`
    })

    const usage = SqlSchema.single({
      Request: Schema.Struct({ account_id: AccountId, target_id: Schema.String }),
      Result: Usage,
      execute: ({ account_id, target_id }) => sql`
        SELECT
          (SELECT count(*)::int FROM monitor_shares s WHERE s.target_id = ${target_id} AND ${live}) AS on_monitor,
          (SELECT count(DISTINCT s.target_id)::int FROM monitor_shares s JOIN orgs o ON o.id = s.org_id
            WHERE s.account_id = ${account_id} AND o.deleted_at IS NULL AND ${live}) AS shared
      `
    })

    const insert = SqlSchema.void({
      Request: NewShare,
      execute: (row) => sql`
        INSERT INTO monitor_shares (id, target_id, org_id, account_id, label, token_sealed, token_hash,
          expires_at, created_by)
        VALUES (${row.id}, ${row.target_id}, ${row.org_id}, ${row.account_id}, ${row.label}, ${row.token_sealed},
          ${row.token_hash}, ${row.expires_at}, ${row.created_by})
      `
    })

    const byId = SqlSchema.single({
      Request: Schema.String,
      Result: ShareRow,
      execute: (id) => sql`SELECT * FROM monitor_shares WHERE id = ${id}`
    })

    const liveOf = SqlSchema.findAll({
      Request: Schema.String,
      Result: ShareRow,
      execute: (targetId) => sql`
        SELECT * FROM monitor_shares s WHERE s.target_id = ${targetId} AND ${live} ORDER BY s.created_at, s.id
      `
    })

    const revoke = SqlSchema.findAll({
      Request: Schema.Struct({ ...OfOrg.fields, id: Schema.String, revoked_by: Schema.String }),
      Result: Id,
      execute: ({ org_id, target_id, id, revoked_by }) => sql`
        UPDATE monitor_shares s SET revoked_at = now(), revoked_by = ${revoked_by}
        WHERE s.id = ${id} AND s.target_id = ${target_id} AND s.org_id = ${org_id} AND ${live}
        RETURNING s.id
      `
    })

    const byToken = SqlSchema.findOne({
      Request: Schema.Uint8ArrayFromSelf,
      Result: SharedRow,
      execute: (tokenHash) => sql`
        SELECT s.id, s.target_id, s.org_id, s.account_id
        FROM monitor_shares s
        JOIN orgs o ON o.id = s.org_id AND o.deleted_at IS NULL
        JOIN accounts a ON a.id = s.account_id AND a.deleted_at IS NULL
        WHERE s.token_hash = ${tokenHash} AND ${live}
      `
    })

    // Only the columns the page shows: the check (and its sealed credentials) never leave the database here.
    const monitor = SqlSchema.findOne({
      Request: Schema.String,
      Result: MonitorRow,
      execute: (targetId) => sql`
        SELECT t.name, t.kind, t.enabled, (
          SELECT s.last_status FROM schedules s WHERE s.target_id = t.id AND s.last_status IS NOT NULL
          ORDER BY array_position(ARRAY['down', 'error', 'degraded', 'up'], s.last_status) LIMIT 1
        ) AS scheduled_status
        FROM targets t WHERE t.id = ${targetId}
      `
    })

    const incidents = SqlSchema.findAll({
      Request: Schema.Struct({ target_id: Schema.String, since: Schema.DateFromSelf, limit: Schema.Int }),
      Result: IncidentRow,
      execute: ({ target_id, since, limit }) => sql`
        SELECT i.public_title, i.impact, i.started_at, i.ended_at FROM incidents i
        WHERE (i.target_id = ${target_id}
            OR EXISTS (SELECT 1 FROM incident_components c WHERE c.incident_id = i.id AND c.target_id = ${target_id}))
          AND (i.ended_at IS NULL OR i.ended_at > ${since})
        ORDER BY i.started_at DESC LIMIT ${limit}
      `
    })

    // Our own rows failing their schema, or the database failing, are defects at this boundary.
    return {
      transaction: Transaction.make(sql),
      /** Holds the account's lock to the end of the transaction: its quota counts serialise on it. */
      lockAccount: (accountId: AccountId) => AccountLock.lock(sql, accountId),
      /** Whether the org has this monitor. */
      hasTarget: (orgId: OrgId, targetId: string) =>
        Effect.map(Effect.orDie(target({ org_id: orgId, target_id: targetId })), Option.isSome),
      /** The monitor's live links, and how many monitors of the account have one. */
      usage: (accountId: AccountId, targetId: string) =>
        Effect.orDie(usage({ account_id: accountId, target_id: targetId })),
      insert: (row: typeof NewShare.Type) => Effect.orDie(insert(row)),
      byId: (id: string) => Effect.orDie(byId(id)),
      /** The monitor's live links, oldest first. */
      liveOf: (targetId: string) => Effect.orDie(liveOf(targetId)),
      /** Revokes a live link of the org's monitor; false when there was none. */
      revoke: (orgId: OrgId, targetId: string, id: string, userId: string) =>
        Effect.map(
          Effect.orDie(revoke({ org_id: orgId, target_id: targetId, id, revoked_by: userId })),
          (rows) => rows.length > 0
        ),
      /** The live link with this token hash, when its org and account are not deleted. */
      byToken: (tokenHash: Uint8Array) => Effect.map(Effect.orDie(byToken(tokenHash)), Option.getOrUndefined),
      monitor: (targetId: string) => Effect.map(Effect.orDie(monitor(targetId)), Option.getOrUndefined),
      /** The monitor's incidents (its own and those naming it as a component) open or ended after `since`. */
      incidents: (targetId: string, since: Date, limit: number) =>
        Effect.orDie(incidents({ target_id: targetId, since, limit }))
    }
  })
}) {}
