/**
 * `POST /api/v1/targets/bulk-action` (decisions.md "Wire shapes"): one change applied to many of the org's monitors
 * at once, all or none. The body names an action, the ids, and the one field that action takes.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import * as RequestBody from "./RequestBody.js"
import { TargetId } from "./Target.js"
import type { Violation } from "./TargetRules.js"

/**
 * The most ids one request may name; more is 413 `BULK_TOO_LARGE` (the bulk create's own limit).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_IDS = 10_000

/**
 * @since 0.1.0
 * @category models
 */
export const Action = Schema.Literal(
  "enable",
  "disable",
  "delete",
  "tag-add",
  "tag-remove",
  "set-group",
  "set-interval",
  "set-channels",
  "set-escalation-policy"
)

/**
 * @since 0.1.0
 * @category models
 */
export type Action = typeof Action.Type

const tag = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(64))
const optional = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/**
 * @since 0.1.0
 * @category requests
 */
export const BulkAction = RequestBody.Struct({
  action: Action,
  ids: Schema.Array(TargetId).pipe(Schema.minItems(1)),
  tags: optional(Schema.Array(tag).pipe(Schema.minItems(1), Schema.maxItems(50))),
  group: optional(Schema.NullOr(Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(100)))),
  interval: optional(Schema.Int.pipe(Schema.positive())),
  channel_ids: optional(Schema.Array(Schema.UUID).pipe(Schema.maxItems(50))),
  // null unbinds the monitors' policy.
  escalation_policy_id: optional(Schema.NullOr(Schema.UUID))
}).annotations({ identifier: "BulkAction" })

/**
 * @since 0.1.0
 * @category requests
 */
export type BulkAction = typeof BulkAction.Type

/**
 * @since 0.1.0
 * @category models
 */
export const BulkActionResult = Schema.Struct({ updated: Schema.Int }).annotations({ identifier: "BulkActionResult" })

type Field = "tags" | "group" | "interval" | "channel_ids" | "escalation_policy_id"

const fieldOf: Record<Action, Field | undefined> = {
  enable: undefined,
  disable: undefined,
  delete: undefined,
  "tag-add": "tags",
  "tag-remove": "tags",
  "set-group": "group",
  "set-interval": "interval",
  "set-channels": "channel_ids",
  "set-escalation-policy": "escalation_policy_id"
}

const fields: ReadonlyArray<Field> = ["tags", "group", "interval", "channel_ids", "escalation_policy_id"]

/**
 * The field an action needs and no other: a missing one is refused, and so is one the action would ignore (a
 * client that sends `tags` with `enable` meant something this request will not do).
 *
 * @since 0.1.0
 * @category validation
 */
export const shapeViolation = (body: BulkAction): Violation | undefined => {
  const needed = fieldOf[body.action]
  if (needed !== undefined && body[needed] === undefined) {
    return { code: "VALIDATION_FAILED", field: needed, message: `${body.action} needs ${needed}` }
  }
  const extra = fields.find((field) => field !== needed && body[field] !== undefined)
  return extra === undefined
    ? undefined
    : { code: "VALIDATION_FAILED", field: extra, message: `${body.action} does not take ${extra}` }
}

/**
 * Tags after `tag-add` or `tag-remove`, in their order, each once.
 *
 * @since 0.1.0
 * @category actions
 */
export const retag = (
  current: ReadonlyArray<string>,
  action: "tag-add" | "tag-remove",
  tags: ReadonlyArray<string>
): ReadonlyArray<string> =>
  action === "tag-add" ? [...new Set([...current, ...tags])] : current.filter((t) => !tags.includes(t))

/**
 * The most tags a target carries (as on create).
 *
 * @since 0.1.0
 * @category constants
 */
export const MAX_TAGS = 50
