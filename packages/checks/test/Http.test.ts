import type * as NodeHttp from "node:http"
import { assert, describe, it } from "@effect/vitest"
import { HttpCheck } from "@signalman/core/CheckSpec"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Dial from "../src/Dial.js"
import * as Http from "../src/Http.js"
import type { Settings } from "../src/ProbeSettings.js"
import type * as Resolver from "../src/Resolver.js"
import { internalSpellings } from "./support/Bypasses.js"
import { selfSigned } from "./support/Certificates.js"
import { closedPort, type Handler, httpServer, httpsServer, onBothLoopbacks } from "./support/Loopback.js"
import { admitting, noResolver, region, settings, tableResolver, userAgent } from "./support/ProbeEnv.js"

const check = (fields: Record<string, unknown>) => Schema.decodeUnknownSync(HttpCheck)({ type: "http", ...fields })

const env = (resolver: Layer.Layer<Resolver.Resolver> = noResolver, overrides: Partial<Settings> = {}) =>
  Layer.mergeAll(settings(overrides), resolver)

const send = (response: NodeHttp.ServerResponse, status: number, body = "", headers: Record<string, string> = {}) => {
  response.writeHead(status, headers)
  response.end(body)
}

const redirect = (response: NodeHttp.ServerResponse, location: string, status = 302) =>
  send(response, status, "", { location })

// Routes on the path; anything else is 404.
const routes =
  (table: Readonly<Record<string, Handler>>): Handler =>
  (request, response) => {
    const route = table[request.url.split("?")[0] ?? ""]
    if (route === undefined) send(response, 404, "not found")
    else route(request, response)
  }

// /status/<code> answers that code; /status/<code>/<retry-after> adds the header.
const statusServer = httpServer((request, response) => {
  const [, , code, retryAfter] = request.url.split("/")
  send(response, Number(code), "", retryAfter === undefined ? {} : { "retry-after": decodeURIComponent(retryAfter) })
})

describe("Http", () => {
  describe("acceptsStatus", () => {
    it("a code, a list, a class and an inclusive range", () => {
      assert.isTrue(Http.acceptsStatus(201, 201))
      assert.isFalse(Http.acceptsStatus(201, 200))
      assert.isTrue(Http.acceptsStatus([200, 204], 204))
      assert.isFalse(Http.acceptsStatus([200, 204], 201))
      assert.isTrue(Http.acceptsStatus("2xx", 200))
      assert.isTrue(Http.acceptsStatus("2xx", 299))
      assert.isFalse(Http.acceptsStatus("2xx", 300))
      assert.isTrue(Http.acceptsStatus("5xx", 503))
      assert.isTrue(Http.acceptsStatus("200-399", 200))
      assert.isTrue(Http.acceptsStatus("200-399", 399))
      assert.isFalse(Http.acceptsStatus("200-399", 400))
      assert.isFalse(Http.acceptsStatus("200-399", 199))
    })
  })

  describe("a plain answer", () => {
    it.scopedLive(
      "a 200 is up; details carry status_code, final_url, redirects; phases connect, first byte, total",
      () =>
        Effect.gen(function* () {
          const server = yield* httpServer((_request, response) => send(response, 200, "ok"))
          const outcome = yield* Http.probe(check({ url: `${server.origin}/health?deep=1` }))
          assert.strictEqual(outcome.status, "up")
          assert.isNull(outcome.error)
          assert.deepStrictEqual(outcome.details, {
            final_url: `${server.origin}/health?deep=1`,
            status_code: 200,
            redirects: 0
          })
          assert.isNumber(outcome.phases?.connect_ms)
          assert.isNumber(outcome.phases?.first_byte_ms)
          assert.isUndefined(outcome.phases?.dns_ms, "an IP literal has no DNS phase")
          assert.isUndefined(outcome.phases?.tls_ms, "plain HTTP has no TLS phase")
          assert.strictEqual(outcome.duration_ms, outcome.phases?.total_ms)
          const [seen] = server.requests
          assert.strictEqual(seen?.method, "GET")
          assert.strictEqual(seen?.url, "/health?deep=1")
          assert.strictEqual(seen?.headers["user-agent"], userAgent)
        }).pipe(Effect.provide(env()))
    )

    it.scopedLive("a name is resolved by the Resolver (dns_ms) and sent as the Host header", () => {
      const resolver = tableResolver({ "app.test": ["127.0.0.1"] })
      return Effect.gen(function* () {
        const server = yield* httpServer((_request, response) => send(response, 200))
        const outcome = yield* Http.probe(check({ url: `http://app.test:${server.port}/` }))
        assert.strictEqual(outcome.status, "up")
        assert.isNumber(outcome.phases?.dns_ms)
        assert.strictEqual(server.requests[0]?.headers.host, `app.test:${server.port}`)
        assert.deepStrictEqual(resolver.lookups, [{ host: "app.test", family: "any" }])
      }).pipe(Effect.provide(env(resolver.layer)))
    })

    it.scopedLive("every method is sent as set, with the body and the headers (names are case-insensitive)", () =>
      Effect.gen(function* () {
        const server = yield* httpServer((_request, response) => send(response, 200))
        for (const method of ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"] as const) {
          const outcome = yield* Http.probe(check({ url: `${server.origin}/m`, method }))
          assert.strictEqual(outcome.status, "up", method)
        }
        assert.deepStrictEqual(
          server.requests.map((r) => r.method),
          ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]
        )
        const posted = yield* Http.probe(
          check({
            url: `${server.origin}/orders`,
            method: "POST",
            body: '{"sku":"A-1"}',
            headers: { "Content-Type": "application/json", "X-Trace": "t-1", "User-Agent": "custom-agent" }
          })
        )
        assert.strictEqual(posted.status, "up")
        const seen = server.requests.at(-1)
        assert.strictEqual(seen?.body, '{"sku":"A-1"}')
        assert.strictEqual(seen?.headers["content-type"], "application/json")
        assert.strictEqual(seen?.headers["x-trace"], "t-1")
        assert.strictEqual(seen?.headers["user-agent"], "custom-agent", "a User-Agent header replaces the default")
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("a header value the request cannot carry is error: the check cannot be sent as set", () =>
      Effect.gen(function* () {
        const server = yield* httpServer((_request, response) => send(response, 200))
        const outcome = yield* Http.probe(check({ url: server.origin, headers: { "X-Bad": "a\r\nInjected: 1" } }))
        assert.strictEqual(outcome.status, "error")
        assert.match(outcome.error ?? "", /header/)
        assert.strictEqual(server.requests.length, 0)
      }).pipe(Effect.provide(env()))
    )
  })

  describe("expected_status", () => {
    const cases: ReadonlyArray<readonly [expected: unknown, code: number, status: string, error: string | null]> = [
      [undefined, 204, "up", null],
      [undefined, 500, "down", "unexpected status 500 (expected 2xx)"],
      [201, 201, "up", null],
      [201, 200, "down", "unexpected status 200 (expected 201)"],
      [[200, 204], 204, "up", null],
      [[200, 204], 201, "down", "unexpected status 201 (expected 200, 204)"],
      ["4xx", 404, "up", null],
      ["4xx", 500, "down", "unexpected status 500 (expected 4xx)"],
      ["200-399", 302, "up", null],
      ["200-399", 400, "down", "unexpected status 400 (expected 200-399)"]
    ]
    for (const [expected, code, status, error] of cases) {
      it.scopedLive(`${JSON.stringify(expected ?? "2xx (default)")} with ${code} is ${status}`, () =>
        Effect.gen(function* () {
          const server = yield* statusServer
          const outcome = yield* Http.probe(
            check({
              url: `${server.origin}/status/${code}`,
              ...(expected === undefined ? {} : { expected_status: expected })
            })
          )
          assert.strictEqual(outcome.status, status)
          assert.strictEqual(outcome.error, error)
          assert.strictEqual(outcome.details?.status_code, code)
        }).pipe(Effect.provide(env()))
      )
    }
  })

  describe("rate limiting", () => {
    it.scopedLive("429 is degraded: rate-limited 429", () =>
      Effect.gen(function* () {
        const server = yield* statusServer
        const outcome = yield* Http.probe(check({ url: `${server.origin}/status/429` }))
        assert.strictEqual(outcome.status, "degraded")
        assert.strictEqual(outcome.error, "rate-limited 429")
        assert.strictEqual(outcome.details?.status_code, 429)
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("503 with Retry-After is degraded and quotes the header, seconds or a date", () =>
      Effect.gen(function* () {
        const server = yield* statusServer
        const seconds = yield* Http.probe(check({ url: `${server.origin}/status/503/120` }))
        assert.strictEqual(seconds.status, "degraded")
        assert.strictEqual(seconds.error, "rate-limited 503 (Retry-After: 120)")
        const date = encodeURIComponent("Wed, 21 Oct 2037 07:28:00 GMT")
        const dated = yield* Http.probe(check({ url: `${server.origin}/status/429/${date}` }))
        assert.strictEqual(dated.error, "rate-limited 429 (Retry-After: Wed, 21 Oct 2037 07:28:00 GMT)")
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("503 without Retry-After is degraded: rate-limited 503", () =>
      Effect.gen(function* () {
        const server = yield* statusServer
        const outcome = yield* Http.probe(check({ url: `${server.origin}/status/503` }))
        assert.strictEqual(outcome.status, "degraded")
        assert.strictEqual(outcome.error, "rate-limited 503")
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("an expected_status that accepts 429 or 503 is honoured first: up", () =>
      Effect.gen(function* () {
        const server = yield* statusServer
        for (const [expected, code] of [
          [429, 429],
          [[200, 503], 503],
          ["4xx", 429],
          ["500-599", 503]
        ] as const) {
          const outcome = yield* Http.probe(
            check({ url: `${server.origin}/status/${code}/30`, expected_status: expected })
          )
          assert.strictEqual(outcome.status, "up", JSON.stringify(expected))
          assert.isNull(outcome.error)
        }
      }).pipe(Effect.provide(env()))
    )
  })

  describe("credentials", () => {
    const guarded = httpServer((request, response) => {
      const allowed = [`Basic ${Buffer.from("alice:s3cret:x").toString("base64")}`, "Bearer tok-123"]
      send(response, allowed.includes(request.headers.authorization ?? "") ? 200 : 401)
    })

    it.scopedLive("basic_auth is sent as Authorization: Basic (a colon in the password included)", () =>
      Effect.gen(function* () {
        const server = yield* guarded
        const outcome = yield* Http.probe(
          check({ url: server.origin, basic_auth: { username: "alice", password: "s3cret:x" } })
        )
        assert.strictEqual(outcome.status, "up")
        assert.strictEqual(
          server.requests[0]?.headers.authorization,
          `Basic ${Buffer.from("alice:s3cret:x").toString("base64")}`
        )
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("bearer_token is sent as Authorization: Bearer, and wins over basic_auth and a header", () =>
      Effect.gen(function* () {
        const server = yield* guarded
        const outcome = yield* Http.probe(
          check({
            url: server.origin,
            headers: { Authorization: "Token nope" },
            basic_auth: { username: "alice", password: "wrong" },
            bearer_token: "tok-123"
          })
        )
        assert.strictEqual(outcome.status, "up")
        assert.strictEqual(server.requests[0]?.headers.authorization, "Bearer tok-123")
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("wrong credentials are down with the 401", () =>
      Effect.gen(function* () {
        const server = yield* guarded
        const outcome = yield* Http.probe(
          check({ url: server.origin, basic_auth: { username: "alice", password: "no" } })
        )
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, "unexpected status 401 (expected 2xx)")
      }).pipe(Effect.provide(env()))
    )
  })

  describe("expected_body_contains", () => {
    const mebibyte = 1024 * 1024
    const pages = httpServer(
      routes({
        "/health": (_q, r) => send(r, 200, "<html>status: all systems operational</html>"),
        "/late": (_q, r) => send(r, 200, `${"x".repeat(mebibyte)}operational`),
        "/early": (_q, r) => send(r, 200, `operational${"x".repeat(2 * mebibyte)}`),
        "/broken": (_q, r) => send(r, 500, "operational")
      })
    )

    it.scopedLive("a body containing the text is up, with body_matched true", () =>
      Effect.gen(function* () {
        const server = yield* pages
        const outcome = yield* Http.probe(
          check({ url: `${server.origin}/health`, expected_body_contains: "operational" })
        )
        assert.strictEqual(outcome.status, "up")
        assert.deepStrictEqual(outcome.details, {
          final_url: `${server.origin}/health`,
          status_code: 200,
          redirects: 0,
          body_matched: true
        })
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("a body without the text is down and says so, with body_matched false", () =>
      Effect.gen(function* () {
        const server = yield* pages
        const outcome = yield* Http.probe(
          check({ url: `${server.origin}/health`, expected_body_contains: "maintenance" })
        )
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, 'body does not contain "maintenance"')
        assert.strictEqual(outcome.details?.body_matched, false)
        assert.strictEqual(outcome.details?.status_code, 200)
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive(
      "only the first MiB is read: text past it counts as missing, text early in a large body is found",
      () =>
        Effect.gen(function* () {
          const server = yield* pages
          const late = yield* Http.probe(check({ url: `${server.origin}/late`, expected_body_contains: "operational" }))
          assert.strictEqual(late.status, "down")
          const early = yield* Http.probe(
            check({ url: `${server.origin}/early`, expected_body_contains: "operational" })
          )
          assert.strictEqual(early.status, "up")
        }).pipe(Effect.provide(env()))
    )

    it.scopedLive("an unexpected status is judged before the body, which is not read", () =>
      Effect.gen(function* () {
        const server = yield* pages
        const outcome = yield* Http.probe(
          check({ url: `${server.origin}/broken`, expected_body_contains: "operational" })
        )
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, "unexpected status 500 (expected 2xx)")
        assert.isUndefined(outcome.details?.body_matched)
      }).pipe(Effect.provide(env()))
    )
  })

  describe("redirects", () => {
    // /hop/<n> redirects to /hop/<n - 1> until /hop/0, which answers 200.
    const hops: Handler = (request, response) => {
      const left = Number(request.url.split("/")[2])
      if (left > 0) redirect(response, `/hop/${left - 1}`)
      else send(response, 200, "arrived")
    }

    it.scopedLive("every Location form is followed: absolute path, relative, dot segments, absolute url", () =>
      Effect.gen(function* () {
        let origin = ""
        const server = yield* httpServer(
          routes({
            "/start": (_q, r) => redirect(r, "/a/one", 302),
            "/a/one": (_q, r) => redirect(r, "two", 301),
            "/a/two": (_q, r) => redirect(r, "../b/./c/../d", 307),
            "/b/d": (_q, r) => redirect(r, `${origin}/end`, 308),
            "/end": (_q, r) => send(r, 200, "done")
          })
        )
        origin = server.origin
        const outcome = yield* Http.probe(check({ url: `${server.origin}/start` }))
        assert.strictEqual(outcome.status, "up")
        assert.deepStrictEqual(outcome.details, { final_url: `${server.origin}/end`, status_code: 200, redirects: 4 })
        assert.deepStrictEqual(
          server.requests.map((r) => r.url),
          ["/start", "/a/one", "/a/two", "/b/d", "/end"]
        )
        assert.strictEqual(server.connections(), 5, "a fresh connection per hop")
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("ten redirects are followed", () =>
      Effect.gen(function* () {
        const server = yield* httpServer(hops)
        const outcome = yield* Http.probe(check({ url: `${server.origin}/hop/10` }))
        assert.strictEqual(outcome.status, "up")
        assert.deepStrictEqual(outcome.details, {
          final_url: `${server.origin}/hop/0`,
          status_code: 200,
          redirects: 10
        })
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("an eleventh redirect is down: too many redirects", () =>
      Effect.gen(function* () {
        const server = yield* httpServer(hops)
        const outcome = yield* Http.probe(check({ url: `${server.origin}/hop/11` }))
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, "too many redirects (more than 10)")
        assert.deepStrictEqual(outcome.details, {
          final_url: `${server.origin}/hop/1`,
          status_code: 302,
          redirects: 10
        })
        assert.strictEqual(server.requests.length, 11)
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("a loop is down as soon as a url comes round again", () =>
      Effect.gen(function* () {
        const server = yield* httpServer(
          routes({ "/a": (_q, r) => redirect(r, "/b"), "/b": (_q, r) => redirect(r, "/a") })
        )
        const outcome = yield* Http.probe(check({ url: `${server.origin}/a` }))
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, `redirect loop: ${server.origin}/a was already requested`)
        assert.deepStrictEqual(outcome.details, { final_url: `${server.origin}/b`, status_code: 302, redirects: 1 })
        assert.strictEqual(server.requests.length, 2)
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("with follow_redirects false the redirect itself is judged", () =>
      Effect.gen(function* () {
        const server = yield* httpServer(hops)
        const strict = yield* Http.probe(check({ url: `${server.origin}/hop/1`, follow_redirects: false }))
        assert.strictEqual(strict.status, "down")
        assert.strictEqual(strict.error, "unexpected status 302 (expected 2xx)")
        assert.deepStrictEqual(strict.details, { final_url: `${server.origin}/hop/1`, status_code: 302, redirects: 0 })
        const expecting = yield* Http.probe(
          check({ url: `${server.origin}/hop/1`, follow_redirects: false, expected_status: 302 })
        )
        assert.strictEqual(expecting.status, "up")
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("303, and 301/302 after POST, turn into GET without the body; 307 and 308 keep both", () =>
      Effect.gen(function* () {
        const server = yield* httpServer(
          routes({
            "/303": (_q, r) => redirect(r, "/echo", 303),
            "/302": (_q, r) => redirect(r, "/echo", 302),
            "/307": (_q, r) => redirect(r, "/echo", 307),
            "/308": (_q, r) => redirect(r, "/echo", 308),
            "/echo": (_q, r) => send(r, 200)
          })
        )
        const post = (path: string) =>
          Http.probe(
            check({
              url: `${server.origin}${path}`,
              method: "POST",
              body: "payload",
              headers: { "content-type": "text/plain" }
            })
          )
        for (const [path, method, body] of [
          ["/303", "GET", ""],
          ["/302", "GET", ""],
          ["/307", "POST", "payload"],
          ["/308", "POST", "payload"]
        ] as const) {
          const outcome = yield* post(path)
          assert.strictEqual(outcome.status, "up", path)
          const echoed = server.requests.at(-1)
          assert.strictEqual(echoed?.method, method, path)
          assert.strictEqual(echoed?.body, body, path)
          assert.strictEqual(echoed?.headers["content-type"], method === "GET" ? undefined : "text/plain", path)
        }
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive(
      "credentials go to the first origin only: dropped on a cross-origin hop, kept on a same-origin one",
      () =>
        Effect.gen(function* () {
          const other = yield* httpServer((_request, response) => send(response, 200))
          const server = yield* httpServer(
            routes({
              "/away": (_q, r) => redirect(r, `${other.origin}/landing`),
              "/stay": (_q, r) => redirect(r, "/landing"),
              "/landing": (_q, r) => send(r, 200)
            })
          )
          const credentials = { bearer_token: "tok-123", headers: { Cookie: "session=1", "X-Kept": "yes" } }
          const away = yield* Http.probe(check({ url: `${server.origin}/away`, ...credentials }))
          assert.strictEqual(away.status, "up")
          const landed = other.requests[0]
          assert.isUndefined(landed?.headers.authorization)
          assert.isUndefined(landed?.headers.cookie)
          assert.strictEqual(landed?.headers["x-kept"], "yes")
          yield* Http.probe(check({ url: `${server.origin}/stay`, ...credentials }))
          const stayed = server.requests.at(-1)
          assert.strictEqual(stayed?.headers.authorization, "Bearer tok-123")
          assert.strictEqual(stayed?.headers.cookie, "session=1")
        }).pipe(Effect.provide(env()))
    )

    it.scopedLive(
      "every hop, cross-origin too, carries the User-Agent and X-Signalman-Region; a check's own User-Agent is kept, its X-Signalman-Region is not",
      () =>
        Effect.gen(function* () {
          const other = yield* httpServer((_request, response) => send(response, 200))
          const server = yield* httpServer(
            routes({
              "/one": (_q, r) => redirect(r, "/two", 301),
              "/two": (_q, r) => redirect(r, `${other.origin}/three`, 307),
              "/own": (_q, r) => redirect(r, `${other.origin}/own-landing`, 302)
            })
          )
          const plain = yield* Http.probe(check({ url: `${server.origin}/one` }))
          assert.strictEqual(plain.status, "up")
          const hops = [...server.requests, ...other.requests]
          assert.deepStrictEqual(
            hops.map((seen) => [seen.url, seen.headers["user-agent"], seen.headers["x-signalman-region"]]),
            [
              ["/one", userAgent, region],
              ["/two", userAgent, region],
              ["/three", userAgent, region]
            ]
          )
          const own = yield* Http.probe(
            check({
              url: `${server.origin}/own`,
              headers: { "User-Agent": "their-agent/2", "X-Signalman-Region": "elsewhere" }
            })
          )
          assert.strictEqual(own.status, "up")
          for (const seen of [server.requests.at(-1), other.requests.at(-1)]) {
            assert.strictEqual(seen?.headers["user-agent"], "their-agent/2")
            assert.strictEqual(seen?.headers["x-signalman-region"], region)
          }
        }).pipe(Effect.provide(env()))
    )

    it.scopedLive("a Location that is no url, or not http(s), is down", () =>
      Effect.gen(function* () {
        const server = yield* httpServer(
          routes({
            "/bad": (_q, r) => redirect(r, "http://[::1"),
            "/ftp": (_q, r) => redirect(r, "ftp://example.com/f")
          })
        )
        const bad = yield* Http.probe(check({ url: `${server.origin}/bad` }))
        assert.strictEqual(bad.status, "down")
        assert.strictEqual(bad.error, 'redirect to "http://[::1": invalid url: http://[::1')
        const ftp = yield* Http.probe(check({ url: `${server.origin}/ftp` }))
        assert.strictEqual(ftp.status, "down")
        assert.strictEqual(
          ftp.error,
          'redirect to "ftp://example.com/f": unsupported scheme ftp: in ftp://example.com/f'
        )
      }).pipe(Effect.provide(env()))
    )
  })

  describe("failures to get an answer", () => {
    it.scopedLive("a server that never answers: error at the outer timeout, with the phases that finished", () =>
      Effect.gen(function* () {
        const server = yield* httpServer(() => {})
        const outcome = yield* Http.probe(check({ url: `${server.origin}/stall`, timeout: 0.5 }))
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(outcome.error, "timed out after 0.5 s")
        assert.deepStrictEqual(outcome.details, {
          final_url: `${server.origin}/stall`,
          status_code: null,
          redirects: 0
        })
        assert.isNumber(outcome.phases?.connect_ms)
        assert.isUndefined(outcome.phases?.first_byte_ms)
        assert.isAtLeast(outcome.duration_ms, 490)
        assert.isBelow(outcome.duration_ms, 3000)
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("the timeout bounds the whole check, redirects and body included", () =>
      Effect.gen(function* () {
        const server = yield* httpServer(
          routes({
            "/go": (_q, r) => redirect(r, "/stall"),
            "/stall": () => {},
            "/dribble": (_q, r) => {
              r.writeHead(200, { "content-type": "text/plain" })
              r.write("still loading")
            }
          })
        )
        const redirected = yield* Http.probe(check({ url: `${server.origin}/go`, timeout: 0.3 }))
        assert.strictEqual(redirected.status, "error")
        assert.deepStrictEqual(redirected.details, {
          final_url: `${server.origin}/stall`,
          status_code: null,
          redirects: 1
        })
        const dribbling = yield* Http.probe(
          check({ url: `${server.origin}/dribble`, timeout: 0.3, expected_body_contains: "ready" })
        )
        assert.strictEqual(dribbling.status, "error")
        assert.strictEqual(dribbling.error, "timed out after 0.3 s")
        assert.strictEqual(dribbling.details?.status_code, 200)
        assert.isNumber(dribbling.phases?.first_byte_ms)
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("a check cut off by its timeout closes its connection, waiting for headers or reading the body", () =>
      Effect.gen(function* () {
        const server = yield* httpServer(
          routes({
            "/stall": () => {},
            "/dribble": (_q, r) => {
              r.writeHead(200, { "content-type": "text/plain" })
              r.write("still loading")
            }
          })
        )
        // The server sees each connection close soon after the check gives up (bounded wait, polled).
        const closedSoon = Effect.gen(function* () {
          for (let turn = 0; turn < 100 && server.open() > 0; turn++) yield* Effect.sleep("20 millis")
          assert.strictEqual(server.open(), 0, "the timed-out check left its connection open")
        })
        const stalled = yield* Http.probe(check({ url: `${server.origin}/stall`, timeout: 0.3 }))
        assert.strictEqual(stalled.error, "timed out after 0.3 s")
        yield* closedSoon
        const dribbling = yield* Http.probe(
          check({ url: `${server.origin}/dribble`, timeout: 0.3, expected_body_contains: "ready" })
        )
        assert.strictEqual(dribbling.error, "timed out after 0.3 s")
        yield* closedSoon
        assert.strictEqual(server.connections(), 2)
      }).pipe(Effect.provide(env()))
    )

    it.live("a refused connection is down (not error), with no status code", () =>
      Effect.gen(function* () {
        const port = yield* closedPort()
        const outcome = yield* Http.probe(check({ url: `http://127.0.0.1:${port}/` }))
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, `connect ECONNREFUSED 127.0.0.1:${port}`)
        assert.deepStrictEqual(outcome.details, {
          final_url: `http://127.0.0.1:${port}/`,
          status_code: null,
          redirects: 0
        })
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("a connection closed without an answer is down", () =>
      Effect.gen(function* () {
        const server = yield* httpServer((_request, response) => response.socket?.destroy())
        const outcome = yield* Http.probe(check({ url: server.origin }))
        assert.strictEqual(outcome.status, "down")
        assert.isString(outcome.error)
      }).pipe(Effect.provide(env()))
    )

    it.live("a name with no address is down with the resolver's message", () => {
      const resolver = tableResolver({})
      return Effect.gen(function* () {
        const outcome = yield* Http.probe(check({ url: "http://nowhere.test/" }))
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, "dns: no address for nowhere.test")
        assert.isNumber(outcome.phases?.dns_ms)
      }).pipe(Effect.provide(env(resolver.layer)))
    })

    it.live("a url that does not parse, or is not http(s), is error: the check cannot be made", () =>
      Effect.gen(function* () {
        const invalid = yield* Http.probe(check({ url: "not a url" }))
        assert.strictEqual(invalid.status, "error")
        assert.strictEqual(invalid.error, "invalid url: not a url")
        assert.deepStrictEqual(invalid.details, { final_url: "not a url", status_code: null, redirects: 0 })
        const ftp = yield* Http.probe(check({ url: "ftp://example.com/" }))
        assert.strictEqual(ftp.status, "error")
        assert.strictEqual(ftp.error, "unsupported scheme ftp: in ftp://example.com/")
      }).pipe(Effect.provide(env()))
    )
  })

  describe("ip_version", () => {
    it.scopedLive("an IPv6-only server on ::1: ipv6 and any are up, ipv4 is down with dns: no IPv4 address", () => {
      const resolver = tableResolver({ "six.test": ["::1"] })
      return Effect.gen(function* () {
        const server = yield* httpServer((_request, response) => send(response, 200), { host: "::1" })
        const url = `http://six.test:${server.port}/`
        for (const ip_version of ["ipv6", "any"]) {
          const outcome = yield* Http.probe(check({ url, ip_version }))
          assert.strictEqual(outcome.status, "up", ip_version)
        }
        const four = yield* Http.probe(check({ url, ip_version: "ipv4" }))
        assert.strictEqual(four.status, "down")
        assert.strictEqual(four.error, "dns: no IPv4 address")
        const literal = yield* Http.probe(check({ url: `${server.origin}/`, ip_version: "ipv6" }))
        assert.strictEqual(literal.status, "up")
      }).pipe(Effect.provide(env(resolver.layer)))
    })

    it.live("an IPv6 literal url pinned to ipv4 is error: the check's own configuration", () =>
      Effect.gen(function* () {
        const outcome = yield* Http.probe(check({ url: "http://[::1]:8080/", ip_version: "ipv4" }))
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(outcome.error, "ip_version ipv4 cannot dial [::1], an IPv6 address")
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("ipv4 dials only IPv4 even when the name has both", () => {
      const resolver = tableResolver({ "dual.test": ["::1", "127.0.0.1"] })
      return Effect.gen(function* () {
        const { four, six } = yield* onBothLoopbacks((host, port) =>
          httpServer((_request, response) => send(response, 200), { host, port })
        )
        const outcome = yield* Http.probe(check({ url: `http://dual.test:${six.port}/`, ip_version: "ipv4" }))
        assert.strictEqual(outcome.status, "up")
        assert.strictEqual(four.requests.length, 1)
        assert.strictEqual(six.requests.length, 0)
        assert.deepStrictEqual(resolver.lookups, [{ host: "dual.test", family: "ipv4" }])
      }).pipe(Effect.provide(env(resolver.layer)))
    })

    it.scopedLive("the family is kept on every redirect hop; a hop to the other family's literal is down", () => {
      const resolver = tableResolver({ "six.test": ["::1"], "dual.test": ["127.0.0.1", "::1"] })
      return Effect.gen(function* () {
        const target = yield* httpServer((_request, response) => send(response, 200), { host: "::1" })
        const start = yield* httpServer(
          routes({
            "/next": (_q, r) => redirect(r, `http://dual.test:${target.port}/landing`),
            "/four": (_q, r) => redirect(r, `http://127.0.0.1:${target.port}/landing`)
          }),
          { host: "::1" }
        )
        const followed = yield* Http.probe(check({ url: `http://six.test:${start.port}/next`, ip_version: "ipv6" }))
        assert.strictEqual(followed.status, "up")
        assert.strictEqual(followed.details?.redirects, 1)
        assert.deepStrictEqual(
          resolver.lookups.map((l) => `${l.host} ${l.family}`),
          ["six.test ipv6", "dual.test ipv6"]
        )
        const four = yield* Http.probe(check({ url: `http://six.test:${start.port}/four`, ip_version: "ipv6" }))
        assert.strictEqual(four.status, "down")
        assert.strictEqual(four.error, "ip_version ipv6 cannot dial 127.0.0.1, an IPv4 address")
      }).pipe(Effect.provide(env(resolver.layer)))
    })
  })

  describe("https", () => {
    const certificate = selfSigned("secure.test")

    it.scopedLive("verify_tls true against a self-signed certificate is down with the TLS error", () =>
      Effect.gen(function* () {
        const server = yield* httpsServer((_request, response) => send(response, 200), certificate)
        const outcome = yield* Http.probe(check({ url: server.origin }))
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, "tls: self-signed certificate")
        assert.strictEqual(outcome.details?.status_code, null)
        assert.isNumber(outcome.phases?.tls_ms)
        assert.strictEqual(server.requests.length, 0)
      }).pipe(Effect.provide(env()))
    )

    it.scopedLive("verify_tls false is up over TLS; phases include tls_ms; SNI and Host carry the name", () => {
      const resolver = tableResolver({ "secure.test": ["127.0.0.1"] })
      return Effect.gen(function* () {
        const server = yield* httpsServer((_request, response) => send(response, 200, "secure"), certificate)
        const outcome = yield* Http.probe(
          check({ url: `https://secure.test:${server.port}/`, verify_tls: false, expected_body_contains: "secure" })
        )
        assert.strictEqual(outcome.status, "up")
        for (const phase of ["dns_ms", "connect_ms", "tls_ms", "first_byte_ms", "total_ms"] as const) {
          assert.isNumber(outcome.phases?.[phase], phase)
        }
        assert.strictEqual(server.requests[0]?.headers.host, `secure.test:${server.port}`)
      }).pipe(Effect.provide(env(resolver.layer)))
    })
  })

  describe("the internal-address guard (allowPrivateTargets off)", () => {
    const guarded = env(noResolver, { allowPrivateTargets: false })

    for (const [spelling, what] of internalSpellings) {
      it.live(`http://${spelling}/ (${what}) is error, blocked:, and nothing is dialed`, () =>
        Effect.gen(function* () {
          const outcome = yield* Http.probe(check({ url: `http://${spelling}/` }))
          assert.strictEqual(outcome.status, "error")
          assert.match(outcome.error ?? "", /^blocked: /)
          assert.isUndefined(outcome.phases?.connect_ms)
        }).pipe(Effect.provide(guarded))
      )
    }

    it.live("names that resolve to internal addresses are blocked, naming the name and the address", () => {
      const resolver = tableResolver({
        "metadata.google.internal": ["169.254.169.254"],
        "localtest.me": ["127.0.0.1"],
        "169.254.169.254.nip.io": ["169.254.169.254"],
        "intranet.test": ["10.1.2.3", "fd00::1"]
      })
      return Effect.gen(function* () {
        const expected: Record<string, string> = {
          "metadata.google.internal":
            "blocked: metadata.google.internal resolves to 169.254.169.254, a link-local address",
          "localtest.me": "blocked: localtest.me resolves to 127.0.0.1, a loopback address",
          "169.254.169.254.nip.io": "blocked: 169.254.169.254.nip.io resolves to 169.254.169.254, a link-local address",
          "intranet.test": "blocked: intranet.test resolves to fd00::1, a unique-local address"
        }
        for (const [name, message] of Object.entries(expected)) {
          const outcome = yield* Http.probe(check({ url: `http://${name}/` }))
          assert.strictEqual(outcome.status, "error")
          assert.strictEqual(outcome.error, message)
        }
      }).pipe(Effect.provide(env(resolver.layer, { allowPrivateTargets: false })))
    })

    it.scopedLive("DNS rebinding: a name public when first resolved and loopback at check time is refused", () => {
      const resolver = tableResolver({ "rebind.test": { inTurn: [["93.184.216.34"], ["127.0.0.1"]] } })
      return Effect.gen(function* () {
        const server = yield* httpServer((_request, response) => send(response, 200))
        // What a save-time check of the name would have seen: a public address.
        const earlier = yield* Dial.resolve("rebind.test", "any")
        assert.deepStrictEqual(earlier.addresses, [{ address: "93.184.216.34", family: 4 }])
        const outcome = yield* Http.probe(check({ url: `http://rebind.test:${server.port}/` }))
        assert.strictEqual(outcome.status, "error")
        assert.strictEqual(outcome.error, "blocked: rebind.test resolves to 127.0.0.1, a loopback address")
        assert.strictEqual(server.connections(), 0)
      }).pipe(Effect.provide(env(resolver.layer, { allowPrivateTargets: false })))
    })

    // The redirecting server is on 127.0.0.1, which the policy admits as if it were a public host; every other
    // address is judged by the real guard, with allowPrivateTargets off. The internal server on 127.0.0.2 must
    // never see a connection.
    it.scopedLive("a redirect from an admitted server to an internal address is refused at the hop", () => {
      const resolver = tableResolver({ "metadata.test": ["169.254.169.254"], "internal.test": ["127.0.0.2"] })
      return Effect.gen(function* () {
        const internal = yield* httpServer((_request, response) => send(response, 200, "secret"), { host: "127.0.0.2" })
        const p = internal.port
        const targets: Record<string, readonly [location: string, error: string]> = {
          "/literal": [`http://127.0.0.2:${p}/`, "blocked: 127.0.0.2 is a loopback address"],
          "/decimal": [`http://2130706434:${p}/`, "blocked: 127.0.0.2 is a loopback address"],
          "/mapped": [
            `http://[::ffff:127.0.0.2]:${p}/`,
            "blocked: ::ffff:7f00:2 is a loopback address (embedded in ::ffff:7f00:2)"
          ],
          "/name": [`http://internal.test:${p}/`, "blocked: internal.test resolves to 127.0.0.2, a loopback address"],
          "/metadata": [
            "http://metadata.test/latest/meta-data/",
            "blocked: metadata.test resolves to 169.254.169.254, a link-local address"
          ],
          "/zone": [`http://[fe80::1%25lo]:${p}/`, "blocked: fe80::1 is a link-local address"]
        }
        const start = yield* httpServer(
          routes({
            "/ok": (_q, r) => send(r, 200),
            ...Object.fromEntries(
              Object.entries(targets).map(([path, [location]]): [string, Handler] => [
                path,
                (_q, r) => redirect(r, location)
              ])
            )
          })
        )
        const reachable = yield* Http.probe(check({ url: `${start.origin}/ok` }))
        assert.strictEqual(reachable.status, "up", "the admitted server itself is reachable")
        for (const [path, [, error]] of Object.entries(targets)) {
          const outcome = yield* Http.probe(check({ url: `${start.origin}${path}` }))
          assert.strictEqual(outcome.status, "error", path)
          assert.strictEqual(outcome.error, error, path)
        }
        const literal = yield* Http.probe(check({ url: `${start.origin}/literal` }))
        assert.deepStrictEqual(literal.details, {
          final_url: `http://127.0.0.2:${p}/`,
          status_code: null,
          redirects: 1
        })
        assert.strictEqual(internal.connections(), 0)
      }).pipe(
        Effect.provide(env(resolver.layer, { allowPrivateTargets: false })),
        Effect.provide(admitting("127.0.0.1"))
      )
    })
  })
})
