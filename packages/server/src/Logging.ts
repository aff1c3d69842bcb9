/**
 * Structured logs: one JSON object a line (annotations such as `request_id` become fields), or a readable form
 * for a terminal.
 */
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import type { Values } from "./Config.js"

const levels = {
  trace: LogLevel.Trace,
  debug: LogLevel.Debug,
  info: LogLevel.Info,
  warn: LogLevel.Warning,
  error: LogLevel.Error
} as const

export const layer = (config: Values): Layer.Layer<never> =>
  Layer.mergeAll(
    config["log.format"] === "json" ? Logger.json : Logger.pretty,
    Logger.minimumLogLevel(levels[config["log.level"]])
  )
