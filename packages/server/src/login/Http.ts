/**
 * The `auth` group of the contract: requesting a magic link, redeeming its code, the passkey ceremonies, signing out.
 * It lives above `auth/` and `passkeys/` because it composes both (the shared helpers are `auth/Http.ts`).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import { Sent, SignedIn } from "@signalman/core/Identity"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { deviceOf, finishMagicLink, magicLinksEnabled, withCookies } from "../auth/Http.js"
import { CODE_COOKIE, MagicLinks } from "../auth/MagicLinks.js"
import { requireSession } from "../auth/Policy.js"
import { COOKIE, Sessions } from "../auth/Sessions.js"
import { SignIn } from "../auth/SignIn.js"
import { AppConfig } from "../config/Config.js"
import { readCookie } from "../infra/Cookies.js"
import { randomSecret } from "../infra/Secrets.js"
import { Passkeys } from "../passkeys/Passkeys.js"

// Passkeys is a port bound in App.ts: the me group and the account page share the one service.
export const layer = HttpApiBuilder.group(SignalmanApi, "auth", (handlers) =>
  Effect.gen(function* () {
    const magicLinks = yield* MagicLinks
    const signIn = yield* SignIn
    const sessions = yield* Sessions
    const config = yield* AppConfig
    const passkeys = yield* Passkeys
    const expirySecs = config["auth.magic_link.expiry_minutes"] * 60
    return handlers
      .handle("requestMagicLink", ({ payload, request }) =>
        Effect.gen(function* () {
          yield* magicLinksEnabled
          const browser = randomSecret(32)
          yield* magicLinks.request({
            email: payload.email,
            redirectAfter: payload.redirect_after ?? null,
            invitation: payload.invitation ?? null,
            browser,
            device: deviceOf(request)
          })
          yield* withCookies([[CODE_COOKIE, browser, expirySecs]])
          return new Sent({ sent: true })
        })
      )
      .handle("redeemMagicLinkCode", ({ payload, request }) =>
        Effect.gen(function* () {
          yield* magicLinksEnabled
          const device = deviceOf(request)
          const redeemed = yield* magicLinks
            .redeemCode(payload.code, readCookie(request.headers["cookie"], CODE_COOKIE), device)
            .pipe(
              Effect.mapError((failure) =>
                failure._tag === "Malformed"
                  ? ApiError.make("INVALID_CODE", "A code is six letters and digits, as in the mail", {
                      field: "code",
                      details: { spent: false }
                    })
                  : ApiError.make("INVALID_CODE", "That code is not valid in this browser; use the link in the mail", {
                      field: "code",
                      details: { spent: true }
                    })
              )
            )
          const outcome = yield* finishMagicLink(signIn, redeemed, request, device)
          if (outcome._tag === "SignupClosed") {
            return yield* Effect.fail(
              ApiError.make("INVALID_CODE", "That code is not valid in this browser; use the link in the mail", {
                field: "code",
                details: { spent: true }
              })
            )
          }
          return new SignedIn({ redirect: outcome.redirect })
        })
      )
      .handle("passkeyLoginStart", ({ payload }) =>
        passkeys.startLogin({ invitation: payload.invitation ?? null, redirectAfter: payload.redirect_after ?? null })
      )
      .handle("passkeyLoginFinish", ({ payload, request }) =>
        Effect.gen(function* () {
          const outcome = yield* passkeys.finishLogin({
            ceremonyId: payload.ceremony_id,
            credential: payload.credential,
            previousSession: readCookie(request.headers["cookie"], COOKIE),
            device: deviceOf(request)
          })
          // A passkey never opens an account, so the sign-up rule never answers here.
          if (outcome._tag === "SignupClosed") return yield* Effect.dieMessage("a passkey sign-in cannot sign up")
          yield* withCookies([[COOKIE, outcome.cookie, outcome.maxAgeSecs]])
          return new SignedIn({ redirect: outcome.redirect })
        })
      )
      .handle("passkeyRegisterStart", ({ payload }) =>
        Effect.gen(function* () {
          const sessionId = yield* requireSession
          const caller = yield* Caller
          return yield* passkeys.startRegistration({ user: caller.user, sessionId, name: payload.name })
        })
      )
      .handle("passkeyRegisterFinish", ({ payload, request }) =>
        Effect.gen(function* () {
          const sessionId = yield* requireSession
          const caller = yield* Caller
          return yield* passkeys.finishRegistration({
            user: caller.user,
            sessionId,
            ceremonyId: payload.ceremony_id,
            credential: payload.credential,
            device: deviceOf(request)
          })
        })
      )
      .handle("logout", ({ request }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          if (caller.credential.kind === "session") {
            const cookie = readCookie(request.headers["cookie"], COOKIE)
            if (cookie !== undefined) yield* sessions.revokeByCookie(cookie)
            yield* withCookies([[COOKIE, "", 0]])
          }
        })
      )
      .handle("logoutAll", () =>
        Effect.gen(function* () {
          const caller = yield* Caller
          yield* sessions.revokeAll(caller.user.id)
          yield* withCookies([[COOKIE, "", 0]])
        })
      )
  })
).pipe(Layer.provide([MagicLinks.Default, SignIn.Default, Sessions.Default, Authentication.layer]))
