/**
 * The agent's logs: one JSON object per line on stdout, `{ time, level, message, fields }`, where `fields` are the
 * log's annotations (and `cause`, when there is one). The agent never logs a check's spec or a result's details,
 * so a check's credentials and a flow's fill values have no way in; the token, the one secret it always holds, is
 * also scrubbed from every line as a last guard (an error message from below that quoted a request's headers).
 *
 * @since 0.1.0
 */
import * as Cause from "effect/Cause"
import * as HashMap from "effect/HashMap"
import * as Layer from "effect/Layer"
import * as Logger from "effect/Logger"
import * as LogLevel from "effect/LogLevel"
import type { LogLevelName } from "./Settings.js"

/**
 * What a scrubbed secret becomes.
 *
 * @since 0.1.0
 * @category constants
 */
export const REDACTED = "[redacted]"

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  /** Receives each line, newline included. */
  readonly write: (line: string) => void
  /** Strings never to print (the token). */
  readonly secrets: ReadonlyArray<string>
}

const levelName = (level: LogLevel.LogLevel): string => {
  switch (level._tag) {
    case "Warning":
      return "warn"
    default:
      return level.label.toLowerCase()
  }
}

const text = (message: unknown): string => {
  if (Array.isArray(message)) return message.map(text).join(" ")
  if (typeof message === "string") return message
  if (message instanceof Error) return message.message
  return JSON.stringify(message) ?? String(message)
}

// A value JSON can carry: errors by their message, bigints as strings, anything circular as its string form.
const plain = (value: unknown): unknown => {
  if (value instanceof Error) return value.message
  if (typeof value === "bigint") return value.toString()
  return value
}

/**
 * Scrubs `secrets` from a line.
 *
 * @since 0.1.0
 * @category combinators
 */
export const scrub = (line: string, secrets: ReadonlyArray<string>): string => {
  let out = line
  for (const secret of secrets) {
    if (secret !== "") out = out.replaceAll(secret, REDACTED)
  }
  return out
}

/**
 * The JSON line logger.
 *
 * @since 0.1.0
 * @category constructors
 */
export const make = (options: Options): Logger.Logger<unknown, void> =>
  Logger.make(({ logLevel, message, annotations, cause, date }) => {
    const fields: Record<string, unknown> = {}
    for (const [key, value] of HashMap.toEntries(annotations)) fields[key] = plain(value)
    if (!Cause.isEmpty(cause)) fields["cause"] = Cause.pretty(cause, { renderErrorCause: true })
    let line: string
    try {
      line = JSON.stringify({ time: date.toISOString(), level: levelName(logLevel), message: text(message), fields })
    } catch {
      line = JSON.stringify({
        time: date.toISOString(),
        level: levelName(logLevel),
        message: text(message),
        fields: {}
      })
    }
    options.write(`${scrub(line, options.secrets)}\n`)
  })

/**
 * The Effect log level of a setting's name.
 *
 * @since 0.1.0
 * @category constructors
 */
export const levelOf = (name: LogLevelName): LogLevel.LogLevel => {
  switch (name) {
    case "debug":
      return LogLevel.Debug
    case "info":
      return LogLevel.Info
    case "warn":
      return LogLevel.Warning
    case "error":
      return LogLevel.Error
  }
}

/**
 * Replaces the default logger with the JSON one on stdout, at `level` and above.
 *
 * @since 0.1.0
 * @category layers
 */
export const layer = (options: { readonly level: LogLevelName; readonly secrets: ReadonlyArray<string> }) =>
  Layer.merge(
    Logger.replace(
      Logger.defaultLogger,
      make({ write: (line) => process.stdout.write(line), secrets: options.secrets })
    ),
    Logger.minimumLogLevel(levelOf(options.level))
  )
