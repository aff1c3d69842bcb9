/**
 * The plan's answer to a write: whether a quota has room, the `QUOTA_EXCEEDED` error in the spec's shape, and
 * the feature gates with their codes (auth-and-limits.md "Plans", service-api.md's error table). Pure: the
 * service loads the count under the account's lock, asks here, and logs the refusal it is given.
 *
 * @since 0.1.0
 */
import * as Option from "effect/Option"
import * as ApiError from "./ApiError.js"
import type * as Plan from "./Plan.js"

/**
 * The codes a quota refusal may carry: `QUOTA_EXCEEDED` (422), or the spec's own code for two quotas:
 * `OWNER_ORG_LIMIT` (422, restoring an account whose orgs no longer fit) and `INVITATIONS_LIMIT` (409, the
 * account's pending invitations).
 *
 * @since 0.1.0
 * @category models
 */
export type QuotaCode = "QUOTA_EXCEEDED" | "OWNER_ORG_LIMIT" | "INVITATIONS_LIMIT"

/**
 * A refusal at a quota: what the error says, and what the quota-event log records.
 *
 * @since 0.1.0
 * @category models
 */
export interface QuotaRefusal {
  readonly quota: Plan.QuotaName
  readonly current: number
  readonly limit: number
  readonly error: ApiError.ErrorOf<422> | ApiError.ErrorOf<409>
}

/**
 * The error for a quota that is reached: `field` null, `details` naming the quota with its current count,
 * limit and plan (and how many a bulk write asked for at once, when it asked for more than one).
 *
 * @since 0.1.0
 * @category constructors
 */
export const exceeded = (
  plan: Plan.Plan,
  quota: Plan.QuotaName,
  current: number,
  options?: { readonly requested?: number | undefined; readonly code?: QuotaCode | undefined }
): QuotaRefusal => {
  const limit = plan.quotas[quota]
  const requested = options?.requested
  return {
    quota,
    current,
    limit,
    error: ApiError.make(
      options?.code ?? "QUOTA_EXCEEDED",
      `The ${quota} quota of the ${plan.id} plan is reached (${current} of ${limit})`,
      {
        details: {
          quota,
          current,
          limit,
          plan: plan.id,
          ...(requested === undefined || requested <= 1 ? {} : { requested })
        }
      }
    )
  }
}

/**
 * Whether `adding` more (one by default) fit under a quota with `current` in use: the one comparison every quota
 * check makes, inside the transaction that counted `current`.
 *
 * @since 0.1.0
 * @category rules
 */
export const fits = (plan: Plan.Plan, quota: Plan.QuotaName, current: number, adding = 1): boolean =>
  current + adding <= plan.quotas[quota]

/**
 * Whether `adding` more fit under a quota with `current` in use; the refusal when they do not.
 *
 * @since 0.1.0
 * @category rules
 */
export const room = (
  plan: Plan.Plan,
  quota: Plan.QuotaName,
  current: number,
  adding = 1,
  code?: QuotaCode
): Option.Option<QuotaRefusal> =>
  fits(plan, quota, current, adding)
    ? Option.none()
    : Option.some(exceeded(plan, quota, current, { requested: adding, code }))

/**
 * The features a plan switches on or off, each refused with its own code.
 *
 * @since 0.1.0
 * @category models
 */
export type Feature =
  | "flow_checks"
  | "sms_alerts"
  | "incident_narration"
  | "custom_domain"
  | "white_label"
  | "private_pages"
  | "on_call"

const features: {
  readonly [F in Feature]: {
    readonly allowed: (plan: Plan.Plan) => boolean
    readonly code:
      | "FLOW_CHECKS_DISABLED"
      | "SMS_ALERTS_DISABLED"
      | "INCIDENT_NARRATION_DISABLED"
      | "CUSTOM_DOMAIN_DISABLED"
      | "WHITE_LABEL_DISABLED"
      | "PRIVATE_PAGES_DISABLED"
      | "ON_CALL_DISABLED"
    readonly what: string
    readonly details: (plan: Plan.Plan) => Record<string, unknown>
  }
} = {
  // Flows are a quota, not a flag: a cap of 0 switches the kind off (service-api.md, "flow").
  flow_checks: {
    allowed: (plan) => plan.quotas.max_flow_checks > 0,
    code: "FLOW_CHECKS_DISABLED",
    what: "Browser flows are",
    details: (plan) => ({ quota: "max_flow_checks", limit: plan.quotas.max_flow_checks, plan: plan.id })
  },
  sms_alerts: {
    allowed: (plan) => plan.flags.sms_alerts_enabled,
    code: "SMS_ALERTS_DISABLED",
    what: "SMS alerts are",
    details: (plan) => ({ flag: "sms_alerts_enabled", plan: plan.id })
  },
  incident_narration: {
    allowed: (plan) => plan.flags.incident_narration_enabled,
    code: "INCIDENT_NARRATION_DISABLED",
    what: "Public incident narration is",
    details: (plan) => ({ flag: "incident_narration_enabled", plan: plan.id })
  },
  custom_domain: {
    allowed: (plan) => plan.flags.custom_domain_enabled,
    code: "CUSTOM_DOMAIN_DISABLED",
    what: "Custom domains are",
    details: (plan) => ({ flag: "custom_domain_enabled", plan: plan.id })
  },
  white_label: {
    allowed: (plan) => plan.flags.white_label_enabled,
    code: "WHITE_LABEL_DISABLED",
    what: "Hiding the powered-by badge is",
    details: (plan) => ({ flag: "white_label_enabled", plan: plan.id })
  },
  private_pages: {
    allowed: (plan) => plan.flags.private_pages_enabled,
    code: "PRIVATE_PAGES_DISABLED",
    what: "Private status pages are",
    details: (plan) => ({ flag: "private_pages_enabled", plan: plan.id })
  },
  on_call: {
    allowed: (plan) => plan.flags.on_call_enabled,
    code: "ON_CALL_DISABLED",
    what: "On-call schedules and escalation policies are",
    details: (plan) => ({ flag: "on_call_enabled", plan: plan.id })
  }
}

/**
 * Whether the plan includes a feature.
 *
 * @since 0.1.0
 * @category rules
 */
export const includes = (plan: Plan.Plan, feature: Feature): boolean => features[feature].allowed(plan)

/**
 * What a refusal of a feature says: its code, message and details (the plan and the flag or quota that switches it).
 *
 * @since 0.1.0
 * @category rules
 */
export const refusal = (plan: Plan.Plan, feature: Feature) => {
  const f = features[feature]
  return { code: f.code, message: `${f.what} not part of the ${plan.name} plan`, details: f.details(plan) } as const
}

/**
 * The 403 for a feature the plan does not include, on the field that asked for it; none when it does.
 *
 * @since 0.1.0
 * @category rules
 */
export const gate = (
  plan: Plan.Plan,
  feature: Feature,
  field: string | null = null
): Option.Option<ApiError.ErrorOf<403>> => {
  if (includes(plan, feature)) return Option.none()
  const { code, message, details } = refusal(plan, feature)
  return Option.some(ApiError.make(code, message, { field, details }))
}
