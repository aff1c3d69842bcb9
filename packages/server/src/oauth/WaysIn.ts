/**
 * The ways into an account besides the one being removed (auth-and-limits.md, "Credential changes" 5): magic links
 * when offered, the linked providers this deployment offers, and the passkeys that can still sign in (the method
 * on, made for this host). Removing a provider or a passkey refuses only when none would be left (core's
 * `removalRefusal`); with magic links offered that never happens.
 *
 * Both removals count under the person's user row, locked to the end of their transaction, so a provider and the
 * last passkey removed at once cannot each see the other as the way left and both go.
 */
import * as SqlClient from "@effect/sql/SqlClient"
import * as SqlSchema from "@effect/sql/SqlSchema"
import type * as ApiError from "@signalman/core/ApiError"
import { removalRefusal } from "@signalman/core/OAuth"
import { rpIdOf } from "@signalman/core/Passkey"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Schema from "effect/Schema"
import { AppConfig, publicBaseUrl } from "../config/Config.js"
import * as Providers from "./Providers.js"

/** What goes: one identity or one passkey, by id. */
export type Leaving = { readonly identityId: string } | { readonly passkeyId: string }

const Counts = Schema.Struct({ identities: Schema.Number, passkeys: Schema.Number })

export class WaysIn extends Effect.Service<WaysIn>()("Signalman/WaysIn", {
  effect: Effect.gen(function* () {
    const sql = yield* SqlClient.SqlClient
    const config = yield* AppConfig
    const magicLink = config["auth.enabled_methods"].includes("magic_link")
    const providers = Providers.ready(config).map((setup) => setup.provider)
    // No passkey signs in while the method is off, nor one made for another host (retired).
    const rpId = config["auth.enabled_methods"].includes("passkey")
      ? Either.getOrUndefined(rpIdOf(yield* publicBaseUrl))
      : undefined

    const lockUser = SqlSchema.void({
      Request: Schema.String,
      execute: (userId) => sql`SELECT id FROM users WHERE id = ${userId} FOR UPDATE`
    })

    const counts = SqlSchema.single({
      Request: Schema.Struct({ userId: Schema.String, identityId: Schema.String, passkeyId: Schema.String }),
      Result: Counts,
      execute: ({ userId, identityId, passkeyId }) => sql`
        SELECT
          (SELECT count(*)::int FROM oauth_identities
            WHERE user_id = ${userId} AND id::text <> ${identityId}
              AND provider IN ${sql.in(providers.length === 0 ? [""] : providers)}) AS identities,
          (SELECT count(*)::int FROM passkeys
            WHERE user_id = ${userId} AND id::text <> ${passkeyId} AND rp_id = ${rpId ?? ""}) AS passkeys
      `
    })

    /**
     * Locks the person's user row (to the end of the caller's transaction) and answers the refusal to remove
     * `leaving`, or undefined when another way in is left.
     */
    const refusal = (userId: string, leaving: Leaving): Effect.Effect<ApiError.ApiError | undefined> =>
      Effect.gen(function* () {
        yield* Effect.orDie(lockUser(userId))
        if (magicLink) return undefined
        const left = yield* Effect.orDie(
          counts({
            userId,
            identityId: "identityId" in leaving ? leaving.identityId : "",
            passkeyId: "passkeyId" in leaving ? leaving.passkeyId : ""
          })
        )
        return removalRefusal({
          magicLink,
          otherIdentities: left.identities,
          passkeys: rpId === undefined ? 0 : left.passkeys
        })
      })

    return { refusal }
  })
}) {}
