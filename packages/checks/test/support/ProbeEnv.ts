/**
 * What a probe runs under in these tests: settings, a resolver that answers from a table (and records every
 * lookup), and an address policy that admits chosen loopback servers as if they were public.
 */
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import * as AddressGuard from "../../src/AddressGuard.js"
import * as Dial from "../../src/Dial.js"
import { ProbeSettings, type Settings } from "../../src/ProbeSettings.js"
import * as Resolver from "../../src/Resolver.js"

export const userAgent = "Signalman-Test/0.1"

/** The region the tests' probes say they run in (`X-Signalman-Region`). */
export const region = "test-region"

export const settingsWith = (overrides: Partial<Settings> = {}): Settings => ({
  allowPrivateTargets: true,
  perHostMaxInflight: 2,
  rdapBootstrapUrl: "http://127.0.0.1:9/bootstrap",
  rdapMaxInflight: 1,
  userAgent,
  region,
  ...overrides
})

export const settings = (overrides: Partial<Settings> = {}): Layer.Layer<ProbeSettings> =>
  Layer.succeed(ProbeSettings, settingsWith(overrides))

export interface Lookup {
  readonly host: string
  readonly family: Resolver.Family
}

/** A name's answers: a fixed list, or one list per lookup in turn (the last repeats), for rebinding. */
export type Answers = ReadonlyArray<string> | { readonly inTurn: ReadonlyArray<ReadonlyArray<string>> }

export interface TableResolver {
  readonly layer: Layer.Layer<Resolver.Resolver>
  /** Every lookup made, in order. */
  readonly lookups: Array<Lookup>
}

const familyOf = (address: string): 4 | 6 => (address.includes(":") ? 6 : 4)

/**
 * Answers like the OS resolver: only the family asked for, IPv6 first for `any`, and the same error texts when
 * nothing is left. A name missing from the table has no address; `stall` names never answer.
 */
export const tableResolver = (
  table: Readonly<Record<string, Answers>>,
  options: { readonly stall?: ReadonlyArray<string> } = {}
): TableResolver => {
  const lookups: Array<Lookup> = []
  const turns = new Map<string, number>()
  const layer = Layer.succeed(Resolver.Resolver, {
    lookup: (host, family) =>
      Effect.suspend(() => {
        lookups.push({ host, family })
        if (options.stall?.includes(host)) return Effect.never
        const entry = table[host]
        let answers: ReadonlyArray<string> = []
        if (entry !== undefined && "inTurn" in entry) {
          const turn = turns.get(host) ?? 0
          turns.set(host, turn + 1)
          answers = entry.inTurn[Math.min(turn, entry.inTurn.length - 1)] ?? []
        } else if (entry !== undefined) {
          answers = entry
        }
        const found = answers
          .map((address) => ({ address, family: familyOf(address) }))
          .filter((a) => family === "any" || (family === "ipv4" ? a.family === 4 : a.family === 6))
          .sort((a, b) => b.family - a.family)
        if (found.length > 0) return Effect.succeed(found)
        const message =
          family === "ipv4"
            ? "dns: no IPv4 address"
            : family === "ipv6"
              ? "dns: no IPv6 address"
              : `dns: no address for ${host}`
        return Effect.fail(new Resolver.ResolveError({ host, message }))
      })
  })
  return { layer, lookups }
}

/** A resolver for tests that use literals only: any lookup is a bug in the probe, so it dies loudly. */
export const noResolver: Layer.Layer<Resolver.Resolver> = Layer.succeed(Resolver.Resolver, {
  lookup: (host) => Effect.dieMessage(`the resolver was asked for ${host}, but the test uses IP literals only`)
})

/**
 * The production guard, except that `admitted` addresses (test servers on loopback standing in for public
 * hosts) are allowed. Everything else is judged by AddressGuard.check itself, so a redirect from an admitted
 * server to an internal address meets the real guard.
 */
export const admitting = (...admitted: ReadonlyArray<string>): Layer.Layer<Dial.AddressPolicy> =>
  Layer.succeed(Dial.AddressPolicy, {
    check: (address) => (admitted.includes(address) ? { allowed: true, address } : AddressGuard.check(address))
  })
