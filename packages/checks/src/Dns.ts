/**
 * The dns check: one query of one record type, to the check's own resolver or the process default, judged by
 * the spec's five rules (see `spec/service-api.md`, "dns"). Also the pure value rules the targets API applies
 * at save time, so a saved value and a probed answer are read the same way.
 *
 * @since 0.1.0
 */
// The module object, not a namespace: dns.setServers rebinds getServers on it, and a namespace would keep the
// function bound to the resolver that was the default when this module loaded.
import dns from "node:dns"
import type { ProbeOutcome } from "@signalman/core/CheckResult"
import type { DnsCheck, DnsRecordType } from "@signalman/core/CheckSpec"
import type * as DnsPacket from "dns-packet"
import * as Clock from "effect/Clock"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as AddressGuard from "./AddressGuard.js"
import * as Values from "./internal/dnsValues.js"
import * as Wire from "./internal/dnsWire.js"
import { ProbeSettings } from "./ProbeSettings.js"

/**
 * A resolver to query: its address, port and family, and how results name it (`[::1]:5353`).
 *
 * @since 0.1.0
 * @category models
 */
export type ResolverAddress = Wire.Server

/**
 * Read a check's `resolver`: `ip` or `ip:port`, IPv6 as `[addr]:port` (a bare IPv6 address is port 53).
 *
 * @since 0.1.0
 * @category validation
 */
export const parseResolver: (text: string) => Either.Either<ResolverAddress, string> = Wire.parseServer

/**
 * Apply the domain rules (whitespace, trailing dot, `_` labels, leftmost `*`, addresses only for PTR) and return
 * the name the probe queries, or why the domain is refused.
 *
 * @since 0.1.0
 * @category validation
 */
export const normaliseDomain: (domain: string, recordType: DnsRecordType) => Either.Either<string, string> =
  Values.queryName

/**
 * Check an `expected_records` value against its record type's form and return it as answers show it (equal
 * results are the same value), or why it is not in the form.
 *
 * @since 0.1.0
 * @category validation
 */
export const normaliseValue = (recordType: DnsRecordType, value: string): Either.Either<string, string> =>
  Either.map(Values.parseExpected(recordType, value), Values.showExpected)

// Resolvers answer chains of a few links; a longer one is a loop or an attack, and is cut here.
const maxChainLength = 16

// resolv.conf holds at most three nameservers (MAXNS); more from getServers() would only spread the timeout thin.
const maxSystemServers = 3

type Resolution =
  | { readonly _tag: "Answered"; readonly response: Wire.Response }
  | { readonly _tag: "Failed"; readonly message: string }
  | { readonly _tag: "Silent" }

const systemServers = (): ReadonlyArray<Wire.Server> =>
  dns
    .getServers()
    .flatMap((text) => Either.match(Wire.parseServer(text), { onLeft: () => [], onRight: (server) => [server] }))
    .slice(0, maxSystemServers)

// NOERROR and NXDOMAIN are answers about the name; any other rcode is the resolver failing to give one.
const isAnswer = (rcode: string): boolean => rcode === "NOERROR" || rcode === "NXDOMAIN"

// Each server but the last gets an equal share of the time left, so a silent first server cannot starve the
// others; the last one waits until the check's timeout. A definitive failure moves on at once.
const resolve = (
  servers: ReadonlyArray<Wire.Server>,
  question: { readonly name: string; readonly type: DnsRecordType },
  timeoutMs: number
): Effect.Effect<Resolution> =>
  Effect.gen(function* () {
    const failures: Array<string> = []
    const deadline = (yield* Clock.currentTimeMillis) + timeoutMs
    const ask = Effect.gen(function* () {
      for (const [index, server] of servers.entries()) {
        const left = servers.length - index
        const attempt = Effect.either(Wire.exchange(server, question))
        const share = (deadline - (yield* Clock.currentTimeMillis)) / left
        const result = left === 1 ? Option.some(yield* attempt) : yield* Effect.timeoutOption(attempt, share)
        if (Option.isNone(result)) continue
        if (Either.isLeft(result.value)) {
          failures.push(result.value.left.message)
          continue
        }
        const response = result.value.right
        if (isAnswer(response.rcode)) return { _tag: "Answered", response } as const
        failures.push(`dns: ${response.rcode} from ${server.label}`)
      }
      return undefined
    })
    const answered = yield* Effect.timeoutOption(ask, timeoutMs)
    if (Option.isSome(answered) && answered.value !== undefined) return answered.value
    return failures.length > 0 ? { _tag: "Failed", message: failures.join("; ") } : { _tag: "Silent" }
  })

const bare = (name: string): string => {
  const lower = name.toLowerCase()
  return lower.length > 1 && lower.endsWith(".") ? lower.slice(0, -1) : lower
}

const isCname = (answer: DnsPacket.Answer): answer is DnsPacket.StringAnswer => answer.type === "CNAME"

// The answer section of an aliased name holds the CNAME chain, then the records of the name it ends at.
const follow = (name: string, records: ReadonlyArray<DnsPacket.Answer>): ReadonlyArray<string> => {
  const aliases: Array<string> = []
  let owner = name
  for (let hop = 0; hop < maxChainLength; hop++) {
    const link = records.find((record) => isCname(record) && bare(record.name) === owner)
    if (link === undefined || !isCname(link)) break
    const target = bare(link.data)
    if (target === name || aliases.includes(target)) break
    aliases.push(target)
    owner = target
  }
  return aliases
}

const judge = (
  spec: DnsCheck,
  name: string,
  response: Wire.Response,
  expected: ReadonlyArray<Values.ExpectedEntry>
): { readonly matched: boolean; readonly details: Record<string, unknown> } => {
  // A CNAME query asks for the alias itself, so the chain is its answer rather than something to follow.
  const aliases = spec.record_type === "CNAME" ? [] : follow(name, response.answers)
  const owners = new Set([name, ...aliases])
  const shown = response.answers
    .filter((record) => record.type === spec.record_type && owners.has(bare(record.name)))
    .flatMap((record) => Values.showAnswer(record) ?? [])
  const answers = shown.map((answer) => answer.text)
  const comparison = expected.length > 0 ? Values.compare(expected, shown) : undefined
  const contains = spec.expected_contains
  const matched =
    answers.length > 0 &&
    (contains === undefined || [...answers, ...aliases].some((value) => value.includes(contains))) &&
    (comparison === undefined || (comparison.missing.length === 0 && comparison.unexpected.length === 0))
  return {
    matched,
    details: {
      domain: name,
      record_type: spec.record_type,
      // Not among the spec's fields, but an empty answer must say whether the name or only the type is missing.
      rcode: response.rcode,
      answers,
      expected_contains: contains ?? null,
      matched,
      ...(aliases.length > 0 ? { aliases } : {}),
      ...(comparison !== undefined ? { missing: comparison.missing, unexpected: comparison.unexpected } : {})
    }
  }
}

const parseExpectations = (spec: DnsCheck): Either.Either<ReadonlyArray<Values.ExpectedEntry>, string> =>
  Either.all(
    (spec.expected_records ?? []).map((written, index) =>
      Either.mapBoth(Values.parseExpected(spec.record_type, written), {
        onLeft: (reason) => `dns: expected_records[${index}] ${reason}`,
        onRight: (expected): Values.ExpectedEntry => ({ written, expected })
      })
    )
  )

const seconds = (value: number): string => `${value} s`

/**
 * Run a dns check: up on a non-empty answer that meets the expectation, down otherwise, error only on the check's
 * timeout, a `blocked:` resolver or parameters the save-time rules refuse.
 *
 * @since 0.1.0
 * @category probes
 */
export const probe = (spec: DnsCheck): Effect.Effect<ProbeOutcome, never, ProbeSettings> =>
  Effect.gen(function* () {
    const settings = yield* ProbeSettings
    const started = yield* Clock.currentTimeNanos
    const finish = (
      status: ProbeOutcome["status"],
      error: string | null,
      details: Record<string, unknown> | null
    ): Effect.Effect<ProbeOutcome> =>
      Effect.map(Clock.currentTimeNanos, (now) => ({
        status,
        duration_ms: Math.round(Number(now - started) / 1e4) / 100,
        error,
        details,
        phases: null
      }))

    const name = Values.queryName(spec.domain, spec.record_type)
    if (Either.isLeft(name)) return yield* finish("error", `dns: domain ${name.left}`, null)
    const expected = parseExpectations(spec)
    if (Either.isLeft(expected)) return yield* finish("error", expected.left, null)

    let servers: ReadonlyArray<Wire.Server>
    if (spec.resolver !== undefined) {
      const server = Wire.parseServer(spec.resolver)
      if (Either.isLeft(server)) return yield* finish("error", `dns: resolver ${server.left}`, null)
      // The check's own resolver is an address the service dials on the user's say-so; the host's default is not.
      const verdict = AddressGuard.check(server.right.address)
      if (!verdict.allowed && !settings.allowPrivateTargets) {
        return yield* finish("error", AddressGuard.blockedMessage(server.right.address, verdict), null)
      }
      servers = [server.right]
    } else {
      servers = systemServers()
      if (servers.length === 0) return yield* finish("error", "dns: no system resolver is configured", null)
    }

    const resolution = yield* resolve(servers, { name: name.right, type: spec.record_type }, spec.timeout * 1000)
    switch (resolution._tag) {
      case "Silent":
        return yield* finish(
          "error",
          `timeout: no answer from ${servers.map((server) => server.label).join(", ")} within ${seconds(spec.timeout)}`,
          null
        )
      case "Failed":
        return yield* finish("down", resolution.message, null)
      case "Answered": {
        const { details, matched } = judge(spec, name.right, resolution.response, expected.right)
        return yield* finish(matched ? "up" : "down", matched ? null : JSON.stringify(details), details)
      }
    }
  })
