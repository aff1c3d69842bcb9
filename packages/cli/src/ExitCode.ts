/**
 * A command that ends with a non-zero exit code after printing its reason itself.
 *
 * @since 0.1.0
 */
import * as Data from "effect/Data"

/**
 * The command failed and has said why; `code` is the process's exit code.
 *
 * @since 0.1.0
 * @category errors
 */
export class Failed extends Data.TaggedError("Failed")<{ readonly code: number }> {}
