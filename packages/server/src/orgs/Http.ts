/**
 * The `orgs` group (orgs, usage, invitations, support) and the public `invitationsPublic` group (decline).
 * A non-member asking about an org gets the same 404 as for an org that does not exist.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
import { type ActiveOrg, Caller } from "@signalman/core/api/Authentication"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import type { MembershipRow } from "../accounts/Accounts.js"
import * as Authentication from "../auth/Authentication.js"
import { requireOwner, requireSession } from "../auth/Policy.js"
import { Orgs } from "./Orgs.js"

const asActive = (m: MembershipRow): ActiveOrg => ({
  id: m.id,
  slug: m.slug,
  accountId: m.account_id,
  role: m.role
})

export const layer = HttpApiBuilder.group(SignalmanApi, "orgs", (handlers) =>
  Effect.map(Orgs, (orgs) => {
    /** The caller's membership of the org, when they are its owner. */
    const ownerOf = (orgId: string) =>
      Effect.gen(function* () {
        const caller = yield* Caller
        const m = yield* orgs.membership(caller.user.id, orgId)
        yield* requireOwner(asActive(m))
        return m
      })

    return handlers
      .handle("list", () =>
        Effect.flatMap(Caller, (caller) => Effect.map(orgs.list(caller.user.id), (data) => ({ data })))
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          return yield* orgs.create(yield* Caller, payload)
        })
      )
      .handle("get", ({ path }) => Effect.flatMap(Caller, (caller) => orgs.get(caller.user.id, path.id)))
      .handle("usage", ({ path }) => Effect.flatMap(Caller, (caller) => orgs.usage(caller.user.id, path.id)))
      .handle("invite", ({ path, payload }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const m = yield* ownerOf(path.id)
          return yield* orgs.invite(caller, { id: m.id, accountId: m.account_id, slug: m.slug }, payload)
        })
      )
      .handle("listInvitations", ({ path }) =>
        Effect.gen(function* () {
          const m = yield* ownerOf(path.id)
          return { data: yield* orgs.pendingInvitations(m.id) }
        })
      )
      .handle("revokeInvitation", ({ path }) =>
        Effect.gen(function* () {
          const m = yield* ownerOf(path.id)
          yield* orgs.revokeInvitation(m.id, path.invitation_id)
        })
      )
      .handle("acceptInvitation", ({ payload }) =>
        Effect.gen(function* () {
          const session = yield* requireSession
          return yield* orgs.acceptInvitation(session, yield* Caller, payload.token)
        })
      )
      .handle("support", ({ payload }) => Effect.flatMap(Caller, (caller) => orgs.support(caller, payload)))
  })
).pipe(Layer.provide([Orgs.Default, Authentication.layer]))

export const publicLayer = HttpApiBuilder.group(SignalmanApi, "invitationsPublic", (handlers) =>
  Effect.map(Orgs, (orgs) =>
    // The same answer whether or not the token names an invitation.
    handlers.handle("decline", ({ payload }) => orgs.decline(payload.token))
  )
).pipe(Layer.provide(Orgs.Default))
