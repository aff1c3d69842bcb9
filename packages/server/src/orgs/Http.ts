/**
 * The `orgs` group (orgs, usage, invitations, support) and the public `invitationsPublic` group (decline).
 * A non-member asking about an org gets the same 404 as for an org that does not exist.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as SqlClient from "@effect/sql/SqlClient"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import { type ActiveOrg, Caller } from "@signalman/core/api/Authentication"
import { AccountId, Invitation, Org, OrgUsage } from "@signalman/core/Identity"
import * as Plan from "@signalman/core/Plan"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Accounts, type MembershipRow } from "../auth/Accounts.js"
import { requireOwner, requireSession } from "../auth/Policy.js"
import { sha256 } from "../auth/Secrets.js"
import { Sessions } from "../auth/Sessions.js"
import { uuidv7 } from "../Ids.js"
import { Plans } from "../limits/Plans.js"
import { QuotaEvents } from "../limits/Quota.js"
import { Invitations } from "./Invitations.js"
import { type InvitationRow, Orgs } from "./Orgs.js"

const noOrg = ApiError.make("NOT_FOUND", "No such org")
const decodeAccountRows = Schema.decodeUnknown(Schema.Array(Schema.Struct({ account_id: AccountId })))

const toOrg = (m: MembershipRow) =>
  new Org({
    id: m.id,
    slug: m.slug,
    name: m.name,
    role: m.role,
    created_at: DateTime.unsafeFromDate(m.created_at)
  })

const toInvitation = (row: InvitationRow) =>
  new Invitation({
    id: row.id,
    org_id: row.org_id,
    email: row.email,
    role: row.role,
    created_at: DateTime.unsafeFromDate(row.created_at),
    expires_at: DateTime.unsafeFromDate(row.expires_at)
  })

const asActive = (m: MembershipRow): ActiveOrg => ({
  id: m.id,
  slug: m.slug,
  accountId: m.account_id,
  role: m.role
})

export const layer = HttpApiBuilder.group(SignalmanApi, "orgs", (handlers) =>
  Effect.gen(function* () {
    const accounts = yield* Accounts
    const orgs = yield* Orgs
    const invitations = yield* Invitations
    const sessions = yield* Sessions
    const plans = yield* Plans
    const quotaEvents = yield* QuotaEvents
    const sql = yield* SqlClient.SqlClient

    const memberOf = (orgId: string) =>
      Effect.gen(function* () {
        const caller = yield* Caller
        const m = yield* accounts.membership(caller.user.id, orgId)
        return m === undefined ? yield* Effect.fail(noOrg) : m
      })

    return handlers
      .handle("list", () =>
        Effect.gen(function* () {
          const caller = yield* Caller
          return { data: (yield* accounts.memberships(caller.user.id)).map(toOrg) }
        })
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          yield* requireSession
          const caller = yield* Caller
          const id = yield* orgs.create(caller, payload)
          const m = yield* accounts.membership(caller.user.id, id)
          if (m === undefined) return yield* Effect.dieMessage("new org without its owner")
          return toOrg(m)
        })
      )
      .handle("get", ({ path }) => Effect.map(memberOf(path.id), toOrg))
      .handle("usage", ({ path }) =>
        Effect.gen(function* () {
          const m = yield* memberOf(path.id)
          const { plan, quotas, policy } = yield* orgs.usage(m.account_id)
          return new OrgUsage({
            plan: { id: plan.id, name: plan.name },
            quotas,
            policy,
            rates: { ...plan.rates, support_per_minute: 2 },
            flags: Object.fromEntries(Plan.flagNames.map((f) => [f, plan.flags[f]]))
          })
        })
      )
      .handle("invite", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* requireSession
          const caller = yield* Caller
          const m = yield* memberOf(path.id)
          yield* requireOwner(asActive(m))
          return toInvitation(yield* orgs.invite(caller, { id: m.id, accountId: m.account_id, slug: m.slug }, payload))
        })
      )
      .handle("listInvitations", ({ path }) =>
        Effect.gen(function* () {
          yield* requireSession
          const m = yield* memberOf(path.id)
          yield* requireOwner(asActive(m))
          return { data: (yield* orgs.pendingInvitations(m.id)).map(toInvitation) }
        })
      )
      .handle("revokeInvitation", ({ path }) =>
        Effect.gen(function* () {
          yield* requireSession
          const m = yield* memberOf(path.id)
          yield* requireOwner(asActive(m))
          const revoked = yield* orgs.revokeInvitation(m.id, path.invitation_id)
          if (!revoked) return yield* Effect.fail(ApiError.make("NOT_FOUND", "No such invitation"))
        })
      )
      .handle("acceptInvitation", ({ payload }) =>
        Effect.gen(function* () {
          const session = yield* requireSession
          const caller = yield* Caller
          const outcome = yield* invitations.accept(payload.token, { id: caller.user.id, email: caller.user.email })
          if (outcome._tag === "Failed") {
            if (outcome.reason === "no_seat") {
              const row = yield* sql`
                SELECT o.account_id FROM invitations i JOIN orgs o ON o.id = i.org_id
                WHERE i.token_hash = ${sha256(payload.token)}
              `.pipe(Effect.flatMap(decodeAccountRows), Effect.orDie)
              const accountId = row[0]?.account_id ?? caller.user.accountId
              const plan = yield* plans.forAccount(accountId)
              return yield* Effect.flatMap(
                quotaEvents.quotaExceeded({
                  accountId,
                  userId: caller.user.id,
                  quota: "max_members",
                  current: plan.quotas.max_members,
                  limit: plan.quotas.max_members,
                  plan: plan.id
                }),
                Effect.fail
              )
            }
            // Unknown, revoked, expired or addressed to someone else: one answer, so tokens cannot be probed.
            return yield* Effect.fail(ApiError.make("NOT_FOUND", "No such invitation"))
          }
          yield* sessions.setActiveOrg(session, outcome.orgId)
          const m = yield* accounts.membership(caller.user.id, outcome.orgId)
          if (m === undefined) return yield* Effect.dieMessage("joined org without the membership")
          return toOrg(m)
        })
      )
      .handle("support", ({ payload }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          yield* sql`
            INSERT INTO support_requests (id, user_id, org_id, subject, message)
            VALUES (${uuidv7()}, ${caller.user.id}, ${caller.org?.id ?? null}, ${payload.subject}, ${payload.message})
          `.pipe(Effect.orDie)
          yield* Effect.logInfo("Support request").pipe(
            Effect.annotateLogs({ user_id: caller.user.id, subject: payload.subject })
          )
        })
      )
  })
)

export const publicLayer = HttpApiBuilder.group(SignalmanApi, "invitationsPublic", (handlers) =>
  Effect.gen(function* () {
    const orgs = yield* Orgs
    // The same answer whether or not the token names an invitation.
    return handlers.handle("decline", ({ payload }) => orgs.decline(payload.token))
  })
)
