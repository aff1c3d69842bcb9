/**
 * The `subscriptions` group: subscribing to a status page by email. No account; a private page asks `PageGate`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as PageSubscription from "@signalman/core/PageSubscription"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Subscribers } from "./Subscribers.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "subscriptions", (handlers) =>
  Effect.gen(function* () {
    const subscribers = yield* Subscribers
    return handlers.handle("subscribe", ({ urlParams, payload }) =>
      Effect.gen(function* () {
        yield* HttpApp.appendPreResponseHandler((_, response) =>
          Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", "no-store"))
        )
        const request = yield* HttpServerRequest.HttpServerRequest
        yield* subscribers.subscribe(urlParams.page, payload.email, request)
        return new PageSubscription.SubscriptionAccepted({ message: PageSubscription.ACCEPTED_MESSAGE })
      })
    )
  })
).pipe(Layer.provide(Subscribers.Default))
