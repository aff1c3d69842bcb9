/**
 * Dialing: the one place probes turn a host into a connected socket. It resolves the host with the
 * {@link Resolver} (only the family `ip_version` names), asks the internal-address guard about every answer and
 * connects only to the addresses it allows, so the verdict is on the address actually dialed and a name that
 * answers differently at save time and at dial time (DNS rebinding) gains nothing. With `ip_version` `any` it
 * races IPv6 against IPv4 (RFC 8305): IPv6 first, the next address 250 ms later or as soon as the one before it
 * fails, and the first connection wins.
 *
 * @since 0.1.0
 */
import type * as Net from "node:net"
import type * as Tls from "node:tls"
import type { IpVersion } from "@signalman/core/CheckSpec"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Scope from "effect/Scope"
import type { buildConnector } from "undici"
import * as AddressGuard from "./AddressGuard.js"
import { mark, since } from "./internal/probe.js"
import * as Socket from "./internal/socket.js"
import { ProbeSettings } from "./ProbeSettings.js"
import { type ResolvedAddress, Resolver } from "./Resolver.js"

/**
 * Milliseconds spent resolving, connecting and handshaking; a phase that did not happen is absent (no DNS for an
 * IP literal, no TLS for a plain connection).
 *
 * @since 0.1.0
 * @category models
 */
export interface Timings {
  readonly dns_ms?: number
  readonly connect_ms?: number
  readonly tls_ms?: number
}

/**
 * Told each phase's time as soon as it is known, so a check cut off by its timeout still reports the phases it
 * finished.
 *
 * @since 0.1.0
 * @category models
 */
export type Report = (timings: Timings) => Effect.Effect<void>

const silent: Report = () => Effect.void

/**
 * Why a dial failed: `blocked` by the guard, `family` (an IP literal pinned to the other family by
 * `ip_version`), `dns`, `connect` or `tls`.
 *
 * @since 0.1.0
 * @category models
 */
export type DialFailure = "blocked" | "family" | "dns" | "connect" | "tls"

/**
 * A dial that produced no connection. `message` is the check's error text (`blocked: ...`, `dns: no IPv4
 * address`, `connect ECONNREFUSED 127.0.0.1:443`, `tls: self-signed certificate`); `timings` holds the phases
 * finished before it failed.
 *
 * @since 0.1.0
 * @category errors
 */
export class DialError extends Data.TaggedError("DialError")<{
  readonly reason: DialFailure
  readonly message: string
  readonly timings: Timings
}> {}

/**
 * Where to connect: a name or an IP literal in any spelling (`[::1]`, `0x7f.1`), a port and the families
 * allowed.
 *
 * @since 0.1.0
 * @category models
 */
export interface Target {
  readonly host: string
  readonly port: number
  readonly ipVersion: IpVersion
}

/**
 * How to handshake: `servername` for SNI and the identity check (default the target's host; never sent for an
 * IP address, which RFC 6066 forbids), `verify` to require a trusted chain for that name, and ALPN protocols.
 *
 * @since 0.1.0
 * @category models
 */
export interface TlsOptions {
  readonly servername?: string | undefined
  readonly verify: boolean
  readonly alpn?: ReadonlyArray<string> | undefined
}

/**
 * A connected socket, the address it reached and what getting there took. The socket is closed when the
 * dialing scope closes.
 *
 * @since 0.1.0
 * @category models
 */
export interface Connection<S extends Net.Socket> {
  readonly socket: S
  readonly address: ResolvedAddress
  readonly timings: Timings
}

/**
 * The addresses a host resolved to that may be dialed, guard already applied.
 *
 * @since 0.1.0
 * @category models
 */
export interface Resolution {
  readonly addresses: ReadonlyArray<ResolvedAddress>
  readonly timings: Timings
}

/**
 * A verdict on one normalised address: may it be dialed?
 *
 * @since 0.1.0
 * @category models
 */
export interface Policy {
  readonly check: (address: string) => AddressGuard.Verdict
}

/**
 * The verdict on each address when private targets are not allowed; by default {@link AddressGuard.check}. A
 * runner may narrow it, and the guard tests widen it to a single loopback server so that a redirect from that
 * "public" server to a truly internal address can be seen refused at the hop.
 *
 * @since 0.1.0
 * @category services
 */
export class AddressPolicy extends Context.Reference<AddressPolicy>()("Signalman/AddressPolicy", {
  defaultValue: (): Policy => ({ check: AddressGuard.check })
}) {}

const familyName = (family: 4 | 6): string => (family === 4 ? "IPv4" : "IPv6")

const admits = (ipVersion: IpVersion, family: 4 | 6): boolean =>
  ipVersion === "any" || (ipVersion === "ipv4" ? family === 4 : family === 6)

const unbracketed = (host: string): string => (host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host)

// A link-local IPv6 address needs its zone to be dialed; the guard judges the address without it.
const zoneOf = (address: string): string => {
  const bare = unbracketed(address)
  const at = bare.indexOf("%")
  return at !== -1 && bare.includes(":") ? bare.slice(at) : ""
}

// The guard's verdict on a host's answers (an IP literal's answer is the literal itself).
const admit = (
  host: string,
  ipVersion: IpVersion,
  answers: ReadonlyArray<ResolvedAddress>,
  timings: Timings,
  allowPrivateTargets: boolean,
  policy: Policy
): Either.Either<Resolution, DialError> => {
  const allowed: Array<ResolvedAddress> = []
  let refused: Extract<AddressGuard.Verdict, { allowed: false }> | undefined
  for (const answer of answers) {
    const parsed = AddressGuard.parseLiteral(answer.address)
    // Never hand net.connect anything but an address: given a name it would resolve it itself, past the guard.
    if (parsed === undefined) continue
    const family = parsed.kind() === "ipv4" ? 4 : 6
    // Also enforced here, not only by asking the resolver for one family: a pinned check dials nothing else.
    if (!admits(ipVersion, family)) continue
    // The string dialed is the one the guard judged (normalised), so no spelling can differ between the two.
    const address = parsed.toString()
    const verdict: AddressGuard.Verdict = allowPrivateTargets ? { allowed: true, address } : policy.check(address)
    if (verdict.allowed) allowed.push({ address: `${verdict.address}${zoneOf(answer.address)}`, family })
    else refused ??= verdict
  }
  if (allowed.length > 0) return Either.right({ addresses: allowed, timings })
  if (refused !== undefined) {
    return Either.left(
      new DialError({ reason: "blocked", message: AddressGuard.blockedMessage(host, refused), timings })
    )
  }
  const none =
    ipVersion === "any" ? `dns: no address for ${host}` : `dns: no ${familyName(ipVersion === "ipv4" ? 4 : 6)} address`
  return Either.left(new DialError({ reason: "dns", message: none, timings }))
}

// The one answer an IP literal host stands for, in its normal form with its zone; undefined for a name.
const literalAnswers = (
  host: string,
  ipVersion: IpVersion
): Either.Either<ReadonlyArray<ResolvedAddress>, DialError> | undefined => {
  const literal = AddressGuard.parseLiteral(host)
  if (literal === undefined) return undefined
  const family = literal.kind() === "ipv4" ? 4 : 6
  if (!admits(ipVersion, family)) {
    return Either.left(
      new DialError({
        reason: "family",
        message: `ip_version ${ipVersion} cannot dial ${host}, an ${familyName(family)} address`,
        timings: {}
      })
    )
  }
  return Either.right([{ address: `${literal.toString()}${zoneOf(host)}`, family }])
}

const guard = (
  host: string,
  ipVersion: IpVersion,
  answers: ReadonlyArray<ResolvedAddress>,
  timings: Timings
): Effect.Effect<Resolution, DialError, ProbeSettings> =>
  Effect.flatMap(ProbeSettings, (settings) =>
    Effect.flatMap(AddressPolicy, (policy) =>
      admit(host, ipVersion, answers, timings, settings.allowPrivateTargets, policy)
    )
  )

/**
 * Resolves `host` in the families `ipVersion` allows and keeps the addresses the guard allows (all of them with
 * `allowPrivateTargets`). An IP literal skips DNS; pinned to the other family it fails with reason `family`.
 * Fails `blocked` when the guard refused every address.
 *
 * @since 0.1.0
 * @category resolving
 */
export const resolve = (
  host: string,
  ipVersion: IpVersion,
  report: Report = silent
): Effect.Effect<Resolution, DialError, Resolver | ProbeSettings> =>
  Effect.suspend(() => {
    const literal = literalAnswers(host, ipVersion)
    if (literal !== undefined) return Effect.flatMap(literal, (answers) => guard(host, ipVersion, answers, {}))
    return Effect.gen(function* () {
      const resolver = yield* Resolver
      const start = yield* mark
      const answer = yield* Effect.either(resolver.lookup(host, ipVersion))
      const timings: Timings = { dns_ms: yield* since(start) }
      yield* report(timings)
      if (Either.isLeft(answer)) {
        return yield* new DialError({ reason: "dns", message: answer.left.message, timings })
      }
      return yield* guard(host, ipVersion, answer.right, timings)
    })
  })

/**
 * SNI and the identity check want the bare name: no brackets, no trailing dot of an absolute name.
 *
 * @since 0.1.0
 * @category dialing
 */
export const serverName = (host: string): string => unbracketed(host).replace(/\.$/, "")

// One step of a dial, its sockets tied to the scope before they exist: the finalizer aborts the step if it is
// still running (closing every socket it made) and otherwise closes what it handed back. So attempts that lose the
// race, or that win just as they are interrupted, are closed with the scope rather than leaked.
const scoped = <A, E>(
  start: (done: (outcome: Either.Either<A, E>) => void) => () => void,
  release: (value: A) => void
): Effect.Effect<A, E, Scope.Scope> =>
  Effect.flatMap(Effect.scope, (scope) =>
    Effect.suspend(() => {
      let abort: (() => void) | undefined
      let value: { readonly got: A } | undefined
      return Effect.zipRight(
        Scope.addFinalizer(
          scope,
          Effect.sync(() => {
            abort?.()
            if (value !== undefined) release(value.got)
          })
        ),
        Effect.async<A, E>((resume) => {
          abort = start((outcome) => {
            abort = undefined
            if (Either.isRight(outcome)) value = { got: outcome.right }
            resume(outcome)
          })
        })
      )
    })
  )

/**
 * A TCP connection to `target`: resolve, guard, then race the addresses (IPv6 first, 250 ms stagger). The socket
 * lives as long as the scope.
 *
 * @since 0.1.0
 * @category dialing
 */
export const tcp = (
  target: Target,
  report: Report = silent
): Effect.Effect<Connection<Net.Socket>, DialError, Resolver | ProbeSettings | Scope.Scope> =>
  Effect.gen(function* () {
    const resolution = yield* resolve(target.host, target.ipVersion, report)
    const start = yield* mark
    const raced = yield* Effect.either(
      scoped<Socket.Connected, ReadonlyArray<string>>(
        (done) =>
          Socket.connect(resolution.addresses, target.port, (raced) =>
            done(raced.ok ? Either.right(raced.value) : Either.left(raced.errors))
          ),
        (connected) => Socket.close(connected.socket)
      )
    )
    const connect_ms = yield* since(start)
    yield* report({ connect_ms })
    const timings: Timings = { ...resolution.timings, connect_ms }
    if (Either.isLeft(raced)) {
      return yield* new DialError({ reason: "connect", message: raced.left.join("; "), timings })
    }
    return { socket: raced.right.socket, address: raced.right.address, timings }
  })

/**
 * A TLS connection to `target`: {@link tcp}, then a handshake over the winning socket.
 *
 * @since 0.1.0
 * @category dialing
 */
export const tls = (
  target: Target,
  options: TlsOptions,
  report: Report = silent
): Effect.Effect<Connection<Tls.TLSSocket>, DialError, Resolver | ProbeSettings | Scope.Scope> =>
  Effect.gen(function* () {
    const connection = yield* tcp(target, report)
    const start = yield* mark
    const secured = yield* Effect.either(
      scoped<Tls.TLSSocket, string>(
        (done) =>
          Socket.handshake(
            connection.socket,
            { name: serverName(options.servername ?? target.host), verify: options.verify, alpn: options.alpn },
            (outcome) => done(outcome.ok ? Either.right(outcome.socket) : Either.left(outcome.message))
          ),
        Socket.close
      )
    )
    const tls_ms = yield* since(start)
    yield* report({ tls_ms })
    const timings: Timings = { ...connection.timings, tls_ms }
    if (Either.isLeft(secured)) {
      return yield* new DialError({ reason: "tls", message: `tls: ${secured.left}`, timings })
    }
    return { socket: secured.right, address: connection.address, timings }
  })

/**
 * An undici `connect` option that hands undici a socket `Dial` opened (so the guard's verdict on the address holds
 * for the request): once, asynchronously, as undici's connector contract wants.
 *
 * @since 0.1.0
 * @category dialing
 */
export const connector: (socket: Net.Socket) => buildConnector.connector = Socket.handOver
