/**
 * The caller's incidents as the API reads and moves them: in the caller's org (another org's is the same 404 as one
 * that does not exist), listed, read with their timeline, acknowledged or resolved, and narrated with a timeline
 * update under the plan's gate. The `incidents` group and the MCP tools both come through here.
 */
import type * as ApiError from "@signalman/core/ApiError"
import { Caller } from "@signalman/core/api/Authentication"
import type { OrgId } from "@signalman/core/Identity"
import * as IncidentNarration from "@signalman/core/IncidentNarration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import { requireOrg } from "../auth/Policy.js"
import { Plans } from "../limits/Plans.js"
import { Incidents, type ListQuery, notFound } from "./Incidents.js"
import { IncidentWriter } from "./IncidentWriter.js"

export class CallerIncidents extends Effect.Service<CallerIncidents>()("Signalman/CallerIncidents", {
  effect: Effect.gen(function* () {
    const incidents = yield* Incidents
    const writer = yield* IncidentWriter
    const plans = yield* Plans

    const detailOr404 = (orgId: OrgId, id: string) =>
      Effect.flatMap(incidents.detail(orgId, id), (detail) =>
        detail === undefined ? Effect.fail(notFound) : Effect.succeed(detail)
      )

    /** Acknowledge or resolve: a monitor-opened incident through the engine, a declared one here. */
    const move = (id: string, kind: "Acknowledge" | "Resolve") =>
      Effect.gen(function* () {
        const org = yield* requireOrg
        const caller = yield* Caller
        const incident = yield* incidents.one(org.id, id)
        if (incident === undefined) return yield* Effect.fail(notFound)
        if (incident.origin === "monitor" && incident.target_id !== null && incident.number !== null) {
          yield* writer.observe(incident.target_id, { _tag: kind, incident: incident.number, by: caller.user.id })
          // A person's resolve shows on status pages at once, as a declared incident's does.
          if (kind === "Resolve") yield* incidents.refreshPages(id)
        } else if (kind === "Resolve") {
          // Declared incidents are acknowledged by declaring them (DeclaredIncident.acknowledge changes nothing).
          yield* incidents.resolveDeclared(org.id, id, caller.user.id)
        }
        return yield* detailOr404(org.id, id)
      })

    return {
      detailOr404,
      /** A page of the caller's incidents. */
      list: (query: ListQuery) =>
        Effect.gen(function* () {
          const page = yield* incidents.list((yield* requireOrg).id, query)
          return { data: page.rows, total: page.total, limit: query.limit, offset: query.offset }
        }),
      /** One incident with its timeline, oldest first. */
      detail: (id: string) => Effect.flatMap(requireOrg, (org) => detailOr404(org.id, id)),
      acknowledge: (id: string) => move(id, "Acknowledge"),
      resolve: (id: string) => move(id, "Resolve"),
      /** A person's update on the timeline; without the plan's narration flag it is refused whole. */
      postUpdate: (id: string, payload: IncidentNarration.PostIncidentUpdate) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const caller = yield* Caller
          if ((yield* incidents.one(org.id, id)) === undefined) return yield* Effect.fail(notFound)
          const plan = yield* plans.forAccount(org.accountId)
          const gated = IncidentNarration.planGate(plan, { _tag: "TimelineUpdate" })
          if (Option.isSome(gated)) return yield* Effect.fail<ApiError.ApiError>(gated.value)
          const update = yield* incidents.postUpdate(org.id, id, caller.user.id, payload)
          return update === undefined ? yield* Effect.fail(notFound) : update
        })
    }
  })
}) {}
