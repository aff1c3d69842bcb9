/**
 * API token scopes (auth-and-limits.md, "Scopes"): `resource:action`, `full_access` grants all, write implies
 * read for the same resource, delete and execute are independent, unknown strings are ignored.
 *
 * @since 0.1.0
 */

/**
 * @since 0.1.0
 * @category models
 */
export const resources = [
  "targets",
  "channels",
  "incidents",
  "maintenance",
  "status_page",
  "variables",
  "oncall"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export type Resource = (typeof resources)[number]

/**
 * @since 0.1.0
 * @category models
 */
export type Action = "read" | "write" | "delete" | "execute"

/**
 * The scopes that exist: every action the spec's table lists for each resource.
 *
 * @since 0.1.0
 * @category models
 */
export const known = {
  targets: ["read", "write", "delete", "execute"],
  channels: ["read", "write", "delete", "execute"],
  incidents: ["read", "write", "execute"],
  maintenance: ["read", "write", "delete"],
  status_page: ["read", "write", "delete"],
  variables: ["read", "write", "delete"],
  oncall: ["read", "write"]
} as const satisfies { readonly [R in Resource]: ReadonlyArray<Action> }

/**
 * A scope a token can hold.
 *
 * @since 0.1.0
 * @category models
 */
export type Scope = "full_access" | { [R in Resource]: `${R}:${(typeof known)[R][number]}` }[Resource]

/**
 * Every scope, for documentation and validation.
 *
 * @since 0.1.0
 * @category constants
 */
export const all: ReadonlyArray<Scope> = [
  "full_access",
  ...resources.flatMap((r) => known[r].map((a) => `${r}:${a}` as Scope))
]

const allSet: ReadonlySet<string> = new Set(all)

/**
 * @since 0.1.0
 * @category refinements
 */
export const isScope = (s: string): s is Scope => allSet.has(s)

/**
 * The scopes of a token as stored: unknown strings are dropped (the spec: "ignored"), duplicates once.
 *
 * @since 0.1.0
 * @category constructors
 */
export const normalize = (requested: ReadonlyArray<string>): ReadonlyArray<Scope> => [
  ...new Set(requested.filter(isScope))
]

/**
 * Does a token holding `held` satisfy `required`?
 *
 * @since 0.1.0
 * @category predicates
 */
export const grants = (held: ReadonlyArray<string>, required: Scope): boolean => {
  if (held.includes("full_access") || held.includes(required)) return true
  if (required.endsWith(":read")) {
    const resource = required.slice(0, -":read".length)
    return held.includes(`${resource}:write`)
  }
  return false
}
