/**
 * Share links: making one under the account's `max_share_links_per_monitor` and `max_shared_monitors` quotas
 * (counted under the account's lock, so concurrent creates settle exactly at the limits), listing a monitor's live
 * links, revoking one, and finding the monitor a token opens.
 *
 * A token is 32 random bytes after `sm_share_`. It is stored sealed (so the list shows it again) and hashed (the
 * lookup); nothing keeps it in the clear. Every question about a link is asked of the database at the time of the
 * request, so a revocation or an expiry holds from the next request on.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import type { AccountId, OrgId } from "@signalman/core/Identity"
import * as MonitorShare from "@signalman/core/MonitorShare"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import { publicBaseUrl } from "../config/Config.js"
import { Sealer } from "../crypto/Sealer.js"
import { uuidv7 } from "../infra/Ids.js"
import { randomSecret, sha256 } from "../infra/Secrets.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import { notFound as targetNotFound } from "../targets/Targets.js"
import { type ShareRow, SharesRepo } from "./Repo.js"

/** The monitor a live token opens. */
export interface SharedMonitor {
  readonly shareId: string
  readonly targetId: string
  readonly orgId: OrgId
  readonly accountId: AccountId
}

export const shareNotFound = ApiError.make("NOT_FOUND", "No such share link")

/** The path of a link's page under the service origin. */
export const pagePath = (token: string) => `/m/${token}`

export class Shares extends Effect.Service<Shares>()("Signalman/Shares", {
  effect: Effect.gen(function* () {
    const repo = yield* SharesRepo
    const sealer = yield* Sealer
    const plans = yield* Plans
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
            expires_at: row.expires_at,
            token: token._tag === "Some" ? token.value : null,
            url: token._tag === "Some" ? `${base}${pagePath(token.value)}` : null,
            created_at: row.created_at
          })
      )

    const requireTarget = (org: ActiveOrg, targetId: string) =>
      Effect.flatMap(repo.hasTarget(org.id, targetId), (found) => (found ? Effect.void : Effect.fail(targetNotFound)))

    const create = (org: ActiveOrg, userId: string, targetId: string, input: MonitorShare.CreateMonitorShare) =>
      Effect.gen(function* () {
        const plan = yield* plans.forAccount(org.accountId)
        const rules = MonitorShare.validateCreate(input, yield* DateTime.now)
        if (Either.isLeft(rules)) return yield* Effect.fail(rules.left)
        const share = rules.right
        const id = uuidv7()
        const token = `${MonitorShare.TOKEN_PREFIX}${randomSecret(32)}`
        const outcome = yield* repo.transaction(
          Effect.gen(function* () {
            yield* repo.lockAccount(org.accountId)
            // Under the lock: a monitor deleted by a racing request is a 404, not a dangling link.
            if (!(yield* repo.hasTarget(org.id, targetId))) return { _tag: "NotFound" } as const
            const usage = yield* repo.usage(org.accountId, targetId)
            const breach = MonitorShare.quotaBreach(
              { linksOnMonitor: usage.on_monitor, sharedMonitors: usage.shared },
              plan.quotas
            )
            if (breach !== undefined) return { _tag: "Full", breach } as const
            yield* repo.insert({
              id,
              target_id: targetId,
              org_id: org.id,
              account_id: org.accountId,
              label: share.label,
              token_sealed: sealer.seal(token),
              token_hash: sha256(token),
              expires_at: share.expires_at,
              created_by: userId
            })
            return { _tag: "Created" } as const
          })
        )
        if (outcome._tag === "NotFound") return yield* Effect.fail(targetNotFound)
        if (outcome._tag === "Full") {
          return yield* quotaEvents.refuse({
            plan,
            accountId: org.accountId,
            userId,
            quota: outcome.breach.quota,
            current: outcome.breach.current
          })
        }
        return yield* toShare(yield* repo.byId(id))
      })

    const list = (org: ActiveOrg, targetId: string) =>
      Effect.gen(function* () {
        yield* requireTarget(org, targetId)
        return yield* Effect.forEach(yield* repo.liveOf(targetId), toShare)
      })

    /** Revokes a live link of the org's monitor; a foreign, unknown, revoked or expired one is 404. */
    const revoke = (org: ActiveOrg, targetId: string, shareId: string, userId: string) =>
      Effect.gen(function* () {
        yield* requireTarget(org, targetId)
        if (!(yield* repo.revoke(org.id, targetId, shareId, userId))) return yield* Effect.fail(shareNotFound)
      })

    /**
     * The monitor a token opens, when the link is live and its org and account are (a deleted org's links go dark
     * with it). Anything else is undefined, whatever the reason, so the page cannot tell a caller which it was.
     */
    const resolve = (token: string) =>
      Effect.gen(function* () {
        if (!MonitorShare.looksLikeToken(token)) return undefined
        const row = yield* repo.byToken(sha256(token))
        return row === undefined
          ? undefined
          : ({
              shareId: row.id,
              targetId: row.target_id,
              orgId: row.org_id,
              accountId: row.account_id
            } satisfies SharedMonitor)
      })

    return { create, list, revoke, resolve }
  }),
  dependencies: [SharesRepo.Default, Sealer.Default, Plans.Default, QuotaEvents.Default]
}) {}
