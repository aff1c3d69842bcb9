import * as dns from "node:dns"
import { assert, describe, it } from "@effect/vitest"
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import { DnsCheck, type DnsRecordType } from "@signalman/core/CheckSpec"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Layer from "effect/Layer"
import * as Schema from "effect/Schema"
import * as Dns from "../src/Dns.js"
import { ProbeSettings } from "../src/ProbeSettings.js"
import * as FakeDnsServer from "./support/FakeDnsServer.js"

const settings = (allowPrivateTargets: boolean) =>
  Layer.succeed(ProbeSettings, {
    allowPrivateTargets,
    perHostMaxInflight: 2,
    rdapBootstrapUrl: "http://127.0.0.1:1/dns.json",
    rdapMaxInflight: 2,
    userAgent: "signalman-test",
    region: "test-region"
  })

const check = (fields: Record<string, unknown>): DnsCheck =>
  Schema.decodeUnknownSync(DnsCheck)({ type: "dns", timeout: 3, ...fields })

// Every probe in this file asks the fake server on loopback, so private targets are allowed unless a test says not.
const probe = (fields: Record<string, unknown>, allowPrivateTargets = true): Effect.Effect<ProbeOutcome> =>
  Dns.probe(check(fields)).pipe(Effect.provide(settings(allowPrivateTargets)))

const withServer = <A>(
  body: (server: FakeDnsServer.FakeDnsServer, resolver: string) => Effect.Effect<A>
): Effect.Effect<A> =>
  Effect.scoped(Effect.flatMap(FakeDnsServer.make, (server) => body(server, `127.0.0.1:${server.port}`)))

const details = (outcome: ProbeOutcome): Record<string, unknown> => {
  assert.isNotNull(outcome.details)
  return outcome.details ?? {}
}

const answers = (outcome: ProbeOutcome): ReadonlyArray<unknown> => {
  const value = details(outcome)["answers"]
  return Array.isArray(value) ? value : []
}

const right = <A>(either: Either.Either<A, string>): A =>
  Either.getOrThrowWith(either, (reason) => new Error(`expected a value, got the refusal: ${reason}`))

const left = <A>(either: Either.Either<A, string>): string =>
  Either.match(either, {
    onLeft: (reason) => reason,
    onRight: (value) => {
      throw new Error(`expected a refusal, got ${JSON.stringify(value)}`)
    }
  })

describe("Dns", () => {
  describe("record types, as the answers show them", () => {
    const cases: ReadonlyArray<readonly [string, string, ReadonlyArray<string>]> = [
      ["A", "example.test", ["192.0.2.1", "192.0.2.2"]],
      ["AAAA", "example.test", ["2001:db8::1"]],
      ["MX", "example.test", ["10 mail.example.test", "20 backup.example.test"]],
      ["NS", "example.test", ["ns1.example.test", "ns2.example.test"]],
      ["TXT", "example.test", ["v=spf1 include:_spf.example.test -all", "Google-Site-Verification=AbC"]],
      ["SOA", "example.test", ["ns1.example.test hostmaster.example.test 2024010101 7200 3600 1209600 300"]],
      ["CAA", "example.test", ['0 issue "letsencrypt.org"', '128 iodef "mailto:security@example.test"']],
      ["SRV", "_sip._tcp.example.test", ["10 60 5060 sip.example.test"]],
      ["CNAME", "www.example.test", ["edge.example.test"]],
      ["PTR", "1.2.0.192.in-addr.arpa", ["host.example.test"]]
    ]
    for (const [recordType, domain, answers] of cases) {
      it.live(`${recordType} is up with its answers in the documented form`, () =>
        withServer((_, resolver) =>
          Effect.gen(function* () {
            const outcome = yield* probe({ domain, record_type: recordType, resolver })
            assert.strictEqual(outcome.status, "up")
            assert.isNull(outcome.error)
            assert.deepStrictEqual(outcome.details, {
              domain,
              record_type: recordType,
              rcode: "NOERROR",
              answers,
              expected_contains: null,
              matched: true
            })
          })
        )
      )
    }

    it.live("PTR takes an IPv4 address and queries its in-addr.arpa name", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "192.0.2.1", record_type: "PTR", resolver })
          assert.strictEqual(outcome.status, "up")
          assert.strictEqual(details(outcome)["domain"], "1.2.0.192.in-addr.arpa")
          assert.deepStrictEqual(details(outcome)["answers"], ["host.example.test"])
        })
      )
    )

    it.live("PTR takes an IPv6 address and queries its ip6.arpa name", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "2001:db8::1", record_type: "PTR", resolver })
          assert.strictEqual(outcome.status, "up")
          assert.deepStrictEqual(details(outcome)["answers"], ["host6.example.test"])
        })
      )
    )
  })

  describe("domain normalisation", () => {
    it.live("surrounding whitespace, a trailing dot and upper case are tolerated", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "  Example.TEST.  ", record_type: "A", resolver })
          assert.strictEqual(outcome.status, "up")
          assert.strictEqual(details(outcome)["domain"], "example.test")
        })
      )
    )

    it.live("a leftmost * queries the wildcard record itself", () =>
      withServer((server, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "*.wild.example.test", record_type: "A", resolver })
          assert.strictEqual(outcome.status, "up")
          assert.deepStrictEqual(details(outcome)["answers"], ["192.0.2.99"])
          assert.strictEqual(server.queries.at(-1)?.name, "*.wild.example.test")
        })
      )
    )

    it.live("a name under a wildcard gets the synthesised record", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "anything.wild.example.test", record_type: "A", resolver })
          assert.strictEqual(outcome.status, "up")
          assert.deepStrictEqual(details(outcome)["answers"], ["192.0.2.99"])
        })
      )
    )

    it.live("an address on a type other than PTR is an error and sends no query", () =>
      withServer((server, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "192.0.2.1", record_type: "A", resolver })
          assert.strictEqual(outcome.status, "error")
          assert.match(outcome.error ?? "", /^dns: domain is an address; only a PTR check takes an address/)
          assert.strictEqual(server.queries.length, 0)
        })
      )
    )
  })

  describe("CNAME chains", () => {
    it.live("the chain is listed as aliases and the answers are the records it ends at", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "www.example.test", record_type: "A", resolver })
          assert.strictEqual(outcome.status, "up")
          assert.deepStrictEqual(details(outcome)["answers"], ["192.0.2.10"])
          assert.deepStrictEqual(details(outcome)["aliases"], ["edge.example.test", "cdn.example.test"])
        })
      )
    )

    it.live("expected_contains matches an alias", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({
            domain: "www.example.test",
            record_type: "A",
            resolver,
            expected_contains: "cdn.example"
          })
          assert.strictEqual(outcome.status, "up")
          assert.isTrue(details(outcome)["matched"])
        })
      )
    )

    it.live("an exact set compares the answers only: the chain's names are neither missing nor unexpected", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({
            domain: "www.example.test",
            record_type: "A",
            resolver,
            expected_records: ["192.0.2.10"]
          })
          assert.strictEqual(outcome.status, "up")
          assert.deepStrictEqual(details(outcome)["unexpected"], [])
          assert.deepStrictEqual(details(outcome)["aliases"], ["edge.example.test", "cdn.example.test"])
        })
      )
    )

    it.live("an exact set does not match an alias's name", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({
            domain: "www.example.test",
            record_type: "TXT",
            resolver,
            expected_records: ["cdn.example.test"]
          })
          assert.strictEqual(outcome.status, "down")
          assert.deepStrictEqual(details(outcome)["missing"], ["cdn.example.test"])
        })
      )
    )

    it.live("a chain to a name that does not exist is NXDOMAIN, down, with the chain shown", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "dangling.example.test", record_type: "A", resolver })
          assert.strictEqual(outcome.status, "down")
          assert.strictEqual(details(outcome)["rcode"], "NXDOMAIN")
          assert.deepStrictEqual(details(outcome)["aliases"], ["gone.example.test"])
          assert.deepStrictEqual(details(outcome)["answers"], [])
        })
      )
    )
  })

  describe("status mapping", () => {
    it.live("NXDOMAIN is down and the error repeats the details document", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "missing.example.test", record_type: "A", resolver })
          assert.strictEqual(outcome.status, "down")
          assert.deepStrictEqual(outcome.details, {
            domain: "missing.example.test",
            record_type: "A",
            rcode: "NXDOMAIN",
            answers: [],
            expected_contains: null,
            matched: false
          })
          assert.strictEqual(outcome.error, JSON.stringify(outcome.details))
        })
      )
    )

    it.live("an empty answer set on an existing name is down", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "empty.example.test", record_type: "AAAA", resolver })
          assert.strictEqual(outcome.status, "down")
          assert.strictEqual(details(outcome)["rcode"], "NOERROR")
          assert.deepStrictEqual(details(outcome)["answers"], [])
        })
      )
    )

    it.live("SERVFAIL is down with the resolver named", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "broken.example.test", record_type: "A", resolver })
          assert.strictEqual(outcome.status, "down")
          assert.strictEqual(outcome.error, `dns: SERVFAIL from ${resolver}`)
          assert.isNull(outcome.details)
        })
      )
    )

    it.live("REFUSED is down", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "refused.example.test", record_type: "A", resolver })
          assert.strictEqual(outcome.status, "down")
          assert.strictEqual(outcome.error, `dns: REFUSED from ${resolver}`)
        })
      )
    )

    it.live("a network error (nothing listening on the resolver's port) is down", () =>
      Effect.gen(function* () {
        const port = yield* FakeDnsServer.closedPort
        const outcome = yield* probe({ domain: "example.test", record_type: "A", resolver: `127.0.0.1:${port}` })
        assert.strictEqual(outcome.status, "down")
        assert.strictEqual(outcome.error, `dns: ECONNREFUSED from 127.0.0.1:${port}`)
      })
    )

    it.live("a resolver that never answers is error at the check's timeout, after retransmitting", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const silent = yield* FakeDnsServer.silent
          const resolver = `127.0.0.1:${silent.port}`
          const outcome = yield* probe({ domain: "example.test", record_type: "A", resolver, timeout: 1.5 })
          assert.strictEqual(outcome.status, "error")
          assert.strictEqual(outcome.error, `timeout: no answer from ${resolver} within 1.5 s`)
          assert.isNull(outcome.details)
          assert.isAtLeast(outcome.duration_ms, 1400)
          assert.isBelow(outcome.duration_ms, 3000)
          // Sent at 0 s and again at 1 s.
          assert.strictEqual(silent.received(), 2)
        })
      )
    )

    it.live("a truncated UDP answer is fetched again over TCP", () =>
      withServer((server, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "big.example.test", record_type: "TXT", resolver })
          assert.strictEqual(outcome.status, "up")
          assert.lengthOf(answers(outcome), 40)
          assert.deepStrictEqual(
            server.queries.map((query) => query.transport),
            ["udp", "tcp"]
          )
        })
      )
    )

    it.live("responses with another id or another question are ignored", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "spoof.example.test", record_type: "A", resolver })
          assert.strictEqual(outcome.status, "up")
          assert.deepStrictEqual(details(outcome)["answers"], ["192.0.2.77"])
        })
      )
    )

    it.live("each query carries a random id and EDNS", () =>
      withServer((server, resolver) =>
        Effect.gen(function* () {
          for (let i = 0; i < 6; i++) yield* probe({ domain: "example.test", record_type: "A", resolver })
          const ids = new Set(server.queries.map((query) => query.id))
          assert.isAtLeast(ids.size, 5)
          assert.isTrue(server.queries.every((query) => query.edns))
        })
      )
    )

    it.live("a server that answers FORMERR to EDNS is asked again without it", () =>
      withServer((server, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "legacy.example.test", record_type: "A", resolver })
          assert.strictEqual(outcome.status, "up")
          assert.deepStrictEqual(
            server.queries.map((query) => query.edns),
            [true, false]
          )
        })
      )
    )
  })

  describe("expected_contains", () => {
    it.live("a substring of an answer is up", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({
            domain: "example.test",
            record_type: "TXT",
            resolver,
            expected_contains: "v=spf1 include:"
          })
          assert.strictEqual(outcome.status, "up")
          assert.strictEqual(details(outcome)["expected_contains"], "v=spf1 include:")
        })
      )
    )

    it.live("no answer containing it is down, the document repeated as the error", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({
            domain: "example.test",
            record_type: "A",
            resolver,
            expected_contains: "198.51.100."
          })
          assert.strictEqual(outcome.status, "down")
          assert.isFalse(details(outcome)["matched"])
          assert.strictEqual(outcome.error, JSON.stringify(outcome.details))
        })
      )
    )
  })

  describe("expected_records", () => {
    const expectSet = (
      domain: string,
      recordType: string,
      expected: ReadonlyArray<string>,
      status: "up" | "down",
      missing: ReadonlyArray<string> = [],
      unexpected: ReadonlyArray<string> = []
    ) =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain, record_type: recordType, resolver, expected_records: expected })
          assert.strictEqual(outcome.status, status, JSON.stringify(outcome.details))
          assert.deepStrictEqual(details(outcome)["missing"], missing)
          assert.deepStrictEqual(details(outcome)["unexpected"], unexpected)
        })
      )

    it.live("order is ignored and addresses compare by value (leading zeros)", () =>
      expectSet("example.test", "A", ["192.0.2.2", "192.000.002.001"], "up")
    )

    it.live("an IPv6 address compares by value", () => expectSet("example.test", "AAAA", ["2001:0db8:0:0::0001"], "up"))

    it.live("a missing answer is down and listed in missing", () =>
      expectSet("example.test", "A", ["192.0.2.1", "192.0.2.2", "192.0.2.3"], "down", ["192.0.2.3"])
    )

    it.live("an answer nothing expected is down and listed in unexpected", () =>
      expectSet("example.test", "A", ["192.0.2.1"], "down", [], ["192.0.2.2"])
    )

    it.live("names compare case-insensitively with an optional trailing dot", () =>
      expectSet("example.test", "NS", ["NS1.Example.Test.", "ns2.example.test"], "up")
    )

    it.live("xn-- and Unicode spellings of a name are the same name", () =>
      expectSet("idn.example.test", "CNAME", ["Bücher.example.test."], "up")
    )

    it.live("TXT compares the joined text exactly, and the quoted zone-file spelling joins", () =>
      expectSet(
        "example.test",
        "TXT",
        ['"v=spf1 " "include:_spf.example.test -all"', "Google-Site-Verification=AbC"],
        "up"
      )
    )

    it.live("TXT compares case included", () =>
      expectSet(
        "example.test",
        "TXT",
        ["v=spf1 include:_spf.example.test -all", "google-site-verification=abc"],
        "down",
        ["google-site-verification=abc"],
        ["Google-Site-Verification=AbC"]
      )
    )

    it.live("MX takes preference and host, or a bare host at any preference", () =>
      expectSet("example.test", "MX", ["mail.example.test", "20 Backup.Example.Test."], "up")
    )

    it.live("a bare MX host answered twice takes the lowest preference; the rest are unexpected", () =>
      expectSet(
        "mx2.example.test",
        "MX",
        ["mail.example.test", "30 other.example.test"],
        "down",
        [],
        ["20 mail.example.test"]
      )
    )

    it.live("CAA compares flags, tag and quoted value", () =>
      expectSet("example.test", "CAA", ['0 ISSUE "letsencrypt.org"', '128 iodef "mailto:security@example.test"'], "up")
    )

    it.live("an SOA value carries the serial, so another serial is down", () =>
      expectSet(
        "example.test",
        "SOA",
        ["ns1.example.test. hostmaster.example.test. 2024010102 7200 3600 1209600 300"],
        "down",
        ["ns1.example.test. hostmaster.example.test. 2024010102 7200 3600 1209600 300"],
        ["ns1.example.test hostmaster.example.test 2024010101 7200 3600 1209600 300"]
      )
    )

    it.live("SRV compares priority, weight, port and target", () =>
      expectSet("_sip._tcp.example.test", "SRV", ["10 60 5060 SIP.example.test."], "up")
    )

    it.live("an empty list is the same as none: up, and no missing or unexpected", () =>
      withServer((_, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "example.test", record_type: "A", resolver, expected_records: [] })
          assert.strictEqual(outcome.status, "up")
          assert.notProperty(details(outcome), "missing")
          assert.notProperty(details(outcome), "unexpected")
        })
      )
    )

    it.live("a value not in the type's form is an error and sends no query", () =>
      withServer((server, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({
            domain: "example.test",
            record_type: "MX",
            resolver,
            expected_records: ["x y z"]
          })
          assert.strictEqual(outcome.status, "error")
          assert.match(outcome.error ?? "", /^dns: expected_records\[0\] is not in the form "preference host"/)
          assert.strictEqual(server.queries.length, 0)
        })
      )
    )
  })

  describe("the internal-address guard", () => {
    it.live("a custom resolver on an internal address is blocked unless private targets are allowed", () =>
      withServer((server, resolver) =>
        Effect.gen(function* () {
          const outcome = yield* probe({ domain: "example.test", record_type: "A", resolver }, false)
          assert.strictEqual(outcome.status, "error")
          assert.strictEqual(outcome.error, "blocked: 127.0.0.1 is a loopback address")
          assert.strictEqual(server.queries.length, 0)
        })
      )
    )

    it.live("the process default resolver is the host's own and is not subject to the guard", () =>
      withServer((server) =>
        Effect.acquireUseRelease(
          Effect.sync(() => {
            const previous = dns.getServers()
            dns.setServers([`127.0.0.1:${server.port}`])
            return previous
          }),
          () =>
            Effect.gen(function* () {
              const outcome = yield* probe({ domain: "example.test", record_type: "A" }, false)
              assert.strictEqual(outcome.status, "up", JSON.stringify(outcome))
              assert.strictEqual(server.queries.length, 1)
            }),
          (previous) => Effect.sync(() => dns.setServers(previous))
        )
      )
    )

    it.live("with several default resolvers, a silent one gets its share of the timeout and the next answers", () =>
      Effect.scoped(
        Effect.gen(function* () {
          const silent = yield* FakeDnsServer.silent
          const server = yield* FakeDnsServer.make
          const previous = dns.getServers()
          yield* Effect.addFinalizer(() => Effect.sync(() => dns.setServers(previous)))
          dns.setServers([`127.0.0.1:${silent.port}`, `127.0.0.1:${server.port}`])
          const outcome = yield* probe({ domain: "example.test", record_type: "A", timeout: 2 }, false)
          assert.strictEqual(outcome.status, "up")
          assert.isAtLeast(outcome.duration_ms, 950)
          assert.isBelow(outcome.duration_ms, 2000)
          assert.isAtLeast(silent.received(), 1)
          assert.strictEqual(server.queries.length, 1)
        })
      )
    )

    it.live("a resolver that is not an ip or ip:port is an error", () =>
      Effect.gen(function* () {
        const outcome = yield* probe({ domain: "example.test", record_type: "A", resolver: "dns.google" })
        assert.strictEqual(outcome.status, "error")
        assert.match(outcome.error ?? "", /^dns: resolver "dns.google" is not an ip or ip:port/)
      })
    )
  })

  describe("normaliseDomain (the save-time domain rules)", () => {
    it("trims, drops one trailing dot and lower-cases", () => {
      assert.strictEqual(right(Dns.normaliseDomain(" WWW.Example.com. ", "A")), "www.example.com")
    })

    it("allows underscore labels", () => {
      assert.strictEqual(right(Dns.normaliseDomain("_dmarc.example.com", "TXT")), "_dmarc.example.com")
      assert.strictEqual(right(Dns.normaliseDomain("_sip._tcp.example.com", "SRV")), "_sip._tcp.example.com")
    })

    it("allows * only as the whole leftmost label", () => {
      assert.strictEqual(right(Dns.normaliseDomain("*.example.com", "A")), "*.example.com")
      assert.match(left(Dns.normaliseDomain("www.*.example.com", "A")), /only as the whole leftmost label/)
      assert.match(left(Dns.normaliseDomain("*www.example.com", "A")), /only as the whole leftmost label/)
      assert.match(left(Dns.normaliseDomain("example.*", "A")), /only as the whole leftmost label/)
    })

    it("refuses empty labels, two trailing dots, spaces and over-long labels", () => {
      left(Dns.normaliseDomain("a..example.com", "A"))
      left(Dns.normaliseDomain("example.com..", "A"))
      left(Dns.normaliseDomain("exa mple.com", "A"))
      left(Dns.normaliseDomain(`${"a".repeat(64)}.com`, "A"))
      left(Dns.normaliseDomain("   ", "A"))
      left(Dns.normaliseDomain(".", "NS"))
    })

    it("writes a Unicode name as its xn-- form", () => {
      assert.strictEqual(right(Dns.normaliseDomain("Bücher.example", "A")), "xn--bcher-kva.example")
    })

    it("turns an address into its reverse name for PTR, and refuses it for any other type", () => {
      assert.strictEqual(right(Dns.normaliseDomain("192.0.2.1", "PTR")), "1.2.0.192.in-addr.arpa")
      assert.strictEqual(
        right(Dns.normaliseDomain("[2001:db8::1]", "PTR")),
        "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa"
      )
      assert.strictEqual(right(Dns.normaliseDomain("1.2.0.192.in-addr.arpa.", "PTR")), "1.2.0.192.in-addr.arpa")
      assert.match(left(Dns.normaliseDomain("192.0.2.1", "A")), /only a PTR check takes an address/)
      assert.match(left(Dns.normaliseDomain("2001:db8::1", "AAAA")), /only a PTR check takes an address/)
    })
  })

  describe("normaliseValue (the save-time value forms)", () => {
    const cases: ReadonlyArray<readonly [DnsRecordType, string, string]> = [
      ["A", " 010.000.000.001 ", "10.0.0.1"],
      ["AAAA", "2001:0DB8:0000::0001", "2001:db8::1"],
      ["CNAME", "Edge.Example.com.", "edge.example.com"],
      ["NS", "ns1.example.com", "ns1.example.com"],
      ["PTR", "host.example.com.", "host.example.com"],
      ["MX", "10 Mail.Example.com.", "10 mail.example.com"],
      ["MX", "mail.example.com", "mail.example.com"],
      ["MX", "0 .", "0 ."],
      ["TXT", '"v=spf1 " "-all"', "v=spf1 -all"],
      ["TXT", '"say \\"hi\\" \\226\\130\\172"', 'say "hi" €'],
      ["TXT", "plain text, kept as written ", "plain text, kept as written "],
      ["CAA", '0 issue "letsencrypt.org"', '0 issue "letsencrypt.org"'],
      ["CAA", "128 IODEF mailto:a@example.com", '128 iodef "mailto:a@example.com"'],
      ["SRV", "10 60 5060 SIP.example.com.", "10 60 5060 sip.example.com"],
      ["SOA", "NS1.example.com. host.example.com. 1 2 3 4 5", "ns1.example.com host.example.com 1 2 3 4 5"]
    ]
    for (const [recordType, value, normalised] of cases) {
      it(`${recordType} ${JSON.stringify(value)} reads as ${JSON.stringify(normalised)}`, () => {
        assert.strictEqual(right(Dns.normaliseValue(recordType, value)), normalised)
      })
    }

    const refused: ReadonlyArray<readonly [DnsRecordType, string]> = [
      ["A", "256.0.0.1"],
      ["A", "2001:db8::1"],
      ["A", "example.com"],
      ["AAAA", "192.0.2.1"],
      ["AAAA", "fe80::1%eth0"],
      ["CNAME", "a b"],
      ["NS", "*.example.com"],
      ["MX", "70000 mail.example.com"],
      ["MX", "10 mail.example.com extra"],
      ["SRV", "10 60 mail.example.com"],
      ["SOA", "ns1.example.com host.example.com 1 2 3 4"],
      ["CAA", "issue letsencrypt.org"],
      ["CAA", '256 issue "x"'],
      ["CAA", '0 issue "unterminated']
    ]
    for (const [recordType, value] of refused) {
      it(`${recordType} refuses ${JSON.stringify(value)}`, () => {
        left(Dns.normaliseValue(recordType, value))
      })
    }

    it("two spellings of one value normalise the same, so a duplicate is detectable", () => {
      assert.strictEqual(right(Dns.normaliseValue("A", "192.0.2.1")), right(Dns.normaliseValue("A", "192.000.002.001")))
    })
  })

  describe("parseResolver", () => {
    it("reads ip, ip:port, [ipv6]:port and a bare IPv6 address", () => {
      assert.deepInclude(right(Dns.parseResolver("1.1.1.1")), { address: "1.1.1.1", port: 53, family: 4 })
      assert.deepInclude(right(Dns.parseResolver(" 1.1.1.1:5353 ")), { address: "1.1.1.1", port: 5353 })
      assert.deepInclude(right(Dns.parseResolver("[2001:db8::53]:5353")), {
        address: "2001:db8::53",
        port: 5353,
        family: 6,
        label: "[2001:db8::53]:5353"
      })
      assert.deepInclude(right(Dns.parseResolver("2001:db8::53")), { address: "2001:db8::53", port: 53 })
    })

    it("refuses names, ports out of range and malformed addresses", () => {
      for (const text of ["dns.google", "1.1.1.1:0", "1.1.1.1:70000", "1.1.1", "[1.1.1.1]:53", "1.1.1.1:53:53", ""]) {
        left(Dns.parseResolver(text))
      }
    })
  })
})
