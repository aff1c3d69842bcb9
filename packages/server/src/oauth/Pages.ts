/**
 * The OAuth dance's browser routes, served beside the contract:
 *
 * - `GET /auth/{provider}/login?invitation=&redirect_after=`: 303 to the provider's consent page;
 * - `GET /auth/{provider}/callback?state=&code=` (or `&error=`): signs in (or links) and 303s on.
 *
 * A refusal with an error code (404 AUTH_METHOD_UNAVAILABLE, 400 INVALID_STATE, 500 when the provider failed) is
 * the error envelope for a client that asks for JSON and a page saying the same, with the same status and code,
 * for a browser (its Accept names text/html).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import { deviceOf, withCookies } from "../auth/Http.js"
import { COOKIE } from "../auth/Sessions.js"
import { safeRedirect } from "../auth/SignIn.js"
import { AppConfig, publicBaseUrl } from "../config/Config.js"
import * as ErrorResponse from "../http/ErrorResponse.js"
import { escapeHtml, page } from "../http/Html.js"
import type { Route } from "../http/RouteTable.js"
import { readCookie } from "../infra/Cookies.js"
import { OAuth, STATE_COOKIE, STATE_COOKIE_SECS } from "./OAuth.js"
import * as Providers from "./Providers.js"

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/auth/:provider/login", body: "none" },
  { method: "GET", path: "/auth/:provider/callback", body: "none" }
]

const redirect = (location: string) => HttpServerResponse.empty({ status: 303, headers: { location } })

/** The refusal as a browser or a client wants it. */
const refusal = (request: HttpServerRequest.HttpServerRequest, error: ApiError.ApiError) =>
  (request.headers["accept"] ?? "").includes("text/html")
    ? Effect.succeed(
        page(
          "Sign-in did not work",
          `<h1>Sign-in did not work</h1>
<p>${escapeHtml(error.message)}.</p>
<p class="note">Error ${escapeHtml(error.code)}</p>
<p><a href="/login">Back to sign in</a></p>`,
          error.status
        )
      )
    : ErrorResponse.render(error)

const one = (params: Readonly<Record<string, string | ReadonlyArray<string> | undefined>>, key: string) => {
  const value = params[key]
  return typeof value === "string" ? value : undefined
}

/** `/auth/<provider>/callback` on the public base URL, as registered with the provider. */
export const callbackUrl = (base: string, provider: string) => `${base}/auth/${provider}/callback`

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const oauth = yield* OAuth
    const base = yield* publicBaseUrl
    // Once per process, where the routes are: a provider listed but not usable is said at boot, not at first use.
    yield* Providers.reportIncomplete(yield* AppConfig)

    yield* router.get(
      "/auth/:provider/login",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { provider = "" } = yield* HttpRouter.params
        const query = yield* HttpServerRequest.ParsedSearchParams
        const invitation = one(query, "invitation")
        return yield* oauth
          .begin({
            provider,
            invitation: invitation === undefined || invitation === "" ? null : invitation,
            redirectAfter: safeRedirect(one(query, "redirect_after") ?? null),
            linkUserId: null,
            redirectUri: callbackUrl(base, provider)
          })
          .pipe(
            Effect.tap(({ state }) => withCookies([[STATE_COOKIE, state, STATE_COOKIE_SECS]])),
            Effect.map(({ url }) => redirect(url)),
            Effect.catchAll((error) => refusal(request, error))
          )
      })
    )

    yield* router.get(
      "/auth/:provider/callback",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const { provider = "" } = yield* HttpRouter.params
        const query = yield* HttpServerRequest.ParsedSearchParams
        // The dance ends here whatever its outcome: its cookie goes.
        yield* withCookies([[STATE_COOKIE, "", 0]])
        const result = yield* Effect.either(
          oauth.callback({
            provider,
            state: one(query, "state"),
            code: one(query, "code"),
            error: one(query, "error"),
            sessionCookie: readCookie(request.headers["cookie"], COOKIE),
            stateCookie: readCookie(request.headers["cookie"], STATE_COOKIE),
            device: deviceOf(request),
            redirectUri: callbackUrl(base, provider)
          })
        )
        if (result._tag === "Left") return yield* refusal(request, result.left)
        const outcome = result.right
        if (outcome._tag === "Redirect") return redirect(outcome.location)
        yield* withCookies([[COOKIE, outcome.cookie, outcome.maxAgeSecs]])
        return redirect(outcome.redirect)
      })
    )
  })
)
