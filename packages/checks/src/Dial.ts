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
import * as Net from "node:net"
import * as Tls from "node:tls"
import type { IpVersion } from "@signalman/core/CheckSpec"
import * as Context from "effect/Context"
import * as Data from "effect/Data"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import type * as Scope from "effect/Scope"
import * as AddressGuard from "./AddressGuard.js"
import { staggered } from "./internal/happyEyeballs.js"
import { mark, owned as ownedBy, since } from "./internal/probe.js"
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

// RFC 8305's recommended Connection Attempt Delay.
const attemptDelay = Duration.millis(250)

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
  Effect.gen(function* () {
    const literal = AddressGuard.parseLiteral(host)
    if (literal !== undefined) {
      const family = literal.kind() === "ipv4" ? 4 : 6
      if (!admits(ipVersion, family)) {
        return yield* new DialError({
          reason: "family",
          message: `ip_version ${ipVersion} cannot dial ${host}, an ${familyName(family)} address`,
          timings: {}
        })
      }
      return yield* guard(host, ipVersion, [{ address: `${literal.toString()}${zoneOf(host)}`, family }], {})
    }
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

const guard = (
  host: string,
  ipVersion: IpVersion,
  answers: ReadonlyArray<ResolvedAddress>,
  timings: Timings
): Effect.Effect<Resolution, DialError, ProbeSettings> =>
  Effect.gen(function* () {
    const settings = yield* ProbeSettings
    const policy = yield* AddressPolicy
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
      const verdict: AddressGuard.Verdict = settings.allowPrivateTargets
        ? { allowed: true, address }
        : policy.check(address)
      if (verdict.allowed) allowed.push({ address: `${verdict.address}${zoneOf(answer.address)}`, family })
      else refused ??= verdict
    }
    if (allowed.length > 0) return { addresses: allowed, timings }
    if (refused !== undefined) {
      return yield* new DialError({ reason: "blocked", message: AddressGuard.blockedMessage(host, refused), timings })
    }
    const none =
      ipVersion === "any"
        ? `dns: no address for ${host}`
        : `dns: no ${familyName(ipVersion === "ipv4" ? 4 : 6)} address`
    return yield* new DialError({ reason: "dns", message: none, timings })
  })

const ignore = (): void => {}

// Settles when `socket` emits `event`; interruption destroys the socket, which is what stops a connect or a
// handshake in flight.
const ready = <S extends Net.Socket>(
  socket: S,
  event: "connect" | "secureConnect",
  failure: (error: Error) => DialError
): Effect.Effect<S, DialError> =>
  Effect.async<S, DialError>((resume) => {
    const onReady = () => {
      socket.off("error", onError)
      resume(Effect.succeed(socket))
    }
    const onError = (error: Error) => {
      socket.off(event, onReady)
      resume(Effect.fail(failure(error)))
    }
    socket.once(event, onReady)
    socket.once("error", onError)
    return Effect.sync(() => socket.destroy())
  })

// How long a closing connection may wait for the peer to close its side before it is destroyed.
const closeGrace = 2_000

// A connection that got somewhere is closed politely: end() flushes what was written (the TLS Finished, then
// close_notify) and sends FIN, so a monitored server logs a clean close rather than a reset or a failed handshake
// on every check. The timer bounds the wait for a peer that never closes; it does not keep the process alive.
const close = (socket: Net.Socket): void => {
  if (socket.destroyed) return
  if (socket.pending) {
    socket.destroy()
    return
  }
  const timer = setTimeout(() => socket.destroy(), closeGrace).unref()
  socket.once("close", () => clearTimeout(timer))
  socket.end()
}

// Every socket is tied to the dialing scope as soon as it exists, so attempts that lose the race, or that win
// just as they are interrupted, are closed with the scope rather than leaked. The permanent no-op listener keeps
// a late error (a reset after the probe stopped reading) from becoming an unhandled 'error' that ends the process.
const owned = <S extends Net.Socket>(open: () => S): Effect.Effect<S, never, Scope.Scope> =>
  ownedBy(() => open().on("error", ignore), close)

const attempt = (address: ResolvedAddress, port: number): Effect.Effect<Connected, DialError, Scope.Scope> =>
  owned(() => Net.connect({ host: address.address, port, noDelay: true })).pipe(
    Effect.flatMap((socket) =>
      ready(socket, "connect", (error) => new DialError({ reason: "connect", message: error.message, timings: {} }))
    ),
    Effect.map((socket) => ({ socket, address }))
  )

interface Connected {
  readonly socket: Net.Socket
  readonly address: ResolvedAddress
}

// IPv6 first, then the families alternate (RFC 8305 section 4), so one dead family costs one attempt delay.
const interleaved = (addresses: ReadonlyArray<ResolvedAddress>): ReadonlyArray<ResolvedAddress> => {
  const six = addresses.filter((a) => a.family === 6)
  const four = addresses.filter((a) => a.family === 4)
  const order: Array<ResolvedAddress> = []
  for (let i = 0; i < Math.max(six.length, four.length); i++) {
    const a = six[i]
    const b = four[i]
    if (a !== undefined) order.push(a)
    if (b !== undefined) order.push(b)
  }
  return order
}

const distinct = (messages: ReadonlyArray<string>): string => [...new Set(messages)].join("; ")

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
      staggered(
        interleaved(resolution.addresses).map((address) => attempt(address, target.port)),
        attemptDelay
      )
    )
    const connect_ms = yield* since(start)
    yield* report({ connect_ms })
    const timings: Timings = { ...resolution.timings, connect_ms }
    if (Either.isLeft(raced)) {
      return yield* new DialError({ reason: "connect", message: distinct(raced.left.map((e) => e.message)), timings })
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
    // SNI and the identity check want the bare name: no brackets, no trailing dot of an absolute name.
    const name = unbracketed(options.servername ?? target.host).replace(/\.$/, "")
    const isAddress = AddressGuard.parseLiteral(name) !== undefined
    const start = yield* mark
    const secured = yield* Effect.either(
      owned(() =>
        Tls.connect({
          socket: connection.socket,
          host: name,
          ...(isAddress ? {} : { servername: name }),
          rejectUnauthorized: options.verify,
          ...(options.alpn === undefined ? {} : { ALPNProtocols: [...options.alpn] })
        })
      ).pipe(
        Effect.flatMap((socket) =>
          ready(
            socket,
            "secureConnect",
            (error) => new DialError({ reason: "tls", message: `tls: ${error.message}`, timings: {} })
          )
        )
      )
    )
    const tls_ms = yield* since(start)
    yield* report({ tls_ms })
    const timings: Timings = { ...connection.timings, tls_ms }
    if (Either.isLeft(secured)) {
      return yield* new DialError({ reason: "tls", message: secured.left.message, timings })
    }
    return { socket: secured.right, address: connection.address, timings }
  })
