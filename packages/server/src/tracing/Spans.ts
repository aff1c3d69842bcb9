/**
 * The spans Signalman makes beyond the request's (`http/RequestSpan.ts`) and the checks package's
 * (`signalman.check`, `Runner.traced`), their names and attribute keys in one place, so docs/operations.md and the
 * tests name the same things. Attributes of our own are under `signalman.`; standard ones use the semantic
 * conventions' names.
 */
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import type * as Fiber from "effect/Fiber"
import * as FiberRef from "effect/FiberRef"
import * as Option from "effect/Option"
import * as Tracer from "effect/Tracer"
import * as RootSampling from "./RootSampling.js"

/** Where a check ran: `local`, or an agent's region. On `signalman.check` spans. */
export const CHECK_REGION = "signalman.check.region"

/** The scheduler's batch write of finished runs' results (and their schedule rows' release). */
export const RESULTS_WRITE = "signalman.check.results.write"
/** How many results the write stored. */
export const RESULTS_COUNT = "signalman.check.results"

/** An agent's results received and stored (remote regions: the run itself happened on the agent). */
export const AGENT_RESULTS = "signalman.agent.results"

/** One attempt at one notification delivery. */
export const DELIVERY = "signalman.notification.delivery"
/** The channel's kind (`webhook`, `slack`, ...), or `subscriber_email` for a status-page subscriber's mail. */
export const DELIVERY_CHANNEL_KIND = "signalman.channel.kind"
/** Which attempt this is (1 for the first). */
export const DELIVERY_ATTEMPT = "signalman.delivery.attempt"
/** `delivered`, `retry` (it will be tried again), `dead_letter` (it will not), or `lost` (the claim was lost). */
export const DELIVERY_OUTCOME = "signalman.delivery.outcome"
export const DELIVERY_ID = "signalman.delivery.id"
/** The receiver's HTTP status, when it answered. */
export const DELIVERY_STATUS_CODE = "http.response.status_code"

/**
 * Runs `self` in a span named `name`, a child of the current span when there is one; with none, `self` is the root
 * of a trace, recorded or not as the sampler decides before any span is made (`RootSampling`). With tracing off,
 * or a root not to be recorded, `self` runs with no span object at all.
 */
export const withSpan =
  (name: string, attributes: Readonly<Record<string, unknown>>) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiberRuntime((fiber) => {
      if (!fiber.getFiberRef(FiberRef.currentTracerEnabled)) return self
      if (Option.isSome(Context.getOption(fiber.currentContext, Tracer.ParentSpan))) {
        return Effect.withSpan(self, name, { attributes, captureStackTrace: false })
      }
      return rootOf(fiber, name, attributes, self)
    })

/**
 * Runs `self` as a trace of its own (a background loop's unit of work: a batch write, a delivery), recorded or not
 * as the sampler decides before any span is made; with tracing off, or not recorded, with no span object at all.
 */
export const withBackgroundSpan =
  (name: string, attributes: Readonly<Record<string, unknown>>) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withFiberRuntime((fiber) =>
      fiber.getFiberRef(FiberRef.currentTracerEnabled) ? rootOf(fiber, name, attributes, self) : self
    )

/** `self` under a root span when the sampler records it, else with the tracer off (so no child span either). */
const rootOf = <A, E, R, FA, FE>(
  fiber: Fiber.RuntimeFiber<FA, FE>,
  name: string,
  attributes: Readonly<Record<string, unknown>>,
  self: Effect.Effect<A, E, R>
): Effect.Effect<A, E, R> => {
  const decided = RootSampling.decide(fiber, name, "internal", undefined)
  return decided === undefined
    ? Effect.withTracerEnabled(self, false)
    : Effect.withSpan(self, name, { root: true, attributes, captureStackTrace: false, context: decided })
}
