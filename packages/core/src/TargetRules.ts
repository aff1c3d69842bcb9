/**
 * The rules of a monitor that need several fields or the plan (service-api.md "Target (monitor)", "Alert config",
 * "CheckSpec kinds"; auth-and-limits.md "Plans"): interval floors and defaults, the heartbeat cadence, the manual
 * kind's fixed settings, flow gates, warning windows and region policies. `resolveCreate` and `resolvePatch` turn a
 * decoded body into the target to store, every field filled, or the first rule it breaks with its spec code.
 *
 * Pure: the rules that need the org's state (channel ownership, region ids, per-org counts) or the dns value forms
 * (`@signalman/checks/DnsParams`) run beside these, in the service.
 *
 * @since 0.1.0
 */
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as ApiError from "./ApiError.js"
import type { CheckKind, CheckSpec } from "./CheckSpec.js"
import type * as Plan from "./Plan.js"
import * as PlanLimits from "./PlanLimits.js"
import type { AlertBinding, CreateTarget, PatchTarget, RegionPolicy } from "./Target.js"

/**
 * The interval floor of a kind alone, in seconds; the plan's floor may be higher.
 *
 * @since 0.1.0
 * @category intervals
 */
export const kindFloor = (kind: CheckKind): number => {
  switch (kind) {
    case "domain_expiry":
      return 43200
    case "tls_cert":
      return 3600
    case "flow":
      return 300
    case "heartbeat":
    case "manual":
      return 60
    case "http":
    case "tcp":
    case "dns":
    case "ping":
      return 10
  }
}

// A manual monitor has no probe to pace, so its fixed 60 s is the only interval it takes (decisions.md, "Plan
// details the spec leaves open").
const manualInterval = 60

/**
 * The smallest interval a monitor of this kind may have on this plan: the larger of the plan's and the kind's floor
 * (manual is always 60 s).
 *
 * @since 0.1.0
 * @category intervals
 */
export const effectiveFloor = (kind: CheckKind, plan: Plan.Plan): number =>
  kind === "manual" ? manualInterval : Math.max(plan.quotas.min_check_interval_secs, kindFloor(kind))

/**
 * The coarsest interval a heartbeat may be evaluated at: a tenth of `period + grace`, rounded up, held between
 * 60 s and 300 s, or the plan floor when that is higher.
 *
 * @since 0.1.0
 * @category intervals
 */
export const heartbeatCadence = (period: number, grace: number, plan: Plan.Plan): number => {
  const tenth = Math.min(300, Math.max(60, Math.ceil((period + grace) / 10)))
  return Math.max(tenth, effectiveFloor("heartbeat", plan))
}

// Defaults are raised to the effective floor so an omitted interval is never refused; on the seeded plans only the
// 60 s default of http, tcp, ping and dns ever meets a higher (plan) floor.
const atLeastFloor = (kind: CheckKind, seconds: number, plan: Plan.Plan): number =>
  Math.max(seconds, effectiveFloor(kind, plan))

/**
 * The interval a create without one gets (decisions.md, "Plan details the spec leaves open").
 *
 * @since 0.1.0
 * @category intervals
 */
export const defaultInterval = (check: CheckSpec, plan: Plan.Plan): number => {
  switch (check.type) {
    case "heartbeat":
      return heartbeatCadence(check.period, check.grace, plan)
    case "manual":
      return manualInterval
    case "tls_cert":
      // 43200 is the web form's opening interval; the API takes the same default.
      return atLeastFloor(check.type, 43200, plan)
    case "domain_expiry":
      return atLeastFloor(check.type, 86400, plan)
    case "flow":
      return atLeastFloor(check.type, 300, plan)
    case "http":
    case "tcp":
    case "ping":
    case "dns":
      return atLeastFloor(check.type, 60, plan)
  }
}

/**
 * How long a monitor must stay up before its incident closes, when a create omits it.
 *
 * @since 0.1.0
 * @category defaults
 */
export const defaultRecoveryPeriod = (kind: CheckKind): number => {
  switch (kind) {
    case "http":
    case "tcp":
    case "ping":
    case "dns":
    case "flow":
      return 180
    default:
      return 0
  }
}

/**
 * A broken rule: the spec's code, the request-body path it concerns (`interval`, `check.warn_days`) and why.
 *
 * @since 0.1.0
 * @category models
 */
export interface Violation {
  readonly code: ApiError.Code
  readonly field: string
  readonly message: string
  readonly details?: Record<string, unknown>
}

/**
 * The error a violation answers with, at the status the catalogue gives its code.
 *
 * @since 0.1.0
 * @category errors
 */
export const toApiError = (violation: Violation): ApiError.ApiError =>
  ApiError.make(violation.code, violation.message, { field: violation.field, details: violation.details })

/**
 * A target's writable fields with every default filled: what a create or PATCH stores.
 *
 * @since 0.1.0
 * @category models
 */
export interface ResolvedTarget {
  readonly name: string
  readonly check: CheckSpec
  readonly interval: number
  readonly enabled: boolean
  readonly tags: ReadonlyArray<string>
  readonly group: string | null
  readonly alerts: ReadonlyArray<typeof AlertBinding.Type>
  readonly alert_confirmations: number
  readonly notify_recovery: boolean
  readonly renotify_interval_secs: number
  readonly recovery_period_secs: number
  readonly region_policy: RegionPolicy
  readonly regions: ReadonlyArray<string>
  /** The escalation policy bound; who may bind one, and a create's default, are the server's to settle. */
  readonly escalation_policy_id: string | null
}

const violation = (
  code: ApiError.Code,
  field: string,
  message: string,
  details?: Record<string, unknown>
): Violation => (details === undefined ? { code, field, message } : { code, field, message, details })

// An answer carries one error, so the first rule broken wins; callers list rules in the body's field order.
const first = (...rules: ReadonlyArray<() => Violation | undefined>): Violation | undefined => {
  for (const rule of rules) {
    const broken = rule()
    if (broken !== undefined) return broken
  }
  return undefined
}

// A PATCH rule judges only a field the PATCH sends.
const ifSent =
  <A>(value: A | undefined, rule: (value: A) => Violation | undefined) =>
  (): Violation | undefined =>
    value === undefined ? undefined : rule(value)

const unique = (values: ReadonlyArray<string>): ReadonlyArray<string> => [...new Set(values)]

// Heartbeat and manual monitors are evaluated by the service itself, never on a regional probe.
const localOnly = (kind: CheckKind): boolean => kind === "heartbeat" || kind === "manual"

// Where the service evaluates a monitor itself (heartbeat, manual), whatever the instance's default regions.
const serviceRegions: ReadonlyArray<string> = ["local"]

// The fields of a check whose values the shape alone cannot judge. The flow gate is create-only: a flow monitor
// stored before its plan switched the kind off must stay editable (to pause or trim it).
const checkRules = (check: CheckSpec, plan: Plan.Plan, creating: boolean): Violation | undefined => {
  switch (check.type) {
    case "flow": {
      if (creating && !PlanLimits.includes(plan, "flow_checks")) {
        const { code, message, details } = PlanLimits.refusal(plan, "flow_checks")
        return violation(code, "check.type", message, details)
      }
      const max = plan.quotas.max_flow_steps
      if (check.steps.length > max) {
        return violation("INVALID_FLOW_PARAMS", "check.steps", `a flow has at most ${max} steps`, {
          max,
          steps: check.steps.length
        })
      }
      if (!check.steps.some((step) => step.action === "assert_text" || step.action === "assert_url")) {
        return violation(
          "INVALID_FLOW_PARAMS",
          "check.steps",
          "a flow needs at least one assert_text or assert_url step"
        )
      }
      return undefined
    }
    case "tls_cert":
    case "domain_expiry":
      return check.warn_days > check.critical_days
        ? undefined
        : violation(
            "VALIDATION_FAILED",
            "check.warn_days",
            `warn_days (${check.warn_days}) must be greater than critical_days (${check.critical_days})`,
            { warn_days: check.warn_days, critical_days: check.critical_days }
          )
    default:
      return undefined
  }
}

// The interval to store, judged against the check it will run with.
const intervalRules = (check: CheckSpec, interval: number, plan: Plan.Plan): Violation | undefined => {
  if (check.type === "manual") {
    return interval === manualInterval
      ? undefined
      : violation("INVALID_INTERVAL", "interval", `a manual monitor's interval is ${manualInterval} s`, {
          interval: manualInterval
        })
  }
  const floor = effectiveFloor(check.type, plan)
  if (interval < floor) {
    return violation(
      "MIN_CHECK_INTERVAL",
      "interval",
      `interval must be at least ${floor} s for a ${check.type} check on the ${plan.name} plan`,
      { floor }
    )
  }
  if (check.type === "heartbeat") {
    const cadence = heartbeatCadence(check.period, check.grace, plan)
    if (interval > cadence) {
      return violation(
        "VALIDATION_FAILED",
        "interval",
        `a heartbeat with period ${check.period} s and grace ${check.grace} s is evaluated at least every ${cadence} s ` +
          "(a tenth of period + grace, held between 60 s and 300 s, or the plan floor if higher)",
        { cadence }
      )
    }
  }
  return undefined
}

const recoveryRule = (kind: CheckKind, recoveryPeriod: number): Violation | undefined =>
  kind === "manual" && recoveryPeriod !== 0
    ? violation("INVALID_ALERT_CONFIG", "recovery_period_secs", "a manual monitor's recovery_period_secs is 0")
    : undefined

// The spec: 0 switches reminders off, any other value is at least a minute.
const renotifyRule = (renotify: number): Violation | undefined =>
  renotify > 0 && renotify < 60
    ? violation(
        "VALIDATION_FAILED",
        "renotify_interval_secs",
        "renotify_interval_secs is 0 (no reminders) or at least 60"
      )
    : undefined

/**
 * Whether a monitor of this kind may be given regions, by a create, a bulk item or `PUT /targets/{id}/regions`:
 * heartbeat and manual monitors are evaluated by the service itself, so naming any region for one, `local`
 * included, is 422 `REGION_INVALID` on `regions` (service-api.md, "PUT /targets/{id}/regions" and the error table).
 *
 * @since 0.2.0
 * @category regions
 */
export const regionAssignment = (kind: CheckKind): Violation | undefined =>
  localOnly(kind)
    ? violation(
        "REGION_INVALID",
        "regions",
        `a ${kind} monitor is evaluated by the service itself and takes no regions`
      )
    : undefined

/**
 * Whether a check of this kind can be run on request (`POST /targets/test`, `check-now`): heartbeat and manual
 * monitors have no probe, 422 `HEARTBEAT_NOT_PROBEABLE`.
 *
 * @since 0.2.0
 * @category kinds
 */
export const probeable = (kind: CheckKind, field: string | null = null): Option.Option<ApiError.ErrorOf<422>> =>
  localOnly(kind)
    ? Option.some(ApiError.make("HEARTBEAT_NOT_PROBEABLE", `A ${kind} monitor has no probe to run`, { field }))
    : Option.none()

/**
 * Whether a check of this kind can run in the given regions: a flow needs a browser, so every one of its regions
 * must be flow-capable (decisions.md: "a flow monitor whose regions include one that is not is 422"), 422
 * `NO_FLOW_CAPABLE_AGENT` otherwise (`field` names where the regions came from, `details.regions` lists the regions
 * that cannot run it). A region that could not run the flow would record an error every interval and count as a
 * region that never agrees. Other kinds run anywhere.
 *
 * @since 0.2.0
 * @category kinds
 */
export const placement = (
  kind: CheckKind,
  regions: ReadonlyArray<string>,
  flowCapable: (region: string) => boolean,
  field: string | null = null
): Option.Option<ApiError.ErrorOf<422>> => {
  if (kind !== "flow") return Option.none()
  const incapable = regions.filter((region) => !flowCapable(region))
  return incapable.length === 0
    ? Option.none()
    : Option.some(
        ApiError.make(
          "NO_FLOW_CAPABLE_AGENT",
          `No agent that can run a browser flow serves ${incapable.map((r) => `"${r}"`).join(", ")}`,
          { field, details: { regions: incapable } }
        )
      )
}

const policyRule = (policy: RegionPolicy, regions: ReadonlyArray<string>): Violation | undefined =>
  typeof policy === "object" && policy.count > regions.length
    ? violation(
        "VALIDATION_FAILED",
        "region_policy",
        `region_policy count ${policy.count} exceeds the monitor's ${regions.length} region(s)`,
        { count: policy.count, regions: regions.length }
      )
    : undefined

/**
 * A create body as the target to store, every default filled in, or the first rule it breaks. A probe monitor
 * created without `regions` probes from `defaultRegions` (the instance's `checker.default_regions`); a heartbeat or
 * manual monitor is evaluated by the service itself and is stored with `["local"]` whatever that setting says.
 *
 * @since 0.1.0
 * @category resolution
 */
export const resolveCreate = (
  input: CreateTarget,
  plan: Plan.Plan,
  defaultRegions: ReadonlyArray<string> = serviceRegions
): Either.Either<ResolvedTarget, Violation> => {
  const kind = input.check.type
  // A region named twice is one probe region, and a count policy must compare with distinct regions.
  const regions = unique(input.regions ?? (localOnly(kind) ? serviceRegions : defaultRegions))
  const resolved: ResolvedTarget = {
    name: input.name,
    check: input.check,
    interval: input.interval ?? defaultInterval(input.check, plan),
    enabled: input.enabled ?? true,
    tags: unique(input.tags ?? []),
    group: input.group ?? null,
    alerts: input.alerts ?? [],
    // The spec stores a manual monitor's confirmations as 1 whatever a create says (a person sets its state).
    alert_confirmations: kind === "manual" ? 1 : (input.alert_confirmations ?? 2),
    notify_recovery: input.notify_recovery ?? true,
    renotify_interval_secs: input.renotify_interval_secs ?? 3600,
    recovery_period_secs: input.recovery_period_secs ?? defaultRecoveryPeriod(kind),
    region_policy: input.region_policy ?? "majority",
    regions,
    escalation_policy_id: input.escalation_policy_id?.toLowerCase() ?? null
  }
  const broken = first(
    () => checkRules(resolved.check, plan, true),
    () => intervalRules(resolved.check, resolved.interval, plan),
    () => recoveryRule(kind, resolved.recovery_period_secs),
    () => renotifyRule(resolved.renotify_interval_secs),
    // Judged on what the body sends: the default set a heartbeat is stored with is no assignment.
    () => (input.regions === undefined ? undefined : regionAssignment(kind)),
    () => policyRule(resolved.region_policy, resolved.regions)
  )
  return broken === undefined ? Either.right(resolved) : Either.left(broken)
}

// A PATCH that brings a new heartbeat check but no interval keeps the stored interval unless the new window's
// cadence is finer: then the interval follows the cadence, so the check alone can shrink the window.
const patchedInterval = (stored: ResolvedTarget, patch: PatchTarget, check: CheckSpec, plan: Plan.Plan): number => {
  if (patch.interval !== undefined) return patch.interval
  if (patch.check === undefined || check.type !== "heartbeat") return stored.interval
  return Math.min(stored.interval, heartbeatCadence(check.period, check.grace, plan))
}

/**
 * A PATCH applied to a stored target, or the first rule it breaks. Only what the PATCH sends is judged, so a
 * target stored under an older plan is not refused for figures the caller did not touch.
 *
 * @since 0.1.0
 * @category resolution
 */
export const resolvePatch = (
  stored: ResolvedTarget,
  patch: PatchTarget,
  plan: Plan.Plan
): Either.Either<ResolvedTarget, Violation> => {
  const kind = stored.check.type
  if (patch.check !== undefined && patch.check.type !== kind) {
    return Either.left(
      violation("CHECK_KIND_IMMUTABLE", "check.type", `the check type is fixed at creation (this monitor is ${kind})`, {
        stored: kind
      })
    )
  }
  const check = patch.check ?? stored.check
  const resolved: ResolvedTarget = {
    name: patch.name ?? stored.name,
    check,
    interval: patchedInterval(stored, patch, check, plan),
    enabled: patch.enabled ?? stored.enabled,
    tags: patch.tags === undefined ? stored.tags : unique(patch.tags),
    // null clears the group, so only an absent key keeps the stored one.
    group: patch.group === undefined ? stored.group : patch.group,
    alerts: patch.alerts ?? stored.alerts,
    alert_confirmations: patch.alert_confirmations ?? stored.alert_confirmations,
    notify_recovery: patch.notify_recovery ?? stored.notify_recovery,
    renotify_interval_secs: patch.renotify_interval_secs ?? stored.renotify_interval_secs,
    recovery_period_secs: patch.recovery_period_secs ?? stored.recovery_period_secs,
    region_policy: patch.region_policy ?? stored.region_policy,
    // Regions change through PUT /regions, never a PATCH.
    regions: stored.regions,
    // null unbinds, so only an absent key keeps the stored policy.
    escalation_policy_id:
      patch.escalation_policy_id === undefined
        ? stored.escalation_policy_id
        : (patch.escalation_policy_id?.toLowerCase() ?? null)
  }
  const broken = first(
    ifSent(patch.check, (next) => checkRules(next, plan, false)),
    ifSent(patch.interval, (interval) => intervalRules(check, interval, plan)),
    ifSent(patch.alert_confirmations, (confirmations) =>
      kind === "manual" && confirmations !== 1
        ? violation("INVALID_ALERT_CONFIG", "alert_confirmations", "a manual monitor's alert_confirmations is 1")
        : undefined
    ),
    ifSent(patch.recovery_period_secs, (period) => recoveryRule(kind, period)),
    ifSent(patch.renotify_interval_secs, renotifyRule),
    ifSent(patch.region_policy, (policy) => policyRule(policy, resolved.regions))
  )
  return broken === undefined ? Either.right(resolved) : Either.left(broken)
}

/**
 * A copy of a stored target (service-api.md "Duplicate rules"): everything of the source, with the copy's name and
 * check. Interval and regions are kept as stored even when the plan now allows less; the check is judged as on a
 * create (a flow source longer than the plan's steps is refused).
 *
 * @since 0.1.0
 * @category resolution
 */
export const resolveCopy = (
  source: ResolvedTarget,
  copy: { readonly name: string; readonly check: CheckSpec },
  plan: Plan.Plan
): Either.Either<ResolvedTarget, Violation> => {
  const broken = checkRules(copy.check, plan, true)
  return broken === undefined ? Either.right({ ...source, name: copy.name, check: copy.check }) : Either.left(broken)
}
