import * as Http from "node:http"
import { assert, describe, it } from "@effect/vitest"
import * as Protocol from "@signalman/core/api/Agent"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as HttpCalls from "../src/HttpCalls.js"
import * as FakeService from "./support/FakeService.js"
import * as Target from "./support/Target.js"

const targetOf = (url: string, token = FakeService.TOKEN): HttpCalls.Target => ({
  url,
  token: Redacted.make(token),
  userAgent: "signalman-agent/test"
})

const hello = new Protocol.Hello({ version: "0.1.0", browser: null, concurrency: 10 })

// A server that answers every request with one status and body.
const answering = (status: number, body: string) =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const server = Http.createServer((_, response) => {
        response.writeHead(status, { "content-type": "text/plain" })
        response.end(body)
      })
      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const address = server.address()
      if (address === null || typeof address === "string") throw new Error("no port")
      return { server, url: `http://127.0.0.1:${address.port}` }
    }),
    ({ server }) => Effect.promise(() => new Promise<void>((resolve) => server.close(() => resolve())))
  )

describe("HttpCalls", () => {
  it("messageOf: the API envelope's message, else the body's first line, else the status", () => {
    const envelope = JSON.stringify({
      error: { code: "UNAUTHENTICATED", message: "Token revoked", field: null, details: {}, trace_id: "t" }
    })
    assert.strictEqual(HttpCalls.messageOf(401, envelope), "Token revoked")
    assert.strictEqual(HttpCalls.messageOf(401, "Unauthorized by the proxy\n<html>"), "Unauthorized by the proxy")
    assert.strictEqual(HttpCalls.messageOf(401, ""), "HTTP 401")
  })

  it.scopedLive("hello: the welcome, and the clock offset its Date header shows", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make({ clockAheadMs: 120_000 })
      const welcomed = yield* HttpCalls.hello(targetOf(service.url), hello)
      assert.strictEqual(welcomed.welcome.region, FakeService.REGION)
      const offset = Option.getOrThrow(welcomed.offset)
      assert.isTrue(offset > 118_000 && offset <= 121_000, String(offset))
      assert.deepStrictEqual(service.hellos[0]?.hello, hello)
      assert.strictEqual(service.hellos[0]?.userAgent, "signalman-agent/test")
    })
  )

  it.scopedLive("hello with a refused token is TokenRefused with the service's message", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make()
      const error = yield* Effect.flip(HttpCalls.hello(targetOf(service.url, "sm_agent_wrong"), hello))
      assert.deepStrictEqual(
        { tag: error._tag, message: error.message },
        { tag: "TokenRefused", message: "This agent token is not valid (revoked?)" }
      )
    })
  )

  it.scopedLive("a 401 that is not the API's envelope (a proxy's) is a refused token too", () =>
    Effect.gen(function* () {
      const { url } = yield* answering(401, "Authorization Required")
      const error = yield* Effect.flip(HttpCalls.hello(targetOf(url), hello))
      assert.deepStrictEqual(
        { tag: error._tag, message: error.message },
        { tag: "TokenRefused", message: "Authorization Required" }
      )
    })
  )

  it.scopedLive("a 5xx, another 4xx, an answer that is not the protocol's, no server: Unreachable, to retry", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make({ helloFailures: [503] })
      const unavailable = yield* Effect.flip(HttpCalls.hello(targetOf(service.url), hello))
      assert.deepStrictEqual(
        { tag: unavailable._tag, status: unavailable._tag === "Unreachable" ? unavailable.status : 0 },
        { tag: "Unreachable", status: 503 }
      )

      const notFound = yield* answering(404, "Not Found")
      const missing = yield* Effect.flip(HttpCalls.hello(targetOf(notFound.url), hello))
      assert.strictEqual(missing._tag, "Unreachable")
      assert.strictEqual(missing.message, "POST /api/agent/v1/hello: HTTP 404: Not Found")

      const garbage = yield* answering(200, "<html>hello</html>")
      const unreadable = yield* Effect.flip(HttpCalls.hello(targetOf(garbage.url), hello))
      assert.strictEqual(unreadable._tag, "Unreachable")
      assert.match(unreadable.message, /the answer is not the protocol's/)

      const nobody = yield* Effect.flip(HttpCalls.hello(targetOf(yield* FakeService.nobodyListening), hello))
      assert.strictEqual(nobody._tag, "Unreachable")
      assert.match(nobody.message, /ECONNREFUSED/)
    })
  )

  it.scopedLive("deliver: the ids the service acknowledged; a refused token is TokenRefused", () =>
    Effect.gen(function* () {
      const service = yield* FakeService.make()
      const job = FakeService.job(service, Target.check({ type: "tcp", host: "example.com", port: 443 }), 0)
      const result = new Protocol.Result({
        id: "3c1f9a2e-5b6d-4e7f-8a9b-0c1d2e3f4a5b",
        target_id: job.target_id,
        due: job.due,
        outcome: null
      })
      assert.deepStrictEqual(yield* HttpCalls.deliver(targetOf(service.url), [result]), [result.id])
      assert.strictEqual(service.deliveries[0]?.via, "http")
      const refused = yield* Effect.flip(HttpCalls.deliver(targetOf(service.url, "sm_agent_wrong"), [result]))
      assert.strictEqual(refused._tag, "TokenRefused")
    })
  )
})
