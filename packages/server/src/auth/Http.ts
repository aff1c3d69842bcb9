/**
 * What the sign-in routes share: their cookies, the request's device, the end of a magic link, the magic-link gate.
 * The `auth` group's handlers are in `login/Http.ts` (they reach the passkeys, which build on this folder).
 */
import * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { AppConfig } from "../config/Config.js"
import { readCookie } from "../infra/Cookies.js"
import { CODE_COOKIE, type Redeemed } from "./MagicLinks.js"
import { COOKIE, type Device } from "./Sessions.js"
import type { SignIn } from "./SignIn.js"

const cookieOptions = (maxAgeSecs: number, path = "/") => ({
  httpOnly: true,
  secure: true,
  sameSite: "lax" as const,
  path,
  maxAge: Duration.seconds(maxAgeSecs)
})

/** Adds cookies to whatever response the handler produces. */
export const withCookies = (cookies: ReadonlyArray<readonly [name: string, value: string, maxAgeSecs: number]>) =>
  HttpApp.appendPreResponseHandler((_, response) =>
    Effect.succeed(
      cookies.reduce(
        (out, [name, value, maxAge]) => HttpServerResponse.unsafeSetCookie(out, name, value, cookieOptions(maxAge)),
        response
      )
    )
  )

export const deviceOf = (request: HttpServerRequest.HttpServerRequest): Device => ({
  ip: request.remoteAddress._tag === "Some" ? request.remoteAddress.value : undefined,
  userAgent: request.headers["user-agent"]
})

/**
 * The end of a redeemed magic link or code: sign in (replacing any session the browser had), then set the session
 * cookie and drop the code binding. Shared by the JSON endpoint and the pages.
 */
export const finishMagicLink = (
  signIn: SignIn,
  redeemed: Redeemed,
  request: HttpServerRequest.HttpServerRequest,
  device: Device
) =>
  Effect.gen(function* () {
    const outcome = yield* signIn.complete({
      email: redeemed.email,
      method: "magic_link",
      invitation: redeemed.invitation_token,
      redirectAfter: redeemed.redirect_after,
      previousSession: readCookie(request.headers["cookie"], COOKIE),
      device
    })
    if (outcome._tag === "SignedIn") {
      yield* withCookies([
        [COOKIE, outcome.cookie, outcome.maxAgeSecs],
        [CODE_COOKIE, "", 0]
      ])
    }
    return outcome
  })

/** 404 AUTH_METHOD_UNAVAILABLE unless magic links are among `auth.enabled_methods`. */
export const magicLinksEnabled = Effect.flatMap(AppConfig, (config) =>
  config["auth.enabled_methods"].includes("magic_link")
    ? Effect.void
    : Effect.fail(ApiError.make("AUTH_METHOD_UNAVAILABLE", "Sign-in by magic link is not offered here"))
)
