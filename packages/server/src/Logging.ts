/**
 * Structured logs: one JSON object a line (annotations such as `request_id` become fields), or a readable form
 * for a terminal.
 */
import * as Effect from "effect/Effect"
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
import * as HashSet from "effect/HashSet"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import type { Values } from "./config/Config.js"
import { requestIdIn } from "./http/RequestContext.js"

const levels = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error
} as const

/**
 * A line logged while a request is handled carries its id, read from the fiber when the line is written rather
 * than annotated on every request (most requests write no line at all).
 */
export const withRequestId = <A>(logger: Logger.Logger<A, void>): Logger.Logger<A, void> =>
  Logger.mapInputOptions(logger, (options) => {
    const requestId = requestIdIn(FiberRefs.getOrDefault(options.context, FiberRef.currentContext))
    return requestId === null || HashMap.has(options.annotations, "request_id")
      ? options
      : { ...options, annotations: HashMap.set(options.annotations, "request_id", requestId) }
  })

/** The loggers `layer` installed, so a second `layer` replaces them instead of writing every line twice. */
const installed = new WeakSet<Logger.Logger<unknown, unknown>>()

/**
 * The service's logger in place of Effect's default one, at the configured level. Idempotent: `main.ts` provides it
 * around the whole process (for its last words when the start fails) and `App.layer` again for the app (tests build
 * the app alone); the inner one replaces the outer rather than adding a second logger.
 */
export const layer = (config: Values): Layer.Layer<never> => {
  const logger = withRequestId(
    config["log.format"] === "json" ? Logger.withConsoleLog(Logger.jsonLogger) : Logger.prettyLogger()
  )
  installed.add(logger)
  return Layer.mergeAll(
    Layer.scopedDiscard(
      Effect.locallyScopedWith(FiberRef.currentLoggers, (loggers) =>
        HashSet.add(
          HashSet.filter(loggers, (l) => l !== Logger.defaultLogger && !installed.has(l)),
          logger
        )
      )
    ),
    Logger.minimumLogLevel(levels[config["log.level"]])
  )
}
