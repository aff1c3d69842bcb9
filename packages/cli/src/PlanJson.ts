/**
 * A plan for machines (`--json`): a stable, documented document (packages/cli/README.md, "The plan as JSON"). Its
 * `format` names the version of the shape; a change that would break a reader gets a new version.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import * as Plan from "./Plan.js"

/**
 * One changed field: `old` is absent on a create or where the service has no value, `new` where the file takes the
 * field away; `secret` is true when either side is a secret (whose value reads `"(secret)"`).
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonField = Schema.Struct({
  field: Schema.String,
  old: Schema.optionalWith(Schema.Unknown, { exact: true }),
  new: Schema.optionalWith(Schema.Unknown, { exact: true }),
  secret: Schema.optionalWith(Schema.Literal(true), { exact: true })
}).annotations({ identifier: "PlanField" })

/**
 * One change. `id` is the service's id of the resource (absent on a create); `reason` names the field that forces
 * a replace; `fields` is empty on a delete.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonChange = Schema.Struct({
  action: Schema.Literal("create", "update", "replace", "delete"),
  type: Schema.Literal(...Plan.resourceTypes),
  key: Schema.String,
  id: Schema.optionalWith(Schema.String, { exact: true }),
  name: Schema.String,
  reason: Schema.optionalWith(Schema.String, { exact: true }),
  fields: Schema.Array(JsonField)
}).annotations({ identifier: "PlanChange" })

/**
 * The document.
 *
 * @since 0.1.0
 * @category schemas
 */
export const JsonPlan = Schema.Struct({
  format: Schema.Literal("signalman-plan/1"),
  project: Schema.String,
  summary: Schema.Struct({
    create: Schema.Int,
    update: Schema.Int,
    replace: Schema.Int,
    delete: Schema.Int,
    unchanged: Schema.Int
  }),
  changes: Schema.Array(JsonChange)
}).annotations({ identifier: "Plan" })

/**
 * @since 0.1.0
 * @category models
 */
export type JsonPlan = typeof JsonPlan.Type

const jsonField = (f: Plan.FieldChange): typeof JsonField.Type => ({
  field: f.field,
  ...Option.match(f.old, { onNone: () => ({}), onSome: (old) => ({ old }) }),
  ...Option.match(f.new, { onNone: () => ({}), onSome: (value) => ({ new: value }) }),
  ...(f.secret ? { secret: true as const } : {})
})

const jsonChange = (change: Plan.Change): typeof JsonChange.Type => ({
  action: change.action,
  type: change.type,
  key: change.key,
  ...(change.action === "create" ? {} : { id: change.id }),
  name: change.name,
  ...(change.action === "replace" ? { reason: change.reason } : {}),
  fields: change.action === "delete" ? [] : change.fields.map(jsonField)
})

/**
 * The plan as the JSON document.
 *
 * @since 0.1.0
 * @category formatting
 */
export const toJson = (plan: Plan.Plan): JsonPlan => ({
  format: "signalman-plan/1",
  project: plan.project,
  summary: Plan.summary(plan),
  changes: plan.changes.map(jsonChange)
})

/**
 * The document as text, two-space indented.
 *
 * @since 0.1.0
 * @category formatting
 */
export const render = (plan: Plan.Plan): string => JSON.stringify(toJson(plan), null, 2)
