/**
 * A problem with the config file: where it is (the key path, and the line and column when the file has them) and
 * what is wrong, in the API's own words where the API has a rule for it.
 *
 * @since 0.1.0
 */
import * as KeyPath from "./KeyPath.js"

/**
 * A problem at a key path of the file.
 *
 * @since 0.1.0
 * @category models
 */
export interface Problem {
  readonly path: KeyPath.KeyPath
  readonly message: string
}

/**
 * A line and column in the file, both counted from 1.
 *
 * @since 0.1.0
 * @category models
 */
export interface Position {
  readonly line: number
  readonly column: number
}

/**
 * A problem placed in its file.
 *
 * @since 0.1.0
 * @category models
 */
export interface Located extends Problem {
  readonly file: string
  readonly position: Position | undefined
}

/**
 * @since 0.1.0
 * @category constructors
 */
export const make = (path: KeyPath.KeyPath, message: string): Problem => ({ path, message })

/**
 * One line as compilers print them: `signalman.yaml:12:7: monitors[2].check.url: must be ...`; a problem of the
 * whole file has no key path, one of a TypeScript config no position.
 *
 * @since 0.1.0
 * @category formatting
 */
export const format = (problem: Located): string => {
  const where =
    problem.position === undefined
      ? problem.file
      : `${problem.file}:${problem.position.line}:${problem.position.column}`
  const path = KeyPath.format(problem.path)
  return path === "" ? `${where}: ${problem.message}` : `${where}: ${path}: ${problem.message}`
}

/**
 * Problems in file order: by position where known, otherwise as found.
 *
 * @since 0.1.0
 * @category ordering
 */
export const sort = (problems: ReadonlyArray<Located>): ReadonlyArray<Located> =>
  problems
    .map((problem, index) => ({ problem, index }))
    .sort((a, b) => {
      const pa = a.problem.position
      const pb = b.problem.position
      if (pa !== undefined && pb !== undefined && (pa.line !== pb.line || pa.column !== pb.column)) {
        return pa.line - pb.line || pa.column - pb.column
      }
      return a.index - b.index
    })
    .map(({ problem }) => problem)
