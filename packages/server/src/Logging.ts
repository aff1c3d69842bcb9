/**
 * Structured logs: one JSON object a line (annotations such as `request_id` become fields), or a readable form
 * for a terminal.
 */
import * as FiberRef from "effect/FiberRef"
import * as FiberRefs from "effect/FiberRefs"
import * as HashMap from "effect/HashMap"
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

export const layer = (config: Values): Layer.Layer<never> =>
  Layer.mergeAll(
    Logger.replace(
      Logger.defaultLogger,
      withRequestId(config["log.format"] === "json" ? Logger.withConsoleLog(Logger.jsonLogger) : Logger.prettyLogger())
    ),
    Logger.minimumLogLevel(levels[config["log.level"]])
  )
