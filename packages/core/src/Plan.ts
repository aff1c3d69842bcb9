/**
 * Plans: the quotas, per-minute rate budgets and feature flags of each (auth-and-limits.md, "Limits"). The account
 * is the quota subject; a per-account override may raise any figure.
 *
 * @since 0.1.0
 */
import * as Schema from "effect/Schema"

/**
 * @since 0.1.0
 * @category models
 */
export const PlanId = Schema.Literal("free", "founding", "pro")

/**
 * @since 0.1.0
 * @category models
 */
export type PlanId = typeof PlanId.Type

/**
 * Every quota of the spec's table.
 *
 * @since 0.1.0
 * @category models
 */
export const quotaNames = [
  "max_orgs",
  "max_targets",
  "min_check_interval_secs",
  "retention_days",
  "raw_days",
  "evidence_days",
  "max_flow_steps",
  "max_flow_checks",
  "max_regions",
  "max_members",
  "max_pending_invitations",
  "max_api_tokens_per_user",
  "max_status_pages",
  "max_public_components",
  "max_share_links_per_monitor",
  "max_shared_monitors",
  "max_maintenance_windows",
  "max_notification_channels",
  "max_escalation_policies",
  "max_on_call_schedules",
  "max_logo_size_bytes"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export type QuotaName = (typeof quotaNames)[number]

/**
 * The per-minute rate budgets on the plan (`support` is fixed, outside the plan).
 *
 * @since 0.1.0
 * @category models
 */
export const rateNames = [
  "api_writes_per_minute",
  "api_reads_per_minute",
  "bulk_ops_per_minute",
  "test_now_per_minute",
  "check_now_per_minute"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export type RateName = (typeof rateNames)[number]

/**
 * @since 0.1.0
 * @category models
 */
export const flagNames = [
  "custom_domain_enabled",
  "white_label_enabled",
  "sms_alerts_enabled",
  "incident_narration_enabled",
  "on_call_enabled",
  "private_pages_enabled"
] as const

/**
 * @since 0.1.0
 * @category models
 */
export type FlagName = (typeof flagNames)[number]

/**
 * @since 0.1.0
 * @category models
 */
export interface Plan {
  readonly id: PlanId
  readonly name: string
  /** Offered to new customers (only free is listed; founding is kept for life by early accounts). */
  readonly listed: boolean
  readonly quotas: { readonly [K in QuotaName]: number }
  readonly rates: { readonly [K in RateName]: number }
  readonly flags: { readonly [K in FlagName]: boolean }
}

/**
 * The seeded plans, figures from the spec's tables. Where the spec shows no value (feature flags other than
 * private pages, `max_regions` beyond one figure) the choices are in docs/decisions.md.
 *
 * @since 0.1.0
 * @category constants
 */
export const plans: { readonly [K in PlanId]: Plan } = {
  free: {
    id: "free",
    name: "Free",
    listed: true,
    quotas: {
      max_orgs: 1,
      max_targets: 20,
      min_check_interval_secs: 180,
      retention_days: 30,
      raw_days: 30,
      evidence_days: 7,
      max_flow_steps: 30,
      max_flow_checks: 0,
      max_regions: 3,
      max_members: 3,
      max_pending_invitations: 10,
      max_api_tokens_per_user: 5,
      max_status_pages: 1,
      max_public_components: 15,
      max_share_links_per_monitor: 1,
      max_shared_monitors: 2,
      max_maintenance_windows: 20,
      max_notification_channels: 20,
      max_escalation_policies: 10,
      max_on_call_schedules: 5,
      max_logo_size_bytes: 1_048_576
    },
    rates: {
      api_writes_per_minute: 600,
      api_reads_per_minute: 6000,
      bulk_ops_per_minute: 30,
      test_now_per_minute: 60,
      check_now_per_minute: 60
    },
    flags: {
      custom_domain_enabled: false,
      white_label_enabled: false,
      sms_alerts_enabled: false,
      incident_narration_enabled: false,
      on_call_enabled: false,
      private_pages_enabled: false
    }
  },
  founding: {
    id: "founding",
    name: "Founding",
    listed: false,
    quotas: {
      max_orgs: 3,
      max_targets: 50,
      min_check_interval_secs: 60,
      retention_days: 90,
      raw_days: 30,
      evidence_days: 7,
      max_flow_steps: 30,
      max_flow_checks: 0,
      max_regions: 3,
      max_members: 5,
      max_pending_invitations: 15,
      max_api_tokens_per_user: 7,
      max_status_pages: 2,
      max_public_components: 30,
      max_share_links_per_monitor: 3,
      max_shared_monitors: 5,
      max_maintenance_windows: 30,
      max_notification_channels: 30,
      max_escalation_policies: 10,
      max_on_call_schedules: 5,
      max_logo_size_bytes: 1_048_576
    },
    rates: {
      api_writes_per_minute: 900,
      api_reads_per_minute: 9000,
      bulk_ops_per_minute: 45,
      test_now_per_minute: 90,
      check_now_per_minute: 90
    },
    flags: {
      custom_domain_enabled: true,
      white_label_enabled: false,
      sms_alerts_enabled: false,
      incident_narration_enabled: true,
      on_call_enabled: false,
      private_pages_enabled: true
    }
  },
  pro: {
    id: "pro",
    name: "Pro",
    listed: false,
    quotas: {
      max_orgs: 5,
      max_targets: 150,
      min_check_interval_secs: 30,
      retention_days: 395,
      raw_days: 30,
      evidence_days: 7,
      max_flow_steps: 30,
      max_flow_checks: 0,
      max_regions: 3,
      max_members: 15,
      max_pending_invitations: 25,
      max_api_tokens_per_user: 10,
      max_status_pages: 5,
      max_public_components: 75,
      max_share_links_per_monitor: 5,
      max_shared_monitors: 10,
      max_maintenance_windows: 50,
      max_notification_channels: 50,
      max_escalation_policies: 50,
      max_on_call_schedules: 25,
      max_logo_size_bytes: 1_048_576
    },
    rates: {
      api_writes_per_minute: 1200,
      api_reads_per_minute: 12000,
      bulk_ops_per_minute: 60,
      test_now_per_minute: 120,
      check_now_per_minute: 120
    },
    flags: {
      custom_domain_enabled: true,
      white_label_enabled: true,
      sms_alerts_enabled: true,
      incident_narration_enabled: true,
      on_call_enabled: true,
      private_pages_enabled: true
    }
  }
}

/**
 * Figures an account override raises (only numbers: a flag is raised by giving the account a plan that has it).
 *
 * @since 0.1.0
 * @category models
 */
export const Overrides = Schema.Struct(
  Object.fromEntries(
    [...quotaNames, ...rateNames].map((name) => [name, Schema.optional(Schema.Int.pipe(Schema.positive()))])
  ) as {
    readonly [K in QuotaName | RateName]: Schema.optional<Schema.filter<typeof Schema.Int>>
  }
)

/**
 * @since 0.1.0
 * @category models
 */
export type Overrides = typeof Overrides.Type

/**
 * The figures in force: the plan's, raised by any override. An override never lowers a figure, so an operator's
 * typo cannot lock a customer out of what they pay for.
 *
 * @since 0.1.0
 * @category combinators
 */
export const effective = (plan: Plan, overrides: Overrides): Plan => {
  const raise = (name: QuotaName | RateName, value: number): number => {
    const override = overrides[name]
    // A lower override wins only for the interval floor, where "raising the allowance" means a smaller floor.
    if (override === undefined) return value
    return name === "min_check_interval_secs" ? Math.min(value, override) : Math.max(value, override)
  }
  return {
    ...plan,
    quotas: Object.fromEntries(quotaNames.map((q) => [q, raise(q, plan.quotas[q])])) as Plan["quotas"],
    rates: Object.fromEntries(rateNames.map((r) => [r, raise(r, plan.rates[r])])) as Plan["rates"]
  }
}
