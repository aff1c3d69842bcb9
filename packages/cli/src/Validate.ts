/**
 * `signalman validate`: reads the config file and lists every problem with its file, line and key path. Exit 0 when
 * the file is valid, 1 otherwise. Nothing is sent to the service.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as ConfigCheck from "./ConfigCheck.js"
import type { Desired } from "./Desired.js"
import { Failed } from "./ExitCode.js"

/**
 * `-c FILE` / `--config FILE`: the config file; by default the one `signalman.yaml`, `signalman.yml`,
 * `signalman.json` or `signalman.config.ts` in the working directory.
 *
 * @since 0.1.0
 * @category options
 */
export const configFile = Options.text("config").pipe(
  Options.withAlias("c"),
  Options.withDescription(
    "The config file (default: the signalman.yaml, .yml, .json or signalman.config.ts in this directory)"
  ),
  Options.optional
)

const plural = (n: number, one: string, many: string) => `${n} ${n === 1 ? one : many}`

/**
 * What a valid file holds, in one line.
 *
 * @since 0.1.0
 * @category formatting
 */
export const summary = (file: string, desired: Desired): string =>
  `${file}: valid (project "${desired.project}": ` +
  [
    plural(desired.variables.length, "variable", "variables"),
    plural(desired.channels.length, "channel", "channels"),
    plural(desired.monitors.length, "monitor", "monitors"),
    plural(desired.status_pages.length, "status page", "status pages"),
    plural(desired.maintenance.length, "maintenance window", "maintenance windows")
  ].join(", ") +
  ")"

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make("validate", { config: configFile }, ({ config }) =>
  ConfigCheck.check({ cwd: process.cwd(), file: Option.getOrUndefined(config), env: process.env }).pipe(
    Effect.flatMap(({ file, desired }) => Console.log(summary(file, desired))),
    Effect.catchTag("Invalid", (invalid) =>
      Effect.zipRight(Console.error(ConfigCheck.report(invalid).join("\n")), Effect.fail(new Failed({ code: 1 })))
    )
  )
).pipe(Command.withDescription("Check the config file without contacting the service: exit 0 valid, 1 invalid"))
