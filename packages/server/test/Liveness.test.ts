/**
 * The listener before the Effect handler is attached and after it is detached: the port is bound first (the rest of
 * the process is built after it), so a request in that window must get an answer a client retries, not silence.
 */
import type * as Http from "node:http"
import type { AddressInfo } from "node:net"
import { assert, describe, expect, it } from "@effect/vitest"
import * as Effect from "effect/Effect"
import * as Liveness from "../src/http/Liveness.js"
import * as Reply from "./support/Http.js"

/** A Liveness server listening on loopback for the test's scope. */
const listening = Effect.acquireRelease(
  Effect.promise(
    () =>
      new Promise<Liveness.Server>((resolve) => {
        const server = new Liveness.Server()
        server.listen(0, "127.0.0.1", () => resolve(server))
      })
  ),
  (server) =>
    Effect.promise(
      () =>
        new Promise<void>((resolve) => {
          server.closeAllConnections()
          server.close(() => resolve())
        })
    )
)

const baseOf = (server: Liveness.Server) => `http://127.0.0.1:${(server.address() as AddressInfo).port}`

// What the platform's handler would answer, to tell it from the listener's own answers.
const handler = (_request: Http.IncomingMessage, response: Http.ServerResponse) => {
  response.writeHead(201, { "content-type": "text/plain" }).end("handled")
}

describe("Liveness.Server without its handler", () => {
  it.scopedLive(
    "answers 503 NOT_READY (and liveness as ever) until the handler is attached, and after it is gone",
    () =>
      Effect.gen(function* () {
        const server = yield* listening
        const base = baseOf(server)
        const early = yield* Reply.request(`${base}/api/agent/v1/hello`, {
          json: { version: "1" },
          headers: { "x-request-id": "boot-window-1" },
          // Unanswered, it would hang until the client gives up.
          signal: AbortSignal.timeout(5_000)
        })
        expect(early.status).toBe(503)
        expect(early.headers.get("retry-after")).toBe("1")
        expect(early.headers.get("x-request-id")).toBe("boot-window-1")
        const error = Reply.envelope(early)
        expect(error.code).toBe("NOT_READY")
        expect(error.trace_id).toBe("boot-window-1")
        expect((yield* Reply.request(`${base}/healthz`)).status).toBe(200)

        server.on("request", handler)
        const served = yield* Reply.request(`${base}/api/agent/v1/hello`, { json: { version: "1" } })
        expect([served.status, served.text]).toEqual([201, "handled"])
        expect((yield* Reply.request(`${base}/healthz`)).status).toBe(200)

        server.off("request", handler)
        const late = yield* Reply.request(`${base}/api/v1/me`)
        assert.strictEqual(late.status, 503)
        expect(Reply.envelope(late).code).toBe("NOT_READY")
      })
  )
})
