/**
 * Orgs of an account: creation under `max_orgs` (422 OWNER_ORG_LIMIT, counted under the account's lock so
 * concurrent creates settle at the limit), the account's usage, and invitations.
 */

import * as ApiError from "@signalman/core/ApiError"
import type { CallerShape } from "@signalman/core/api/Authentication"
import { type AccountId, Invitation, Org, type OrgId, OrgUsage } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { Accounts, isPlausibleEmail, type MembershipRow, normalizeEmail } from "../accounts/Accounts.js"
import { Sessions } from "../auth/Sessions.js"
import { AppConfig, publicBaseUrl } from "../config/Config.js"
import { uuidv7 } from "../infra/Ids.js"
import { Invalidation } from "../infra/Invalidation.js"
import { Mailer } from "../infra/Mailer.js"
import { randomSecret, sha256 } from "../infra/Secrets.js"
import { TtlCache } from "../infra/TtlCache.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import { Invitations } from "./Invitations.js"
import { OrgsRepo, type PooledCounts } from "./Repo.js"

const INVITATION_DAYS = 7

const noOrg = ApiError.make("NOT_FOUND", "No such org")
const noInvitation = ApiError.make("NOT_FOUND", "No such invitation")

const toOrg = (m: MembershipRow) =>
  new Org({
    id: m.id,
    slug: m.slug,
    name: m.name,
    role: m.role,
    created_at: DateTime.unsafeFromDate(m.created_at)
  })

/** The account's counts by the quota each is held against. */
const byQuota = (counts: PooledCounts): Partial<Record<Plan.QuotaName, number>> => ({
  max_orgs: counts.orgs,
  max_members: counts.members,
  max_pending_invitations: counts.invitations,
  max_notification_channels: counts.channels,
  max_maintenance_windows: counts.maintenance,
  max_shared_monitors: counts.shared_monitors,
  max_escalation_policies: counts.escalation_policies,
  max_on_call_schedules: counts.on_call_schedules
})

export const pooledQuotas = [
  "max_orgs",
  "max_targets",
  "max_members",
  "max_pending_invitations",
  "max_status_pages",
  "max_public_components",
  "max_shared_monitors",
  "max_maintenance_windows",
  "max_notification_channels",
  "max_escalation_policies",
  "max_on_call_schedules"
] as const satisfies ReadonlyArray<Plan.QuotaName>

export class Orgs extends Effect.Service<Orgs>()("Signalman/Orgs", {
  effect: Effect.gen(function* () {
    const repo = yield* OrgsRepo
    const accounts = yield* Accounts
    const sessions = yield* Sessions
    const invitations = yield* Invitations
    const plans = yield* Plans
    const quotaEvents = yield* QuotaEvents
    const mailer = yield* Mailer
    const invalidation = yield* Invalidation
    const config = yield* AppConfig
    const base = yield* publicBaseUrl

    /** The user's membership of the org; a non-member hears the same 404 as for an org that does not exist. */
    const membership = (userId: string, orgId: string) =>
      Effect.flatMap(accounts.membership(userId, orgId), (m) =>
        m === undefined ? Effect.fail(noOrg) : Effect.succeed(m)
      )

    /** The membership just made, which must be there. */
    const joined = (userId: string, orgId: string, missing: string) =>
      Effect.flatMap(accounts.membership(userId, orgId), (m) =>
        m === undefined ? Effect.dieMessage(missing) : Effect.succeed(toOrg(m))
      )

    const create = (caller: CallerShape, input: { readonly name: string; readonly slug: string }) =>
      Effect.gen(function* () {
        const accountId = caller.user.accountId
        const plan = yield* plans.forAccount(accountId)
        const outcome = yield* repo
          .transaction(
            Effect.gen(function* () {
              yield* repo.lockAccount(accountId)
              const current = yield* repo.orgCount(accountId)
              if (!PlanLimits.fits(plan, "max_orgs", current)) return { _tag: "Full", current } as const
              if (yield* repo.slugTaken(input.slug)) return { _tag: "Taken" } as const
              const id = uuidv7()
              yield* repo.insertOrg({ id, account_id: accountId, slug: input.slug, name: input.name })
              yield* repo.insertOwner(id, caller.user.id)
              return { _tag: "Created", id } as const
            })
          )
          .pipe(
            // Two creates racing for one slug: the unique index decides, the loser hears SLUG_TAKEN.
            Effect.catchTag("SlugTaken", () => Effect.succeed({ _tag: "Taken" } as const))
          )
        switch (outcome._tag) {
          case "Full":
            return yield* quotaEvents.refuse({
              plan,
              accountId,
              userId: caller.user.id,
              quota: "max_orgs",
              current: outcome.current,
              code: "OWNER_ORG_LIMIT"
            })
          case "Taken":
            return yield* Effect.fail(ApiError.make("SLUG_TAKEN", `The slug ${input.slug} is taken`, { field: "slug" }))
          case "Created":
            yield* invalidation.publish(`user:${caller.user.id}`)
            return yield* joined(caller.user.id, outcome.id, "new org without its owner")
        }
      })

    // Usage counts are cached per account for usage_cache_ttl_secs (the spec's usage cache).
    const usageCache = new TtlCache<Partial<Record<Plan.QuotaName, number>>>(config.usage_cache_ttl_secs * 1000)
    const counted = (accountId: AccountId) =>
      Effect.suspend(() => {
        const hit = usageCache.get(accountId)
        return hit !== undefined
          ? Effect.succeed(hit)
          : Effect.tap(Effect.map(repo.pooledCounts(accountId), byQuota), (counts) =>
              Effect.sync(() => usageCache.set(accountId, counts, [`account:${accountId}`]))
            )
      })

    /** The account's pooled quotas with their use, its other quotas, rates and flags, as a member of the org sees them. */
    const usage = (userId: string, orgId: string) =>
      Effect.gen(function* () {
        const accountId = (yield* membership(userId, orgId)).account_id
        const plan = yield* plans.forAccount(accountId)
        const known = yield* counted(accountId)
        const quotas = Object.fromEntries(
          pooledQuotas.map((q) => [q, { current: known[q] ?? 0, limit: plan.quotas[q] }])
        )
        const pooled = new Set<string>(pooledQuotas)
        const policy = Object.fromEntries(Plan.quotaNames.filter((q) => !pooled.has(q)).map((q) => [q, plan.quotas[q]]))
        return new OrgUsage({
          plan: { id: plan.id, name: plan.name },
          quotas,
          policy,
          rates: { ...plan.rates, support_per_minute: 2 },
          flags: Object.fromEntries(Plan.flagNames.map((f) => [f, plan.flags[f]]))
        })
      })

    const invite = (
      caller: CallerShape,
      org: { readonly id: OrgId; readonly accountId: AccountId; readonly slug: string },
      input: { readonly email: string; readonly role: "owner" | "member" }
    ) =>
      Effect.gen(function* () {
        const email = normalizeEmail(input.email)
        if (!isPlausibleEmail(email)) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", "email: not an email address", { field: "email" })
          )
        }
        const plan = yield* plans.forAccount(org.accountId)
        const token = randomSecret(32)
        const issue = {
          org_id: org.id,
          email,
          role: input.role,
          token_hash: sha256(token),
          invited_by: caller.user.id,
          days: INVITATION_DAYS
        }
        const outcome = yield* repo.transaction(
          Effect.gen(function* () {
            yield* repo.lockAccount(org.accountId)
            if (yield* repo.isMember(org.id, email)) return { _tag: "Member" } as const
            // A repeated invitation to the same address refreshes the one pending row.
            const refreshed = yield* repo.refreshInvitation(issue)
            if (refreshed !== undefined) return { _tag: "Invited", row: refreshed } as const
            const current = yield* repo.pendingOfAccount(org.accountId)
            if (!PlanLimits.fits(plan, "max_pending_invitations", current)) return { _tag: "Full", current } as const
            const row = yield* repo.insertInvitation({ ...issue, id: uuidv7() })
            return { _tag: "Invited", row } as const
          })
        )
        if (outcome._tag === "Member") {
          return yield* Effect.fail(
            ApiError.make("ALREADY_MEMBER", `${email} is already a member of ${org.slug}`, { field: "email" })
          )
        }
        if (outcome._tag === "Full") {
          return yield* quotaEvents.refuse({
            plan,
            accountId: org.accountId,
            userId: caller.user.id,
            quota: "max_pending_invitations",
            current: outcome.current,
            code: "INVITATIONS_LIMIT"
          })
        }
        yield* mailer
          .send({
            to: email,
            subject: `You are invited to ${org.slug} on Signalman`,
            text: [
              `${caller.user.email} invites you to the ${org.slug} org on Signalman.`,
              "",
              `Accept: ${base}/invitations/accept?token=${token}`,
              `Decline: ${base}/invitations/decline?token=${token}`,
              "",
              `The invitation is valid for ${INVITATION_DAYS} days.`
            ].join("\n")
          })
          .pipe(Effect.catchAll((error) => Effect.logError("Could not send the invitation mail", error.cause)))
        return new Invitation(outcome.row)
      })

    /** The org's people with their roles, as a member of it sees them; a non-member hears the usual 404. */
    const members = (userId: string, orgId: string) =>
      Effect.flatMap(membership(userId, orgId), (m) => repo.membersOf(m.id))

    /** The org's live invitations, oldest first. */
    const pendingInvitations = (orgId: string) =>
      Effect.map(repo.pendingOfOrg(orgId), (rows) => rows.map((row) => new Invitation(row)))

    const revokeInvitation = (orgId: string, id: string) =>
      Effect.flatMap(repo.revokeInvitation(orgId, id), (revoked) => (revoked ? Effect.void : Effect.fail(noInvitation)))

    /**
     * Accepts an invitation for the caller and makes its org the session's active one. Without a seat left in the
     * inviting account it is 422 QUOTA_EXCEEDED on `max_members`; unknown, revoked, expired or addressed to someone
     * else it is one 404, so tokens cannot be probed.
     */
    const acceptInvitation = (sessionId: string, caller: CallerShape, token: string) =>
      Effect.gen(function* () {
        const outcome = yield* invitations.accept(token, { id: caller.user.id, email: caller.user.email })
        if (outcome._tag === "Failed") {
          if (outcome.reason === "no_seat") {
            const accountId = (yield* repo.accountOfInvitation(sha256(token))) ?? caller.user.accountId
            const plan = yield* plans.forAccount(accountId)
            return yield* quotaEvents.refuse({
              plan,
              accountId,
              userId: caller.user.id,
              quota: "max_members",
              current: plan.quotas.max_members
            })
          }
          return yield* Effect.fail(noInvitation)
        }
        yield* sessions.setActiveOrg(sessionId, outcome.orgId)
        return yield* joined(caller.user.id, outcome.orgId, "joined org without the membership")
      })

    /** Declines the invitation a token names, if it names a pending one; the same either way. */
    const decline = (token: string) => repo.decline(sha256(token))

    const support = (caller: CallerShape, request: { readonly subject: string; readonly message: string }) =>
      Effect.gen(function* () {
        yield* repo.insertSupportRequest({
          id: uuidv7(),
          user_id: caller.user.id,
          org_id: caller.org?.id ?? null,
          subject: request.subject,
          message: request.message
        })
        yield* Effect.logInfo("Support request").pipe(
          Effect.annotateLogs({ user_id: caller.user.id, subject: request.subject })
        )
      })

    return {
      membership,
      list: (userId: string) => Effect.map(accounts.memberships(userId), (ms) => ms.map(toOrg)),
      get: (userId: string, orgId: string) => Effect.map(membership(userId, orgId), toOrg),
      create,
      usage,
      members,
      invite,
      pendingInvitations,
      revokeInvitation,
      acceptInvitation,
      decline,
      support
    }
  }),
  dependencies: [
    OrgsRepo.Default,
    Accounts.Default,
    Sessions.Default,
    Invitations.Default,
    Plans.Default,
    QuotaEvents.Default,
    Invalidation.Default,
    Mailer.layer
  ]
}) {}
