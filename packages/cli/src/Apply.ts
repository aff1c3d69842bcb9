/**
 * `signalman apply [-c FILE] [--yes]`: shows the plan, asks on a terminal (without one, `--yes` is required), then
 * carries it out (`Applying`) with a line per change on a terminal. Exit 0 when everything was applied (or there was
 * nothing to do: then nothing is written), 1 otherwise, saying what was applied and what was not.
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Prompt from "@effect/cli/Prompt"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import * as Applying from "./Applying.js"
import { Failed } from "./ExitCode.js"
import * as Plan from "./Plan.js"
import * as Planning from "./Planning.js"
import * as PlanText from "./PlanText.js"
import * as ServiceOptions from "./ServiceOptions.js"
import * as Validate from "./Validate.js"

/**
 * What a refusal without a terminal says.
 *
 * @since 0.1.0
 * @category constants
 */
export const NEEDS_YES = "not a terminal, so nothing was applied: pass --yes to apply these changes without asking"

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "apply",
  {
    config: Validate.configFile,
    yes: Options.boolean("yes").pipe(
      Options.withAlias("y"),
      Options.withDescription("Apply without asking (required when not on a terminal)")
    ),
    ...ServiceOptions.options
  },
  ({ config, yes, ...given }) =>
    Effect.gen(function* () {
      const { plan, current, client } = yield* Planning.prepare("apply", config, given)
      yield* Console.log(PlanText.render(plan))
      if (!Plan.hasChanges(plan)) return
      const terminal = process.stdin.isTTY === true && process.stdout.isTTY === true
      if (!yes) {
        if (!terminal) return yield* Planning.fail("apply", NEEDS_YES)
        const go = yield* Prompt.confirm({ message: "Apply these changes?", initial: false }).pipe(
          Effect.catchTag("QuitException", () => Effect.succeed(false))
        )
        if (!go) return yield* Planning.fail("apply", "cancelled: nothing was applied")
      }
      const report = yield* Applying.apply({
        client,
        plan,
        current,
        progress: (lines) => (terminal ? Console.log(lines.map((line) => `  done: ${line}`).join("\n")) : Effect.void)
      })
      if (report.failed === undefined) return yield* Console.log(Applying.render(report, plan))
      yield* Console.error(Applying.render(report, plan))
      return yield* new Failed({ code: 1 })
    })
).pipe(Command.withDescription("Apply the file's changes to the service: exit 0 all applied, 1 otherwise"))
