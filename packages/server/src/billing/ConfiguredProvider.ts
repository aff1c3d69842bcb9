/**
 * The payment provider `billing.provider` names, or none. Without one, billing is off: every billing route
 * answers 404 BILLING_UNAVAILABLE (`require`), and nothing else changes.
 */
import * as ApiError from "@signalman/core/ApiError"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { AppConfig } from "../config/Config.js"
import { type Operations, PaymentProvider } from "./PaymentProvider.js"
import * as Stripe from "./Stripe.js"

export class ConfiguredProvider extends Context.Tag("Signalman/ConfiguredPaymentProvider")<
  ConfiguredProvider,
  Option.Option<Operations>
>() {}

/** The provider chosen by the settings (a test may provide `ConfiguredProvider` itself). */
export const layer: Layer.Layer<ConfiguredProvider, never, AppConfig> = Layer.effect(
  ConfiguredProvider,
  Effect.gen(function* () {
    const config = yield* AppConfig
    switch (config["billing.provider"]) {
      case "stripe":
        return Option.some(yield* PaymentProvider.pipe(Effect.provide(Stripe.layer)))
      case undefined:
        return Option.none()
    }
  })
)

/** The provider, or 404 BILLING_UNAVAILABLE when billing is off. */
export const require: Effect.Effect<Operations, ApiError.NotFound, ConfiguredProvider> = Effect.flatMap(
  ConfiguredProvider,
  Option.match({
    onNone: () => Effect.fail(ApiError.make("BILLING_UNAVAILABLE", "Billing is not offered by this service")),
    onSome: Effect.succeed
  })
)
