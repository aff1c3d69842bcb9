/**
 * The links in an invitation mail.
 *
 * - `GET /invitations/accept?token=`: with a session, redeems at once and lands on the joined org
 *   (`/?joined=<slug>`), or on `/?invite=missed` when it cannot be redeemed (another address, revoked, no seat);
 *   without one, goes to `/login?invitation=...`, and every sign-in method carries it through.
 * - `GET /invitations/decline?token=`: only renders a confirmation; its button posts `POST /invitations/decline`.
 *   A GET never changes anything (mail scanners follow links).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Accounts } from "../accounts/Accounts.js"
import { COOKIE, Sessions } from "../auth/Sessions.js"
import { escapeHtml, page } from "../http/Html.js"
import type { Route } from "../http/RouteTable.js"
import { readCookie } from "../infra/Cookies.js"
import { Invitations } from "./Invitations.js"
import { Orgs } from "./Orgs.js"

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: "/invitations/accept", body: "none" },
  { method: "GET", path: "/invitations/decline", body: "none" },
  { method: "POST", path: "/invitations/decline", body: "other" }
]

const redirect = (location: string) => HttpServerResponse.empty({ status: 303, headers: { location } })

const tokenParam = Effect.map(HttpServerRequest.ParsedSearchParams, (params) =>
  typeof params["token"] === "string" ? params["token"] : ""
)

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const sessions = yield* Sessions
    const accounts = yield* Accounts
    const invitations = yield* Invitations
    const orgs = yield* Orgs

    yield* router.get(
      "/invitations/accept",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const token = yield* tokenParam
        const cookie = readCookie(request.headers["cookie"], COOKIE)
        const session = cookie === undefined ? undefined : yield* sessions.live(cookie)
        const user = session === undefined ? undefined : yield* accounts.byId(session.user_id)
        if (session === undefined || user === undefined || user.deleted_at !== null) {
          return redirect(`/login?invitation=${encodeURIComponent(token)}`)
        }
        const outcome = yield* invitations.accept(token, user)
        if (outcome._tag === "Failed") return redirect("/?invite=missed")
        yield* sessions.setActiveOrg(session.id, outcome.orgId)
        return redirect(`/?joined=${encodeURIComponent(outcome.slug)}`)
      })
    )

    yield* router.get(
      "/invitations/decline",
      Effect.map(tokenParam, (token) =>
        page(
          "Decline the invitation",
          `<h1>Decline this invitation?</h1>
<form method="post" action="/invitations/decline">
  <input type="hidden" name="token" value="${escapeHtml(token)}">
  <button type="submit">Decline</button>
</form>`
        )
      )
    )

    yield* router.post(
      "/invitations/decline",
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const form = yield* Effect.orElseSucceed(request.urlParamsBody, () => [] as const)
        const token = form.find(([key]) => key === "token")?.[1] ?? ""
        yield* orgs.decline(token)
        // The same page whether or not the token named an invitation.
        return page("Invitation declined", "<h1>Invitation declined</h1><p>You can close this page.</p>")
      })
    )
  })
).pipe(Layer.provide([Invitations.Default, Orgs.Default]))
