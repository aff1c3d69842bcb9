/**
 * A dashboard page handler: who is looking (a person with no session goes to sign in and comes back; an account
 * being deleted goes to its restore page), the `Caller` a session makes, provided so the page reads through the same
 * services as the API with the same rules, and the frame around what the page renders. A refusal the services give
 * (a monitor of another org: 404) becomes a page saying so with the same status.
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import type * as ApiError from "@signalman/core/ApiError"
import { type ActiveOrg, Caller } from "@signalman/core/api/Authentication"
import * as Effect from "effect/Effect"
import { Assets } from "./Assets.js"
import * as Layout from "./Layout.js"
import type * as Navigation from "./Navigation.js"
import { html } from "./Template.js"
import { type Viewer, Viewers } from "./Viewer.js"

export const redirect = (location: string) => HttpServerResponse.empty({ status: 303, headers: { location } })

/** Where a person who is not signed in is sent: sign in, then back to the page they asked for. */
export const signInFirst = (request: HttpServerRequest.HttpServerRequest) =>
  redirect(request.url === "/" ? "/login" : `/login?redirect_after=${encodeURIComponent(request.url)}`)

const noOrg = (viewer: Viewer): Layout.Content => ({
  title: "No organization",
  current: undefined,
  body: html`<h1>You are not in any organization</h1>
<p>${viewer.user.email} belongs to no organization yet. Ask an owner for an invitation, or sign up again.</p>`
})

/** The page for a refusal: its status, and its message, which the API wrote for people. */
const refused = (error: ApiError.ApiError): Layout.Content => ({
  title: error.status === 404 ? "Not found" : "Not allowed",
  current: undefined,
  status: error.status,
  body: html`<h1>${error.status === 404 ? "Not found" : "This cannot be shown"}</h1>
<p>${error.message}</p>
<p><a href="/">Back to monitors</a></p>`
})

/** A viewer in an org: the membership (with its name) and the same org as the `Caller` holds it. */
export type PageViewer = Viewer & { readonly org: NonNullable<Viewer["org"]>; readonly active: ActiveOrg }

/**
 * Serves pages: `page(current, render)` is a handler; `render` runs with the viewer (who is in an org) and the
 * session's `Caller`, and answers the content, or a response of its own (a redirect, say).
 */
export class Pages extends Effect.Service<Pages>()("Signalman/DashboardPages", {
  effect: Effect.gen(function* () {
    const viewers = yield* Viewers
    const assets = yield* Assets

    const page = <E extends ApiError.ApiError, R>(
      current: Navigation.Key | undefined,
      render: (viewer: PageViewer) => Effect.Effect<Layout.Content | HttpServerResponse.HttpServerResponse, E, R>
    ) =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const viewer = yield* viewers.of(request)
        if (viewer === undefined) return signInFirst(request)
        if (viewer.user.deleted_at !== null) return redirect("/account/restore")
        const org = viewer.org
        const active = viewer.caller.org
        const acceptEncoding = request.headers["accept-encoding"]
        if (org === undefined || active === null) return Layout.page(assets, viewer, noOrg(viewer), acceptEncoding)
        const answer = yield* render({ ...viewer, org, active }).pipe(
          Effect.provideService(Caller, viewer.caller),
          Effect.catchAll((error) => Effect.succeed(refused(error)))
        )
        return HttpServerResponse.isServerResponse(answer)
          ? answer
          : Layout.page(assets, viewer, { ...answer, current: answer.current ?? current }, acceptEncoding)
      })

    return { page, frame: assets satisfies Layout.Frame }
  }),
  dependencies: [Viewers.Default, Assets.Default]
}) {}
