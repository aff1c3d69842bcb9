/**
 * The `public` group: the JSON of a status page, read from its snapshot. No authentication; the page comes from the
 * custom domain or `?page=`, the `PageGate` decides who may read it, and the answer's Cache-Control follows the
 * gate's answer (errors are not cached).
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { Plans } from "../limits/Plans.js"
import { Maintenance } from "../maintenance/Maintenance.js"
import { type Admitted, cacheControl, resolve } from "./PublicAccess.js"
import * as PublicAnswers from "./PublicAnswers.js"
import * as PublicBytes from "./PublicBytes.js"
import { PublicSnapshot, type Snapshot } from "./PublicSnapshot.js"

const notOnPage = (what: string) => ApiError.make("NOT_FOUND", `No such ${what} on this page`)

/** Resolves and admits the request, and sets the answer's Cache-Control once it is known. */
const admitted = (slug: string | undefined) => Effect.map(admittedWith(slug), ({ snapshot }) => snapshot)

const admittedWith = (slug: string | undefined) =>
  Effect.gen(function* () {
    const request = yield* HttpServerRequest.HttpServerRequest
    let header = "no-store"
    yield* HttpApp.appendPreResponseHandler((_, response) =>
      Effect.succeed(HttpServerResponse.setHeader(response, "cache-control", header))
    )
    const result: Admitted = yield* resolve(request, slug)
    header = cacheControl(result.admission)
    const snapshots = yield* PublicSnapshot
    return { snapshot: yield* snapshots.snapshot(result.page), request, cache: header }
  })

/** An answer encoded once per snapshot, with its ETag, 304 and compressed variants. */
const encoded = (slug: string | undefined, pick: (snapshot: Snapshot) => PublicBytes.Encoded) =>
  Effect.map(admittedWith(slug), ({ cache, request, snapshot }) =>
    PublicBytes.toResponse(PublicBytes.answer(pick(snapshot), PublicBytes.conditionsOf(request.headers), cache))
  )

export const layer = HttpApiBuilder.group(SignalmanApi, "public", (handlers) =>
  Effect.succeed(
    handlers
      .handle("status", ({ urlParams }) => encoded(urlParams.page, PublicAnswers.status))
      .handle("history", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const snapshot = yield* admitted(urlParams.page)
          const id = path.id.toLowerCase()
          const component = snapshot.status.components.find((c) => c.id === id)
          const bars = snapshot.bars.get(id)
          if (component === undefined || bars === undefined) return yield* Effect.fail(notOnPage("component"))
          return {
            component: { id: component.id, name: component.name },
            days: urlParams.days,
            bars: bars.slice(bars.length - urlParams.days)
          }
        })
      )
      .handle("incidents", ({ urlParams }) =>
        Effect.map(admitted(urlParams.page), (snapshot) => ({
          data: snapshot.incidents.slice(urlParams.offset, urlParams.offset + urlParams.limit),
          total: snapshot.incidents.length,
          limit: urlParams.limit,
          offset: urlParams.offset
        }))
      )
      .handle("incident", ({ path, urlParams }) =>
        Effect.gen(function* () {
          const snapshot = yield* admitted(urlParams.page)
          const id = path.id.toLowerCase()
          const incident = snapshot.incidents.find((i) => i.id === id)
          if (incident === undefined) return yield* Effect.fail(notOnPage("incident"))
          return { ...incident, updates: snapshot.updates.get(id) ?? [] }
        })
      )
      .handle("maintenance", ({ urlParams }) => encoded(urlParams.page, PublicAnswers.maintenance))
      .handle("pastMaintenance", ({ urlParams }) =>
        Effect.map(admitted(urlParams.page), (snapshot) => ({
          data: snapshot.pastMaintenance.slice(urlParams.offset, urlParams.offset + urlParams.limit),
          total: snapshot.pastMaintenance.length,
          limit: urlParams.limit,
          offset: urlParams.offset
        }))
      )
  )
).pipe(
  // Readings and the private-page gate are bound where the features meet (App.ts).
  Layer.provide(PublicSnapshot.Default),
  Layer.provide([Maintenance.Default, Plans.Default])
)

/** When the snapshot was made, for answers that carry it. */
export const generatedAt = (ms: number) => DateTime.unsafeFromDate(new Date(ms))
