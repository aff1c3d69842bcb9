/**
 * A plan as people read it: one line per change (`+` create, `~` update, `-/+` replace, `-` delete) with the fields
 * under it (`field: old → new`), then a summary line. Secrets read `(secret)`; a field one side does not have reads
 * `(none)`.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Plan from "./Plan.js"

const symbols: Record<Plan.Change["action"], string> = { create: "+", update: "~", replace: "-/+", delete: "-" }

const typeNames: Record<Plan.ResourceType, string> = {
  variable: "variable",
  channel: "channel",
  monitor: "monitor",
  status_page: "status page",
  maintenance: "maintenance window"
}

/**
 * One value as shown: JSON, a secret as `(secret)`, no value as `(none)`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const value = (v: Option.Option<unknown>): string =>
  Option.match(v, {
    onNone: () => "(none)",
    onSome: (x) => (x === Plan.SECRET ? Plan.SECRET : JSON.stringify(x))
  })

const field = (change: Plan.Change["action"], f: Plan.FieldChange): string =>
  change === "create" ? `${f.field}: ${value(f.new)}` : `${f.field}: ${value(f.old)} → ${value(f.new)}`

/**
 * What a change is about, as `monitor api`.
 *
 * @since 0.1.0
 * @category formatting
 */
export const label = (change: Plan.Change): string => `${typeNames[change.type]} ${change.key}`

const heading = (change: Plan.Change): string => {
  const what = `${symbols[change.action]} ${typeNames[change.type]} ${change.key}`
  const named = change.name === change.key ? what : `${what} (${change.name})`
  return change.action === "replace" ? `${named}: ${change.reason} changes, so it is deleted and created again` : named
}

const plural = (n: number, word: string) => `${n} ${word}`

/**
 * The summary line: `Plan: 1 to create, 2 to update, 0 to replace, 1 to delete (4 unchanged).`, or that nothing
 * changes.
 *
 * @since 0.1.0
 * @category formatting
 */
export const summaryLine = (plan: Plan.Plan): string => {
  const s = Plan.summary(plan)
  if (!Plan.hasChanges(plan)) {
    return `No changes: project "${plan.project}" is as the file says (${plural(s.unchanged, "unchanged")}).`
  }
  return (
    `Plan: ${s.create} to create, ${s.update} to update, ${s.replace} to replace, ${s.delete} to delete` +
    ` (${plural(s.unchanged, "unchanged")}).`
  )
}

/**
 * The whole plan as text, one line per entry (no trailing newline).
 *
 * @since 0.1.0
 * @category formatting
 */
export const render = (plan: Plan.Plan): string => {
  if (!Plan.hasChanges(plan)) return summaryLine(plan)
  const lines = plan.changes.flatMap((change) => [
    `  ${heading(change)}`,
    ...(change.action === "delete" ? [] : change.fields.map((f) => `      ${field(change.action, f)}`))
  ])
  return [`Changes for project "${plan.project}", in the order they apply:`, "", ...lines, "", summaryLine(plan)].join(
    "\n"
  )
}
