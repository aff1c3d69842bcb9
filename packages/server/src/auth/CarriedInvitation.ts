/**
 * The invitation a sign-in carries (`/login?invitation=...`, kept on the magic link): sign-in asks whether it is
 * for the address signing in, to open the account without a personal org, and redeems it once the person exists.
 * Invitations belong to orgs, which bind this port (`orgs/Invitations.ts`, `carried`); sign-in sees only the port,
 * so orgs can build on auth without auth reaching back into orgs.
 */
import * as Context from "effect/Context"
import type * as Effect from "effect/Effect"

/** A redemption: the org joined, or the invitation missed (unknown, another address, no seat). */
export type Redemption = { readonly _tag: "Joined"; readonly slug: string } | { readonly _tag: "Failed" }

export class CarriedInvitation extends Context.Tag("Signalman/CarriedInvitation")<
  CarriedInvitation,
  {
    /** The address a live invitation is for, if the token names one. */
    readonly emailFor: (token: string) => Effect.Effect<string | undefined>
    /** Joins the person to the invitation's org, once. */
    readonly accept: (token: string, user: { readonly id: string; readonly email: string }) => Effect.Effect<Redemption>
  }
>() {}
