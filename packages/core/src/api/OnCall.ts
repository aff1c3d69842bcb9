/**
 * On-call (`/api/v1/oncall/*`): an org's schedules (who is on call when) and escalation policies (whom to page, in
 * which order, while an incident is not acknowledged), and the org's default policy. Reads need `oncall:read`;
 * writes need `oncall:write`, the owner role and the plan's `on_call_enabled`. The shapes and their bounds are
 * `oncall/Schedule` and `oncall/EscalationPolicy`; this module is the wire.
 *
 * @since 0.2.0
 */
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpApiSchema from "@effect/platform/HttpApiSchema"
import * as OpenApi from "@effect/platform/OpenApi"
import * as Schema from "effect/Schema"
import * as ApiError from "../ApiError.js"
import { Instant } from "../Instant.js"
import {
  EscalationPolicy,
  EscalationPolicyCreate,
  EscalationPolicyId,
  EscalationPolicyPatch
} from "../oncall/EscalationPolicy.js"
import { OnCallAnswer, Schedule, ScheduleCreate, ScheduleId, SchedulePatch, Shift } from "../oncall/Schedule.js"
import * as Pagination from "../Pagination.js"
import * as RequestBody from "../RequestBody.js"
import { Authentication } from "./Authentication.js"
import { requires } from "./RequiredScope.js"

/**
 * The longest window `GET .../shifts` computes, in days.
 *
 * @since 0.2.0
 * @category constants
 */
export const MAX_SHIFT_WINDOW_DAYS = 90

/**
 * The window `GET .../shifts` computes when `to` is not given, in days from `from`.
 *
 * @since 0.2.0
 * @category constants
 */
export const DEFAULT_SHIFT_WINDOW_DAYS = 14

/**
 * A page of schedules.
 *
 * @since 0.2.0
 * @category models
 */
export const SchedulePage = Pagination.page(Schedule, "SchedulePage")

/**
 * A page of escalation policies.
 *
 * @since 0.2.0
 * @category models
 */
export const EscalationPolicyPage = Pagination.page(EscalationPolicy, "EscalationPolicyPage")

/**
 * The query of `GET .../schedules/{id}/on-call`: the instant asked about (now when absent).
 *
 * @since 0.2.0
 * @category requests
 */
export const OnCallQuery = Schema.Struct({ at: Schema.optionalWith(Instant, { exact: true }) })

/**
 * The query of `GET .../schedules/{id}/shifts`: from `from` (now when absent) until `to` (14 days later when
 * absent), at most 90 days.
 *
 * @since 0.2.0
 * @category requests
 */
export const ShiftsQuery = Schema.Struct({
  from: Schema.optionalWith(Instant, { exact: true }),
  to: Schema.optionalWith(Instant, { exact: true })
})

/**
 * The shifts of a window, in time order (overrides and layers as they resolve: who is actually on call).
 *
 * @since 0.2.0
 * @category models
 */
export const ShiftList = Schema.Struct({
  from: Schema.DateTimeUtc,
  to: Schema.DateTimeUtc,
  data: Schema.Array(Shift)
}).annotations({ identifier: "ShiftList" })

/**
 * The org's default escalation policy (null: none). Monitors created without naming a policy take it, and so do
 * duplicates that may not copy their source's (service-api.md, duplicate rule 3).
 *
 * @since 0.2.0
 * @category models
 */
export const DefaultEscalationPolicy = RequestBody.Struct({
  escalation_policy_id: Schema.NullOr(EscalationPolicyId)
}).annotations({ identifier: "DefaultEscalationPolicy" })

const schedulePath = Schema.Struct({ id: ScheduleId })
const policyPath = Schema.Struct({ id: EscalationPolicyId })

const WRITE_GATES =
  "Needs the owner role (403 OWNER_REQUIRED) and the plan's on_call_enabled (403 ON_CALL_DISABLED). Scope oncall:write."

/**
 * @since 0.2.0
 * @category groups
 */
export class OnCallApi extends HttpApiGroup.make("oncall")
  .add(
    HttpApiEndpoint.get("listSchedules", "/oncall/schedules")
      .annotateContext(requires("oncall:read"))
      .setUrlParams(Schema.Struct(Pagination.query))
      .addSuccess(SchedulePage)
      .annotate(OpenApi.Description, "The org's on-call schedules, oldest first. Scope oncall:read.")
  )
  .add(
    HttpApiEndpoint.post("createSchedule", "/oncall/schedules")
      .annotateContext(requires("oncall:write"))
      .setPayload(ScheduleCreate)
      .addSuccess(Schedule, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Create a schedule; 201 with a Location header. Every participant and override user must be a member of " +
          "the org (400 VALIDATION_FAILED naming the field). Past max_on_call_schedules (pooled across the " +
          `account) is 422 QUOTA_EXCEEDED. ${WRITE_GATES}`
      )
  )
  .add(
    HttpApiEndpoint.get("getSchedule", "/oncall/schedules/:id")
      .annotateContext(requires("oncall:read"))
      .setPath(schedulePath)
      .addSuccess(Schedule)
      .annotate(OpenApi.Description, "One schedule. Scope oncall:read.")
  )
  .add(
    HttpApiEndpoint.patch("updateSchedule", "/oncall/schedules/:id")
      .annotateContext(requires("oncall:write"))
      .setPath(schedulePath)
      .setPayload(SchedulePatch)
      .addSuccess(Schedule)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .annotate(
        OpenApi.Description,
        `Change name, time_zone, layers or overrides; a list sent replaces the stored one whole. ${WRITE_GATES}`
      )
  )
  .add(
    HttpApiEndpoint.del("deleteSchedule", "/oncall/schedules/:id")
      .annotateContext(requires("oncall:write"))
      .setPath(schedulePath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.Conflict)
      .annotate(
        OpenApi.Description,
        "Delete a schedule. One an escalation policy's step names is 409 SCHEDULE_IN_USE, listing the policies " +
          `in details: change them first. ${WRITE_GATES}`
      )
  )
  .add(
    HttpApiEndpoint.get("onCall", "/oncall/schedules/:id/on-call")
      .annotateContext(requires("oncall:read"))
      .setPath(schedulePath)
      .setUrlParams(OnCallQuery)
      .addSuccess(OnCallAnswer)
      .addError(ApiError.Wire.BadRequest)
      .annotate(
        OpenApi.Description,
        "Who is on call at `at` (RFC 3339; now when absent): an override beats the layers, and the last layer " +
          "that covers the instant wins; user_id null when nobody is. Scope oncall:read."
      )
  )
  .add(
    HttpApiEndpoint.get("shifts", "/oncall/schedules/:id/shifts")
      .annotateContext(requires("oncall:read"))
      .setPath(schedulePath)
      .setUrlParams(ShiftsQuery)
      .addSuccess(ShiftList)
      .addError(ApiError.Wire.BadRequest)
      .annotate(
        OpenApi.Description,
        `The computed shifts from \`from\` (now when absent) to \`to\` (${DEFAULT_SHIFT_WINDOW_DAYS} days later ` +
          `when absent); \`to\` must be after \`from\` and at most ${MAX_SHIFT_WINDOW_DAYS} days later (400 ` +
          "VALIDATION_FAILED on to). Scope oncall:read."
      )
  )
  .add(
    HttpApiEndpoint.get("listPolicies", "/oncall/escalation-policies")
      .annotateContext(requires("oncall:read"))
      .setUrlParams(Schema.Struct(Pagination.query))
      .addSuccess(EscalationPolicyPage)
      .annotate(OpenApi.Description, "The org's escalation policies, oldest first. Scope oncall:read.")
  )
  .add(
    HttpApiEndpoint.post("createPolicy", "/oncall/escalation-policies")
      .annotateContext(requires("oncall:write"))
      .setPayload(EscalationPolicyCreate)
      .addSuccess(EscalationPolicy, { status: 201 })
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.UnprocessableEntity)
      .annotate(
        OpenApi.Description,
        "Create a policy; 201 with a Location header. Each step target must exist in the org: a member (user), " +
          "a schedule or a notification channel (400 VALIDATION_FAILED on steps[i].targets[j].id). Past " +
          `max_escalation_policies (pooled across the account) is 422 QUOTA_EXCEEDED. ${WRITE_GATES}`
      )
  )
  .add(
    HttpApiEndpoint.get("getPolicy", "/oncall/escalation-policies/:id")
      .annotateContext(requires("oncall:read"))
      .setPath(policyPath)
      .addSuccess(EscalationPolicy)
      .annotate(OpenApi.Description, "One escalation policy. Scope oncall:read.")
  )
  .add(
    HttpApiEndpoint.patch("updatePolicy", "/oncall/escalation-policies/:id")
      .annotateContext(requires("oncall:write"))
      .setPath(policyPath)
      .setPayload(EscalationPolicyPatch)
      .addSuccess(EscalationPolicy)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .annotate(
        OpenApi.Description,
        `Change name, steps or repeat; steps sent replace the stored ones whole. ${WRITE_GATES}`
      )
  )
  .add(
    HttpApiEndpoint.del("deletePolicy", "/oncall/escalation-policies/:id")
      .annotateContext(requires("oncall:write"))
      .setPath(policyPath)
      .addSuccess(HttpApiSchema.NoContent)
      .addError(ApiError.Wire.Forbidden)
      .addError(ApiError.Wire.Conflict)
      .annotate(
        OpenApi.Description,
        "Delete a policy. One a monitor binds, or the org's default, is 409 ESCALATION_POLICY_IN_USE (details " +
          `name the monitors and whether it is the default): unbind it first. ${WRITE_GATES}`
      )
  )
  .add(
    HttpApiEndpoint.get("getDefaultPolicy", "/oncall/default-escalation-policy")
      .annotateContext(requires("oncall:read"))
      .addSuccess(DefaultEscalationPolicy)
      .annotate(OpenApi.Description, "The org's default escalation policy, null when it has none. Scope oncall:read.")
  )
  .add(
    HttpApiEndpoint.put("setDefaultPolicy", "/oncall/default-escalation-policy")
      .annotateContext(requires("oncall:write"))
      .setPayload(DefaultEscalationPolicy)
      .addSuccess(DefaultEscalationPolicy)
      .addError(ApiError.Wire.BadRequest)
      .addError(ApiError.Wire.Forbidden)
      .annotate(
        OpenApi.Description,
        "Set (or with null clear) the org's default policy: monitors created without escalation_policy_id, and " +
          "duplicates that may not copy their source's policy, take it. The policy must be the org's (400 " +
          `VALIDATION_FAILED on escalation_policy_id). ${WRITE_GATES}`
      )
  )
  .middleware(Authentication)
  .prefix("/api/v1")
  .annotate(OpenApi.Title, "On-call") {}
