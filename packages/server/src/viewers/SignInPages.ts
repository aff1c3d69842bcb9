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
 * A page that is unknown, unpublished or public has no sign-in (404; a public page redirects to itself). Every post
 * must come from the page's own form (`SignInGuard`: 403 otherwise); code mails are throttled per address and page
 * and wrong passwords bounded per client (`Viewers`: 429 with Retry-After).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpRouter from "@effect/platform/HttpRouter"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import { deviceOf } from "../auth/Http.js"
import { publicBaseUrl } from "../config/Config.js"
import { escapeHtml, page as htmlPage } from "../http/Html.js"
import type { Route } from "../http/RouteTable.js"
import { readCookie } from "../infra/Cookies.js"
import { randomSecret } from "../infra/Secrets.js"
import type { PageRow } from "../statuspages/Repo.js"
import { StatusPages } from "../statuspages/StatusPages.js"
import { CSRF_COOKIE, CSRF_FIELD, fromOwnForm, hiddenField, tokenOf } from "./SignInGuard.js"
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

const forms = (page: PageRow, token: string, note = "") => {
  const slug = encodeURIComponent(page.slug)
  const email = page.access?.email_code.enabled
    ? `<form method="post" action="/p/${slug}/sign-in/email">
  ${hiddenField(token)}
  <label for="email">Your email address</label>
  <input id="email" name="email" type="email" autocomplete="email" required>
  <button type="submit">Email me a code</button>
</form>`
    : ""
  const password = page.access?.password.enabled
    ? `<form method="post" action="/p/${slug}/sign-in/password">
  ${hiddenField(token)}
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

const codeForm = (page: PageRow, token: string, note = "") =>
  `<h1>${escapeHtml(page.name)}</h1>
<p>If the address may open this page, a six-character code is on its way. Type it here, in this browser, within
${CODE_MINUTES} minutes.</p>
${note}
<form method="post" action="/p/${encodeURIComponent(page.slug)}/sign-in/code">
  ${hiddenField(token)}
  <label for="code">Code</label>
  <input id="code" name="code" inputmode="text" autocomplete="one-time-code" maxlength="16" required>
  <button type="submit">Sign in</button>
</form>`

/** A post that did not come from the page's own form in this browser. */
const foreignPost = (page: PageRow) =>
  htmlPage(
    `Sign in · ${page.name}`,
    `<h1>${escapeHtml(page.name)}</h1>
<p role="alert">This form has expired or was sent from another site.</p>
<p><a href="/p/${encodeURIComponent(page.slug)}/sign-in">Open the sign-in page again</a>.</p>`,
    403
  )

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const pages = yield* StatusPages
    const viewers = yield* Viewers
    const secure = (yield* publicBaseUrl).startsWith("https:")

    const cookie = (
      name: string,
      value: string,
      maxAgeSecs: number | undefined,
      sameSite: "lax" | "strict" = "lax"
    ) => ({
      name,
      value,
      options: {
        httpOnly: true,
        secure,
        sameSite,
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

    /** The posted fields and the form token, or undefined when the post did not come from the page's own form. */
    const ownForm = Effect.gen(function* () {
      const request = yield* HttpServerRequest.HttpServerRequest
      const fields = yield* form
      const token = formField(fields, CSRF_FIELD)
      return token !== undefined && fromOwnForm(request, token) ? { fields, token } : undefined
    })
    type Posted = NonNullable<Effect.Effect.Success<typeof ownForm>>

    /**
     * A sign-in form posted to the private page of the path, handled only when it came from that page's own form: a
     * page that is not private (or none) answers as `notPrivate`, a post from anywhere else is refused (login CSRF).
     */
    const signInPost = <E, R>(
      handle: (
        page: PageRow,
        posted: Posted,
        request: HttpServerRequest.HttpServerRequest
      ) => Effect.Effect<HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.gen(function* () {
        const page = yield* privatePage
        if (page?.access?.protected !== true) return notPrivate(page)
        const posted = yield* ownForm
        if (posted === undefined) return foreignPost(page)
        return yield* handle(page, posted, yield* HttpServerRequest.HttpServerRequest)
      })

    yield* router.get(
      "/p/:slug/sign-in",
      Effect.gen(function* () {
        const page = yield* privatePage
        if (page?.access?.protected !== true) return notPrivate(page)
        const request = yield* HttpServerRequest.HttpServerRequest
        const held = tokenOf(request)
        const token = held ?? randomSecret(32)
        const response = htmlPage(`Sign in · ${page.name}`, forms(page, token))
        if (held !== undefined) return response
        const set = cookie(CSRF_COOKIE, token, undefined, "strict")
        return HttpServerResponse.unsafeSetCookie(response, set.name, set.value, set.options)
      })
    )

    yield* router.post(
      "/p/:slug/sign-in/email",
      signInPost((page, posted, request) =>
        Effect.gen(function* () {
          // The browser keeps its binding, so a code it already holds still works when this request is throttled.
          const held = readCookie(request.headers["cookie"], CODE_COOKIE)
          const browser = held !== undefined && /^[A-Za-z0-9_-]{43}$/.test(held) ? held : randomSecret(32)
          yield* viewers.requestCode(page, formField(posted.fields, "email") ?? "", browser)
          const binding = cookie(CODE_COOKIE, browser, CODE_MINUTES * 60)
          return HttpServerResponse.unsafeSetCookie(
            htmlPage(`Check your mail · ${page.name}`, codeForm(page, posted.token)),
            binding.name,
            binding.value,
            binding.options
          )
        })
      )
    )

    yield* router.post(
      "/p/:slug/sign-in/code",
      signInPost((page, posted, request) =>
        Effect.gen(function* () {
          const outcome = yield* Effect.either(
            viewers.redeemCode(
              page,
              formField(posted.fields, "code") ?? "",
              readCookie(request.headers["cookie"], CODE_COOKIE),
              deviceOf(request)
            )
          )
          if (outcome._tag === "Right") return signedIn(page, outcome.right)
          if (outcome.left === "malformed") {
            return htmlPage(
              `Sign in · ${page.name}`,
              codeForm(page, posted.token, '<p role="alert">A code is six letters and digits, as in the mail.</p>'),
              400
            )
          }
          return htmlPage(
            `Sign in · ${page.name}`,
            forms(
              page,
              posted.token,
              '<p role="alert">That code did not work. Codes work once, in the browser that asked for them.</p>'
            ),
            400
          )
        })
      )
    )

    yield* router.post(
      "/p/:slug/sign-in/password",
      signInPost((page, posted, request) =>
        Effect.gen(function* () {
          const outcome = yield* Effect.either(
            viewers.signInWithPassword(page, formField(posted.fields, "password") ?? "", deviceOf(request))
          )
          if (outcome._tag === "Right") return signedIn(page, outcome.right)
          const failure = outcome.left
          if (typeof failure === "object") {
            const minutes = Math.ceil(failure.retryAfterSecs / 60)
            return HttpServerResponse.setHeader(
              htmlPage(
                `Sign in · ${page.name}`,
                forms(
                  page,
                  posted.token,
                  `<p role="alert">Too many wrong passwords from here. Try again in ${minutes} minute${minutes === 1 ? "" : "s"}.</p>`
                ),
                429
              ),
              "retry-after",
              String(failure.retryAfterSecs)
            )
          }
          return htmlPage(
            `Sign in · ${page.name}`,
            forms(page, posted.token, '<p role="alert">That password did not work.</p>'),
            401
          )
        })
      )
    )
  })
)
