/**
 * The request conventions, over real HTTP through the real middleware stack (`Serve`), on an API whose body is
 * built from core's own schemas. The service's first body-taking endpoints arrive with the identity issue; until
 * then this API stands in for them and exercises exactly the machinery they will get.
 */

import * as net from "node:net"
import * as HttpApi from "@effect/platform/HttpApi"
import * as HttpApiBuilder from "@effect/platform/HttpApiBuilder"
import * as HttpApiEndpoint from "@effect/platform/HttpApiEndpoint"
import * as HttpApiGroup from "@effect/platform/HttpApiGroup"
import * as HttpServer from "@effect/platform/HttpServer"
import * as NodeHttpServer from "@effect/platform-node/NodeHttpServer"
import { describe, expect, it } from "@effect/vitest"
import * as ApiError from "@signalman/core/ApiError"
import * as CheckSpec from "@signalman/core/CheckSpec"
import * as RequestBody from "@signalman/core/RequestBody"
import * as Context from "effect/Context"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Liveness from "../src/http/Liveness.js"
import * as Serve from "../src/http/Serve.js"
import * as Tracing from "../src/tracing/Tracing.js"
import * as Reply from "./support/Http.js"

const MonitorBody = RequestBody.Struct({
  name: Schema.String,
  check: CheckSpec.CheckSpec,
  tags: Schema.optionalWith(Schema.Array(Schema.String), { exact: true })
})

class Created extends Schema.Class<Created>("Created")({ name: Schema.String, type: Schema.String }) {}

class Probe extends HttpApiGroup.make("probe")
  .add(
    HttpApiEndpoint.post("create", "/api/v1/monitors")
      .setPayload(MonitorBody)
      .addSuccess(Created, { status: 201 })
      .addError(ApiError.Wire.Conflict)
  )
  .add(HttpApiEndpoint.get("boom", "/api/v1/boom").addSuccess(Created)) {}

class ProbeApi extends HttpApi.make("probe").add(Probe).addError(ApiError.Wire.UnprocessableEntity) {}

const MAX_BODY = 4096

const handlers = HttpApiBuilder.group(ProbeApi, "probe", (h) =>
  h
    .handle("create", ({ payload }) =>
      payload.name === "taken"
        ? Effect.fail(ApiError.make("SLUG_TAKEN", "That name is taken", { field: "name" }))
        : Effect.succeed(new Created({ name: payload.name, type: payload.check.type }))
    )
    .handle("boom", () => Effect.die(new Error("secret internal detail")))
)

class Base extends Context.Tag("test/Base")<Base, string>() {}

const server = Layer.effect(
  Base,
  Effect.map(HttpServer.HttpServer, (s) => {
    const address = s.address
    return address._tag === "TcpAddress" ? `http://127.0.0.1:${address.port}` : ""
  })
).pipe(
  Layer.provide(
    Serve.layer(ProbeApi, HttpApiBuilder.api(ProbeApi).pipe(Layer.provide(handlers)), { maxBodyBytes: MAX_BODY })
  ),
  // The service's own server: the request id and default headers are set by its listener.
  Layer.provideMerge(NodeHttpServer.layer(() => new Liveness.Server(), { port: 0, host: "127.0.0.1" })),
  // Tracing off, as the service runs without the OTel environment (`App.layer`): no span, so `trace_id` is the
  // request id.
  Layer.provide(Tracing.layer(null))
)

const json = (body: unknown) => ({
  method: "POST",
  headers: { "content-type": "application/json" },
  body: JSON.stringify(body)
})

const http = { type: "http", url: "https://example.com/health" }

/** A raw request, for what fetch will not send (a chunked body with no length). */
const raw = (base: string, text: string) =>
  Effect.promise(
    () =>
      new Promise<string>((resolve, reject) => {
        const { port } = new URL(base)
        const socket = net.connect(Number(port), "127.0.0.1", () => socket.write(text))
        let out = ""
        socket.setEncoding("utf8").on("data", (d: string) => {
          out += d
        })
        socket.on("end", () => resolve(out))
        socket.on("error", reject)
        setTimeout(() => {
          socket.destroy()
          resolve(out)
        }, 3000)
      })
  )

describe("request conventions", () => {
  it.layer(server)((it) => {
    it.effect("a valid body reaches the handler: 201, JSON with charset, no-store", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(`${base}/api/v1/monitors`, json({ name: "api", check: http }))
        expect(reply.status).toBe(201)
        expect(reply.json).toEqual({ name: "api", type: "http" })
        expect(reply.headers.get("content-type")).toBe("application/json; charset=utf-8")
        expect(reply.headers.get("cache-control")).toBe("no-store")
      })
    )

    it.effect("an unknown key inside check is 422 INVALID_JSON naming check.timeuot and the accepted keys", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(
          `${base}/api/v1/monitors`,
          json({ name: "api", check: { ...http, timeuot: 5 } })
        )
        expect(reply.status).toBe(422)
        const error = Reply.envelope(reply)
        expect(error.code).toBe("INVALID_JSON")
        expect(error.field).toBe("check.timeuot")
        expect(error.message).toContain("check accepts")
        expect(error.message).toContain("timeout")
        expect(error.details["accepted"]).toEqual(expect.arrayContaining(["type", "url", "timeout", "headers"]))
        expect(error.trace_id).toBe(reply.headers.get("x-request-id"))
      })
    )

    it.effect("an unknown key in a flow step is 422 naming check.steps[1].selctor", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const check = {
          type: "flow",
          start_url: "https://example.com/login",
          steps: [
            { action: "goto", url: "https://example.com/login" },
            { action: "click", selctor: "#go" },
            { action: "assert_text", text: "Welcome" }
          ]
        }
        const reply = yield* Reply.request(`${base}/api/v1/monitors`, json({ name: "journey", check }))
        expect(reply.status).toBe(422)
        const error = Reply.envelope(reply)
        expect(error.code).toBe("INVALID_JSON")
        expect(error.field).toBe("check.steps[1].selctor")
        expect(error.details["accepted"]).toEqual(["action", "selector"])
      })
    )

    it.effect("a read-only field echoed back from a GET is 422 INVALID_JSON naming it", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(
          `${base}/api/v1/monitors`,
          json({ id: "0190c0de-0000-7000-8000-000000000000", name: "api", check: http })
        )
        expect(reply.status).toBe(422)
        expect(Reply.envelope(reply).field).toBe("id")
        expect(Reply.envelope(reply).details["accepted"]).toEqual(["name", "check", "tags"])
      })
    )

    it.effect("map keys stay free: any header name is accepted", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const check = { ...http, headers: { "X-Anything-Goes": "1", timeuot: "still a header" } }
        const reply = yield* Reply.request(`${base}/api/v1/monitors`, json({ name: "api", check }))
        expect(reply.status).toBe(201)
      })
    )

    it.effect("a wrong type is 400 VALIDATION_FAILED naming the field", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(
          `${base}/api/v1/monitors`,
          json({ name: "db", check: { type: "tcp", host: "db.example.com", port: "x" } })
        )
        expect(reply.status).toBe(400)
        const error = Reply.envelope(reply)
        expect(error.code).toBe("VALIDATION_FAILED")
        expect(error.field).toBe("check.port")
      })
    )

    it.effect("a missing required field is 400 VALIDATION_FAILED naming it", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(`${base}/api/v1/monitors`, json({ check: http }))
        expect(reply.status).toBe(400)
        expect(Reply.envelope(reply)).toMatchObject({ code: "VALIDATION_FAILED", field: "name" })
        expect(Reply.envelope(reply).message).toBe("name is required")
      })
    )

    it.effect("an unknown key wins over a type error elsewhere in the same body", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(`${base}/api/v1/monitors`, json({ name: 7, check: http, colour: "red" }))
        expect(reply.status).toBe(422)
        expect(Reply.envelope(reply).field).toBe("colour")
      })
    )

    it.effect("a body that is not JSON is 400 INVALID_JSON", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(`${base}/api/v1/monitors`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: "{name: 'api',"
        })
        expect(reply.status).toBe(400)
        expect(Reply.envelope(reply)).toMatchObject({ code: "INVALID_JSON", field: null })
      })
    )

    it.effect("a JSON route with no body is 400 INVALID_JSON", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(`${base}/api/v1/monitors`, { method: "POST" })
        expect(reply.status).toBe(400)
        expect(Reply.envelope(reply).code).toBe("INVALID_JSON")
      })
    )

    it.effect("a body without Content-Type application/json is 415 INVALID_CONTENT_TYPE", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const body = JSON.stringify({ name: "api", check: http })
        for (const contentType of [
          "text/plain",
          "application/x-www-form-urlencoded",
          "multipart/form-data; boundary=x"
        ]) {
          const reply = yield* Reply.request(`${base}/api/v1/monitors`, {
            method: "POST",
            headers: { "content-type": contentType },
            body
          })
          expect(reply.status).toBe(415)
          expect(Reply.envelope(reply).code).toBe("INVALID_CONTENT_TYPE")
        }
        // fetch labels a string body text/plain; a raw request can send none at all.
        const none = yield* raw(
          base,
          `POST /api/v1/monitors HTTP/1.1\r\nHost: x\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n${body}`
        )
        expect(none).toMatch(/^HTTP\/1\.1 415/)
        expect(none).toContain('"code":"INVALID_CONTENT_TYPE"')
      })
    )

    it.effect("application/json with a charset parameter is accepted", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(`${base}/api/v1/monitors`, {
          method: "POST",
          headers: { "content-type": "application/json; charset=utf-8" },
          body: JSON.stringify({ name: "api", check: http })
        })
        expect(reply.status).toBe(201)
      })
    )

    it.effect("a body over server.max_body_bytes is 413 PAYLOAD_TOO_LARGE, declared or streamed", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const big = JSON.stringify({ name: "x".repeat(MAX_BODY), check: http })
        const declared = yield* Reply.request(`${base}/api/v1/monitors`, {
          method: "POST",
          headers: { "content-type": "application/json" },
          body: big
        })
        expect(declared.status).toBe(413)
        expect(Reply.envelope(declared).code).toBe("PAYLOAD_TOO_LARGE")
        const chunk = big.length.toString(16)
        const streamed = yield* raw(
          base,
          "POST /api/v1/monitors HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n" +
            `Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n${chunk}\r\n${big}\r\n0\r\n\r\n`
        )
        // A body with no declared length is cut off where it passes the limit: the platform then drops the
        // connection, so the client sees either the 413 or a closed connection; the handler never runs.
        expect(streamed === "" || /^HTTP\/1\.1 413/.test(streamed)).toBe(true)
        expect(streamed).not.toMatch(/^HTTP\/1\.1 201/)
      })
    )

    it.effect("a handler's ApiError is answered in the envelope with the request id", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(`${base}/api/v1/monitors`, {
          ...json({ name: "taken", check: http }),
          headers: { "content-type": "application/json", "x-request-id": "req-42" }
        })
        expect(reply.status).toBe(409)
        expect(reply.json).toEqual({
          error: { code: "SLUG_TAKEN", message: "That name is taken", field: "name", details: {}, trace_id: "req-42" }
        })
      })
    )

    it.effect("a defect is 500 INTERNAL_ERROR without internals", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(`${base}/api/v1/boom`)
        expect(reply.status).toBe(500)
        expect(Reply.envelope(reply).code).toBe("INTERNAL_ERROR")
        expect(reply.text).not.toContain("secret internal detail")
      })
    )

    it.effect("Effect's own decode error never leaks in its own shape", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const bodies = [{ name: 1 }, { name: "a", check: { type: "nope" } }, [], "text", null, { name: "a", check: 5 }]
        for (const body of bodies) {
          const reply = yield* Reply.request(`${base}/api/v1/monitors`, json(body))
          expect([400, 422]).toContain(reply.status)
          expect(Object.keys(reply.json as object)).toEqual(["error"])
          expect(reply.text).not.toMatch(/HttpApiDecodeError|"_tag"|Pointer|Composite/)
        }
      })
    )

    it.effect("another method on the route is 405 with Allow", () =>
      Effect.gen(function* () {
        const base = yield* Base
        const reply = yield* Reply.request(`${base}/api/v1/monitors`)
        expect(reply.status).toBe(405)
        expect(reply.headers.get("allow")).toBe("POST")
        expect(reply.headers.get("cache-control")).toBe("private, max-age=10")
      })
    )
  })
})
