/**
 * Monitors ("targets", service-api.md "Target (monitor)"): what a client sends to create or change one, and what
 * the service answers. Shapes only; the rules that need several fields or the plan live in `TargetRules`.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"
import { CheckSpec } from "./CheckSpec.js"
import { OrgId } from "./Identity.js"
import * as ManagedBy from "./ManagedBy.js"
import { RegionAdvisory } from "./RegionAdvisory.js"
import * as RequestBody from "./RequestBody.js"

/**
 * @since 0.1.0
 * @category ids
 */
export const TargetId = Schema.UUID.pipe(Schema.brand("TargetId"))

/**
 * @since 0.1.0
 * @category ids
 */
export type TargetId = typeof TargetId.Type

/**
 * Who wrote a target last: the web form, the API, or monitoring as code. Decided by the service, never sent.
 *
 * @since 0.1.0
 * @category models
 */
export const WriteSource = Schema.Literal("ui", "api", "iac")

/**
 * @since 0.1.0
 * @category models
 */
export type WriteSource = typeof WriteSource.Type

/**
 * How many probe regions must agree a target is down before an incident opens.
 *
 * @since 0.1.0
 * @category models
 */
export const RegionPolicy = Schema.Union(
  Schema.Literal("any", "majority", "all"),
  RequestBody.Struct({ count: Schema.Int.pipe(Schema.between(1, 64)) })
).annotations({ identifier: "RegionPolicy" })

/**
 * @since 0.1.0
 * @category models
 */
export type RegionPolicy = typeof RegionPolicy.Type

/**
 * One channel binding: exactly one key, `channel_id`.
 *
 * @since 0.1.0
 * @category models
 */
export const AlertBinding = RequestBody.Struct({ channel_id: Schema.UUID }).annotations({ identifier: "AlertBinding" })

const name = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(200))
const tag = Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(64))
const group = Schema.NullOr(Schema.Trim.pipe(Schema.minLength(1), Schema.maxLength(100)))
const regionId = Schema.String.pipe(Schema.pattern(/^[a-z0-9][a-z0-9-]{0,31}$/))
const optional = <S extends Schema.Schema.Any>(s: S) => Schema.optionalWith(s, { exact: true })

/**
 * The fields a create may carry. Omitted ones take their defaults from the rules (per kind and plan).
 *
 * @since 0.1.0
 * @category requests
 */
export const CreateTarget = RequestBody.Struct({
  name,
  check: CheckSpec,
  interval: optional(Schema.Int.pipe(Schema.positive())),
  enabled: optional(Schema.Boolean),
  tags: optional(Schema.Array(tag).pipe(Schema.maxItems(50))),
  group: optional(group),
  alerts: optional(Schema.Array(AlertBinding).pipe(Schema.maxItems(50))),
  alert_confirmations: optional(Schema.Int.pipe(Schema.between(1, 100))),
  notify_recovery: optional(Schema.Boolean),
  renotify_interval_secs: optional(Schema.Int.pipe(Schema.nonNegative())),
  recovery_period_secs: optional(Schema.Int.pipe(Schema.between(0, 1800))),
  region_policy: optional(RegionPolicy),
  regions: optional(Schema.Array(regionId).pipe(Schema.minItems(1), Schema.maxItems(64))),
  // Omitted: the org's default policy, if any (docs/on-call.md); null: none.
  escalation_policy_id: optional(Schema.NullOr(Schema.UUID))
}).annotations({ identifier: "CreateTarget" })

/**
 * @since 0.1.0
 * @category requests
 */
export type CreateTarget = typeof CreateTarget.Type

/**
 * A PATCH: any subset of the writable fields; omitting `check` leaves it as stored.
 *
 * @since 0.1.0
 * @category requests
 */
export const PatchTarget = RequestBody.Struct({
  name: optional(name),
  check: optional(CheckSpec),
  interval: optional(Schema.Int.pipe(Schema.positive())),
  enabled: optional(Schema.Boolean),
  tags: optional(Schema.Array(tag).pipe(Schema.maxItems(50))),
  group: optional(group),
  alerts: optional(Schema.Array(AlertBinding).pipe(Schema.maxItems(50))),
  alert_confirmations: optional(Schema.Int.pipe(Schema.between(1, 100))),
  notify_recovery: optional(Schema.Boolean),
  renotify_interval_secs: optional(Schema.Int.pipe(Schema.nonNegative())),
  recovery_period_secs: optional(Schema.Int.pipe(Schema.between(0, 1800))),
  region_policy: optional(RegionPolicy),
  escalation_policy_id: optional(Schema.NullOr(Schema.UUID))
}).annotations({ identifier: "PatchTarget" })

/**
 * @since 0.1.0
 * @category requests
 */
export type PatchTarget = typeof PatchTarget.Type

/**
 * A target as the service answers it, credentials redacted. `advisories` lists the regions confirmed down while the
 * `region_policy` is not met and no incident of the monitor is open (decisions.md "Regions, probe agents and browser
 * flows"); a new monitor has none, which is also what an answer stored before the field reads as. `managed_by` names
 * the config project and key that manage the monitor (`ManagedBy`), null when nobody does.
 *
 * @since 0.1.0
 * @category models
 */
export class Target extends Schema.Class<Target>("Target")({
  id: TargetId,
  org_id: OrgId,
  created_at: Schema.DateTimeUtc,
  updated_at: Schema.DateTimeUtc,
  write_source: WriteSource,
  // Every answer carries it; the default reads an answer recorded before the field (an Idempotency-Key replay).
  managed_by: Schema.optionalWith(ManagedBy.Field, { default: () => null }),
  name: Schema.String,
  // Output: the stored check, redacted; encoded as-is (no defaults to fill on the way out).
  check: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  interval: Schema.Int,
  enabled: Schema.Boolean,
  tags: Schema.Array(Schema.String),
  group: Schema.NullOr(Schema.String),
  alerts: Schema.Array(Schema.Struct({ channel_id: Schema.UUID })),
  alert_confirmations: Schema.Int,
  notify_recovery: Schema.Boolean,
  renotify_interval_secs: Schema.Int,
  recovery_period_secs: Schema.Int,
  region_policy: Schema.Union(Schema.Literal("any", "majority", "all"), Schema.Struct({ count: Schema.Int })),
  regions: Schema.Array(Schema.String),
  advisories: Schema.optionalWith(Schema.Array(RegionAdvisory), { default: () => [] }),
  // The escalation policy an opened incident walks (docs/on-call.md); the default reads an answer recorded before
  // the field (an Idempotency-Key replay).
  escalation_policy_id: Schema.optionalWith(Schema.NullOr(Schema.UUID), { default: () => null })
}) {}

/**
 * The sentinel that replaces a populated credential on every output (three asterisks).
 *
 * @since 0.1.0
 * @category constants
 */
export const REDACTED = "***"

/**
 * A check as shown: populated `basic_auth` and `bearer_token`, and every flow `fill` value, replaced by the sentinel;
 * a null field stays null.
 *
 * @since 0.1.0
 * @category redaction
 */
export const redact = (check: CheckSpec): Record<string, unknown> => {
  switch (check.type) {
    case "http":
      return {
        ...check,
        ...(check.basic_auth === undefined || check.basic_auth === null ? {} : { basic_auth: REDACTED }),
        ...(check.bearer_token === undefined || check.bearer_token === null ? {} : { bearer_token: REDACTED })
      }
    case "flow":
      return {
        ...check,
        steps: check.steps.map((step) => (step.action === "fill" ? { ...step, value: REDACTED } : step))
      }
    default:
      return { ...check }
  }
}

/**
 * Where a write's check carries the sentinel in a credential (`check.basic_auth`, `check.bearer_token`,
 * `check.steps[i].value`): 400 REDACTION_SENTINEL names it. A GET's answer sent back unchanged would otherwise
 * store three asterisks as the credential.
 *
 * @since 0.1.0
 * @category redaction
 */
export const sentinelField = (check: CheckSpec): string | undefined => {
  switch (check.type) {
    case "http":
      if (check.bearer_token === REDACTED) return "check.bearer_token"
      if (check.basic_auth === REDACTED) return "check.basic_auth"
      if (check.basic_auth !== null && check.basic_auth !== undefined) {
        if (check.basic_auth.username === REDACTED) return "check.basic_auth.username"
        if (check.basic_auth.password === REDACTED) return "check.basic_auth.password"
      }
      return undefined
    case "flow": {
      const i = check.steps.findIndex((step) => step.action === "fill" && step.value === REDACTED)
      return i === -1 ? undefined : `check.steps[${i}].value`
    }
    default:
      return undefined
  }
}
