/**
 * The route of the provider's webhook, served beside the contract (it is the provider's, not a client's): the
 * body is read raw, as bytes, because the signature is over exactly those bytes.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import * as ErrorResponse from "../http/ErrorResponse.js"
import type { Route } from "../http/RouteTable.js"
import { BillingWebhook } from "./Webhook.js"

export const PATH = "/webhooks/stripe"

export const routes: ReadonlyArray<Route> = [{ method: "POST", path: PATH, body: "other" }]

export const layer = HttpApiBuilder.Router.use((router) =>
  Effect.gen(function* () {
    const webhook = yield* BillingWebhook
    yield* router.post(
      PATH,
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const body = yield* request.arrayBuffer.pipe(
          Effect.mapError(() => ApiError.make("VALIDATION_FAILED", "The body could not be read", { field: "body" }))
        )
        const outcome = yield* webhook.receive(new Uint8Array(body), request.headers["stripe-signature"])
        return HttpServerResponse.unsafeJson({ received: true, outcome })
      }).pipe(Effect.catchAll(ErrorResponse.render))
    )
  })
)
