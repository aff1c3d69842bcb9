/**
 * The listener's fast path for public status pages gives the Effect routes' own answer: the same resource asked
 * both ways (a query shape the fast path does not take goes the Effect way, to the same snapshot) has the same
 * status, headers (but the request id's value and the date) and bytes, for every coding, a 304 and a HEAD. Misses,
 * private and unknown pages go the Effect way. The snapshot window is long, so both ways read one snapshot.
 */
import * as Http from "node:http"
import * as zlib from "node:zlib"
import { expect } from "@effect/vitest"
import { PublicStatus } from "@signalman/core/PublicStatus"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../../src/infra/Ids.js"
import { counters } from "../../src/publicpages/PublicFastPath.js"
import * as Fixture from "../support/Fixture.js"
import * as Reply from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

interface Raw {
  readonly status: number
  readonly headers: Record<string, string>
  readonly body: Buffer
}

/** One request over a fresh connection, the answer as sent: no decompression, every header. */
const raw = (baseUrl: string, path: string, headers: Record<string, string> = {}, method = "GET") =>
  Effect.promise(
    () =>
      new Promise<Raw>((resolve, reject) => {
        const url = new URL(baseUrl)
        const req = Http.request(
          { host: url.hostname, port: url.port, path, method, headers, timeout: 20_000, agent: false },
          (res) => {
            const chunks: Array<Buffer> = []
            res.on("data", (c: Buffer) => chunks.push(c))
            res.on("end", () => {
              const out: Record<string, string> = {}
              for (const [k, v] of Object.entries(res.headers)) {
                if (v !== undefined) out[k] = Array.isArray(v) ? v.join(", ") : v
              }
              resolve({ status: res.statusCode ?? 0, headers: out, body: Buffer.concat(chunks) })
            })
          }
        )
        req.on("timeout", () => req.destroy(new Error("timed out")))
        req.on("error", reject)
        req.end()
      })
  )

const comparable = (answer: Raw) => {
  const { date: _date, "x-request-id": requestId, ...headers } = answer.headers
  expect(requestId).toMatch(/\S/)
  return { status: answer.status, headers, body: answer.body.toString("base64") }
}

const setup = Effect.gen(function* () {
  const server = yield* Fixture.server
  const alice = yield* Fixture.person()
  const org = alice.org.id
  const target = Reply.expectOk(
    yield* alice.browser.request("/api/v1/targets", {
      json: { name: "api", check: { type: "http", url: "https://api.example.com/health" }, enabled: false }
    }),
    Target,
    201
  )
  const page = (slug: string, access: Record<string, unknown> | null) =>
    Effect.gen(function* () {
      const id = uuidv7()
      yield* server.sql`
        INSERT INTO status_pages (id, org_id, account_id, slug, name, published, public_locale, branding, access,
          write_source)
        VALUES (${id}, ${org}, ${alice.accountId}, ${slug}, 'Fast status', true, 'en',
          '{"primary_color":"#2563eb","theme":"auto","hide_powered_by":false}'::jsonb,
          ${access === null ? null : JSON.stringify(access)}::jsonb, 'api')
      `
      yield* server.sql`
        INSERT INTO status_page_components (page_id, target_id, public_name, public_group, sort_order)
        VALUES (${id}, ${target.id}, 'Public API', 'Core', 0)
      `
    })
  yield* page("fast", null)
  // Stored as the management API stores a private page: the email code is its way in.
  yield* page("hidden", {
    protected: true,
    email_code: { enabled: true, allow: ["@example.com"] },
    session_days: 7,
    recheck_days: null,
    password: { enabled: false }
  })
  return { server }
})

// A window (the longest allowed) far longer than the test: both ways read the one snapshot.
Fixture.describe(
  `public fast path (${TestDatabase.kind} database)`,
  { env: { STATUS_PAGE__CACHE_SECS: "60" } },
  (it) => {
    it.effect(
      "cache hits answered by the listener carry the Effect routes' status, headers and bytes",
      () =>
        Effect.gen(function* () {
          const { server } = yield* setup
          const base = server.baseUrl
          // Each resource: the shape the fast path takes, and one it leaves to the Effect routes.
          const resources = [
            ["/api/public/v1/status?page=fast", "/api/public/v1/status?page=fast&via=effect"],
            ["/p/fast", "/p/fast?via=effect"],
            ["/p/fast?fragment=1", "/p/fast?fragment=1&via=effect"]
          ] as const
          // The first request finds nothing settled and goes the Effect way, building the snapshot.
          const before = counters.answered
          const first = yield* raw(base, resources[0][0])
          expect(first.status).toBe(200)
          expect(counters.answered).toBe(before)
          expect(comparable(yield* raw(base, resources[0][0]))).toEqual(comparable(first))
          expect(counters.answered).toBe(before + 1)
          for (const [fast, slow] of resources) {
            const cold = yield* raw(base, slow)
            expect(cold.status).toBe(200)
            const variants: ReadonlyArray<{ headers: Record<string, string>; method?: string }> = [
              { headers: {} },
              { headers: { "accept-encoding": "gzip, deflate" } },
              { headers: { "accept-encoding": "gzip, deflate, br" } },
              { headers: { "if-none-match": cold.headers["etag"] ?? "" } },
              { headers: {}, method: "HEAD" }
            ]
            for (const variant of variants) {
              const n = counters.answered
              const viaEffect = yield* raw(base, slow, variant.headers, variant.method)
              expect(counters.answered, `${slow} went the Effect way`).toBe(n)
              const viaListener = yield* raw(base, fast, variant.headers, variant.method)
              expect(counters.answered, `${fast} was answered by the listener`).toBe(n + 1)
              expect(comparable(viaListener), `${fast} ${JSON.stringify(variant)}`).toEqual(comparable(viaEffect))
            }
          }

          // What the answers say: cacheable, validated, compressed once per snapshot.
          const json = yield* raw(base, "/api/public/v1/status?page=fast")
          expect(json.headers["cache-control"]).toBe("public, max-age=10, stale-while-revalidate=30")
          expect(json.headers["content-type"]).toBe("application/json; charset=utf-8")
          expect(json.headers["vary"]).toBe("Accept-Encoding")
          expect(json.headers["etag"]).toMatch(/^"[A-Za-z0-9_-]+"$/)
          const status = Reply.decode(Reply.body(json.status, json.body.toString("utf8")), PublicStatus)
          expect(status.components).toHaveLength(1)
          const gzipped = yield* raw(base, "/p/fast", { "accept-encoding": "gzip" })
          expect(gzipped.headers["content-encoding"]).toBe("gzip")
          expect(gzipped.headers["etag"]).toMatch(/^"[A-Za-z0-9_-]+-gzip"$/)
          expect(zlib.gunzipSync(gzipped.body).toString("utf8")).toMatch(/^<!doctype html>[\s\S]*<\/html>$/)
          const html = yield* raw(base, "/p/fast", { "accept-encoding": "br", "x-request-id": "req-fast-1" })
          expect(html.headers["x-request-id"]).toBe("req-fast-1")
          expect(html.headers["content-encoding"]).toBe("br")
          expect(html.headers["content-security-policy"]).toContain("script-src 'self'")
          expect(html.headers["content-language"]).toBe("en")
          expect(zlib.brotliDecompressSync(html.body).toString("utf8")).toBe(
            zlib.gunzipSync(gzipped.body).toString("utf8")
          )
          const again = yield* raw(base, "/p/fast", { "if-none-match": `W/${html.headers["etag"]}` })
          expect(again.status).toBe(304)
          expect(again.body.length).toBe(0)

          // Private, unknown, other routes and other hosts: the Effect routes answer, as before.
          const n = counters.answered
          expect((yield* raw(base, "/api/public/v1/status?page=hidden")).status).toBe(401)
          expect((yield* raw(base, "/api/public/v1/status?page=hidden")).status).toBe(401)
          expect((yield* raw(base, "/p/hidden")).status).toBe(401)
          expect((yield* raw(base, "/p/nope")).status).toBe(404)
          expect((yield* raw(base, "/p/nope")).status).toBe(404)
          expect((yield* raw(base, "/api/public/v1/status?page=nope")).status).toBe(404)
          expect((yield* raw(base, "/api/public/v1/status?page=fast", { host: "status.unknown.example" })).status).toBe(
            200
          )
          expect((yield* raw(base, "/p/fast", {}, "POST")).status).toBe(405)
          expect(counters.answered).toBe(n)
        }),
      { timeout: 120_000 }
    )
  }
)
