/**
 * The agent as a program: the JSON logger, the browser it reports, then the agent until it drains; every way it
 * can end mapped to its exit code (`ExitCode`) and, for the ends an operator must act on, the one line to print.
 *
 * @since 0.1.0
 */
import * as Effect from "effect/Effect"
import * as Redacted from "effect/Redacted"
import * as Agent from "./Agent.js"
import * as Capabilities from "./Capabilities.js"
import * as ExitCode from "./ExitCode.js"
import * as Log from "./Log.js"
import type { Settings } from "./Settings.js"
import { version } from "./Version.js"

/**
 * How the program ended: the exit code, and the line for stderr when there is one.
 *
 * @since 0.1.0
 * @category models
 */
export interface Ending {
  readonly code: number
  /** `signalman-agent: <why>`, for stderr; undefined for a clean stop. */
  readonly line: string | undefined
}

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly settings: Settings
  /** Completes on the first SIGTERM or SIGINT. */
  readonly drain: Effect.Effect<void>
  readonly timing?: Partial<Agent.Timing> | undefined
}

const line = (text: string): string => `signalman-agent: ${text}`

/**
 * Runs the agent and answers how it ended. Never fails: a defect is logged and ends with code 1.
 *
 * @since 0.1.0
 * @category running
 */
export const program = (options: Options): Effect.Effect<Ending> => {
  const { settings } = options
  return Effect.gen(function* () {
    yield* Effect.logInfo("Starting").pipe(
      Effect.annotateLogs({
        version,
        url: settings.url,
        concurrency: settings.concurrency,
        allow_private_targets: settings.allowPrivateTargets,
        buffer_size: settings.bufferSize
      })
    )
    const browser = yield* Capabilities.browser(settings)
    const drained = yield* Agent.run({ settings, version, browser, drain: options.drain, timing: options.timing })
    return drained.undelivered === 0
      ? { code: ExitCode.OK, line: undefined }
      : {
          code: ExitCode.UNDELIVERED,
          line: line(`drained with ${drained.undelivered} result(s) the service did not acknowledge`)
        }
  }).pipe(
    Effect.catchTags({
      TokenRefused: (error) =>
        Effect.as(
          Effect.logError("The service refused the agent token").pipe(Effect.annotateLogs("error", error.message)),
          {
            code: ExitCode.TOKEN_REFUSED,
            line: line(`the server refused the agent token: ${error.message}`)
          }
        ),
      BrowserNotFound: (error) => Effect.succeed({ code: ExitCode.BAD_SETTINGS, line: line(error.message) })
    }),
    Effect.catchAllCause((cause) =>
      Effect.as(Effect.logFatal("The agent stopped on an unexpected failure", cause), {
        code: ExitCode.FAILED,
        line: line("stopped on an unexpected failure (see the log)")
      })
    ),
    Effect.provide(Log.layer({ level: settings.logLevel, secrets: [Redacted.value(settings.token)] }))
  )
}
