/**
 * The config file read and validated, each problem placed in its file: what `validate` reports and what every
 * command that works from the file (`plan`, `apply`, `test`) starts with.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ConfigLoader from "./ConfigLoader.js"
import type { Desired } from "./Desired.js"
import * as Problem from "./Problem.js"
import * as Validation from "./Validation.js"

/**
 * A valid config and the file it came from.
 *
 * @since 0.1.0
 * @category models
 */
export interface Checked {
  readonly file: string
  readonly desired: Desired
}

/**
 * The file could not be read, or holds problems: every one, in file order.
 *
 * @since 0.1.0
 * @category errors
 */
export class Invalid extends Data.TaggedError("Invalid")<{
  readonly file: string
  readonly problems: ReadonlyArray<Problem.Located>
  /** The file has no line numbers (a TypeScript config): its problems are named by key path only. */
  readonly positionless: boolean
}> {}

/**
 * Finds, reads and validates the config file.
 *
 * @since 0.1.0
 * @category validation
 */
export const check = (options: {
  readonly cwd: string
  readonly file: string | undefined
  readonly env: Readonly<Record<string, string | undefined>>
}): Effect.Effect<Checked, Invalid> =>
  Effect.gen(function* () {
    const file = yield* ConfigLoader.discover(options.cwd, options.file)
    const loaded = yield* ConfigLoader.load(options.cwd, file)
    const validated = Validation.validate(loaded.value, options.env)
    if (Either.isRight(validated)) return { file, desired: validated.right }
    const { locate } = loaded
    return yield* new Invalid({
      file,
      problems: Problem.sort(
        validated.left.map((problem) => ({
          ...problem,
          file,
          position: locate === undefined ? undefined : locate(problem.path)
        }))
      ),
      positionless: locate === undefined
    })
  }).pipe(
    Effect.catchTag("Unreadable", (unreadable) =>
      Effect.fail(
        new Invalid({
          file: unreadable.problems[0]?.file ?? "",
          problems: unreadable.problems,
          positionless: false
        })
      )
    )
  )

/**
 * The lines that report an invalid config: one per problem, then a count (and, for a TypeScript config, why there
 * are no line numbers).
 *
 * @since 0.1.0
 * @category formatting
 */
export const report = (invalid: Invalid): ReadonlyArray<string> => {
  const count = invalid.problems.length
  return [
    ...invalid.problems.map(Problem.format),
    `${count} problem${count === 1 ? "" : "s"} in ${invalid.file}` +
      (invalid.positionless ? " (a TypeScript config has no line numbers: each problem is named by its key path)" : "")
  ]
}
