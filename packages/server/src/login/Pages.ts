/**
 * The sign-in pages. They work without JavaScript: the forms post here as ordinary form submissions and the same
 * services as the JSON endpoints do the work.
 *
 * - `GET /login`: the address form (`?invitation=` and `?redirect_after=` are carried through).
 * - `POST /login`: requests the link, then shows the code form.
 * - `POST /login/code`: redeems the code in the browser that asked, then redirects.
 * - `GET /auth/magic-link/verify?token=`: the mailed link; 410 with an explanation when it cannot be used.
 * (`GET /account/restore`, where an account being deleted lands, is the dashboard's: `dashboard/RestorePage.ts`.)
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import { deviceOf, finishMagicLink, withCookies } from "../auth/Http.js"
import { CODE_COOKIE, MagicLinks } from "../auth/MagicLinks.js"
import { SignIn } from "../auth/SignIn.js"
import { AppConfig } from "../config/Config.js"
import { Assets } from "../dashboard/Assets.js"
import { escapeHtml, page } from "../http/Html.js"
import type { Route } from "../http/RouteTable.js"
import { readCookie } from "../infra/Cookies.js"
import { randomSecret } from "../infra/Secrets.js"
import * as LoginButtons from "../oauth/LoginButtons.js"
import { Passkeys } from "../passkeys/Passkeys.js"
import { type PasskeyOffer, passkeyButton } from "./PasskeyButton.js"

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/login", body: "none" },
  { method: "POST", path: "/login", body: "other" },
  { method: "POST", path: "/login/code", body: "other" },
  { method: "GET", path: "/auth/magic-link/verify", body: "none" }
]

const hidden = (name: string, value: string | undefined) =>
  value === undefined || value === ""
    ? ""
    : `<input type="hidden" name="${escapeHtml(name)}" value="${escapeHtml(value)}">`

/** What `/login` offers besides the emailed link (each sign-in method adds its part here). */
interface Offers {
  readonly magicLink: boolean
  readonly passkey: PasskeyOffer | undefined
}

/** `providers`: the OAuth providers' links (oauth/LoginButtons.ts), already rendered. */
const loginForm = (offers: Offers, invitation?: string, redirectAfter?: string, note = "", providers = "") =>
  page(
    "Sign in",
    `<h1>Sign in to Signalman</h1>
${note}
${providers}
${
  offers.magicLink
    ? `<form method="post" action="/login">
  <label for="email">Email address</label>
  <input id="email" name="email" type="email" autocomplete="email" required>
  ${hidden("invitation", invitation)}${hidden("redirect_after", redirectAfter)}
  <button type="submit">Email me a sign-in link</button>
</form>
<p class="note">We send a link and a code. No password to remember.</p>`
    : ""
}
${offers.passkey === undefined ? "" : passkeyButton(offers.passkey, invitation, redirectAfter)}`,
    200,
    { script: offers.passkey?.script }
  )

const codeForm = (note = "") =>
  page(
    "Check your mail",
    `<h1>Check your mail</h1>
<p>If the address can sign in, a link and a six-character code are on their way. Open the link, or type the code
here, in this browser.</p>
${note}
<form method="post" action="/login/code">
  <label for="code">Code</label>
  <input id="code" name="code" inputmode="text" autocomplete="one-time-code" maxlength="16" required>
  <button type="submit">Sign in</button>
</form>`
  )

const expired = page(
  "Link expired",
  `<h1>This sign-in link cannot be used</h1>
<p>It has expired, was already used, or a newer link was sent since. Links work once, for a short time.</p>
<p><a href="/login">Get a new link</a></p>`,
  410
)

const redirect = (location: string) => HttpServerResponse.empty({ status: 303, headers: { location } })

const formField = (form: ReadonlyArray<readonly [string, string]>, name: string) =>
  form.find(([key]) => key === name)?.[1]

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const magicLinks = yield* MagicLinks
    const signIn = yield* SignIn
    const config = yield* AppConfig
    const enabled = config["auth.enabled_methods"].includes("magic_link")
    const passkeys = yield* Passkeys
    const assets = yield* Assets
    const offers: Offers = {
      magicLink: enabled,
      passkey: passkeys.enabled ? { script: assets.loginScriptPath, secure: passkeys.secureOrigin } : undefined
    }
    const expirySecs = config["auth.magic_link.expiry_minutes"] * 60

    yield* router.get(
      "/login",
      Effect.gen(function* () {
        const params = yield* HttpServerRequest.ParsedSearchParams
        const one = (key: string) => {
          const v = params[key]
          return typeof v === "string" ? v : undefined
        }
        // The other methods' parts of the page: OAuth providers (oauth/LoginButtons.ts) and the passkey button.
        if (!enabled && offers.passkey === undefined && !LoginButtons.offered(config)) {
          return page("Sign in", "<h1>Sign-in is not available</h1>", 404)
        }
        const providers = LoginButtons.buttons(config, one("invitation"), one("redirect_after"))
        return loginForm(offers, one("invitation"), one("redirect_after"), LoginButtons.notice(one("oauth")), providers)
      })
    )

    yield* router.post(
      "/login",
      Effect.gen(function* () {
        if (!enabled) return page("Sign in", "<h1>Sign-in is not available</h1>", 404)
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* Effect.orElseSucceed(request.urlParamsBody, () => [] as const)
        const browser = randomSecret(32)
        yield* magicLinks.request({
          email: formField(form, "email") ?? "",
          redirectAfter: formField(form, "redirect_after") ?? null,
          invitation: formField(form, "invitation") ?? null,
          browser,
          device: deviceOf(request)
        })
        yield* withCookies([[CODE_COOKIE, browser, expirySecs]])
        return codeForm()
      })
    )

    yield* router.post(
      "/login/code",
      Effect.gen(function* () {
        if (!enabled) return page("Sign in", "<h1>Sign-in is not available</h1>", 404)
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* Effect.orElseSucceed(request.urlParamsBody, () => [] as const)
        const device = deviceOf(request)
        const redeemed = yield* Effect.either(
          magicLinks.redeemCode(
            formField(form, "code") ?? "",
            readCookie(request.headers["cookie"], CODE_COOKIE),
            device
          )
        )
        if (redeemed._tag === "Left") {
          return redeemed.left._tag === "Malformed"
            ? codeForm('<p role="alert">A code is six letters and digits, as in the mail.</p>')
            : page(
                "Code not accepted",
                `<h1>That code did not work</h1>
<p>Codes work once, in the browser that asked for them. The link in the mail still works.</p>
<p><a href="/login">Start again</a></p>`,
                400
              )
        }
        const outcome = yield* finishMagicLink(signIn, redeemed.right, request, device)
        return outcome._tag === "SignupClosed" ? expired : redirect(outcome.redirect)
      })
    )

    yield* router.get(
      "/auth/magic-link/verify",
      Effect.gen(function* () {
        if (!enabled) return page("Sign in", "<h1>Sign-in is not available</h1>", 404)
        const request = yield* HttpServerRequest.HttpServerRequest
        const params = yield* HttpServerRequest.ParsedSearchParams
        const token = typeof params["token"] === "string" ? params["token"] : ""
        const device = deviceOf(request)
        const redeemed = yield* Effect.either(magicLinks.redeemToken(token, device))
        if (redeemed._tag === "Left") return expired
        const outcome = yield* finishMagicLink(signIn, redeemed.right, request, device)
        return outcome._tag === "SignupClosed" ? expired : redirect(outcome.redirect)
      })
    )
  })
)
