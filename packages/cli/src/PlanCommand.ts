/**
 * `signalman plan [-c FILE] [--json]`: what applying the file would change on the service, read-only. Exit 0 with
 * no changes, 2 with changes, 1 on an error (an invalid file, a service that refuses or does not answer).
 *
 * @since 0.1.0
 */
import * as Command from "@effect/cli/Command"
import * as Options from "@effect/cli/Options"
import * as Console from "effect/Console"
import * as Effect from "effect/Effect"
import { Failed } from "./ExitCode.js"
import * as Plan from "./Plan.js"
import * as PlanJson from "./PlanJson.js"
import * as Planning from "./Planning.js"
import * as PlanText from "./PlanText.js"
import * as ServiceOptions from "./ServiceOptions.js"
import * as Validate from "./Validate.js"

/**
 * The exit code of a plan that has changes, so a pipeline can tell "drift" from "error".
 *
 * @since 0.1.0
 * @category constants
 */
export const CHANGES = 2

/**
 * @since 0.1.0
 * @category commands
 */
export const command = Command.make(
  "plan",
  {
    config: Validate.configFile,
    json: Options.boolean("json").pipe(Options.withDescription("Print the plan as JSON (format signalman-plan/1)")),
    ...ServiceOptions.options
  },
  ({ config, json, ...given }) =>
    Effect.gen(function* () {
      const { plan } = yield* Planning.prepare("plan", config, given)
      yield* Console.log(json ? PlanJson.render(plan) : PlanText.render(plan))
      if (Plan.hasChanges(plan)) return yield* new Failed({ code: CHANGES })
    })
).pipe(Command.withDescription("Show what apply would change: exit 0 no changes, 2 changes, 1 error"))
