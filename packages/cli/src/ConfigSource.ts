/**
 * The text of a YAML or JSON config file read with positions: the value, and where each key path sits in the text,
 * so a problem names its line and column. Both go through the `yaml` package's document API (JSON is YAML's
 * flow style); a `.json` file is also held to strict JSON, so what another tool would refuse is refused here.
 *
 * @since 0.1.0
 */
import * as Arr from "effect/Array"
import * as Either from "effect/Either"
import * as YAML from "yaml"
import type { KeyPath } from "./KeyPath.js"
import type { Position } from "./Problem.js"

/**
 * @since 0.1.0
 * @category models
 */
export type Format = "yaml" | "json"

/**
 * A parsed file: its value, and the position of a key path (the key of a map entry, the item of a list; for a path
 * that is not in the file, such as a missing key, the closest enclosing node).
 *
 * @since 0.1.0
 * @category models
 */
export interface Source {
  readonly value: unknown
  readonly locate: (path: KeyPath) => Position | undefined
}

/**
 * Text that is not YAML (or not JSON): what the parser said, and where.
 *
 * @since 0.1.0
 * @category models
 */
export interface SyntaxError {
  readonly message: string
  readonly position: Position | undefined
}

// Anchors may be reused, but a handful of aliases must not expand into gigabytes ("billion laughs").
const maxAliasCount = 100

const nodeStart = (node: unknown): number | undefined =>
  YAML.isNode(node) && node.range !== null && node.range !== undefined ? node.range[0] : undefined

const locator =
  (doc: YAML.Document.Parsed, lines: YAML.LineCounter) =>
  (path: KeyPath): Position | undefined => {
    let node: unknown = doc.contents
    let offset = nodeStart(node)
    for (const segment of path) {
      if (YAML.isAlias(node)) node = node.resolve(doc)
      if (YAML.isMap(node)) {
        const pair = node.items.find((item) => YAML.isScalar(item.key) && String(item.key.value) === String(segment))
        if (pair === undefined) break
        offset = nodeStart(pair.key) ?? offset
        node = pair.value
      } else if (YAML.isSeq(node) && typeof segment === "number") {
        const item = node.items[segment]
        if (item === undefined) break
        offset = nodeStart(item) ?? offset
        node = item
      } else {
        break
      }
    }
    if (offset === undefined) return undefined
    const { line, col } = lines.linePos(offset)
    return { line, column: col }
  }

// V8 names the offset of a JSON syntax error as "at position N" (not always: then the error has no position).
const jsonPosition = (message: string, lines: YAML.LineCounter): Position | undefined => {
  const match = /at position (\d+)/.exec(message)
  if (match === null) return undefined
  const { line, col } = lines.linePos(Number(match[1]))
  return { line, column: col }
}

/**
 * Parses the text of a config file.
 *
 * @since 0.1.0
 * @category parsing
 */
export const parse = (text: string, format: Format): Either.Either<Source, Arr.NonEmptyReadonlyArray<SyntaxError>> => {
  const lines = new YAML.LineCounter()
  const doc = YAML.parseDocument(text, { lineCounter: lines, prettyErrors: false, uniqueKeys: true })
  const at = (offset: number): Position => {
    const { line, col } = lines.linePos(offset)
    return { line, column: col }
  }
  const errors = [...doc.errors, ...doc.warnings].map((error) => ({
    message: error.message,
    position: at(error.pos[0])
  }))
  if (Arr.isNonEmptyReadonlyArray(errors)) return Either.left(errors)
  if (format === "json") {
    try {
      JSON.parse(text)
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      return Either.left([{ message: `not valid JSON: ${message}`, position: jsonPosition(message, lines) }])
    }
  }
  try {
    return Either.right({ value: doc.toJS({ maxAliasCount }), locate: locator(doc, lines) })
  } catch (error) {
    return Either.left([{ message: error instanceof Error ? error.message : String(error), position: undefined }])
  }
}
