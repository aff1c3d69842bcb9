/**
 * The sign-in pages of a private status page, at `/p/<slug>/sign-in`. Plain HTML forms that work without
 * JavaScript; every value shown is escaped.
 *
 * - `GET /p/:slug/sign-in`: the ways in the page offers (email code, password, or both).
 * - `POST /p/:slug/sign-in/email`: mails a code to an allowed address (the same answer for every address), then
 *   shows the code form; the code is bound to this browser.
 * - `POST /p/:slug/sign-in/code`: redeems the code; signed in, back to the page (303 to `/p/<slug>`).
 * - `POST /p/:slug/sign-in/password`: the page password; signed in, back to the page.
 *
 * A page that is unknown, unpublished or public has no sign-in (404; a public page redirects to itself).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { readCookie } from "../auth/Cookies.js"
import { deviceOf } from "../auth/Http.js"
import { randomSecret } from "../auth/Secrets.js"
import { publicBaseUrl } from "../Config.js"
import { escapeHtml, page as htmlPage } from "../http/Html.js"
import type { Route } from "../http/RouteTable.js"
import { type PageRow, StatusPages } from "./StatusPages.js"
import { CODE_COOKIE, CODE_MINUTES, cookieName, type SignedIn, Viewers } from "./Viewers.js"

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/p/:slug/sign-in", body: "none" },
  { method: "POST", path: "/p/:slug/sign-in/email", body: "other" },
  { method: "POST", path: "/p/:slug/sign-in/code", body: "other" },
  { method: "POST", path: "/p/:slug/sign-in/password", body: "other" }
]

const formField = (form: ReadonlyArray<readonly [string, string]>, name: string) =>
  form.find(([key]) => key === name)?.[1]

const noSuchPage = htmlPage("Not found", "<h1>No such page</h1>", 404)

const forms = (page: PageRow, note = "") => {
  const slug = encodeURIComponent(page.slug)
  const email = page.access?.email_code.enabled
    ? `<form method="post" action="/p/${slug}/sign-in/email">
  <label for="email">Your email address</label>
  <input id="email" name="email" type="email" autocomplete="email" required>
  <button type="submit">Email me a code</button>
</form>`
    : ""
  const password = page.access?.password.enabled
    ? `<form method="post" action="/p/${slug}/sign-in/password">
  <label for="password">Page password</label>
  <input id="password" name="password" type="password" autocomplete="current-password" required>
  <button type="submit">Open the page</button>
</form>`
    : ""
  return `<h1>${escapeHtml(page.name)}</h1>
<p>This status page is private. Sign in to see it.</p>
${note}
${email}
${password}`
}

const codeForm = (page: PageRow, note = "") =>
  `<h1>${escapeHtml(page.name)}</h1>
<p>If the address may open this page, a six-character code is on its way. Type it here, in this browser, within
${CODE_MINUTES} minutes.</p>
${note}
<form method="post" action="/p/${encodeURIComponent(page.slug)}/sign-in/code">
  <label for="code">Code</label>
  <input id="code" name="code" inputmode="text" autocomplete="one-time-code" maxlength="16" required>
  <button type="submit">Sign in</button>
</form>`

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const pages = yield* StatusPages
    const viewers = yield* Viewers
    const secure = (yield* publicBaseUrl).startsWith("https:")

    const cookie = (name: string, value: string, maxAgeSecs: number | undefined) => ({
      name,
      value,
      options: {
        httpOnly: true,
        secure,
        sameSite: "lax" as const,
        path: "/",
        ...(maxAgeSecs === undefined ? {} : { maxAge: Duration.seconds(maxAgeSecs) })
      }
    })

    /** The private, published page of the slug in the path, or undefined. */
    const privatePage = Effect.gen(function* () {
      const params = yield* HttpRouter.params
      const found = yield* pages.bySlug(params["slug"] ?? "")
      return found?.published ? found : undefined
    })

    const notPrivate = (page: PageRow | undefined) =>
      page === undefined
        ? noSuchPage
        : HttpServerResponse.empty({ status: 303, headers: { location: `/p/${encodeURIComponent(page.slug)}` } })

    const signedIn = (page: PageRow, session: SignedIn) =>
      HttpServerResponse.empty({
        status: 303,
        headers: { location: `/p/${encodeURIComponent(page.slug)}`, "cache-control": "no-store" }
      }).pipe((response) => {
        const main = cookie(cookieName(page.id), session.token, session.maxAgeSecs)
        const clear = cookie(CODE_COOKIE, "", 0)
        return HttpServerResponse.unsafeSetCookie(
          HttpServerResponse.unsafeSetCookie(response, main.name, main.value, main.options),
          clear.name,
          clear.value,
          clear.options
        )
      })

    const form = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      return yield* Effect.orElseSucceed(request.urlParamsBody, () => [] as const)
    })

    yield* router.get(
      "/p/:slug/sign-in",
      Effect.gen(function* () {
        const page = yield* privatePage
        if (page?.access?.protected !== true) return notPrivate(page)
        return htmlPage(`Sign in · ${page.name}`, forms(page))
      })
    )

    yield* router.post(
      "/p/:slug/sign-in/email",
      Effect.gen(function* () {
        const page = yield* privatePage
        if (page?.access?.protected !== true) return notPrivate(page)
        const fields = yield* form
        const browser = randomSecret(32)
        yield* viewers.requestCode(page, formField(fields, "email") ?? "", browser)
        const binding = cookie(CODE_COOKIE, browser, CODE_MINUTES * 60)
        return HttpServerResponse.unsafeSetCookie(
          htmlPage(`Check your mail · ${page.name}`, codeForm(page)),
          binding.name,
          binding.value,
          binding.options
        )
      })
    )

    yield* router.post(
      "/p/:slug/sign-in/code",
      Effect.gen(function* () {
        const page = yield* privatePage
        if (page?.access?.protected !== true) return notPrivate(page)
        const request = yield* HttpServerRequest.HttpServerRequest
        const fields = yield* form
        const outcome = yield* Effect.either(
          viewers.redeemCode(
            page,
            formField(fields, "code") ?? "",
            readCookie(request.headers["cookie"], CODE_COOKIE),
            deviceOf(request)
          )
        )
        if (outcome._tag === "Right") return signedIn(page, outcome.right)
        if (outcome.left === "malformed") {
          return htmlPage(
            `Sign in · ${page.name}`,
            codeForm(page, '<p role="alert">A code is six letters and digits, as in the mail.</p>'),
            400
          )
        }
        return htmlPage(
          `Sign in · ${page.name}`,
          forms(
            page,
            '<p role="alert">That code did not work. Codes work once, in the browser that asked for them.</p>'
          ),
          400
        )
      })
    )

    yield* router.post(
      "/p/:slug/sign-in/password",
      Effect.gen(function* () {
        const page = yield* privatePage
        if (page?.access?.protected !== true) return notPrivate(page)
        const request = yield* HttpServerRequest.HttpServerRequest
        const fields = yield* form
        const outcome = yield* Effect.either(
          viewers.signInWithPassword(page, formField(fields, "password") ?? "", deviceOf(request))
        )
        if (outcome._tag === "Right") return signedIn(page, outcome.right)
        return htmlPage(`Sign in · ${page.name}`, forms(page, '<p role="alert">That password did not work.</p>'), 401)
      })
    )
  })
)
