/**
 * The `signalman` command line: `status` (is the service up), `validate` (the config file, offline), `login` (store
 * credentials), and monitoring as code on the config file: `plan`, `apply`, `pull`, `import` and `test`.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Apply from "./Apply.js"
import * as Import from "./Import.js"
import * as Login from "./Login.js"
import * as PlanCommand from "./PlanCommand.js"
import * as Pull from "./Pull.js"
import * as Status from "./Status.js"
import * as TestRun from "./TestRun.js"
import * as Validate from "./Validate.js"
import { version } from "./Version.js"

/**
 * @since 0.1.0
 * @category commands
 */
export const signalman = Command.make("signalman").pipe(
  Command.withDescription("Signalman: uptime monitoring, incidents and status pages"),
  Command.withSubcommands([
    Status.command,
    Validate.command,
    Login.command,
    PlanCommand.command,
    Apply.command,
    Pull.command,
    Import.command,
    TestRun.command
  ])
)

/**
 * @since 0.1.0
 * @category running
 */
export const run = Command.run(signalman, { name: "signalman", version })
