/**
 * The `statusPages` group: an org's status pages, their components and logo, and the private-page records. Reads
 * take any active member; every change is owner-only; a page of another org is the uniform 404.
 */
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApp from "@effect/platform/HttpApp"
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as Multipart from "@effect/platform/Multipart"
import * as ApiError from "@signalman/core/ApiError"
import { SignalmanApi } from "@signalman/core/api/Api"
import { Caller } from "@signalman/core/api/Authentication"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Stream from "effect/Stream"
import { requireOrg, requireOwner, requireScope } from "../auth/Policy.js"
import { writeSource } from "../http/WriteSource.js"
import { Plans } from "../limits/Plans.js"
import * as Logos from "./Logos.js"
import { StatusPages } from "./StatusPages.js"
import { ViewerRecords } from "./ViewerRecords.js"

/** The org, for a change: the owner only. */
const owner = Effect.tap(requireOrg, requireOwner)

const tooLarge = (max: number) =>
  ApiError.make("PAYLOAD_TOO_LARGE", `The logo is larger than ${max} bytes`, {
    field: "file",
    details: { max_bytes: max }
  })

/**
 * Reads the multipart body: the bytes of the part named `file`. The whole body is read even past the ceiling (it
 * is bounded by `server.max_body_bytes`), so the client hears 413 rather than a reset connection.
 */
const readLogo = (
  request: HttpServerRequest.HttpServerRequest,
  parts: Stream.Stream<Multipart.Part, Multipart.MultipartError>,
  max: number
) =>
  Effect.gen(function* () {
    const type = (request.headers["content-type"] ?? "").toLowerCase()
    if (!type.startsWith("multipart/form-data")) {
      return yield* Effect.fail(
        ApiError.make("INVALID_CONTENT_TYPE", "Send the logo as multipart/form-data with the file in the part file", {
          details: { expected: "multipart/form-data", received: request.headers["content-type"] ?? null }
        })
      )
    }
    const chunks: Array<Uint8Array> = []
    let size = 0
    let files = 0
    let unknown: string | undefined
    yield* Stream.runForEach(parts, (part) => {
      if (Multipart.isFile(part) && part.key === "file") {
        files++
        return Stream.runForEach(part.content, (chunk) =>
          Effect.sync(() => {
            size += chunk.length
            if (files === 1 && size <= max) chunks.push(chunk)
          })
        )
      }
      unknown ??= part.key
      return Multipart.isFile(part) ? Stream.runDrain(part.content) : Effect.void
    }).pipe(
      Effect.catchTag("MultipartError", (error) =>
        Effect.fail(
          error.reason === "BodyTooLarge" || error.reason === "FileTooLarge"
            ? tooLarge(max)
            : ApiError.make("VALIDATION_FAILED", "The body is not valid multipart/form-data", { field: "file" })
        )
      )
    )
    if (unknown !== undefined) {
      return yield* Effect.fail(
        ApiError.unknownKey(unknown, `Unknown part "${unknown}": the upload takes file`, ["file"])
      )
    }
    if (files !== 1) {
      return yield* Effect.fail(
        ApiError.make("VALIDATION_FAILED", "Send exactly one file, in the part named file", { field: "file" })
      )
    }
    if (size > max) return yield* Effect.fail(tooLarge(max))
    if (size === 0)
      return yield* Effect.fail(ApiError.make("VALIDATION_FAILED", "The file is empty", { field: "file" }))
    return Buffer.concat(chunks)
  })

export const layer = HttpApiBuilder.group(SignalmanApi, "statusPages", (handlers) =>
  Effect.gen(function* () {
    const pages = yield* StatusPages
    const viewers = yield* ViewerRecords
    const plans = yield* Plans

    const planOf = plans.forAccount

    return handlers
      .handle("list", ({ urlParams }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:read")
          return yield* pages.list(yield* requireOrg, urlParams)
        })
      )
      .handle("get", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:read")
          return yield* pages.one(yield* requireOrg, path.id)
        })
      )
      .handle("create", ({ payload }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:write")
          const org = yield* owner
          const caller = yield* Caller
          const created = yield* pages.create(
            org,
            caller.user.id,
            yield* planOf(org.accountId),
            payload,
            yield* writeSource
          )
          yield* HttpApp.appendPreResponseHandler((_, response) =>
            Effect.succeed(HttpServerResponse.setHeader(response, "location", `/api/v1/status-pages/${created.id}`))
          )
          return created
        })
      )
      .handle("update", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:write")
          const org = yield* owner
          const caller = yield* Caller
          return yield* pages.update(
            org,
            path.id,
            caller.user.id,
            yield* planOf(org.accountId),
            payload,
            yield* writeSource
          )
        })
      )
      .handle("delete", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:delete")
          yield* pages.remove(yield* owner, path.id)
        })
      )
      .handle("listComponents", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:read")
          return yield* pages.listComponents(yield* requireOrg, path.id)
        })
      )
      .handle("addComponent", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:write")
          const org = yield* owner
          const caller = yield* Caller
          return yield* pages.addComponent(org, caller.user.id, yield* planOf(org.accountId), path.id, payload)
        })
      )
      .handle("updateComponent", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:write")
          return yield* pages.updateComponent(yield* owner, path.id, path.target_id, payload)
        })
      )
      .handle("removeComponent", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:write")
          yield* pages.removeComponent(yield* owner, path.id, path.target_id)
        })
      )
      .handle("reorderComponents", ({ path, payload }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:write")
          return yield* pages.reorder(yield* owner, path.id, payload)
        })
      )
      .handle("uploadLogo", ({ path, payload, request }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:write")
          const org = yield* owner
          yield* pages.found(org, path.id).pipe(Effect.catchTag("SqlError", "ParseError", Effect.die))
          const plan = yield* planOf(org.accountId)
          const bytes = yield* readLogo(request, payload, plan.quotas.max_logo_size_bytes)
          const logo = Logos.prepare(bytes)
          if (Either.isLeft(logo)) return yield* Effect.fail(logo.left)
          return yield* pages.setLogo(org, path.id, logo.right)
        })
      )
      .handle("removeLogo", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:delete")
          return yield* pages.removeLogo(yield* owner, path.id)
        })
      )
      .handle("listViewers", ({ path, urlParams }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:read")
          return yield* viewers.list(yield* requireOrg, path.id, urlParams)
        })
      )
      .handle("blockViewer", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:write")
          const caller = yield* Caller
          return yield* viewers.block(yield* owner, path.id, path.viewer_id, caller.user.id)
        })
      )
      .handle("unblockViewer", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:write")
          return yield* viewers.unblock(yield* owner, path.id, path.viewer_id)
        })
      )
      .handle("viewerHistory", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:read")
          return yield* viewers.history(yield* requireOrg, path.id, path.viewer_id)
        })
      )
      .handle("passwordRecord", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:read")
          return yield* viewers.passwordRecord(yield* requireOrg, path.id)
        })
      )
      .handle("passwordSignOut", ({ path }) =>
        Effect.gen(function* () {
          yield* requireScope("status_page:write")
          return yield* viewers.passwordSignOut(yield* owner, path.id)
        })
      )
  })
)
