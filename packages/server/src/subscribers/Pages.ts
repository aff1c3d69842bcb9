/**
 * The links in subscriber mail.
 *
 * - `GET /subscriptions/confirm?token=`: confirms the subscription (the double opt-in) and says so.
 * - `GET /subscriptions/unsubscribe?token=`: only shows a button; mail scanners follow links, and must not
 *   unsubscribe anyone.
 * - `POST /subscriptions/unsubscribe?token=`: unsubscribes; the button's form, and the RFC 8058 one-click POST a
 *   mail client sends to the `List-Unsubscribe` address (body `List-Unsubscribe=One-Click`). No sign-in.
 *
 * The token is in the URL, so the pages are not cached, not indexed and send no referrer.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { escapeHtml, page } from "../http/Html.js"
import type { Route } from "../http/RouteTable.js"
import { CONFIRM_PATH, UNSUBSCRIBE_PATH } from "./SubscriberMail.js"
import { Subscribers } from "./Subscribers.js"

export const routes: ReadonlyArray<Route> = [
  { method: "GET", path: CONFIRM_PATH, body: "none" },
  { method: "GET", path: UNSUBSCRIBE_PATH, body: "none" },
  { method: "POST", path: UNSUBSCRIBE_PATH, body: "other" }
]

const privateHeaders = (response: HttpServerResponse.HttpServerResponse) =>
  HttpServerResponse.setHeaders(response, {
    "cache-control": "no-store",
    "x-robots-tag": "noindex, nofollow",
    "referrer-policy": "no-referrer"
  })

const tokenParam = Effect.map(HttpServerRequest.ParsedSearchParams, (params) =>
  typeof params["token"] === "string" ? params["token"] : ""
)

const unknownLink = (status: number) =>
  privateHeaders(
    page(
      "Link not valid",
      `<h1>This link cannot be used</h1>
<p>It is wrong, has expired, or was already used. To subscribe again, use the form on the status page.</p>`,
      status
    )
  )

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const subscribers = yield* Subscribers

    yield* router.get(
      CONFIRM_PATH,
      Effect.gen(function* () {
        const name = yield* subscribers.confirm(yield* tokenParam)
        if (name === undefined) return unknownLink(410)
        return privateHeaders(
          page(
            "Subscribed",
            `<h1>You are subscribed</h1>
<p>You will get an email when ${escapeHtml(name)} posts an incident or maintenance update. Every mail has a
link to unsubscribe.</p>`
          )
        )
      })
    )

    yield* router.get(
      UNSUBSCRIBE_PATH,
      Effect.gen(function* () {
        const token = yield* tokenParam
        const name = yield* subscribers.unsubscribePage(token)
        if (name === undefined) return unknownLink(404)
        return privateHeaders(
          page(
            "Unsubscribe",
            `<h1>Unsubscribe from ${escapeHtml(name)}?</h1>
<p>You will stop getting incident and maintenance updates from ${escapeHtml(name)} at this address.</p>
<form method="post" action="${UNSUBSCRIBE_PATH}?token=${encodeURIComponent(token)}">
  <button type="submit">Unsubscribe</button>
</form>`
          )
        )
      })
    )

    yield* router.post(
      UNSUBSCRIBE_PATH,
      Effect.gen(function* () {
        const name = yield* subscribers.unsubscribe(yield* tokenParam)
        if (name === undefined) return unknownLink(404)
        return privateHeaders(
          page(
            "Unsubscribed",
            `<h1>You are unsubscribed</h1>
<p>No more updates from ${escapeHtml(name)} will be sent to this address.</p>`
          )
        )
      })
    )
  })
).pipe(Layer.provide(Subscribers.Default))
