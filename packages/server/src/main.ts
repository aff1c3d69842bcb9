/**
 * `signalman-server [--role api|worker|all] [--config FILE]`: loads the configuration, migrates the database
 * and serves until SIGTERM or SIGINT, then drains and closes in order.
 */

import { parseArgs } from "node:util"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeRuntime from "@effect/platform-node/NodeRuntime"
import * as Cause from "effect/Cause"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as App from "./App.js"
import * as AbuseLists from "./abuse/Lists.js"
import * as Config from "./config/Config.js"
import * as Logging from "./Logging.js"
import * as Tracing from "./tracing/Tracing.js"
import * as TracingSettings from "./tracing/TracingSettings.js"

const usage = "usage: signalman-server [--role api|worker|all] [--config FILE]"

/** The one line a bad start prints, then exit 1: no stack trace for an operator's typo. */
const fail = (line: string): never => {
  process.stderr.write(`signalman: ${line}\n`)
  process.exit(1)
}

const readArgs = () => {
  try {
    return parseArgs({
      // `pnpm start -- --role api` passes the `--` through; it separates nothing here.
      args: process.argv.slice(2).filter((arg, i) => !(i === 0 && arg === "--")),
      options: { role: { type: "string" }, config: { type: "string" }, help: { type: "boolean", short: "h" } },
      strict: true
    }).values
  } catch (e) {
    return fail(`${e instanceof Error ? e.message : String(e)}\n${usage}`)
  }
}

const args = readArgs()
if (args.help === true) {
  process.stdout.write(`${usage}\n`)
  process.exit(0)
}
const role = args.role
if (role !== undefined && role !== "api" && role !== "worker" && role !== "all") {
  fail(`--role must be api, worker or all\n${usage}`)
}

const config = Either.getOrElse(
  Effect.runSync(
    Effect.either(
      Config.load({
        env: process.env,
        file: args.config,
        overrides: role === "api" || role === "worker" || role === "all" ? { role } : {}
      })
    )
  ),
  (error) => fail(error.message)
)

// A bad abuse list is a configuration error too: refused here, before the data directory or database is touched.
const abuseLists = AbuseLists.load(config)
if (Either.isLeft(abuseLists)) fail(abuseLists.left.message)

// Traces: the OpenTelemetry variables (OTEL_EXPORTER_OTLP_ENDPOINT, ...); one this build cannot honour is refused.
const tracing = Either.getOrElse(TracingSettings.fromEnv(process.env), (message) => fail(message))

const announce = Effect.gen(function* () {
  const address = (yield* HttpServer.HttpServer).address
  const listening = address._tag === "TcpAddress" ? `${address.hostname}:${address.port}` : address.path
  const url = yield* Config.publicBaseUrl.pipe(Effect.provideService(Config.AppConfig, config))
  yield* Effect.logInfo(`Signalman is up (role ${config.role}): open ${url}`).pipe(
    Effect.annotateLogs({ listening, role: config.role, traces: tracing === null ? "off" : tracing.endpoint })
  )
})

// A failure to start (database unreachable, port taken, data_dir locked) is one line, like a bad setting.
const startupMessage = (cause: Cause.Cause<unknown>): string => {
  const error = Cause.squash(cause)
  return error instanceof Error || (typeof error === "object" && error !== null && "message" in error)
    ? String((error as { message: unknown }).message)
    : String(error)
}

Layer.launch(Layer.effectDiscard(announce).pipe(Layer.provideMerge(App.layer(config, Tracing.layer(tracing))))).pipe(
  Effect.tapErrorCause((cause) =>
    Effect.logError(`Signalman could not start: ${startupMessage(cause)}`).pipe(
      Effect.zipRight(Effect.sync(() => process.stderr.write(`signalman: could not start: ${startupMessage(cause)}\n`)))
    )
  ),
  Effect.provide(Logging.layer(config)),
  NodeRuntime.runMain({ disableErrorReporting: true, disablePrettyLogger: true })
)
