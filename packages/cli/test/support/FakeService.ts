/**
 * A stand-in for the service, answering what `login` and `status` ask (`GET /api/v1/me`, `/healthz`, `/readyz`) as
 * the real one does, and recording each request's path and headers.
 */
import * as http from "node:http"
import * as Effect from "effect/Effect"

export const GOOD_TOKEN = "sm_live_good_token_0123456789"

export interface Seen {
  readonly path: string
  readonly authorization: string | undefined
  readonly userAgent: string | undefined
  readonly org: string | undefined
}

const org = {
  id: "00000000-0000-4000-8000-000000000010",
  slug: "shop",
  name: "Shop",
  role: "owner",
  created_at: "2026-01-01T00:00:00.000Z"
}

const me = {
  id: "00000000-0000-4000-8000-000000000001",
  email: "ada@shop.example",
  name: "Ada",
  email_verified: true,
  created_at: "2026-01-01T00:00:00.000Z",
  account_id: "00000000-0000-4000-8000-000000000002",
  plan_id: "pro",
  active_org: org,
  orgs: [org],
  auth: { kind: "token", scopes: ["targets:read"] },
  deletion_scheduled_for: null
}

const envelope = (code: string, message: string) => ({
  error: { code, message, field: null, details: {}, trace_id: "trace-1" }
})

export const make = Effect.acquireRelease(
  Effect.async<{ readonly url: string; readonly seen: Array<Seen>; readonly server: http.Server }>((resume) => {
    const seen: Array<Seen> = []
    const server = http.createServer((request, response) => {
      const header = (name: string) => {
        const value = request.headers[name]
        return Array.isArray(value) ? value.join(",") : value
      }
      seen.push({
        path: request.url ?? "",
        authorization: header("authorization"),
        userAgent: header("user-agent"),
        org: header("x-signalman-org")
      })
      const answer = (status: number, body: unknown) => {
        response.writeHead(status, { "content-type": "application/json" })
        response.end(JSON.stringify(body))
      }
      if (request.url === "/healthz") return answer(200, { status: "ok" })
      if (request.url === "/readyz") return answer(200, { status: "ready", checks: { database: "ok" } })
      if (request.url === "/api/v1/me") {
        if (header("authorization") !== `Bearer ${GOOD_TOKEN}`) {
          return answer(401, envelope("UNAUTHENTICATED", "The API token is not valid"))
        }
        return answer(200, me)
      }
      return answer(404, envelope("NOT_FOUND", "Not found"))
    })
    server.listen(0, "127.0.0.1", () => {
      const address = server.address()
      const port = typeof address === "object" && address !== null ? address.port : 0
      resume(Effect.succeed({ url: `http://127.0.0.1:${port}`, seen, server }))
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.close(() => resume(Effect.void))
    })
)
