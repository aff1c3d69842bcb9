import * as http from "node:http"
import { assert, describe, it } from "@effect/vitest"
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import { DomainExpiryCheck } from "@signalman/core/CheckSpec"
import type * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import * as TestClock from "effect/TestClock"
import * as DomainExpiry from "../src/DomainExpiry.js"
import { ProbeSettings } from "../src/ProbeSettings.js"

const dayMs = 24 * 60 * 60 * 1000

// Registries answer relative to now, so days_remaining is known: N days and an hour ahead floors to N.
const inDays = (days: number): string => new Date(Date.now() + days * dayMs + 60 * 60 * 1000).toISOString()

const vcard = (name: string) => [
  "vcard",
  [
    ["version", {}, "text", "4.0"],
    ["fn", {}, "text", name]
  ]
]

const record = (name: string, expiration: string | undefined, registrar?: string) => ({
  objectClassName: "domain",
  ldhName: name,
  events: [
    { eventAction: "registration", eventDate: "2001-05-04T00:00:00Z" },
    // A malformed event costs only itself.
    { eventAction: "last changed" },
    ...(expiration === undefined ? [] : [{ eventAction: "expiration", eventDate: expiration }])
  ],
  entities: [
    { objectClassName: "entity", roles: ["registrant"], vcardArray: vcard("Someone Else") },
    ...(registrar === undefined
      ? []
      : [{ objectClassName: "entity", roles: ["registrar"], vcardArray: vcard(registrar), publicIds: [] }])
  ]
})

const portOf = (server: http.Server): number => {
  const address = server.address()
  return typeof address === "object" && address !== null ? address.port : 0
}

interface FakeRdap {
  bootstrapUrl: string
  bootstrapFetches: number
  /** Bootstrap requests still to fail with 500 before it answers. */
  bootstrapFailures: number
  /** Highest number of domain requests in flight at once, per registry path. */
  readonly peak: Map<string, number>
  peakOverall: number
  /** Every request's path with the User-Agent and X-Signalman-Region it carried. */
  readonly seen: Array<readonly [path: string, userAgent: string | undefined, region: string | undefined]>
}

// One node:http server plays the IANA bootstrap and three registries (`/a/` for .test and .example, `/b/` for
// co.test, `/slow/` for .slow which never answers), plus a TLD listed with no usable URL.
const fakeRdap: Effect.Effect<FakeRdap, never, Scope.Scope> = Effect.acquireRelease(
  Effect.async<{ fake: FakeRdap; server: http.Server }>((resume) => {
    const inflight = new Map<string, number>()
    let overall = 0
    const state: FakeRdap = {
      bootstrapUrl: "",
      bootstrapFetches: 0,
      bootstrapFailures: 0,
      peak: new Map(),
      peakOverall: 0,
      seen: []
    }
    const json = (response: http.ServerResponse, status: number, body: unknown) => {
      response.writeHead(status, { "content-type": "application/rdap+json" })
      response.end(JSON.stringify(body))
    }
    const server = http.createServer((req, response) => {
      const base = `http://127.0.0.1:${portOf(server)}`
      const path = req.url ?? "/"
      const region = req.headers["x-signalman-region"]
      state.seen.push([path, req.headers["user-agent"], Array.isArray(region) ? region.join(",") : region])
      if (path === "/dns.json") {
        state.bootstrapFetches++
        // Slow enough that concurrent first lookups all arrive while it is in flight.
        setTimeout(() => {
          if (state.bootstrapFailures > 0) {
            state.bootstrapFailures--
            json(response, 500, { error: "try later" })
            return
          }
          json(response, 200, {
            version: "1.0",
            publication: "2026-01-01T00:00:00Z",
            services: [
              [["test", "example"], [`${base}/a/`]],
              [["co.test"], [`${base}/b`]],
              [["slow"], [`${base}/slow/`]],
              [["empty"], []]
            ]
          })
        }, 100)
        return
      }
      const match = /^\/(a|b|slow)\/domain\/([^/?]+)$/.exec(path)
      if (match === null) return json(response, 404, { errorCode: 404 })
      const registry = match[1]!
      const name = match[2]!
      if (registry === "slow") return // never answers; the client's timeout ends it
      if (registry === "a" && name === "moved.test") {
        response.writeHead(302, { location: `${base}/b/domain/moved.test` })
        return response.end()
      }
      const tld = name.slice(name.lastIndexOf(".") + 1)
      const key = `${registry}:${tld}`
      inflight.set(key, (inflight.get(key) ?? 0) + 1)
      overall++
      state.peak.set(key, Math.max(state.peak.get(key) ?? 0, inflight.get(key)!))
      state.peakOverall = Math.max(state.peakOverall, overall)
      const done = (status: number, body: unknown) => {
        inflight.set(key, inflight.get(key)! - 1)
        overall--
        json(response, status, body)
      }
      const delay = name.startsWith("busy") ? 150 : 0
      setTimeout(() => {
        if (registry === "b") return done(200, record(name, inDays(200), "Second Registry Registrar"))
        switch (name) {
          case "fortydays.test":
          case "fortydays.example":
            return done(200, record(name, inDays(40), "Example Registrar, Inc."))
          case "soon.test":
            return done(200, record(name, inDays(10), "Example Registrar, Inc."))
          case "critical.test":
            return done(200, record(name, inDays(3), "Example Registrar, Inc."))
          case "expired.test":
            return done(200, record(name, inDays(-3), "Example Registrar, Inc."))
          case "noregistrar.test":
            return done(200, record(name, inDays(100)))
          case "noexpiry.test":
            return done(200, record(name, undefined, "Example Registrar, Inc."))
          case "garbage.test":
            response.writeHead(200, { "content-type": "text/html" })
            inflight.set(key, inflight.get(key)! - 1)
            overall--
            return response.end("<html>maintenance</html>")
          default:
            return name.startsWith("busy")
              ? done(200, record(name, inDays(100), "Busy Registrar"))
              : done(404, { errorCode: 404, title: "Not Found" })
        }
      }, delay)
    })
    server.listen(0, "127.0.0.1", () => {
      state.bootstrapUrl = `http://127.0.0.1:${portOf(server)}/dns.json`
      resume(Effect.succeed({ fake: state, server }))
    })
  }),
  ({ server }) =>
    Effect.async<void>((resume) => {
      server.closeAllConnections()
      server.close(() => resume(Effect.void))
    })
).pipe(Effect.map(({ fake }) => fake))

const settings = (bootstrapUrl: string, rdapMaxInflight = 4) =>
  Layer.succeed(ProbeSettings, {
    allowPrivateTargets: false,
    perHostMaxInflight: 2,
    rdapBootstrapUrl: bootstrapUrl,
    rdapMaxInflight,
    userAgent: "signalman-test",
    region: "test-region"
  })

const check = (domain: string, fields: Record<string, unknown> = {}): DomainExpiryCheck =>
  Schema.decodeUnknownSync(DomainExpiryCheck)({ type: "domain_expiry", domain, ...fields })

// A fresh RDAP layer (and so a fresh bootstrap cache) for each test, on the test's fake registry.
const withRdap = <A>(
  body: (
    fake: FakeRdap,
    probe: (domain: string, fields?: Record<string, unknown>) => Effect.Effect<ProbeOutcome>
  ) => Effect.Effect<A>,
  options: { readonly rdapMaxInflight?: number; readonly requestTimeout?: Duration.DurationInput } = {}
): Effect.Effect<A> =>
  Effect.scoped(
    Effect.gen(function* () {
      const fake = yield* fakeRdap
      const layer = DomainExpiry.layerWith(
        options.requestTimeout === undefined ? {} : { requestTimeout: options.requestTimeout }
      ).pipe(Layer.provide(settings(fake.bootstrapUrl, options.rdapMaxInflight)))
      const context = yield* Layer.build(layer)
      return yield* body(fake, (domain, fields) =>
        DomainExpiry.probe(check(domain, fields)).pipe(Effect.provide(context))
      )
    })
  )

describe("DomainExpiry", () => {
  describe("status and details", () => {
    it.live("forty days out is up, with domain, days_remaining, expiration_date and registrar", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("fortydays.test")
          assert.strictEqual(outcome.status, "up")
          assert.isNull(outcome.error)
          const details = outcome.details ?? {}
          assert.deepStrictEqual(Object.keys(details), ["domain", "days_remaining", "expiration_date", "registrar"])
          assert.strictEqual(details["domain"], "fortydays.test")
          assert.strictEqual(details["days_remaining"], 40)
          assert.match(String(details["expiration_date"]), /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/)
          assert.strictEqual(details["registrar"], "Example Registrar, Inc.")
        })
      )
    )

    it.live(
      "every RDAP request, bootstrap and redirect hop included, carries the User-Agent and X-Signalman-Region",
      () =>
        withRdap((fake, probe) =>
          Effect.gen(function* () {
            assert.strictEqual((yield* probe("moved.test")).status, "up")
            assert.deepStrictEqual(
              fake.seen.map(([path]) => path),
              ["/dns.json", "/a/domain/moved.test", "/b/domain/moved.test"]
            )
            for (const [path, userAgent, region] of fake.seen) {
              assert.strictEqual(userAgent, "signalman-test", path)
              assert.strictEqual(region, "test-region", path)
            }
          })
        )
    )

    it.live("fewer than warn_days is degraded and the error repeats the document", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("soon.test")
          assert.strictEqual(outcome.status, "degraded")
          assert.strictEqual(outcome.details?.["days_remaining"], 10)
          assert.strictEqual(outcome.error, JSON.stringify(outcome.details))
        })
      )
    )

    it.live("fewer than critical_days is down", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("critical.test")
          assert.strictEqual(outcome.status, "down")
          assert.strictEqual(outcome.details?.["days_remaining"], 3)
          assert.strictEqual(outcome.error, JSON.stringify(outcome.details))
        })
      )
    )

    it.live("an expired domain is down with negative days", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("expired.test")
          assert.strictEqual(outcome.status, "down")
          assert.strictEqual(outcome.details?.["days_remaining"], -3)
        })
      )
    )

    it.live("the windows are the check's own: warn_days 50 makes forty days degraded", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("fortydays.test", { warn_days: 50, critical_days: 5 })
          assert.strictEqual(outcome.status, "degraded")
        })
      )
    )

    it.live("a registry that names no registrar gives registrar null", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("noregistrar.test")
          assert.strictEqual(outcome.status, "up")
          assert.isNull(outcome.details?.["registrar"])
        })
      )
    )

    it.live("the domain is normalised: whitespace, trailing dot and case", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("  FortyDays.TEST. ")
          assert.strictEqual(outcome.status, "up")
          assert.strictEqual(outcome.details?.["domain"], "fortydays.test")
        })
      )
    )
  })

  describe("errors", () => {
    it.live("no expiration event is error with a clear message", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("noexpiry.test")
          assert.strictEqual(outcome.status, "error")
          assert.match(outcome.error ?? "", /^rdap: 127\.0\.0\.1:\d+ publishes no expiration date for noexpiry\.test$/)
          assert.isNull(outcome.details)
        })
      )
    )

    it.live("a 404 is error saying the registry has no record of the domain", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("unregistered.test")
          assert.strictEqual(outcome.status, "error")
          assert.match(outcome.error ?? "", /has no record of unregistered\.test \(404\)/)
        })
      )
    )

    it.live("a TLD missing from the bootstrap is error", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("example.nowhere")
          assert.strictEqual(outcome.status, "error")
          assert.strictEqual(outcome.error, "rdap: the bootstrap registry names no RDAP server for .nowhere")
          const noUrl = yield* probe("example.empty")
          assert.strictEqual(noUrl.error, "rdap: the bootstrap registry names no RDAP server for .empty")
        })
      )
    )

    it.live("an answer that is not RDAP JSON is error", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("garbage.test")
          assert.strictEqual(outcome.status, "error")
          assert.match(outcome.error ?? "", /answered with something that is not RDAP JSON/)
        })
      )
    )

    it.live("a registry that does not answer is error at the request timeout", () =>
      withRdap(
        (_, probe) =>
          Effect.gen(function* () {
            const outcome = yield* probe("example.slow")
            assert.strictEqual(outcome.status, "error")
            assert.match(outcome.error ?? "", /^rdap: 127\.0\.0\.1:\d+ did not answer within 300ms$/)
            assert.isBelow(outcome.duration_ms, 2000)
          }),
        { requestTimeout: "300 millis" }
      )
    )

    it.live("a name that is not a domain is error without a lookup", () =>
      withRdap((fake, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("not a domain")
          assert.strictEqual(outcome.status, "error")
          assert.strictEqual(fake.bootstrapFetches, 0)
        })
      )
    )
  })

  describe("transport", () => {
    it.live("a redirect from the registry is followed", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("moved.test")
          assert.strictEqual(outcome.status, "up", outcome.error ?? "")
          assert.strictEqual(outcome.details?.["registrar"], "Second Registry Registrar")
        })
      )
    )

    it.live("the internal-address guard does not apply: a registry on loopback is asked with private targets off", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("fortydays.test")
          assert.strictEqual(outcome.status, "up")
        })
      )
    )

    it.effect("days_remaining counts from Effect's Clock", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          // Thirty-five days on, the forty-day domain has five left: under critical_days (7), so down.
          yield* TestClock.setTime(Date.now() + 35 * dayMs)
          const outcome = yield* probe("fortydays.test")
          assert.strictEqual(outcome.status, "down")
          assert.strictEqual(outcome.details?.["days_remaining"], 5)
        })
      )
    )
  })

  describe("the bootstrap registry", () => {
    it.live("the longest matching suffix wins: co.test goes to its own registry", () =>
      withRdap((_, probe) =>
        Effect.gen(function* () {
          const outcome = yield* probe("shop.co.test")
          assert.strictEqual(outcome.status, "up")
          assert.strictEqual(outcome.details?.["registrar"], "Second Registry Registrar")
        })
      )
    )

    it.live("fetched once, however many lookups arrive together, and kept for later ones", () =>
      withRdap((fake, probe) =>
        Effect.gen(function* () {
          const domains = Array.from({ length: 20 }, (_, i) => (i % 2 === 0 ? "fortydays.test" : "fortydays.example"))
          const outcomes = yield* Effect.all(
            domains.map((domain) => probe(domain)),
            { concurrency: "unbounded" }
          )
          assert.isTrue(outcomes.every((outcome) => outcome.status === "up"))
          yield* probe("soon.test")
          assert.strictEqual(fake.bootstrapFetches, 1)
        })
      )
    )

    it.live("a failed fetch is not kept: the next lookup fetches again", () =>
      withRdap((fake, probe) =>
        Effect.gen(function* () {
          fake.bootstrapFailures = 1
          const together = yield* Effect.all([probe("fortydays.test"), probe("fortydays.test")], {
            concurrency: "unbounded"
          })
          for (const outcome of together) {
            assert.strictEqual(outcome.status, "error")
            assert.match(
              outcome.error ?? "",
              /^rdap: the bootstrap registry http:\/\/127\.0\.0\.1:\d+\/dns\.json answered 500$/
            )
          }
          assert.strictEqual(fake.bootstrapFetches, 1)
          const later = yield* probe("fortydays.test")
          assert.strictEqual(later.status, "up")
          assert.strictEqual(fake.bootstrapFetches, 2)
        })
      )
    )
  })

  describe("the per-TLD in-flight cap", () => {
    it.live("at most rdap_max_inflight queries per TLD at once; other TLDs have their own", () =>
      withRdap(
        (fake, probe) =>
          Effect.gen(function* () {
            const domains = [
              ...Array.from({ length: 8 }, (_, i) => `busy${i}.test`),
              ...Array.from({ length: 8 }, (_, i) => `busy${i}.example`)
            ]
            const outcomes = yield* Effect.all(
              domains.map((domain) => probe(domain)),
              { concurrency: "unbounded" }
            )
            assert.isTrue(outcomes.every((outcome) => outcome.status === "up"))
            assert.strictEqual(fake.peak.get("a:test"), 2)
            assert.strictEqual(fake.peak.get("a:example"), 2)
            assert.strictEqual(fake.peakOverall, 4)
          }),
        { rdapMaxInflight: 2 }
      )
    )
  })

  describe("pure parts", () => {
    const bootstrap: DomainExpiry.Bootstrap = {
      services: [
        [
          ["com", "net"],
          ["http://rdap.example/plain/", "https://rdap.example/com/v1"]
        ],
        [["uk"], ["https://rdap.nominet.example/uk/"]],
        [["co.uk"], ["https://rdap.co-uk.example/"]]
      ]
    }

    it("findBaseUrl takes the longest suffix, prefers https and ends the URL with a slash", () => {
      assert.strictEqual(DomainExpiry.findBaseUrl(bootstrap, "example.com"), "https://rdap.example/com/v1/")
      assert.strictEqual(DomainExpiry.findBaseUrl(bootstrap, "shop.co.uk"), "https://rdap.co-uk.example/")
      assert.strictEqual(DomainExpiry.findBaseUrl(bootstrap, "example.uk"), "https://rdap.nominet.example/uk/")
      assert.isUndefined(DomainExpiry.findBaseUrl(bootstrap, "example.org"))
    })

    it("normaliseDomain writes Unicode as xn-- and refuses TLDs and non-names", () => {
      assert.deepStrictEqual(DomainExpiry.normaliseDomain(" Bücher.DE. "), Either.right("xn--bcher-kva.de"))
      assert.isTrue(Either.isLeft(DomainExpiry.normaliseDomain("com")))
      assert.isTrue(Either.isLeft(DomainExpiry.normaliseDomain("exa mple.com")))
      assert.isTrue(Either.isLeft(DomainExpiry.normaliseDomain("-bad.com")))
    })
  })
})
