/**
 * The `signalman` command line: account helpers now, monitoring as code (`plan`, `apply`, `pull`, `diff`) as
 * the resources arrive.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Status from "./Status.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const signalman = Command.make("signalman").pipe(
  Command.withDescription("Signalman: uptime monitoring, incidents and status pages"),
  Command.withSubcommands([Status.command])
)

/**
 * @since 0.1.0
 * @category running
 */
export const run = Command.run(signalman, { name: "signalman", version: "0.1.0" })
