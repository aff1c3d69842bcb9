/**
 * `signalman status`: is the service up and ready? Exits 0 when ready, 1 otherwise, so scripts and deploy
 * pipelines can wait on it.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import { SignalmanClient } from "@signalman/sdk/Client"
import * as Config from "effect/Config"
import * as Console from "effect/Console"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"

/**
 * Where the service is: `--url`, else `SIGNALMAN_URL`, else the local default.
 *
 * @since 0.1.0
 * @category options
 */
export const url = Options.text("url").pipe(
  Options.withDescription("The Signalman service origin"),
  Options.withFallbackConfig(Config.string("SIGNALMAN_URL")),
  Options.withDefault("http://localhost:8080")
)

/**
 * An API token: `--token`, else `SIGNALMAN_TOKEN`.
 *
 * @since 0.1.0
 * @category options
 */
export const token = Options.redacted("token").pipe(
  Options.withDescription("An API token (sm_live_...)"),
  Options.withFallbackConfig(Config.redacted("SIGNALMAN_TOKEN")),
  Options.optional
)

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
export const command = Command.make("status", { url, token }, ({ url, token }) =>
  Effect.gen(function* () {
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
  }).pipe(
    Effect.provide(SignalmanClient.layer({ baseUrl: url, ...(Option.isSome(token) ? { token: token.value } : {}) }))
  )
).pipe(Command.withDescription("Check that the service is up and ready"))
