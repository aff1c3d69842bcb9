/**
 * The `statusPages` group: an org's status pages, their components and logo, and the private-page records. Reads
 * take any active member; every change is owner-only; a page of another org is the uniform 404.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import * as ManagedBy from "@signalman/core/ManagedBy"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Authentication from "../auth/Authentication.js"
import { requireOrg, requireOwner } from "../auth/Policy.js"
import { writeSource } from "../http/WriteSource.js"
import { Plans } from "../limits/Plans.js"
import { PageComponents } from "./Components.js"
import * as Logos from "./Logos.js"
import * as LogoUpload from "./LogoUpload.js"
import { StatusPages } from "./StatusPages.js"
import { ViewerRecords } from "./ViewerRecords.js"

/** The org, for a change: the owner only. */
const owner = Effect.tap(requireOrg, requireOwner)

export const layer = HttpApiBuilder.group(SignalmanApi, "statusPages", (handlers) =>
  Effect.gen(function* () {
    const pages = yield* StatusPages
    const components = yield* PageComponents
    const viewers = yield* ViewerRecords
    const plans = yield* Plans

    const planOf = plans.forAccount

    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          return yield* pages.list(yield* requireOrg, urlParams)
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          return yield* pages.one(yield* requireOrg, path.id)
        })
      )
      .handle("create", ({ payload, headers }) =>
        Effect.gen(function* () {
          const org = yield* owner
          const caller = yield* Caller
          const created = yield* pages.create(
            org,
            caller.user.id,
            yield* planOf(org.accountId),
            payload,
            yield* writeSource,
            yield* ManagedBy.fromHeaders(headers)
          )
          yield* HttpApp.appendPreResponseHandler((_, response) =>
            Effect.succeed(HttpServerResponse.setHeader(response, "location", `/api/v1/status-pages/${created.id}`))
          )
          return created
        })
      )
      .handle("update", ({ path, payload, headers }) =>
        Effect.gen(function* () {
          const org = yield* owner
          const caller = yield* Caller
          return yield* pages.update(
            org,
            path.id,
            caller.user.id,
            yield* planOf(org.accountId),
            payload,
            yield* writeSource,
            yield* ManagedBy.fromHeaders(headers)
          )
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          yield* pages.remove(yield* owner, path.id)
        })
      )
      .handle("listComponents", ({ path }) =>
        Effect.gen(function* () {
          return yield* components.list(yield* requireOrg, path.id)
        })
      )
      .handle("addComponent", ({ path, payload }) =>
        Effect.gen(function* () {
          const org = yield* owner
          const caller = yield* Caller
          return yield* components.add(org, caller.user.id, yield* planOf(org.accountId), path.id, payload)
        })
      )
      .handle("updateComponent", ({ path, payload }) =>
        Effect.gen(function* () {
          return yield* components.update(yield* owner, path.id, path.target_id, payload)
        })
      )
      .handle("removeComponent", ({ path }) =>
        Effect.gen(function* () {
          yield* components.remove(yield* owner, path.id, path.target_id)
        })
      )
      .handle("reorderComponents", ({ path, payload }) =>
        Effect.gen(function* () {
          return yield* components.reorder(yield* owner, path.id, payload)
        })
      )
      .handle("uploadLogo", ({ path, payload, request }) =>
        Effect.gen(function* () {
          const org = yield* owner
          yield* pages.found(org, path.id)
          const plan = yield* planOf(org.accountId)
          const bytes = yield* LogoUpload.read(request, payload, plan.quotas.max_logo_size_bytes)
          const logo = Logos.prepare(bytes)
          if (Either.isLeft(logo)) return yield* Effect.fail(logo.left)
          return yield* pages.setLogo(org, path.id, logo.right)
        })
      )
      .handle("removeLogo", ({ path }) =>
        Effect.gen(function* () {
          return yield* pages.removeLogo(yield* owner, path.id)
        })
      )
      .handle("listViewers", ({ path, urlParams }) =>
        Effect.gen(function* () {
          return yield* viewers.list(yield* requireOrg, path.id, urlParams)
        })
      )
      .handle("blockViewer", ({ path }) =>
        Effect.gen(function* () {
          const caller = yield* Caller
          return yield* viewers.block(yield* owner, path.id, path.viewer_id, caller.user.id)
        })
      )
      .handle("unblockViewer", ({ path }) =>
        Effect.gen(function* () {
          return yield* viewers.unblock(yield* owner, path.id, path.viewer_id)
        })
      )
      .handle("viewerHistory", ({ path }) =>
        Effect.gen(function* () {
          return yield* viewers.history(yield* requireOrg, path.id, path.viewer_id)
        })
      )
      .handle("passwordRecord", ({ path }) =>
        Effect.gen(function* () {
          return yield* viewers.passwordRecord(yield* requireOrg, path.id)
        })
      )
      .handle("passwordSignOut", ({ path }) =>
        Effect.gen(function* () {
          return yield* viewers.passwordSignOut(yield* owner, path.id)
        })
      )
  })
).pipe(
  Layer.provide([PageComponents.Default, Plans.Default, Authentication.layer]),
  // The components check the page they belong to.
  Layer.provide(StatusPages.Default)
)
