/**
 * `signalman status`: is the service up and ready? Exits 0 when ready, 1 otherwise, so scripts and deploy
 * pipelines can wait on it.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import { SignalmanClient } from "@signalman/sdk/Client"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as ServiceClient from "./ServiceClient.js"
import * as ServiceOptions from "./ServiceOptions.js"

/**
 * The service is down or not ready; the reason is already printed, the exit code says the rest.
 *
 * @since 0.1.0
 * @category errors
 */
export class NotReady extends Data.TaggedError("NotReady")<{ readonly reason: "down" | "not ready" }> {}

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("status", ServiceOptions.options, (given) =>
  Effect.gen(function* () {
    const credentials = yield* ServiceOptions.credentials(given)
    const url = credentials.url
    yield* Effect.gen(function* () {
      const client = yield* SignalmanClient
      const health = yield* Effect.either(client.healthz())
      if (health._tag === "Left") {
        yield* Console.error(`${url}: not answering (${health.left.message})`)
        return yield* Effect.fail(new NotReady({ reason: "down" }))
      }
      const ready = yield* Effect.either(client.readyz())
      if (ready._tag === "Left") {
        yield* Console.error(`${url}: up, not ready (${ready.left.message})`)
        return yield* Effect.fail(new NotReady({ reason: "not ready" }))
      }
      yield* Console.log(`${url}: up and ready (database ${ready.right.checks.database})`)
    }).pipe(Effect.provide(ServiceClient.layer(credentials)))
  })
).pipe(Command.withDescription("Check that the service is up and ready"))
