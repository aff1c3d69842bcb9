/**
 * What a monitor must pass before it is stored, beyond its shape: the check's own rules (`Validation`), the rules
 * that need the plan (`TargetRules`), its alert bindings, its regions, and its escalation policy (the org's default
 * when a create names none; the on-call gates when a write changes it). One place, so a create, each item of a
 * bulk create, and each copy of a duplicate are judged alike.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg, CallerShape } from "@signalman/core/api/Authentication"
import type * as Plan from "@signalman/core/Plan"
import * as PlanLimits from "@signalman/core/PlanLimits"
import type { CreateTarget } from "@signalman/core/Target"
import * as TargetRules from "@signalman/core/TargetRules"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import { Abuse } from "../abuse/Abuse.js"
import { AppConfig } from "../config/Config.js"
import { QuotaEvents } from "../limits/Quota.js"
import * as Gates from "../oncall/Gates.js"
import type { Variables } from "../variables/Variables.js"
import { TargetsRepo } from "./Repo.js"
import * as Validation from "./Validation.js"

/** The regions a write may name: the enabled ones, and those of them whose agents can run a browser flow. */
export interface RegionIndex {
  readonly enabled: ReadonlySet<string>
  readonly flowCapable: ReadonlySet<string>
}

/**
 * A region refusal for regions the body did not send: they came from `checker.default_regions`, so the answer says
 * so instead of pointing at an index of a list the caller never wrote.
 */
const fromDefaults = <E extends ApiError.ApiError>(error: E): E | ApiError.ErrorOf<422> =>
  error.code === "REGION_INVALID"
    ? ApiError.make(
        "REGION_INVALID",
        `${error.message}: it is one of this instance's default regions (setting checker.default_regions); send regions`,
        { field: "regions" }
      )
    : error

/** Who is writing, and under which plan. */
export interface Writer {
  readonly org: ActiveOrg
  readonly plan: Plan.Plan
  readonly userId: string
  /** How the caller signed in: binding an escalation policy asks a token for `oncall:write` (`oncall/Gates`). */
  readonly credential: CallerShape["credential"]
}

export class Admission extends Effect.Service<Admission>()("Signalman/TargetAdmission", {
  effect: Effect.gen(function* () {
    const repo = yield* TargetsRepo
    const quotaEvents = yield* QuotaEvents
    const config = yield* AppConfig
    const abuse = yield* Abuse
    const allowPrivate = config["checker.allow_private_targets"]
    const defaultRegions = config["checker.default_regions"]

    /** The enabled regions, and which of them can run a browser: read once per request however many targets. */
    const enabledRegions = Effect.map(
      repo.capabilities,
      (rows): RegionIndex => ({
        enabled: new Set(rows.map((r) => r.id)),
        flowCapable: new Set(rows.filter((r) => r.flow_capable).map((r) => r.id))
      })
    )

    // Regions must exist and be enabled; more than the plan allows is QUOTA_EXCEEDED.
    const checkRegions = (writer: Writer, regions: ReadonlyArray<string>, index: RegionIndex) =>
      Effect.gen(function* () {
        const unknown = regions.findIndex((r) => !index.enabled.has(r))
        if (unknown !== -1) {
          return yield* Effect.fail(
            ApiError.make("REGION_INVALID", `No enabled region ${regions[unknown]}`, { field: `regions[${unknown}]` })
          )
        }
        if (!PlanLimits.fits(writer.plan, "max_regions", 0, regions.length)) {
          return yield* quotaEvents.refuse({
            plan: writer.plan,
            accountId: writer.org.accountId,
            userId: writer.userId,
            quota: "max_regions",
            current: regions.length
          })
        }
      })

    // Each binding names a channel of the org, once.
    const checkAlerts = (
      org: ActiveOrg,
      alerts: ReadonlyArray<{ readonly channel_id: string }>
    ): Effect.Effect<void, ApiError.ApiError> =>
      Effect.gen(function* () {
        if (alerts.length === 0) return
        const ids = alerts.map((binding) => binding.channel_id.toLowerCase())
        const twice = ids.findIndex((channelId, i) => ids.indexOf(channelId) !== i)
        if (twice !== -1) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", `alerts[${ids.indexOf(ids[twice] ?? "")}] binds this channel already`, {
              field: `alerts[${twice}].channel_id`
            })
          )
        }
        const found = yield* repo.channelIds(org.id, ids)
        const unknown = ids.findIndex((channelId) => !found.has(channelId))
        if (unknown !== -1) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", "No such notification channel in this org", {
              field: `alerts[${unknown}].channel_id`
            })
          )
        }
      })

    /** The org's default escalation policy, which a create that names none takes (read once per request). */
    const defaultPolicy = (org: ActiveOrg) => repo.defaultPolicy(org.id)

    /** The policy names one of the org's (400 VALIDATION_FAILED on `escalation_policy_id` otherwise). */
    const checkPolicy = (org: ActiveOrg, id: string | null) =>
      Effect.gen(function* () {
        if (id === null || (yield* repo.policyIds(org.id, [id])).has(id)) return
        return yield* Effect.fail(
          ApiError.make("VALIDATION_FAILED", "No escalation policy of this org has this id", {
            field: "escalation_policy_id"
          })
        )
      })

    /**
     * A monitor's policy changing from `current` to `wanted` (both lower case): binding or unbinding one is an
     * on-call write, so the caller must pass the on-call gates (refusals name `escalation_policy_id`); keeping
     * what it would be anyway asks nothing, so a monitor read and sent back unchanged is no on-call write.
     */
    const changePolicy = (writer: Writer, current: string | null, wanted: string | null) =>
      wanted === current
        ? Effect.void
        : Effect.zipRight(
            Gates.check(writer.credential, writer.org.role, writer.plan, "escalation_policy_id"),
            checkPolicy(writer.org, wanted)
          )

    /** A create body as the target to store, or the first rule it breaks (fields relative to the body). */
    const create = (
      writer: Writer,
      body: CreateTarget,
      index: RegionIndex,
      fallbackPolicy: string | null
    ): Effect.Effect<TargetRules.ResolvedTarget, ApiError.ApiError, Variables> =>
      Effect.gen(function* () {
        yield* Validation.checkSpec(body.check, allowPrivate, writer.org.id)
        yield* abuse.check(body.check)
        const resolved = TargetRules.resolveCreate(body, writer.plan, defaultRegions)
        if (Either.isLeft(resolved)) return yield* Effect.fail(Validation.toApiError(resolved.left))
        yield* checkAlerts(writer.org, resolved.right.alerts)
        yield* checkRegions(writer, resolved.right.regions, index).pipe(
          Effect.mapError((error) => (body.regions === undefined ? fromDefaults(error) : error))
        )
        const unplaced = TargetRules.placement(
          body.check.type,
          resolved.right.regions,
          (r) => index.flowCapable.has(r),
          "regions"
        )
        if (Option.isSome(unplaced)) return yield* Effect.fail(unplaced.value)
        // Omitted, the org's default; named (or null), an on-call write unless it is the default anyway.
        if (body.escalation_policy_id === undefined) return { ...resolved.right, escalation_policy_id: fallbackPolicy }
        yield* changePolicy(writer, fallbackPolicy, resolved.right.escalation_policy_id)
        return resolved.right
      })

    /** Many create bodies, all or none: the first refusal names its item (`targets[i].check.url`). */
    const createMany = (writer: Writer, bodies: ReadonlyArray<CreateTarget>) =>
      Effect.gen(function* () {
        const index = yield* enabledRegions
        const fallback = yield* defaultPolicy(writer.org)
        return yield* Effect.forEach(bodies, (body, i) =>
          create(writer, body, index, fallback).pipe(Effect.mapError((e) => ApiError.underField(e, `targets[${i}].`)))
        )
      })

    return {
      allowPrivate,
      abuse,
      enabledRegions,
      checkRegions,
      checkAlerts,
      defaultPolicy,
      changePolicy,
      create,
      createMany
    }
  }),
  dependencies: [TargetsRepo.Default, QuotaEvents.Default]
}) {}
