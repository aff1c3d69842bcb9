/**
 * The logo upload's body: `multipart/form-data` with exactly one file part named `file`, at most the plan's
 * `max_logo_size_bytes`. Unknown parts, a missing or empty file and a malformed body are refused with the spec's
 * errors; the type of the bytes is judged afterwards (`Logos.prepare`).
 */
import type * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as Multipart from "@effect/platform/Multipart"
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import * as Stream from "effect/Stream"

const tooLarge = (max: number) =>
  ApiError.make("PAYLOAD_TOO_LARGE", `The logo is larger than ${max} bytes`, {
    field: "file",
    details: { max_bytes: max }
  })

/**
 * Reads the multipart body: the bytes of the part named `file`. The whole body is read even past the ceiling (it
 * is bounded by `server.max_body_bytes`), so the client hears 413 rather than a reset connection.
 */
export const read = (
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
