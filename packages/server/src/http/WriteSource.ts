/**
 * `write_source` (service-api.md, Target): who wrote a resource last, decided from the request and restamped by
 * every write. Shared by every resource that carries it (targets, notification channels, maintenance windows).
 */
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import { Caller } from "@signalman/core/api/Authentication"
import type { WriteSource } from "@signalman/core/Target"
import * as Effect from "effect/Effect"

/** ui for the browser (a session), iac for the signalman CLI, api for anything else with a token. */
export const writeSource: Effect.Effect<WriteSource, never, Caller | HttpServerRequest.HttpServerRequest> = Effect.gen(
  function* () {
    const caller = yield* Caller
    if (caller.credential.kind === "session") return "ui"
    const request = yield* HttpServerRequest.HttpServerRequest
    return (request.headers["user-agent"] ?? "").startsWith("signalman-cli/") ? "iac" : "api"
  }
)
