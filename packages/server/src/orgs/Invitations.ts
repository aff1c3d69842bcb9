/**
 * Invitations: issued by owners to an address, carried through any sign-in, accepted once. Accepting takes a seat
 * in the inviting account (`max_members` counts distinct people across its orgs) under a per-account lock; the
 * loser of a seat race keeps an unconsumed invitation.
 */
import * as PlanLimits from "@signalman/core/PlanLimits"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { CarriedInvitation } from "../auth/CarriedInvitation.js"
import { Invalidation } from "../infra/Invalidation.js"
import { sha256 } from "../infra/Secrets.js"
import { Plans } from "../limits/Plans.js"
import { OrgsRepo } from "./Repo.js"

export type AcceptOutcome =
  | { readonly _tag: "Joined"; readonly orgId: string; readonly slug: string }
  | { readonly _tag: "Failed"; readonly reason: "unknown" | "email_mismatch" | "no_seat" }

export class Invitations extends Effect.Service<Invitations>()("Signalman/Invitations", {
  effect: Effect.gen(function* () {
    const repo = yield* OrgsRepo
    const plans = yield* Plans
    const invalidation = yield* Invalidation

    const pending = (token: string) => repo.pending(sha256(token))

    /** The address a live invitation is for, if the token names one. */
    const emailFor = (token: string) => Effect.map(pending(token), (row) => row?.email)

    const accept = (token: string, user: { readonly id: string; readonly email: string }) =>
      Effect.gen(function* () {
        const invitation = yield* pending(token)
        if (invitation === undefined) return { _tag: "Failed", reason: "unknown" } as AcceptOutcome
        if (invitation.email !== user.email) return { _tag: "Failed", reason: "email_mismatch" } as AcceptOutcome
        const plan = yield* plans.forAccount(invitation.account_id)
        return yield* repo
          .transaction(
            Effect.gen(function* () {
              yield* repo.lockAccount(invitation.account_id)
              if (!(yield* repo.claimInvitation(invitation.id))) {
                return { _tag: "Failed", reason: "unknown" } as AcceptOutcome
              }
              const seats = yield* repo.seats(invitation.account_id, user.id)
              // Someone already holding a seat in a sibling org takes no new one.
              if (seats.mine === 0 && !PlanLimits.fits(plan, "max_members", seats.people)) {
                // The seat race's loser keeps its invitation: un-consume it.
                yield* repo.unclaimInvitation(invitation.id)
                return { _tag: "Failed", reason: "no_seat" } as AcceptOutcome
              }
              yield* repo.joinOrg(invitation.org_id, user.id, invitation.role)
              return { _tag: "Joined", orgId: invitation.org_id, slug: invitation.slug } as AcceptOutcome
            })
          )
          .pipe(
            Effect.tap((outcome) => (outcome._tag === "Joined" ? invalidation.publish(`user:${user.id}`) : Effect.void))
          )
      })

    return { emailFor, accept }
  }),
  dependencies: [OrgsRepo.Default, Plans.Default, Invalidation.Default]
}) {}

/** Binds sign-in's carried invitation to these invitations. */
export const carried = Layer.effect(
  CarriedInvitation,
  Effect.map(Invitations, (invitations) => ({ emailFor: invitations.emailFor, accept: invitations.accept }))
).pipe(Layer.provide(Invitations.Default))
