/**
 * `GET /dashboard/events`: a tab's live stream (server-sent events), for the signed-in person's session and one of
 * their orgs (`?org=<slug>`, the org the page was rendered for; the session's active org without it). The page's
 * script opens one per tab (client/live.ts); `?since=<ms>` (the page's render time) or, on a reconnect, the
 * `Last-Event-ID` the browser sends say what it must catch up from. Refusals are the API's envelope: 401 without a
 * session, 404 `NOT_FOUND` on `org` for an org the person is not in, 429 `RATE_LIMITED` past `MAX_PER_SESSION` open
 * streams of one session, 503 `NOT_READY` while the process drains or holds `MAX_STREAMS`. The browser does not
 * retry a refused stream.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Accounts } from "../../accounts/Accounts.js"
import { COOKIE, Sessions } from "../../auth/Sessions.js"
import * as ErrorResponse from "../../http/ErrorResponse.js"
import type { Route } from "../../http/RouteTable.js"
import * as IncidentTargetAdvisories from "../../incidents/TargetAdvisories.js"
import { readCookie } from "../../infra/Cookies.js"
import { Lifecycle } from "../../infra/Lifecycle.js"
import { Viewers } from "../Viewer.js"
import { LiveFeed } from "./Feed.js"

export const PATH = "/dashboard/events"
export const MAX_PER_SESSION = 32
export const MAX_STREAMS = 10_000

export const routes: ReadonlyArray<Route> = [{ method: "GET", path: PATH, body: "none" }]

/** A moment in epoch milliseconds, as the stream's ids and `since` carry it; anything else is no moment. */
export const moment = (value: string | null | undefined): number | undefined => {
  if (value === null || value === undefined || !/^\d{1,15}$/.test(value)) return undefined
  const n = Number(value)
  return Number.isSafeInteger(n) ? n : undefined
}

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const feed = yield* LiveFeed
    const viewers = yield* Viewers
    const sessions = yield* Sessions
    const accounts = yield* Accounts
    const lifecycle = yield* Lifecycle

    yield* router.get(
      PATH,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        if (lifecycle.isDraining() || feed.open() >= MAX_STREAMS) {
          return yield* ErrorResponse.render(
            ApiError.make("NOT_READY", "Live updates are not available here now; retry shortly", {
              details: { retry_after_secs: 5 }
            })
          )
        }
        const viewer = yield* viewers.of(request)
        if (viewer === undefined || viewer.user.deleted_at !== null) {
          return yield* ErrorResponse.render(ApiError.make("UNAUTHENTICATED", "Sign in to follow live updates"))
        }
        const params = new URL(request.url, "http://dashboard.invalid").searchParams
        const slug = params.get("org")
        const org = slug === null ? viewer.org : viewer.memberships.find((m) => m.slug === slug)
        if (org === undefined) {
          return yield* ErrorResponse.render(
            ApiError.make("NOT_FOUND", "You are not a member of that organization", { field: "org" })
          )
        }
        if (feed.openBy(viewer.sessionId) >= MAX_PER_SESSION) {
          return yield* ErrorResponse.render(
            ApiError.make("RATE_LIMITED", `At most ${MAX_PER_SESSION} live streams per session`, {
              details: { retry_after_secs: 60 }
            })
          )
        }
        const cookie = readCookie(request.headers["cookie"], COOKIE) ?? ""
        const userId = viewer.user.id
        // Asked again every minute: a signed-out session or a membership ended closes the stream, and the browser's
        // reconnect is then refused.
        const stillAllowed = Effect.gen(function* () {
          const session = yield* sessions.live(cookie)
          if (session === undefined || session.user_id !== userId) return false
          const memberships = yield* accounts.memberships(userId)
          return memberships.some((m) => m.id === org.id)
        })
        const stream = feed.subscribe({
          orgId: org.id,
          sessionId: viewer.sessionId,
          since: moment(request.headers["last-event-id"]) ?? moment(params.get("since")),
          stillAllowed
        })
        return HttpServerResponse.stream(stream, {
          contentType: "text/event-stream; charset=utf-8",
          headers: {
            "cache-control": "no-store",
            // Proxies that buffer responses (nginx) pass this one through as it is written.
            "x-accel-buffering": "no",
            "x-content-type-options": "nosniff"
          }
        })
      })
    )
  })
).pipe(Layer.provide(LiveFeed.Default), Layer.provide(IncidentTargetAdvisories.layer))
