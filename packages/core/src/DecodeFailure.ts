/**
 * Turns the issues of a failed request decode into the error the specification names, so Effect's own decode
 * error never reaches a client in its own shape.
 *
 * - An unknown key is 422 `INVALID_JSON`, `field` is its path (`check.steps[1].selctor`) and the message lists
 *   the keys that object accepts.
 * - Anything else (a wrong type, a value out of range, a missing key) is 400 `VALIDATION_FAILED` naming the field.
 *
 * @since 0.1.0
 */
import * as ApiError from "./ApiError.js"

/**
 * One decode issue, as `ParseResult.ArrayFormatter` reports it.
 *
 * @since 0.1.0
 * @category models
 */
export interface Issue {
  readonly _tag: string
  readonly path: ReadonlyArray<PropertyKey>
  readonly message: string
}

/**
 * Where a request value came from: the path segment of the field names differs for each. `arguments` are an MCP
 * tool call's, a JSON object like a body.
 *
 * @since 0.1.0
 * @category models
 */
export type Location = "body" | "query" | "path" | "headers" | "arguments"

/**
 * `["check", "steps", 1, "selctor"]` as `check.steps[1].selctor`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const formatPath = (path: ReadonlyArray<PropertyKey>): string => {
  let out = ""
  for (const segment of path) {
    if (typeof segment === "number") {
      out += `[${segment}]`
    } else {
      const name = typeof segment === "symbol" ? (segment.description ?? "") : segment
      out += out === "" ? name : `.${name}`
    }
  }
  return out
}

/**
 * A header's name as documented (`Signalman-Managed-By`) from the lower-case key a request's headers carry.
 *
 * @since 0.2.0
 * @category formatting
 */
export const headerName = (key: string): string =>
  key
    .split("-")
    .map((word) => word.charAt(0).toUpperCase() + word.slice(1))
    .join("-")

// ArrayFormatter reports an excess key as `is unexpected, expected: "a" | "b"`.
const unexpected = /^is unexpected(?:, expected: (.*))?$/s

/**
 * The keys an "is unexpected" message says the object accepts.
 *
 * @since 0.1.0
 * @category parsing
 */
export const acceptedKeys = (message: string): ReadonlyArray<string> | undefined => {
  const match = unexpected.exec(message)
  if (match === null) return undefined
  const list = match[1]
  if (list === undefined) return []
  return list
    .split(" | ")
    .map((key) => key.trim())
    .map((key) => (key.startsWith('"') && key.endsWith('"') ? key.slice(1, -1) : key))
}

const describe = (issue: Issue): string => (issue._tag === "Missing" ? "is required" : issue.message)

/**
 * The error for a failed decode of a request's body, query, path or headers.
 *
 * @since 0.1.0
 * @category constructors
 */
export const toApiError = (
  issues: ReadonlyArray<Issue>,
  location: Location = "body"
): ApiError.UnprocessableEntity | ApiError.BadRequest => {
  // A header is named as documented, not as the lower-case key it was decoded from.
  const fieldOf = (path: ReadonlyArray<PropertyKey>) => {
    const [head, ...rest] = path
    return location === "headers" && typeof head === "string" && rest.length === 0 ? headerName(head) : formatPath(path)
  }
  const all = issues.map((issue) => ({ field: fieldOf(issue.path), message: describe(issue), issue }))
  const excess = all.find((entry) => entry.issue._tag === "Unexpected" && acceptedKeys(entry.issue.message))
  if (excess !== undefined && (location === "body" || location === "arguments")) {
    const accepted = acceptedKeys(excess.issue.message) ?? []
    const where =
      excess.issue.path.length > 1
        ? formatPath(excess.issue.path.slice(0, -1))
        : location === "arguments"
          ? "the tool"
          : "the body"
    const message =
      accepted.length === 0
        ? `Unknown key "${excess.field}": ${where} accepts no keys`
        : `Unknown key "${excess.field}": ${where} accepts ${accepted.join(", ")}`
    return ApiError.unknownKey(excess.field, message, accepted)
  }
  const first = all[0]
  const field = first === undefined || first.field === "" ? null : first.field
  const message =
    first === undefined
      ? "The request is not valid"
      : first.issue._tag === "Missing"
        ? `${field ?? `The ${location}`} is required`
        : `${field ?? `The ${location}`}: ${first.message}`
  return ApiError.make("VALIDATION_FAILED", message, {
    field,
    // Every problem found, so a client can show them all at once instead of one per round trip.
    details: {
      location,
      errors: all.map(({ field, message }) => ({ field: field === "" ? null : field, message }))
    }
  })
}
