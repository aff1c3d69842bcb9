/**
 * The Promise client against a real HTTP server on loopback that plays scripted answers: retries and their waits,
 * timeouts, aborts, lost connections, error envelopes, the headers and bodies it sends, and paging.
 */
import { assert, describe, it } from "@effect/vitest"
import * as DateTime from "effect/DateTime"
import { createClient, type SignalmanError, version } from "../src/index.js"
import { identityHeaders } from "../src/internal/identity.js"
import * as Scripted from "./support/ScriptedServer.js"

const health = Scripted.json(200, { status: "ok" })
// Small waits, so the tests of retries without Retry-After take milliseconds.
const quick = { retryDelays: { baseMs: 10, maxMs: 5_000 } } as const

const rejection = async (promise: PromiseLike<unknown>): Promise<SignalmanError> => {
  try {
    await promise
  } catch (error) {
    if (error instanceof Error && error.name === "SignalmanError") return error as SignalmanError
    throw error
  }
  throw new Error("expected the call to reject")
}

const gap = (server: Scripted.ScriptedServer, i: number) => {
  const [a, b] = [server.received[i - 1], server.received[i]]
  if (a === undefined || b === undefined) throw new Error(`no request ${i}`)
  return b.at - a.at
}

describe("Promise client: retries", () => {
  it("a 429 with Retry-After in seconds is waited out, then the call succeeds", () =>
    Scripted.using([Scripted.envelope(429, "RATE_LIMITED", { "retry-after": "1" }), health], async (server) => {
      const signalman = createClient({ baseUrl: server.url, ...quick })
      assert.deepStrictEqual({ ...(await signalman.healthz()) }, { status: "ok" })
      assert.strictEqual(server.received.length, 2)
      assert.isAtLeast(gap(server, 1), 950)
    }))

  it("a 503 with Retry-After as an HTTP date waits until that date", () => {
    const at = new Date(Math.ceil((Date.now() + 1500) / 1000) * 1000)
    return Scripted.using(
      [Scripted.envelope(503, "NOT_READY", { "retry-after": at.toUTCString() }), health],
      async (server) => {
        const signalman = createClient({ baseUrl: server.url, ...quick })
        await signalman.healthz()
        assert.strictEqual(server.received.length, 2)
        assert.isAtLeast(Date.now(), at.getTime() - 50)
      }
    )
  })

  it("503 every time: three tries by default, then the last answer's error", () =>
    Scripted.using([Scripted.envelope(503, "NOT_READY")], async (server) => {
      const error = await rejection(createClient({ baseUrl: server.url, ...quick }).readyz())
      assert.strictEqual(server.received.length, 3)
      assert.deepStrictEqual([error.status, error.code, error.traceId], [503, "NOT_READY", "trace-from-script"])
    }))

  it("retries is configurable: 0 sends once, 4 sends five times", () =>
    Scripted.using([Scripted.envelope(429, "RATE_LIMITED")], async (server) => {
      await rejection(createClient({ baseUrl: server.url, ...quick, retries: 0 }).healthz())
      assert.strictEqual(server.received.length, 1)
      await rejection(createClient({ baseUrl: server.url, ...quick, retries: 4 }).healthz())
      assert.strictEqual(server.received.length, 6)
    }))

  it("a Retry-After longer than the longest wait is not waited for: the 429 comes back at once", () =>
    Scripted.using([Scripted.envelope(429, "RATE_LIMITED", { "retry-after": "30" })], async (server) => {
      const started = performance.now()
      const error = await rejection(createClient({ baseUrl: server.url, retryDelays: { maxMs: 10_000 } }).healthz())
      assert.strictEqual(error.code, "RATE_LIMITED")
      assert.strictEqual(server.received.length, 1)
      assert.isBelow(performance.now() - started, 5_000)
    }))

  it("a 500 is not retried without an idempotency key; with one it is, and the key is sent each time", () =>
    Scripted.using(
      [Scripted.envelope(500, "INTERNAL_ERROR"), Scripted.envelope(500, "INTERNAL_ERROR"), health],
      async (server) => {
        const signalman = createClient({ baseUrl: server.url, ...quick })
        const error = await rejection(signalman.healthz())
        assert.deepStrictEqual([error.status, error.code], [500, "INTERNAL_ERROR"])
        assert.strictEqual(server.received.length, 1)
        await signalman.healthz({ idempotencyKey: "key-1" })
        assert.strictEqual(server.received.length, 3)
        assert.deepStrictEqual(
          server.received.slice(1).map((r) => r.headers["idempotency-key"]),
          ["key-1", "key-1"]
        )
      }
    ))

  it("other refusals are never retried, even with an idempotency key", () =>
    Scripted.using([Scripted.envelope(409, "SLUG_TAKEN")], async (server) => {
      const error = await rejection(createClient({ baseUrl: server.url, ...quick }).healthz({ idempotencyKey: "k" }))
      assert.strictEqual(error.code, "SLUG_TAKEN")
      assert.strictEqual(server.received.length, 1)
    }))

  it("a lost connection is NETWORK_ERROR; retried only with an idempotency key", () =>
    Scripted.using([Scripted.hangUp, Scripted.hangUp, health], async (server) => {
      const signalman = createClient({ baseUrl: server.url, ...quick })
      const error = await rejection(signalman.healthz())
      assert.deepStrictEqual([error.status, error.code], [0, "NETWORK_ERROR"])
      assert.isDefined(error.cause)
      assert.strictEqual(server.received.length, 1)
      assert.strictEqual((await signalman.healthz({ idempotencyKey: "k" })).status, "ok")
      assert.strictEqual(server.received.length, 3)
    }))

  it("nothing listening is NETWORK_ERROR with the reason", async () => {
    const closed = await Scripted.start([health])
    await closed.close()
    const error = await rejection(createClient({ baseUrl: closed.url }).healthz())
    assert.deepStrictEqual([error.status, error.code], [0, "NETWORK_ERROR"])
    assert.include(error.message, "ECONNREFUSED")
  })

  it("a try longer than timeoutMs is TIMEOUT; with an idempotency key each try gets its own timeout", () =>
    Scripted.using([Scripted.silence], async (server) => {
      const signalman = createClient({ baseUrl: server.url, ...quick, timeoutMs: 200 })
      const error = await rejection(signalman.healthz())
      assert.deepStrictEqual([error.status, error.code], [0, "TIMEOUT"])
      assert.strictEqual(server.received.length, 1)
      const keyed = await rejection(signalman.healthz({ idempotencyKey: "k", timeoutMs: 100 }))
      assert.strictEqual(keyed.code, "TIMEOUT")
      assert.strictEqual(server.received.length, 4)
    }))

  it("a body that stalls after the headers times out too", () =>
    Scripted.using(
      [
        (_, response) => {
          response.writeHead(200, { "content-type": "application/json" })
          response.write('{"status":')
        }
      ],
      async (server) => {
        const error = await rejection(createClient({ baseUrl: server.url, timeoutMs: 200 }).healthz())
        assert.strictEqual(error.code, "TIMEOUT")
      }
    ))

  it("the caller's signal aborts a call in flight and a wait between tries: ABORTED, nothing more sent", () =>
    Scripted.using([Scripted.envelope(429, "RATE_LIMITED", { "retry-after": "20" })], async (server) => {
      const signalman = createClient({ baseUrl: server.url })
      const controller = new AbortController()
      const started = performance.now()
      const pending = rejection(signalman.healthz({ signal: controller.signal }))
      setTimeout(() => controller.abort(new Error("user cancelled")), 200)
      const error = await pending
      assert.deepStrictEqual([error.status, error.code], [0, "ABORTED"])
      assert.instanceOf(error.cause, Error)
      assert.isBelow(performance.now() - started, 5_000)
      assert.strictEqual(server.received.length, 1)
      const before = await rejection(signalman.healthz({ signal: AbortSignal.abort() }))
      assert.strictEqual(before.code, "ABORTED")
      assert.strictEqual(server.received.length, 1)
    }))
})

describe("Promise client: answers", () => {
  it("the error envelope becomes a SignalmanError with status, code, message, field, details and traceId", () =>
    Scripted.using(
      [
        Scripted.envelope(
          400,
          "VALIDATION_FAILED",
          {},
          {
            field: "subject",
            details: { errors: [{ field: "subject", message: "must not be empty" }] },
            trace_id: "req-42"
          }
        )
      ],
      async (server) => {
        const error = await rejection(
          createClient({ baseUrl: server.url, token: "t" }).orgs.support({ subject: "", message: "help" })
        )
        assert.instanceOf(error, Error)
        assert.strictEqual(error.name, "SignalmanError")
        assert.deepStrictEqual(
          {
            status: error.status,
            code: error.code,
            message: error.message,
            field: error.field,
            details: error.details,
            traceId: error.traceId
          },
          {
            status: 400,
            code: "VALIDATION_FAILED",
            message: "VALIDATION_FAILED from the script",
            field: "subject",
            details: { errors: [{ field: "subject", message: "must not be empty" }] },
            traceId: "req-42"
          }
        )
      }
    ))

  it("an envelope without trace_id takes the X-Request-Id header", () =>
    Scripted.using(
      [Scripted.envelope(404, "NOT_FOUND", { "x-request-id": "from-header" }, { trace_id: null })],
      async (server) => {
        const error = await rejection(createClient({ baseUrl: server.url, token: "t" }).targets.get("some-id"))
        assert.deepStrictEqual([error.status, error.code, error.traceId], [404, "NOT_FOUND", "from-header"])
      }
    ))

  it("an error answer without the envelope (a proxy's page) is UNEXPECTED_RESPONSE with its status and body", () =>
    Scripted.using([Scripted.raw(502, "text/html", "<html>Bad Gateway</html>")], async (server) => {
      const error = await rejection(createClient({ baseUrl: server.url }).healthz())
      assert.deepStrictEqual([error.status, error.code], [502, "UNEXPECTED_RESPONSE"])
      assert.strictEqual(error.details["body"], "<html>Bad Gateway</html>")
      assert.strictEqual(server.received.length, 1)
    }))

  it("a success that does not match the contract is UNEXPECTED_RESPONSE naming what differs", () =>
    Scripted.using([Scripted.json(200, { status: "fine" })], async (server) => {
      const error = await rejection(createClient({ baseUrl: server.url }).healthz())
      assert.deepStrictEqual([error.status, error.code], [200, "UNEXPECTED_RESPONSE"])
      assert.include(String(error.details["issue"]), "status")
    }))

  it("answers are decoded with core's schemas: instants become DateTime, 204 is undefined", () =>
    Scripted.using(
      [
        Scripted.json(200, {
          from: "2026-11-01T00:00:00.000Z",
          to: "2026-11-02T00:00:00.000Z",
          incidents: 3,
          acknowledged: 2,
          closed: 1,
          mtta_secs: 60,
          mttr_secs: null
        }),
        Scripted.noContent
      ],
      async (server) => {
        const signalman = createClient({ baseUrl: server.url, token: "t" })
        const metrics = await signalman.incidents.metrics()
        assert.isTrue(DateTime.isDateTime(metrics.from))
        assert.strictEqual(DateTime.formatIso(metrics.to), "2026-11-02T00:00:00.000Z")
        assert.isUndefined(await signalman.targets.delete("3b1d0c1e-5e4a-4b7e-9a59-5a3f6b0e2a10"))
      }
    ))
})

describe("Promise client: requests", () => {
  it("identity and credentials: User-Agent, Authorization, X-Signalman-Org, the caller's headers", () =>
    Scripted.using([Scripted.json(200, { status: "ok" })], async (server) => {
      await createClient({ baseUrl: server.url, token: "sm_live_x", org: "acme", headers: { "x-extra": "1" } }).healthz(
        {
          headers: { "signalman-managed-by": "shop/www" }
        }
      )
      await createClient({ baseUrl: `${server.url}/`, userAgent: "signalman-cli/9.9.9" }).healthz()
      const [withToken, session] = server.received
      assert.strictEqual(withToken?.headers["user-agent"], `signalman-sdk/${version}`)
      assert.strictEqual(withToken?.headers["authorization"], "Bearer sm_live_x")
      assert.strictEqual(withToken?.headers["x-signalman-org"], "acme")
      assert.strictEqual(withToken?.headers["x-extra"], "1")
      assert.strictEqual(withToken?.headers["signalman-managed-by"], "shop/www")
      assert.isUndefined(withToken?.headers["x-requested-with"])
      assert.isUndefined(withToken?.headers["x-signalman-client"])
      // Without a token the client is a browser session's: the CSRF header writes need, no Authorization.
      assert.strictEqual(session?.url, "/healthz")
      assert.strictEqual(session?.headers["user-agent"], "signalman-cli/9.9.9")
      assert.strictEqual(session?.headers["x-requested-with"], "signalman")
      assert.isUndefined(session?.headers["authorization"])
    }))

  it("in a browser the client names itself in X-Signalman-Client as well", () => {
    assert.deepStrictEqual(identityHeaders("signalman-sdk/1.0.0", true), [
      ["user-agent", "signalman-sdk/1.0.0"],
      ["x-signalman-client", "signalman-sdk/1.0.0"]
    ])
    assert.deepStrictEqual(identityHeaders("signalman-sdk/1.0.0", false), [["user-agent", "signalman-sdk/1.0.0"]])
  })

  it("bodies go as JSON, path parameters encoded, queries from plain or parsed values", () =>
    Scripted.using(
      [Scripted.noContent, Scripted.json(200, { data: [], total: 0, limit: 5, offset: 0 }), Scripted.noContent],
      async (server) => {
        const signalman = createClient({ baseUrl: server.url, token: "t" })
        await signalman.orgs.support({ subject: "Hi", message: "there" })
        await signalman.targets.results("a/b c", {
          limit: 5,
          from: DateTime.unsafeMake("2026-11-01T00:00:00Z"),
          to: "2026-11-02T00:00:00Z",
          region: "eu"
        })
        await signalman.shares.revoke({ id: "t1", share_id: "s 2" })
        const [support, results, revoke] = server.received
        assert.deepStrictEqual(
          [support?.method, support?.url, support?.headers["content-type"], JSON.parse(support?.body ?? "")],
          ["POST", "/api/v1/support", "application/json", { subject: "Hi", message: "there" }]
        )
        assert.strictEqual(
          results?.url,
          "/api/v1/targets/a%2Fb%20c/results?limit=5&from=2026-11-01T00%3A00%3A00.000Z&to=2026-11-02T00%3A00%3A00Z&region=eu"
        )
        assert.deepStrictEqual([revoke?.method, revoke?.url], ["DELETE", "/api/v1/targets/t1/shares/s%202"])
      }
    ))

  it("a JSON endpoint called without input sends {}; where it takes a query too, the query's keys go to the URL", () =>
    Scripted.using(
      [Scripted.json(200, heartbeat), Scripted.json(202, { message: "Check your inbox" })],
      async (server) => {
        const signalman = createClient({ baseUrl: server.url, token: "t" })
        await signalman.heartbeats.rotate("t1")
        await signalman.subscriptions.subscribe({ page: "acme", email: "a@example.com" })
        const [rotate, subscribe] = server.received
        assert.strictEqual(rotate?.body, "{}")
        assert.deepStrictEqual(
          [subscribe?.url, JSON.parse(subscribe?.body ?? "")],
          ["/api/public/v1/subscriptions?page=acme", { email: "a@example.com" }]
        )
      }
    ))

  it("a multipart body sends its parts as multipart/form-data", () =>
    Scripted.using([Scripted.envelope(415, "LOGO_TYPE_UNSUPPORTED")], async (server) => {
      const error = await rejection(
        createClient({ baseUrl: server.url, token: "t" }).statusPages.uploadLogo("p1", {
          parts: { file: new Blob(["not an image"], { type: "text/plain" }) }
        })
      )
      assert.strictEqual(error.code, "LOGO_TYPE_UNSUPPORTED")
      const [upload] = server.received
      assert.match(String(upload?.headers["content-type"]), /^multipart\/form-data; boundary=/)
      assert.include(upload?.body, 'name="file"')
      assert.include(upload?.body, "not an image")
    }))

  it("a path parameter that is not a non-empty string is INVALID_ARGUMENT and sends nothing", () =>
    Scripted.using([health], async (server) => {
      const error = await rejection(createClient({ baseUrl: server.url, token: "t" }).targets.get(""))
      assert.deepStrictEqual([error.status, error.code, error.field], [0, "INVALID_ARGUMENT", "id"])
      assert.strictEqual(server.received.length, 0)
    }))
})

const tags = Array.from({ length: 5 }, (_, i) => ({ tag: `t${i}`, targets: i }))

// Answers GET /tags like the service: the slice the query asks for, with the total.
const tagPages: Scripted.Handler = (request, response) => {
  const query = new URL(request.url, "http://x").searchParams
  const limit = Number(query.get("limit") ?? "50")
  const offset = Number(query.get("offset") ?? "0")
  Scripted.json(200, { data: tags.slice(offset, offset + limit), total: tags.length, limit, offset })(request, response)
}

describe("Promise client: lists", () => {
  it("awaited, a list is the page asked for; iterated, every item of every page, a page per request", () =>
    Scripted.using([tagPages], async (server) => {
      const signalman = createClient({ baseUrl: server.url, token: "t" })
      const first = await signalman.targets.tags({ limit: 2, q: "t" })
      assert.deepStrictEqual([first.data.map((t) => t.tag), first.total], [["t0", "t1"], 5])
      assert.strictEqual(server.received.length, 1)
      const seen: Array<string> = []
      for await (const tag of signalman.targets.tags({ limit: 2, q: "t" })) seen.push(tag.tag)
      assert.deepStrictEqual(seen, ["t0", "t1", "t2", "t3", "t4"])
      assert.deepStrictEqual(
        server.received.slice(1).map((r) => r.url),
        ["/api/v1/tags?limit=2&q=t&offset=0", "/api/v1/tags?limit=2&q=t&offset=2", "/api/v1/tags?limit=2&q=t&offset=4"]
      )
    }))

  it("pages() yields the pages; an iteration starts at the call's offset and takes 100 a page by default", () =>
    Scripted.using([tagPages], async (server) => {
      const signalman = createClient({ baseUrl: server.url, token: "t" })
      const sizes: Array<number> = []
      for await (const page of signalman.targets.tags({ offset: 1, limit: 3 }).pages()) sizes.push(page.data.length)
      assert.deepStrictEqual(sizes, [3, 1])
      const all: Array<string> = []
      for await (const tag of signalman.targets.tags()) all.push(tag.tag)
      assert.strictEqual(all.length, 5)
      assert.strictEqual(server.received.at(-1)?.url, "/api/v1/tags?offset=0&limit=100")
    }))

  it("nothing is sent until a list is awaited or iterated, and awaiting twice sends once", () =>
    Scripted.using([tagPages], async (server) => {
      const list = createClient({ baseUrl: server.url, token: "t" }).targets.tags()
      assert.strictEqual(server.received.length, 0)
      await list
      await list
      assert.strictEqual(server.received.length, 1)
    }))
})

const heartbeat = {
  ping_url: "http://127.0.0.1/ping/abc",
  created_at: "2026-11-01T00:00:00.000Z",
  pending: true,
  first_ping_at: null,
  last_ping_at: null,
  last_start_at: null,
  last_fail_at: null,
  last_exit_code: null,
  last_failure_output: null,
  declared_period_secs: 86_400,
  observed_period_secs: null,
  rotated_at: null
}
