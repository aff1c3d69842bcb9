/**
 * The `incidents` group: list, detail, declare, narrate, updates, acknowledge, resolve, the delivery log, the
 * postmortem and the response metrics. Every route acts on the caller's org; an incident of another org answers the
 * same 404 as one that does not exist. A monitor's incident periods are answered by the targets group through
 * `TargetPeriods.ts`.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import type { AccountId } from "@signalman/core/Identity"
import * as IncidentNarration from "@signalman/core/IncidentNarration"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg } from "../auth/Policy.js"
import { Plans } from "../limits/Plans.js"
import { CallerIncidents } from "./CallerIncidents.js"
import { Incidents, notFound } from "./Incidents.js"
import { DeliveryLog } from "./Seams.js"
import * as Writing from "./Writing.js"

const METRICS_DEFAULT_DAYS = 30

export const layer = HttpApiBuilder.group(SignalmanApi, "incidents", (handlers) =>
  Effect.gen(function* () {
    const incidents = yield* Incidents
    const callerIncidents = yield* CallerIncidents
    const deliveries = yield* DeliveryLog
    const plans = yield* Plans

    const planOf = (accountId: AccountId) => plans.forAccount(accountId)

    return handlers
      .handle("list", ({ urlParams }) => callerIncidents.list(urlParams))
      .handle("metrics", ({ urlParams }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const now = yield* DateTime.now
          const to = urlParams.to ?? now
          const from = urlParams.from ?? DateTime.subtract(to, { days: METRICS_DEFAULT_DAYS })
          if (!DateTime.lessThan(from, to)) {
            return yield* Effect.fail(ApiError.make("VALIDATION_FAILED", "from must be before to", { field: "from" }))
          }
          return yield* incidents.metrics(org.id, from, to, urlParams.target_id)
        })
      )
      .handle("declare", ({ payload }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const caller = yield* Caller
          const plan = yield* planOf(org.accountId)
          const gated = IncidentNarration.planGate(plan, {
            _tag: "Fields",
            fields: { public_title: payload.public_title, message: payload.message }
          })
          if (Option.isSome(gated)) return yield* Effect.fail(gated.value)
          const id = yield* incidents.declare(org.id, caller.user.id, payload)
          yield* HttpApp.appendPreResponseHandler((_, response) =>
            Effect.succeed(HttpServerResponse.setHeader(response, "location", `/api/v1/incidents/${id}`))
          )
          return yield* callerIncidents.detailOr404(org.id, id)
        })
      )
      .handle("get", ({ path }) => callerIncidents.detail(path.id))
      .handle("update", ({ path, payload }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const plan = yield* planOf(org.accountId)
          const changed = yield* incidents.narrate(org.id, path.id, (row) => {
            const gated = IncidentNarration.planGate(plan, {
              _tag: "Fields",
              fields: { public_title: payload.public_title, public_description: payload.public_description }
            })
            if (Option.isSome(gated)) return Effect.fail(gated.value)
            const broken = IncidentNarration.checkPatch(row.origin, payload)
            return broken === undefined
              ? Effect.succeed(payload)
              : Effect.fail(ApiError.make(broken.code, broken.message, { field: broken.field }))
          })
          if (!changed) return yield* Effect.fail(notFound)
          return yield* callerIncidents.detailOr404(org.id, path.id)
        })
      )
      .handle("postUpdate", ({ path, payload }) => callerIncidents.postUpdate(path.id, payload))
      .handle("acknowledge", ({ path }) => callerIncidents.acknowledge(path.id))
      .handle("resolve", ({ path }) => callerIncidents.resolve(path.id))
      .handle("deliveries", ({ path }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          if ((yield* incidents.one(org.id, path.id)) === undefined) return yield* Effect.fail(notFound)
          return { data: yield* deliveries.forIncident(path.id) }
        })
      )
      .handle("postmortem", ({ path }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const postmortem = yield* incidents.postmortem(org.id, path.id)
          if (postmortem !== undefined) return postmortem
          const exists = (yield* incidents.one(org.id, path.id)) !== undefined
          return yield* Effect.fail(exists ? ApiError.make("NOT_FOUND", "No postmortem is written yet") : notFound)
        })
      )
      .handle("putPostmortem", ({ path, payload }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const caller = yield* Caller
          const postmortem = yield* incidents.putPostmortem(org.id, path.id, caller.user.id, payload.body)
          return postmortem === undefined ? yield* Effect.fail(notFound) : postmortem
        })
      )
  })
).pipe(
  Layer.provide(CallerIncidents.Default),
  Layer.provide([Incidents.Default, Writing.layer, Plans.Default, Authentication.layer])
)
