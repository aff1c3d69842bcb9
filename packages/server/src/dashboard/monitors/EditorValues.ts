/**
 * What the monitor form shows in its fields: a new monitor's opening values per kind, or a stored monitor's as the
 * API answers it (`toTarget`, credentials redacted). Defaults are the API's own: the check's from decoding a seed
 * through core's `CheckSpec` (so `timeout`, `warn_days`, `method`... are what a create without them stores), the
 * interval and recovery period from `TargetRules`, the rest as `TargetRules.resolveCreate` fills them. The fields a
 * person must fill (a URL, a host, a port) open empty, which a check's type cannot say, hence the draft type.
 */
import { type CheckKind, CheckSpec, type ExpectedStatus, type FlowStep } from "@signalman/core/CheckSpec"
import type * as Plan from "@signalman/core/Plan"
import { REDACTED, type RegionPolicy, type Target } from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"

type Draft<C> = { readonly [K in keyof C]: K extends "type" ? C[K] : C[K] | undefined }

/** A check as the form holds it: one kind's fields, any of them still empty. */
export type CheckDraft = CheckSpec extends infer C ? (C extends CheckSpec ? Draft<C> : never) : never

/** The form's values: a target's writable fields, the check a draft, the interval empty where a rule derives it. */
export interface MonitorValues {
  readonly name: string
  readonly check: CheckDraft
  /** Undefined: left to the service (a new heartbeat's interval follows its period and grace). */
  readonly interval: number | undefined
  readonly enabled: boolean
  readonly tags: ReadonlyArray<string>
  readonly group: string | null
  /** The bound channels' ids. */
  readonly alerts: ReadonlyArray<string>
  /** The escalation policy bound: null none; undefined (a new monitor) the org's default, as a create leaves it. */
  readonly escalation_policy_id: string | null | undefined
  readonly alert_confirmations: number
  readonly notify_recovery: boolean
  readonly renotify_interval_secs: number
  readonly recovery_period_secs: number
  readonly region_policy: RegionPolicy
  readonly regions: ReadonlyArray<string>
}

// A heartbeat opens expecting a daily job with an hour's grace (the common case, and Healthchecks.io's opening
// figures); flows open with the one assert step every flow must carry.
const openingPeriod = 86400
const openingGrace = 3600
const openingStep: FlowStep = { action: "assert_text", text: "", selector: null }

const decodeCheck = Schema.decodeUnknownSync(CheckSpec)

/** A valid check of the kind, decoded so the schema fills every default; address fields are emptied after. */
const seed = (kind: CheckKind): CheckSpec => {
  switch (kind) {
    case "http":
      return decodeCheck({ type: kind, url: "-" })
    case "tcp":
      return decodeCheck({ type: kind, host: "-", port: 1 })
    case "ping":
      return decodeCheck({ type: kind, host: "-" })
    case "dns":
      return decodeCheck({ type: kind, domain: "-", record_type: "A" })
    case "tls_cert":
      return decodeCheck({ type: kind, host: "-" })
    case "domain_expiry":
      return decodeCheck({ type: kind, domain: "-" })
    case "flow":
      return decodeCheck({ type: kind, start_url: "-", steps: [{ action: "assert_text", text: "-" }] })
    case "heartbeat":
      return decodeCheck({ type: kind, period: openingPeriod, grace: openingGrace })
    case "manual":
      return decodeCheck({ type: kind })
  }
}

/** The check a new monitor of the kind opens with: the schema's defaults, what a person must give left empty. */
export const openingCheck = (kind: CheckKind): CheckDraft => {
  const check = seed(kind)
  switch (check.type) {
    case "http":
      return { ...check, url: undefined }
    case "tcp":
      return { ...check, host: undefined, port: undefined }
    case "ping":
    case "tls_cert":
      return { ...check, host: undefined }
    case "dns":
    case "domain_expiry":
      return { ...check, domain: undefined }
    case "flow":
      return { ...check, start_url: undefined, steps: [openingStep] }
    case "heartbeat":
    case "manual":
      return check
  }
}

/**
 * A new monitor's values: the kind's opening check and the defaults a create without those fields gets on this plan
 * (`defaultRegions`: the instance's `checker.default_regions`, for kinds that run on probes).
 */
export const forNew = (kind: CheckKind, plan: Plan.Plan, defaultRegions: ReadonlyArray<string>): MonitorValues => {
  const probed = kind !== "heartbeat" && kind !== "manual"
  return {
    name: "",
    check: openingCheck(kind),
    // A heartbeat's is derived from its period and grace, which the person is about to choose.
    interval: kind === "heartbeat" ? undefined : TargetRules.defaultInterval(seed(kind), plan),
    enabled: true,
    tags: [],
    group: null,
    alerts: [],
    escalation_policy_id: undefined,
    alert_confirmations: kind === "manual" ? 1 : 2,
    notify_recovery: true,
    renotify_interval_secs: 3600,
    recovery_period_secs: TargetRules.defaultRecoveryPeriod(kind),
    region_policy: "majority",
    regions: probed ? defaultRegions : []
  }
}

/** A stored monitor's values, from the API's answer (its check redacted, decoded as the schema reads it). */
export const fromTarget = (target: Target) =>
  Effect.map(
    Schema.decodeUnknown(CheckSpec)(target.check),
    (check): MonitorValues => ({
      name: target.name,
      check,
      interval: target.interval,
      enabled: target.enabled,
      tags: target.tags,
      group: target.group,
      alerts: target.alerts.map((binding) => binding.channel_id),
      escalation_policy_id: target.escalation_policy_id,
      alert_confirmations: target.alert_confirmations,
      notify_recovery: target.notify_recovery,
      renotify_interval_secs: target.renotify_interval_secs,
      recovery_period_secs: target.recovery_period_secs,
      region_policy: target.region_policy,
      regions: target.regions
    })
  )

/** Whether a stored credential sits behind the redaction sentinel (it is never shown, only kept or replaced). */
export const isRedacted = (value: unknown): boolean => value === REDACTED

/** `"2xx"`, `200` or `[200, 204]` as the one text field shows it. */
export const expectedStatusText = (value: ExpectedStatus | undefined): string =>
  value === undefined ? "" : typeof value === "object" ? value.join(", ") : String(value)

/** Headers as the text field shows them: one `Name: value` per line. */
export const headersText = (headers: Readonly<Record<string, string>> | undefined): string =>
  Object.entries(headers ?? {})
    .map(([name, value]) => `${name}: ${value}`)
    .join("\n")
