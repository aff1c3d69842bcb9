/**
 * `signalman test [-c FILE]`: runs every monitor of the file once through `POST /targets/test` (nothing is stored)
 * and prints a table: key, status, duration, error. Heartbeat and manual monitors have no probe: they read
 * `skipped`. Exit 0 when every probed monitor is up, 1 otherwise.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as CheckSpec from "@signalman/core/CheckSpec"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { Failed } from "./ExitCode.js"
import * as Planning from "./Planning.js"
import * as ServiceClient from "./ServiceClient.js"
import * as ServiceOptions from "./ServiceOptions.js"
import * as Validate from "./Validate.js"

/**
 * One monitor's row.
 *
 * @since 0.1.0
 * @category models
 */
export interface Row {
  readonly key: string
  readonly status: string
  readonly duration: string
  readonly error: string
}

/**
 * The rows as an aligned table with a header line.
 *
 * @since 0.1.0
 * @category formatting
 */
export const table = (rows: ReadonlyArray<Row>): string => {
  const header: Row = { key: "KEY", status: "STATUS", duration: "DURATION", error: "ERROR" }
  const all = [header, ...rows]
  const width = (f: keyof Row) => Math.max(...all.map((r) => r[f].length))
  const [k, s, d] = [width("key"), width("status"), width("duration")]
  return all
    .map((r) => `${r.key.padEnd(k)}  ${r.status.padEnd(s)}  ${r.duration.padStart(d)}  ${r.error}`.trimEnd())
    .join("\n")
}

const encodeCheck = Schema.encodeSync(CheckSpec.CheckSpec)

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "test",
  { config: Validate.configFile, ...ServiceOptions.options },
  ({ config, ...given }) =>
    Effect.gen(function* () {
      const { desired } = yield* Planning.config(config)
      const { credentials, client } = yield* Planning.connect(given)
      const rows = yield* Effect.forEach(
        desired.monitors,
        (monitor): Effect.Effect<Row & { readonly ok: boolean }> => {
          const type = monitor.item.check.type
          if (type === "heartbeat" || type === "manual") {
            return Effect.succeed({
              key: monitor.key,
              status: "skipped",
              duration: "",
              error: `a ${type} monitor has no probe`,
              ok: true
            })
          }
          return ServiceClient.call((signal) =>
            client.targets.test({ check: encodeCheck(monitor.item.check) }, { signal })
          ).pipe(
            Effect.map((result) => ({
              key: monitor.key,
              status: result.status,
              duration: `${Math.round(result.duration_ms)} ms`,
              error: result.error ?? "",
              ok: result.status === "up"
            })),
            Effect.catchAll((error) =>
              Effect.succeed({
                key: monitor.key,
                status: "error",
                duration: "",
                error: ServiceClient.describe(error),
                ok: false
              })
            )
          )
        },
        { concurrency: 4 }
      )
      yield* Console.log(rows.length === 0 ? "No monitors in the file." : table(rows))
      const failing = rows.filter((row) => !row.ok).length
      if (failing > 0) {
        yield* Console.error(`signalman test: ${failing} of ${rows.length} monitors not up (${credentials.url})`)
        return yield* new Failed({ code: 1 })
      }
    })
).pipe(Command.withDescription("Run every monitor of the file once on the service: exit 0 all up, 1 otherwise"))
