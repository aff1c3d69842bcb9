/**
 * Escalation policies (decisions.md "On-call: schedules and escalation policies"): steps of targets to page, each
 * `delay_minutes` after the previous one, the whole list walked `repeat` more times. This module holds the shapes
 * and their bounds; the order and times of the pages are computed by `EscalationWalk`.
 *
 * @since 0.2.0
 */
import * as Schema from "effect/Schema"
import * as RequestBody from "../RequestBody.js"
import { Name } from "./Schedule.js"

/**
 * @since 0.2.0
 * @category ids
 */
export const EscalationPolicyId = Schema.UUID.pipe(Schema.brand("EscalationPolicyId"))

/**
 * @since 0.2.0
 * @category ids
 */
export type EscalationPolicyId = typeof EscalationPolicyId.Type

/**
 * The most steps of a policy.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_STEPS = 10

/**
 * The most targets of one step.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_TARGETS = 10

/**
 * The longest delay before a step, in minutes (a day: later than that, nobody is being escalated to).
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_DELAY_MINUTES = 1440

/**
 * The most times the whole list is walked again after the first time.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_REPEAT = 5

/**
 * What a step pages: a member of the org, whoever a schedule has on call then, or a notification channel.
 *
 * @since 0.2.0
 * @category schemas
 */
export const TargetType = Schema.Literal("user", "schedule", "channel")

/**
 * @since 0.2.0
 * @category models
 */
export type TargetType = typeof TargetType.Type

/**
 * One target of a step: its type and the id of the user, schedule or channel.
 *
 * @since 0.2.0
 * @category schemas
 */
export const StepTarget = RequestBody.Struct({
  type: TargetType,
  id: Schema.UUID
}).annotations({ identifier: "EscalationTarget" })

/**
 * @since 0.2.0
 * @category models
 */
export type StepTarget = typeof StepTarget.Type

const boundedInt = (min: number, max: number) =>
  Schema.Int.pipe(
    Schema.filter((n) => (n >= min && n <= max) || `must be an integer from ${min} to ${max}`, {
      jsonSchema: { minimum: min, maximum: max }
    })
  )

/**
 * A step: page `targets` `delay_minutes` after the previous step (after the incident opened, for the first).
 *
 * @since 0.2.0
 * @category schemas
 */
export const Step = RequestBody.Struct({
  delay_minutes: boundedInt(0, MAX_DELAY_MINUTES),
  targets: Schema.Array(StepTarget).pipe(
    Schema.filter((ts) => (ts.length >= 1 && ts.length <= MAX_TARGETS) || `must list 1 to ${MAX_TARGETS} targets`),
    Schema.filter((ts) => {
      const seen = new Set<string>()
      for (const [i, t] of ts.entries()) {
        const key = `${t.type}:${t.id.toLowerCase()}`
        if (seen.has(key)) return { path: [i], message: "names a target this step already names" }
        seen.add(key)
      }
      return true
    })
  )
}).annotations({ identifier: "EscalationStep" })

/**
 * @since 0.2.0
 * @category models
 */
export type Step = typeof Step.Type

const steps = Schema.Array(Step).pipe(
  Schema.filter((ss) => (ss.length >= 1 && ss.length <= MAX_STEPS) || `must list 1 to ${MAX_STEPS} steps`)
)

const repeat = boundedInt(0, MAX_REPEAT)

/**
 * `POST /api/v1/oncall/escalation-policies`. `repeat` defaults to 0 (the steps are walked once).
 *
 * @since 0.2.0
 * @category requests
 */
export const EscalationPolicyCreate = RequestBody.Struct({
  name: Name,
  steps,
  repeat: Schema.optionalWith(repeat, { default: () => 0 })
}).annotations({ identifier: "EscalationPolicyCreate" })

/**
 * @since 0.2.0
 * @category requests
 */
export type EscalationPolicyCreate = typeof EscalationPolicyCreate.Type

/**
 * `PATCH /api/v1/oncall/escalation-policies/{id}`: any of the create fields; `steps` replaces the list whole.
 *
 * @since 0.2.0
 * @category requests
 */
export const EscalationPolicyPatch = RequestBody.Struct({
  name: Schema.optionalWith(Name, { exact: true }),
  steps: Schema.optionalWith(steps, { exact: true }),
  repeat: Schema.optionalWith(repeat, { exact: true })
}).annotations({ identifier: "EscalationPolicyPatch" })

/**
 * @since 0.2.0
 * @category requests
 */
export type EscalationPolicyPatch = typeof EscalationPolicyPatch.Type

/**
 * A policy as the API answers it.
 *
 * @since 0.2.0
 * @category models
 */
export class EscalationPolicy extends Schema.Class<EscalationPolicy>("EscalationPolicy")({
  id: EscalationPolicyId,
  name: Schema.String,
  steps: Schema.Array(Step),
  repeat: Schema.Int,
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc
}) {}
