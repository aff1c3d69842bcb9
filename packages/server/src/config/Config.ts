/**
 * The service's configuration, loaded once at boot and provided to every layer.
 */

import { readFileSync } from "node:fs"
import * as HttpServer from "@effect/platform/HttpServer"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import { ConfigError, parseFile, resolve, type Sources, type Values } from "./Load.js"

export { ConfigError, type Values } from "./Load.js"

export class AppConfig extends Context.Tag("Signalman/AppConfig")<AppConfig, Values>() {}

export interface LoadOptions {
  readonly env: Readonly<Record<string, string | undefined>>
  /** `--config FILE`; falls back to `CONFIG_FILE`. */
  readonly file?: string | undefined
  /** Command-line overrides, applied last (`--role`). */
  readonly overrides?: Partial<Values>
}

/** Reads the optional file and the environment; a bad value fails with one line naming the setting. */
export const load = (options: LoadOptions): Effect.Effect<Values, ConfigError> =>
  Effect.gen(function* () {
    const path = options.file ?? options.env["CONFIG_FILE"]
    let file: Sources["file"]
    if (path !== undefined && path !== "") {
      const text = yield* Effect.try({
        try: () => readFileSync(path, "utf8"),
        catch: (e) =>
          new ConfigError(`config file ${path}: cannot be read: ${e instanceof Error ? e.message : String(e)}`)
      })
      file = { path, settings: yield* parseFile(text, path) }
    }
    const values = yield* resolve(file === undefined ? { env: options.env } : { env: options.env, file })
    return { ...values, ...options.overrides }
  })

export const layer = (values: Values): Layer.Layer<AppConfig> => Layer.succeed(AppConfig, values)

/** Configuration from the given environment alone: defaults plus env. Used by tests. */
export const fromEnv = (env: Readonly<Record<string, string | undefined>>): Values => {
  const result = resolve({ env })
  if (Either.isLeft(result)) throw result.left
  return result.right
}

/**
 * The origin links are built on, without a trailing slash: `auth.public_base_url`, or else this host at the
 * port the server actually bound (which differs from `server.port` when that is 0).
 */
export const publicBaseUrl: Effect.Effect<string, never, AppConfig | HttpServer.HttpServer> = Effect.gen(function* () {
  const values = yield* AppConfig
  const configured = values["auth.public_base_url"]
  if (configured !== undefined && values["server.port"] !== 0) return configured.replace(/\/+$/, "")
  const address = (yield* HttpServer.HttpServer).address
  const port = address._tag === "TcpAddress" ? address.port : values["server.port"]
  return (configured ?? `http://localhost:${port}`).replace(/\/+$/, "").replace(/:0$/, `:${port}`)
})
