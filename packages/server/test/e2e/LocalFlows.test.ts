/**
 * Browser flows in the `local` region: `POST /targets/test` and check-now run a flow in the server's own headless
 * Chromium (found when the first flow runs), against pages served here on loopback. The answer is the API's
 * result: no evidence in it, and no fill value, even one that came from a secret variable.
 */
import * as NodeHttp from "node:http"
import { expect } from "@effect/vitest"
import { OperatorRegion } from "@signalman/core/api/Operator"
import { CheckResult } from "@signalman/core/CheckResult"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { eventually } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

interface Seen {
  readonly url: string
  readonly userAgent: string | undefined
  readonly region: string | undefined
}

/** A login page on loopback, recording what each request said it was. */
const site: Effect.Effect<{ readonly base: string; readonly seen: Array<Seen> }, never, Scope.Scope> =
  Effect.acquireRelease(
    Effect.promise(
      () =>
        new Promise<{ server: NodeHttp.Server; seen: Array<Seen> }>((resolve) => {
          const seen: Array<Seen> = []
          const server = NodeHttp.createServer((request, response) => {
            const region = request.headers["x-signalman-region"]
            seen.push({
              url: request.url ?? "",
              userAgent: request.headers["user-agent"],
              region: Array.isArray(region) ? region.join(",") : region
            })
            response.writeHead(200, { "content-type": "text/html" })
            response.end(
              request.url?.startsWith("/welcome")
                ? "<!doctype html><h1>Welcome back</h1>"
                : `<!doctype html><form action="/welcome"><input id="password" name="password" type="password">
                   <button id="go">Sign in</button></form>`
            )
          })
          server.listen(0, "127.0.0.1", () => resolve({ server, seen }))
        })
    ),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  ).pipe(
    Effect.flatMap(({ server, seen }) => {
      const address = server.address()
      return address === null || typeof address === "string"
        ? Effect.dieMessage("the site has no TCP address")
        : Effect.succeed({ base: `http://127.0.0.1:${address.port}`, seen })
    })
  )

const admin = "operator-secret-for-local-flows-0123456789"
const secret = "pw-d0nt-l3ak-this"

Fixture.describe(
  `flows in the local region (${TestDatabase.kind} database)`,
  {
    env: {
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      OPERATOR__ADMIN_TOKEN: admin,
      AUTH__PUBLIC_BASE_URL: "https://status.example.test",
      // The suite's browser when it names one; otherwise the server finds a system or packaged one itself.
      ...(process.env["CHROMIUM_PATH"] === undefined ? {} : { CHECKER__BROWSER_PATH: process.env["CHROMIUM_PATH"] })
    }
  },
  (it) => {
    it.scoped("test and check-now run a flow here; a secret fill value is never in the answer", () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const alice = yield* Fixture.person()
        const page = yield* site
        const op = (path: string, method: string, json: unknown) =>
          Http.request(`${server.baseUrl}/operator${path}`, {
            method,
            headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" },
            body: JSON.stringify(json)
          })
        expect((yield* op(`/accounts/${alice.accountId}/overrides`, "PUT", { max_flow_checks: 5 })).status).toBe(200)
        const stored = yield* alice.browser.request("/api/v1/variables", {
          json: { key: "password", is_secret: true, value: secret }
        })
        expect(stored.status, stored.text).toBe(201)

        // Flows that pass get room for a loaded machine (a step is one Chromium round trip, slow under load); the
        // failing one waits out 1 s only.
        const check = (text: string, stepTimeout = 10) => ({
          type: "flow",
          start_url: `${page.base}/login`,
          steps: [
            { action: "fill", selector: "#password", value: "{{password}}" },
            { action: "click", selector: "#go" },
            { action: "assert_text", text }
          ],
          step_timeout: stepTimeout
        })
        const passed = yield* alice.browser.request("/api/v1/targets/test", { json: { check: check("Welcome back") } })
        expect(passed.status, passed.text).toBe(200)
        const up = Http.wire(passed, CheckResult)
        expect(up).toMatchObject({ status: "up", error: null, region: "local" })
        expect(up.details?.["steps"]).toEqual([
          expect.objectContaining({ index: 1, action: "fill", status: "passed", error: null }),
          expect.objectContaining({ index: 2, action: "click", status: "passed", error: null }),
          expect.objectContaining({ index: 3, action: "assert_text", status: "passed", error: null })
        ])
        // The form went by GET: the site saw the secret, the answer says ***.
        expect(up.details?.["final_url"]).toBe(`${page.base}/welcome?password=***`)
        expect(passed.text).not.toContain(secret)

        const failed = yield* alice.browser.request("/api/v1/targets/test", { json: { check: check("Goodbye", 1) } })
        expect(failed.status).toBe(200)
        const down = Http.wire(failed, CheckResult)
        expect(down).toMatchObject({
          status: "down",
          error: 'step 3 assert_text "Goodbye": not on the page within 1 s'
        })
        expect(Object.keys(down).sort()).toEqual(
          ["checked_at", "details", "duration_ms", "error", "phases", "region", "status"].sort()
        )
        expect(failed.text).not.toContain(secret)
        expect(failed.text).not.toContain("screenshot_png")

        // Every request the browser made said who it was and where from.
        expect(page.seen.map((request) => request.url)).toContain(`/welcome?password=${encodeURIComponent(secret)}`)
        for (const request of page.seen) {
          expect(request.userAgent, request.url).toBe("Signalman/0.1.0 (+https://status.example.test)")
          expect(request.region, request.url).toBe("local")
        }

        // check-now runs a stored flow here too, with the secret resolved at probe time.
        // The local region runs flows once the server has stamped its browser (found in the background at boot).
        const regions = yield* eventually(
          Effect.map(
            Http.request(`${server.baseUrl}/operator/regions`, { headers: { authorization: `Bearer ${admin}` } }),
            (reply) => Http.decode(reply, Schema.Struct({ data: Schema.Array(OperatorRegion) })).data
          ),
          (list) => list.some((region) => region.id === "local" && region.flow_capable)
        )
        expect(regions.find((region) => region.id === "local")?.flow_capable).toBe(true)
        const made = yield* alice.browser.request("/api/v1/targets", {
          json: { name: "Login", check: check("Welcome back"), regions: ["local"] }
        })
        expect(made.status, made.text).toBe(201)
        const id = Http.wire(made, Target).id
        const now = yield* alice.browser.request(`/api/v1/targets/${id}/check-now`, { method: "POST" })
        expect(now.status, now.text).toBe(200)
        expect(Http.wire(now, CheckResult)).toMatchObject({ status: "up", region: "local" })
        expect(now.text).not.toContain(secret)
      })
    )
  }
)
