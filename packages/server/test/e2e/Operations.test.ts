import { assert, expect } from "@effect/vitest"
import { Validator } from "@seriousme/openapi-schema-validator"
import * as ApiError from "@signalman/core/ApiError"
import { Health, Readiness } from "@signalman/core/api/Operations"
import { SignalmanClient } from "@signalman/sdk/Client"
import { createClient } from "@signalman/sdk/Promise"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"
import { TestServer } from "../support/TestServer.js"

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/

/** What the test reads of the OpenAPI document (the document itself is checked by the validator). */
const OpenApiDocument = Schema.Struct({
  openapi: Schema.String,
  paths: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  components: Schema.Struct({ schemas: Schema.Record({ key: Schema.String, value: Schema.Unknown }) })
})

Fixture.describe(`operations on the ${TestDatabase.kind} database`, (it) => {
  it.effect("GET /healthz is 200 ok with a JSON charset and a request id", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const reply = yield* Http.request(`${baseUrl}/healthz`)
      expect(reply.status).toBe(200)
      expect(Http.wire(reply, Health)).toEqual({ status: "ok" })
      expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
      expect(reply.headers.get("x-request-id")).toMatch(UUID)
    })
  )

  it.effect("HEAD /healthz answers the same headers without a body", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const reply = yield* Http.request(`${baseUrl}/healthz`, { method: "HEAD" })
      expect(reply.status).toBe(200)
      expect(reply.text).toBe("")
      expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
      expect(reply.headers.get("x-request-id")).toMatch(UUID)
    })
  )

  it.effect("GET /metrics is 404 NOT_FOUND while metrics.enabled is off (the default), token or not", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const attempts: ReadonlyArray<Record<string, string>> = [{}, { authorization: "Bearer anything" }]
      for (const headers of attempts) {
        const reply = yield* Http.request(`${baseUrl}/metrics`, { headers })
        expect(reply.status).toBe(404)
        expect(Http.envelope(reply).code).toBe("NOT_FOUND")
        expect(reply.text).not.toContain("signalman_")
      }
    })
  )

  it.effect("GET /readyz is 200 while the database answers", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const reply = yield* Http.request(`${baseUrl}/readyz`)
      expect(reply.status).toBe(200)
      expect(Http.wire(reply, Readiness)).toEqual({ status: "ready", checks: { database: "ok" } })
    })
  )

  it.effect("a well-formed X-Request-Id is kept and echoed; a malformed one is replaced", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const kept = yield* Http.request(`${baseUrl}/healthz`, { headers: { "x-request-id": "lb-7f3a.2" } })
      expect(kept.headers.get("x-request-id")).toBe("lb-7f3a.2")
      const replaced = yield* Http.request(`${baseUrl}/healthz`, { headers: { "x-request-id": "a b<script>" } })
      expect(replaced.headers.get("x-request-id")).toMatch(UUID)
    })
  )

  it.effect("an unknown route is 404 NOT_FOUND in the envelope, trace_id equal to X-Request-Id", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const reply = yield* Http.request(`${baseUrl}/no/such/route`)
      expect(reply.status).toBe(404)
      expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
      const error = Http.envelope(reply)
      expect(error.code).toBe("NOT_FOUND")
      expect(error.field).toBeNull()
      expect(error.details).toEqual({})
      expect(error.trace_id).toBe(reply.headers.get("x-request-id"))
      expect(Object.keys(Http.wire(reply, ApiError.ErrorEnvelope))).toEqual(["error"])
      expect(Object.keys(error).sort()).toEqual(["code", "details", "field", "message", "trace_id"])
    })
  )

  it.effect("a known path with another method is 405 METHOD_NOT_ALLOWED with Allow", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const reply = yield* Http.request(`${baseUrl}/healthz`, { method: "DELETE" })
      expect(reply.status).toBe(405)
      expect(reply.headers.get("allow")).toBe("GET")
      const error = Http.envelope(reply)
      expect(error.code).toBe("METHOD_NOT_ALLOWED")
      expect(error.details).toEqual({ allowed: ["GET"] })
      expect(error.trace_id).toBe(reply.headers.get("x-request-id"))
    })
  )

  it.effect("/api/v1 answers carry Cache-Control by method: reads private max-age=10, mutations no-store", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const read = yield* Http.request(`${baseUrl}/api/v1/nothing-here`)
      expect(read.status).toBe(404)
      expect(read.headers.get("cache-control")).toBe("private, max-age=10")
      const summary = yield* Http.request(`${baseUrl}/api/v1/dashboard/summary`)
      expect(summary.headers.get("cache-control")).toBe("private, max-age=5")
      for (const method of ["POST", "PATCH", "DELETE", "PUT"]) {
        const write = yield* Http.request(`${baseUrl}/api/v1/nothing-here`, { method })
        expect(write.headers.get("cache-control")).toBe("no-store")
        expect(Http.envelope(write).code).toBe("NOT_FOUND")
      }
    })
  )

  it.effect("GET /api/openapi.json is a valid OpenAPI 3.1 document of the contract", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const reply = yield* Http.request(`${baseUrl}/api/openapi.json`)
      expect(reply.status).toBe(200)
      expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
      const doc = Http.wire(reply, OpenApiDocument)
      expect(doc.openapi).toBe("3.1.0")
      const validator = new Validator()
      const result = yield* Effect.promise(() => validator.validate(doc))
      expect(result.errors ?? []).toEqual([])
      assert.isTrue(result.valid)
      expect(validator.version).toBe("3.1")
      expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(["/healthz", "/readyz"]))
      // Effect's own decode error shape is never answered, so the document does not promise it.
      expect(JSON.stringify(doc)).not.toContain("HttpApiDecodeError")
      expect(Object.keys(doc.components.schemas)).toContain("ErrorObject")
    })
  )

  it.effect("GET /docs serves the API documentation UI without any CDN", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const reply = yield* Http.request(`${baseUrl}/docs`)
      expect(reply.status).toBe(200)
      expect(reply.headers.get("content-type")).toMatch(/^text\/html/)
      expect(reply.text).toContain("Signalman API")
      // Nothing is loaded from elsewhere: no external script, stylesheet or font; the UI bundle is inline.
      const external = [...reply.text.matchAll(/<(?:script|link)[^>]+(?:src|href)="(https?:[^"]+)"/g)].map((m) => m[1])
      expect(external).toEqual([])
      assert.isFalse(/@import\s+url\(["']?https?:/.test(reply.text), "no CSS import from another origin")
      assert.isFalse(reply.text.includes('"withDefaultFonts":true'), "the default web fonts are off")
      expect(reply.text.length).toBeGreaterThan(1_000_000)
    })
  )

  it.effect("the SDK's Effect client calls the contract's endpoints", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const result = yield* Effect.gen(function* () {
        const client = yield* SignalmanClient
        return [yield* client.healthz(), yield* client.readyz()] as const
      }).pipe(Effect.provide(SignalmanClient.layer({ baseUrl })))
      expect(result[0].status).toBe("ok")
      expect(result[1].checks.database).toBe("ok")
    })
  )

  it.effect("the SDK's Promise client calls the same endpoints", () =>
    Effect.gen(function* () {
      const { baseUrl } = yield* TestServer
      const client = createClient({ baseUrl })
      const health = yield* Effect.promise(() => client.healthz())
      expect(health.status).toBe("ok")
    })
  )
})

// Touch the catalogue so a rename of the error class used by clients fails to compile here.
void ApiError.ServiceUnavailable
