/**
 * The `targets` group: monitors (create, bulk create, duplicate, read, list, change, bulk actions, delete), their
 * regions and tags, a monitor's incident periods, and the one-shot test of a check. Each handler authorizes, reads
 * who is writing, and calls a service. A monitor read or changed is answered with its per-region advisories (a new
 * one has none).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import { SignalmanApi } from "@signalman/core/api/Api"
import { MAX_BULK_TARGETS } from "@signalman/core/api/Targets"
import * as BulkAction from "@signalman/core/BulkAction"
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import { Abuse } from "../abuse/Abuse.js"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg, requireScope } from "../auth/Policy.js"
import { writeSource } from "../http/WriteSource.js"
import { Plans } from "../limits/Plans.js"
import { Variables } from "../variables/Variables.js"
import * as Advisories from "./Advisories.js"
import * as BatchSize from "./BatchSize.js"
import { BulkActions } from "./BulkActions.js"
import { Changes } from "./Changes.js"
import { CheckTest } from "./CheckTest.js"
import { Creation } from "./Creation.js"
import { currentWriter } from "./CurrentWriter.js"
import { IncidentPeriods } from "./IncidentPeriods.js"
import * as Listing from "./Listing.js"
import { Regions } from "./Regions.js"
import { notFound, Targets } from "./Targets.js"

export const layer = HttpApiBuilder.group(SignalmanApi, "targets", (handlers) =>
  Effect.gen(function* () {
    const targets = yield* Targets
    const creation = yield* Creation
    const changes = yield* Changes
    const regions = yield* Regions
    const checkTest = yield* CheckTest
    const bulkActions = yield* BulkActions
    const incidentPeriods = yield* IncidentPeriods

    return handlers
      .handle("test", ({ payload }) =>
        Effect.gen(function* () {
          const { org, plan, userId } = yield* currentWriter
          return yield* checkTest.run({ org, plan, userId, spec: payload.check, region: payload.region })
        })
      )
      .handle("create", ({ payload, headers }) =>
        Effect.gen(function* () {
          const managedBy = yield* ManagedBy.fromHeaders(headers)
          return yield* creation.create(yield* currentWriter, payload, yield* writeSource, managedBy)
        })
      )
      .handle("bulk", ({ payload, headers }) =>
        Effect.gen(function* () {
          // Bounded before anything is looked up: an oversized batch is refused for what it is.
          yield* BatchSize.atMost("targets", payload.targets.length, MAX_BULK_TARGETS)
          const project = headers[ManagedBy.HEADER_KEY]
          return yield* creation.bulk(yield* currentWriter, payload, yield* writeSource, project)
        })
      )
      .handle("duplicate", ({ path, payload }) =>
        Effect.gen(function* () {
          return yield* creation.duplicate(yield* currentWriter, path.id, payload, yield* writeSource)
        })
      )
      .handle("bulkAction", ({ payload }) =>
        Effect.gen(function* () {
          yield* requireScope(payload.action === "delete" ? "targets:delete" : "targets:write")
          yield* BatchSize.atMost("ids", payload.ids.length, BulkAction.MAX_IDS)
          return { updated: yield* bulkActions.apply(yield* currentWriter, payload, yield* writeSource) }
        })
      )
      .handle("list", ({ urlParams }) => Listing.page(urlParams))
      .handle("get", ({ path }) => Listing.one(path.id))
      .handle("update", ({ path, payload, headers }) =>
        Effect.gen(function* () {
          const managedBy = yield* ManagedBy.fromHeaders(headers)
          const updated = yield* changes.update(yield* currentWriter, path.id, payload, yield* writeSource, managedBy)
          return yield* Advisories.attachOne(updated)
        })
      )
      .handle("regions", ({ path }) =>
        Effect.gen(function* () {
          return { regions: yield* regions.ofTarget(yield* requireOrg, path.id) }
        })
      )
      .handle("setRegions", ({ path, payload }) =>
        Effect.gen(function* () {
          return { regions: yield* regions.set(yield* currentWriter, path.id, payload.regions, yield* writeSource) }
        })
      )
      .handle("listRegions", () => Effect.map(regions.enabled, (enabled) => ({ regions: enabled })))
      .handle("tags", ({ urlParams }) =>
        Effect.gen(function* () {
          const page = yield* targets.tags(yield* requireOrg, urlParams)
          return { data: page.rows, total: page.total, limit: urlParams.limit, offset: urlParams.offset }
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          if (!(yield* targets.remove(yield* requireOrg, path.id))) return yield* Effect.fail(notFound)
        })
      )
      .handle("incidents", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const org = yield* requireOrg
          const page = yield* incidentPeriods.ofTarget(org.id, path.id, urlParams)
          return Option.isSome(page) ? page.value : yield* Effect.fail(notFound)
        })
      )
  })
).pipe(
  Layer.provide([
    Plans.Default,
    Targets.Default,
    Creation.Default,
    Changes.Default,
    Regions.Default,
    CheckTest.Default,
    BulkActions.Default,
    Variables.Default,
    Authentication.layer
  ]),
  // Every admission of a check (create, change, test) asks the anti-abuse rules.
  Layer.provide(Abuse.Default)
)
