/**
 * Share links: making one under the account's `max_share_links_per_monitor` and `max_shared_monitors` quotas
 * (counted under the account's lock, so concurrent creates settle exactly at the limits), listing a monitor's live
 * links, revoking one, and finding the monitor a token opens.
 *
 * A token is 32 random bytes after `sm_share_`. It is stored sealed (so the list shows it again) and hashed (the
 * lookup); nothing keeps it in the clear. Every question about a link is asked of the database at the time of the
 * request, so a revocation or an expiry holds from the next request on.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import { AccountId, OrgId } from "@signalman/core/Identity"
import * as MonitorShare from "@signalman/core/MonitorShare"
import type * as Plan from "@signalman/core/Plan"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { randomSecret, sha256 } from "../auth/Secrets.js"
import { publicBaseUrl } from "../Config.js"
import { Sealer } from "../crypto/Sealer.js"
import { uuidv7 } from "../Ids.js"
import { QuotaEvents } from "../limits/Quota.js"
import { notFound as targetNotFound } from "../targets/Targets.js"

const ShareRow = Schema.Struct({
  id: MonitorShare.MonitorShareId,
  label: Schema.NullOr(Schema.String),
  token_sealed: Schema.String,
  expires_at: Schema.NullOr(Schema.DateFromSelf),
  created_at: Schema.DateFromSelf
})
type ShareRow = typeof ShareRow.Type
const decodeShares = Schema.decodeUnknown(Schema.Array(ShareRow))

/** The monitor a live token opens. */
export interface SharedMonitor {
  readonly shareId: string
  readonly targetId: string
  readonly orgId: OrgId
  readonly accountId: AccountId
}

const SharedRow = Schema.Struct({
  id: Schema.String,
  target_id: Schema.String,
  org_id: OrgId,
  account_id: AccountId
})
const decodeShared = Schema.decodeUnknown(Schema.Array(SharedRow))

export const shareNotFound = ApiError.make("NOT_FOUND", "No such share link")

/** The path of a link's page under the service origin. */
export const pagePath = (token: string) => `/m/${token}`

export class Shares extends Effect.Service<Shares>()("Signalman/Shares", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const sealer = yield* Sealer
    const quotaEvents = yield* QuotaEvents
    const base = yield* publicBaseUrl

    const toShare = (row: ShareRow) =>
      Effect.map(
        // A row sealed under a key no longer configured keeps working for whoever holds the link; it cannot be shown.
        Effect.option(sealer.open(row.token_sealed)),
        (token) =>
          new MonitorShare.MonitorShare({
            id: row.id,
            label: row.label,
            expires_at: row.expires_at === null ? null : DateTime.unsafeFromDate(row.expires_at),
            token: token._tag === "Some" ? token.value : null,
            url: token._tag === "Some" ? `${base}${pagePath(token.value)}` : null,
            created_at: DateTime.unsafeFromDate(row.created_at)
          })
      )

    /** A live link: not revoked and not past its expiry, at the database's clock. */
    const live = sql`s.revoked_at IS NULL AND (s.expires_at IS NULL OR s.expires_at > now())`

    const targetOf = (org: ActiveOrg, targetId: string) =>
      sql<{ id: string }>`SELECT id FROM targets WHERE id = ${targetId} AND org_id = ${org.id}`.pipe(
        Effect.map((rows) => rows[0])
      )

    const create = (
      org: ActiveOrg,
      userId: string,
      plan: Plan.Plan,
      targetId: string,
      input: MonitorShare.CreateMonitorShare
    ) =>
      Effect.gen(function* () {
        const rules = MonitorShare.validateCreate(input, yield* DateTime.now)
        if (Either.isLeft(rules)) return yield* Effect.fail(rules.left)
        const share = rules.right
        const id = uuidv7()
        const token = `${MonitorShare.TOKEN_PREFIX}${randomSecret(32)}`
        const outcome = yield* sql.withTransaction(
          Effect.gen(function* () {
            yield* sql`SELECT pg_advisory_xact_lock(hashtext(${`account:${org.accountId}`}))`
            // Under the lock: a monitor deleted by a racing request is a 404, not a dangling link.
            if ((yield* targetOf(org, targetId)) === undefined) return { _tag: "NotFound" } as const
            const [usage] = yield* sql<{ on_monitor: number; shared: number }>`
              SELECT
                (SELECT count(*)::int FROM monitor_shares s WHERE s.target_id = ${targetId} AND ${live}) AS on_monitor,
                (SELECT count(DISTINCT s.target_id)::int FROM monitor_shares s JOIN orgs o ON o.id = s.org_id
                  WHERE s.account_id = ${org.accountId} AND o.deleted_at IS NULL AND ${live}) AS shared
            `
            const breach = MonitorShare.quotaBreach(
              { linksOnMonitor: usage?.on_monitor ?? 0, sharedMonitors: usage?.shared ?? 0 },
              plan.quotas
            )
            if (breach !== undefined) return { _tag: "Full", breach } as const
            yield* sql`
              INSERT INTO monitor_shares (id, target_id, org_id, account_id, label, token_sealed, token_hash,
                expires_at, created_by)
              VALUES (${id}, ${targetId}, ${org.id}, ${org.accountId}, ${share.label}, ${sealer.seal(token)},
                ${sha256(token)}, ${share.expires_at === null ? null : DateTime.toDateUtc(share.expires_at)}, ${userId})
            `
            return { _tag: "Created" } as const
          })
        )
        if (outcome._tag === "NotFound") return yield* Effect.fail(targetNotFound)
        if (outcome._tag === "Full") {
          return yield* Effect.flatMap(
            quotaEvents.quotaExceeded({
              accountId: org.accountId,
              userId,
              quota: outcome.breach.quota,
              current: outcome.breach.current,
              limit: outcome.breach.limit,
              plan: plan.id
            }),
            Effect.fail
          )
        }
        const [row] = yield* sql`SELECT * FROM monitor_shares WHERE id = ${id}`.pipe(Effect.flatMap(decodeShares))
        if (row === undefined) return yield* Effect.dieMessage("share link vanished after its insert")
        return yield* toShare(row)
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    const list = (org: ActiveOrg, targetId: string) =>
      Effect.gen(function* () {
        if ((yield* targetOf(org, targetId)) === undefined) return yield* Effect.fail(targetNotFound)
        const rows = yield* sql`
          SELECT * FROM monitor_shares s WHERE s.target_id = ${targetId} AND ${live} ORDER BY s.created_at, s.id
        `.pipe(Effect.flatMap(decodeShares))
        return yield* Effect.forEach(rows, toShare)
      }).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))

    /** Revokes a live link of the org's monitor; a foreign, unknown, revoked or expired one is 404. */
    const revoke = (org: ActiveOrg, targetId: string, shareId: string, userId: string) =>
      Effect.gen(function* () {
        if ((yield* targetOf(org, targetId)) === undefined) return yield* Effect.fail(targetNotFound)
        const revoked = yield* sql`
          UPDATE monitor_shares s SET revoked_at = now(), revoked_by = ${userId}
          WHERE s.id = ${shareId} AND s.target_id = ${targetId} AND s.org_id = ${org.id} AND ${live}
          RETURNING s.id
        `
        if (revoked.length === 0) return yield* Effect.fail(shareNotFound)
      }).pipe(Effect.catchTag("SqlError", Effect.die))

    /**
     * The monitor a token opens, when the link is live and its org and account are (a deleted org's links go dark
     * with it). Anything else is undefined, whatever the reason, so the page cannot tell a caller which it was.
     */
    const resolve = (token: string) =>
      Effect.gen(function* () {
        if (!MonitorShare.looksLikeToken(token)) return undefined
        const rows = yield* sql`
          SELECT s.id, s.target_id, s.org_id, s.account_id
          FROM monitor_shares s
          JOIN orgs o ON o.id = s.org_id AND o.deleted_at IS NULL
          JOIN accounts a ON a.id = s.account_id AND a.deleted_at IS NULL
          WHERE s.token_hash = ${sha256(token)} AND ${live}
        `.pipe(Effect.flatMap(decodeShared))
        const row = rows[0]
        return row === undefined
          ? undefined
          : ({
              shareId: row.id,
              targetId: row.target_id,
              orgId: row.org_id,
              accountId: row.account_id
            } satisfies SharedMonitor)
      }).pipe(Effect.orDie)

    return { create, list, revoke, resolve }
  }),
  dependencies: [Sealer.Default, QuotaEvents.Default]
}) {}
