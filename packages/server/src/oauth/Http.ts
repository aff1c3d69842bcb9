/**
 * The `signInMethods` group: starting a link from the signed-in session, listing and removing linked providers.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import { LinkStarted, SignInMethod } from "@signalman/core/OAuth"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { deviceOf, withCookies } from "../auth/Http.js"
import { requireSession } from "../auth/Policy.js"
import { publicBaseUrl } from "../config/Config.js"
import { OAuth, STATE_COOKIE, STATE_COOKIE_SECS } from "./OAuth.js"
import { callbackUrl } from "./Pages.js"
import type { IdentityRow } from "./Repo.js"
import { SignInMethods } from "./SignInMethods.js"

/** A linked identity as `GET /api/v1/me/sign-in-methods` answers it. */
export const toSignInMethod = (row: IdentityRow) =>
  new SignInMethod({
    provider: row.provider,
    provider_user_id: row.provider_key,
    label: row.label,
    created_at: DateTime.unsafeFromDate(row.created_at),
    last_used_at: row.last_used_at === null ? null : DateTime.unsafeFromDate(row.last_used_at)
  })

export const layer = HttpApiBuilder.group(SignalmanApi, "signInMethods", (handlers) =>
  Effect.gen(function* () {
    const oauth = yield* OAuth
    const methods = yield* SignInMethods
    const base = yield* publicBaseUrl
    return handlers
      .handle("link", ({ path }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          yield* requireSession
          const { url, state } = yield* oauth.begin({
            provider: path.provider,
            invitation: null,
            redirectAfter: null,
            linkUserId: caller.user.id,
            redirectUri: callbackUrl(base, path.provider)
          })
          // The link's callback is taken only from this browser (oauth/OAuth.ts, STATE_COOKIE).
          yield* withCookies([[STATE_COOKIE, state, STATE_COOKIE_SECS]])
          return new LinkStarted({ redirect: url })
        })
      )
      .handle("list", () =>
        Effect.gen(function* () {
          const caller = yield* Caller
          return { data: (yield* methods.list(caller.user.id)).map(toSignInMethod) }
        })
      )
      .handle("remove", ({ path, urlParams, request }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          const sessionId = yield* requireSession
          yield* methods.remove({
            userId: caller.user.id,
            sessionId,
            provider: path.provider,
            providerUserId: urlParams.provider_user_id,
            device: deviceOf(request)
          })
        })
      )
  })
).pipe(Layer.provide([OAuth.Default, SignInMethods.Default, Authentication.layer]))
