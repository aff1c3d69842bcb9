/**
 * The caller's own account: the `/me` document, deletion with a 30-day grace and its restore, and the per-person
 * usage figures.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { CallerShape } from "@signalman/core/api/Authentication"
import { Me, MeUsage, OrgMembership } from "@signalman/core/Identity"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { Accounts, type MembershipRow, type UserRow } from "../accounts/Accounts.js"
import { Invalidation } from "../infra/Invalidation.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import * as PageChanges from "../statuspages/PageChanges.js"
import { MeRepo } from "./Repo.js"

export const GRACE_DAYS = 30

// The rows are already typed by their own schemas, and the HttpApi encoder checks the answer on the way out, so
// the constructors skip validating them again (it cost a tenth of a `/me` request's CPU).
const membership = (m: MembershipRow) =>
  new OrgMembership(
    {
      id: m.id,
      slug: m.slug,
      name: m.name,
      role: m.role,
      created_at: DateTime.unsafeFromDate(m.created_at)
    },
    true
  )

/** The rows the `/me` document is built from. */
export interface Sources {
  readonly user: UserRow
  readonly plan: Plan.Plan
  readonly orgs: ReadonlyArray<MembershipRow>
}

/** The `/me` document of a caller, from its sources. */
export const build = (caller: CallerShape, { user, plan, orgs }: Sources): Me => {
  const active = caller.org === null ? undefined : orgs.find((o) => o.id === caller.org?.id)
  return new Me(
    {
      id: user.id,
      email: user.email,
      name: user.name,
      email_verified: user.email_verified_at !== null,
      created_at: DateTime.unsafeFromDate(user.created_at),
      account_id: user.account_id,
      plan_id: plan.id,
      active_org: active === undefined ? null : membership(active),
      orgs: orgs.map(membership),
      auth:
        caller.credential.kind === "session"
          ? { kind: "session", scopes: ["full_access"] }
          : { kind: "token", scopes: caller.credential.scopes },
      deletion_scheduled_for: user.purge_after === null ? null : DateTime.unsafeFromDate(user.purge_after)
    },
    true
  )
}

export class MeService extends Effect.Service<MeService>()("Signalman/Me", {
  effect: Effect.gen(function* () {
    const repo = yield* MeRepo
    const accounts = yield* Accounts
    const plans = yield* Plans
    const quotaEvents = yield* QuotaEvents
    const invalidation = yield* Invalidation

    /** What the `/me` document is made of, read through the in-process caches (without an effect when all hit). */
    const sources = (caller: CallerShape): Effect.Effect<Sources> => {
      const user = accounts.peekUser(caller.user.id)
      const plan = user === undefined ? undefined : plans.peek(user.account_id)
      const orgs = user === undefined ? undefined : accounts.peekMemberships(user.id)
      return user !== undefined && plan !== undefined && orgs !== undefined
        ? Effect.succeed({ user, plan, orgs })
        : load(caller)
    }

    const load = (caller: CallerShape) =>
      Effect.gen(function* () {
        const user = yield* accounts.byId(caller.user.id)
        if (user === undefined) return yield* Effect.dieMessage("caller without a user row")
        const plan = yield* plans.forAccount(user.account_id)
        const orgs = yield* accounts.memberships(user.id)
        return { user, plan, orgs } satisfies Sources
      })

    const document = (caller: CallerShape) => Effect.map(sources(caller), (from) => build(caller, from))

    // Everyone in the account's orgs sees their memberships change with a deletion or a restore.
    const publishAccount = (accountId: string) =>
      Effect.flatMap(repo.peopleOfAccount(accountId), (people) =>
        Effect.forEach(people, (userId) => accounts.changed(userId), { discard: true })
      )

    /** Soft delete: the user, their account and its orgs leave every pool now and are purged after the grace. */
    const scheduleDeletion = (caller: CallerShape) =>
      repo.scheduleDeletion(caller.user.id, caller.user.accountId, GRACE_DAYS).pipe(
        Effect.zipRight(accounts.changed(caller.user.id)),
        Effect.zipRight(publishAccount(caller.user.accountId)),
        // The account's public status pages go dark with its orgs, at once.
        Effect.zipRight(invalidation.publish(PageChanges.every))
      )

    /** Undo a scheduled deletion; the orgs come back only if the plan still allows them (OWNER_ORG_LIMIT). */
    const restore = (caller: CallerShape) =>
      Effect.gen(function* () {
        if (!caller.user.deleted) return
        const accountId = caller.user.accountId
        const plan = yield* plans.forAccount(accountId)
        const outcome = yield* repo
          .transaction(
            Effect.gen(function* () {
              yield* repo.lockAccount(accountId)
              const { live, back } = yield* repo.orgCounts(accountId)
              if (!PlanLimits.fits(plan, "max_orgs", live, back)) return { over: true, current: live + back } as const
              yield* repo.restore(caller.user.id, accountId)
              return { over: false, current: live + back } as const
            })
          )
          .pipe(
            Effect.tap((restored) =>
              restored.over
                ? Effect.void
                : Effect.all([
                    accounts.changed(caller.user.id),
                    publishAccount(accountId),
                    invalidation.publish(PageChanges.every)
                  ])
            )
          )
        if (outcome.over) {
          return yield* quotaEvents.refuse({
            plan,
            accountId,
            userId: caller.user.id,
            quota: "max_orgs",
            current: outcome.current,
            code: "OWNER_ORG_LIMIT"
          })
        }
      })

    /** The person's usage against their own account's plan: live API tokens and owned orgs. */
    const usage = (caller: CallerShape) =>
      Effect.gen(function* () {
        const plan = yield* plans.forAccount(caller.user.accountId)
        const counts = yield* repo.usage(caller.user.id, caller.user.accountId)
        return new MeUsage({
          api_tokens: { current: counts.tokens, limit: plan.quotas.max_api_tokens_per_user },
          owned_orgs: { current: counts.orgs, limit: plan.quotas.max_orgs }
        })
      })

    return { sources, document, scheduleDeletion, restore, usage }
  }),
  dependencies: [MeRepo.Default, Accounts.Default, Plans.Default, QuotaEvents.Default, Invalidation.Default]
}) {}

export const notFound = (what: string) => ApiError.make("NOT_FOUND", `No such ${what}`)
