/**
 * The `oncall` group: an org's schedules and escalation policies (list, read, create, change, delete), who is on
 * call at an instant, the shifts of a window, and the org's default policy. Every route acts on the caller's org;
 * another org's schedule or policy answers the same 404 as one that does not exist. Writes pass the on-call gates
 * (`Gates`: the owner role and the plan's `on_call_enabled`) before anything is read.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import { DEFAULT_SHIFT_WINDOW_DAYS, MAX_SHIFT_WINDOW_DAYS } from "@signalman/core/api/OnCall"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg } from "../auth/Policy.js"
import { Plans } from "../limits/Plans.js"
import { EscalationPolicies } from "./EscalationPolicies.js"
import * as Gates from "./Gates.js"
import { Schedules } from "./Schedules.js"

const located = (path: string) =>
  HttpApp.appendPreResponseHandler((_, response) =>
    Effect.succeed(HttpServerResponse.setHeader(response, "location", path))
  )

/** The shifts window: `from` now unless given, `to` 14 days on unless given, after `from` and at most 90 days on. */
const window = (query: { readonly from?: DateTime.Utc | undefined; readonly to?: DateTime.Utc | undefined }) =>
  Effect.gen(function* () {
    const from = query.from ?? (yield* DateTime.now)
    const to = query.to ?? DateTime.add(from, { days: DEFAULT_SHIFT_WINDOW_DAYS })
    if (!DateTime.lessThan(from, to)) {
      return yield* Effect.fail(ApiError.make("VALIDATION_FAILED", "to must be after from", { field: "to" }))
    }
    if (DateTime.greaterThan(to, DateTime.add(from, { days: MAX_SHIFT_WINDOW_DAYS }))) {
      return yield* Effect.fail(
        ApiError.make("VALIDATION_FAILED", `A window of shifts is at most ${MAX_SHIFT_WINDOW_DAYS} days`, {
          field: "to",
          details: { max_days: MAX_SHIFT_WINDOW_DAYS }
        })
      )
    }
    return { from, to }
  })

export const layer = HttpApiBuilder.group(SignalmanApi, "oncall", (handlers) =>
  Effect.gen(function* () {
    const schedules = yield* Schedules
    const policies = yield* EscalationPolicies
    const plans = yield* Plans

    /** The org a write acts on, once the caller has passed the on-call gates; and who is writing. */
    const writer = Effect.gen(function* () {
      const caller = yield* Caller
      const org = yield* requireOrg
      yield* Gates.check(caller.credential, org.role, yield* plans.forAccount(org.accountId))
      return { org, userId: caller.user.id }
    })

    return handlers
      .handle("listSchedules", ({ urlParams }) =>
        Effect.gen(function* () {
          const page = yield* schedules.list(yield* requireOrg, urlParams.limit, urlParams.offset)
          return { ...page, limit: urlParams.limit, offset: urlParams.offset }
        })
      )
      .handle("createSchedule", ({ payload }) =>
        Effect.gen(function* () {
          const { org, userId } = yield* writer
          const created = yield* schedules.create(org, userId, payload)
          yield* located(`/api/v1/oncall/schedules/${created.id}`)
          return created
        })
      )
      .handle("getSchedule", ({ path }) => Effect.flatMap(requireOrg, (org) => schedules.get(org, path.id)))
      .handle("updateSchedule", ({ path, payload }) =>
        Effect.flatMap(writer, ({ org }) => schedules.update(org, path.id, payload))
      )
      .handle("deleteSchedule", ({ path }) => Effect.flatMap(writer, ({ org }) => schedules.remove(org, path.id)))
      .handle("onCall", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          return yield* schedules.onCall(org, path.id, urlParams.at ?? (yield* DateTime.now))
        })
      )
      .handle("shifts", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const { from, to } = yield* window(urlParams)
          return yield* schedules.shifts(org, path.id, from, to)
        })
      )
      .handle("listPolicies", ({ urlParams }) =>
        Effect.gen(function* () {
          const page = yield* policies.list(yield* requireOrg, urlParams.limit, urlParams.offset)
          return { ...page, limit: urlParams.limit, offset: urlParams.offset }
        })
      )
      .handle("createPolicy", ({ payload }) =>
        Effect.gen(function* () {
          const { org, userId } = yield* writer
          const created = yield* policies.create(org, userId, payload)
          yield* located(`/api/v1/oncall/escalation-policies/${created.id}`)
          return created
        })
      )
      .handle("getPolicy", ({ path }) => Effect.flatMap(requireOrg, (org) => policies.get(org, path.id)))
      .handle("updatePolicy", ({ path, payload }) =>
        Effect.flatMap(writer, ({ org }) => policies.update(org, path.id, payload))
      )
      .handle("deletePolicy", ({ path }) => Effect.flatMap(writer, ({ org }) => policies.remove(org, path.id)))
      .handle("getDefaultPolicy", () => Effect.flatMap(requireOrg, (org) => policies.defaultPolicy(org)))
      .handle("setDefaultPolicy", ({ payload }) =>
        Effect.flatMap(writer, ({ org }) => policies.setDefault(org, payload.escalation_policy_id))
      )
  })
).pipe(Layer.provide([Schedules.Default, EscalationPolicies.Default, Plans.Default, Authentication.layer]))
