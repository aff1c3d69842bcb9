/**
 * The socket work of a dial as plain callbacks: connecting to addresses the guard already allowed (happy eyeballs
 * across them) and the TLS handshake over the winner. `Dial` wraps each in one Effect step with a scope; the http
 * probe runs them, with its request, inside one step of its own. Either way the caller owns the sockets handed
 * back and closes them with {@link close}; sockets that lose a race or are aborted are closed here.
 *
 * @internal
 */
import * as Net from "node:net"
import * as Tls from "node:tls"
import type { buildConnector } from "undici"
import * as AddressGuard from "../AddressGuard.js"
import { type Attempt, type Raced, staggered } from "./happyEyeballs.js"

/**
 * An address to connect to, as the guard allowed it.
 *
 * @internal
 */
export interface Address {
  readonly address: string
  readonly family: 4 | 6
}

/**
 * How to handshake: `name` for the identity check (already bare: no brackets, no trailing dot), sent as SNI
 * unless it is an IP address (RFC 6066).
 *
 * @internal
 */
export interface Handshake {
  readonly name: string
  readonly verify: boolean
  readonly alpn?: ReadonlyArray<string> | undefined
}

// RFC 8305's recommended Connection Attempt Delay.
const attemptDelayMs = 250

// How long a closing connection may wait for the peer to close its side before it is destroyed.
const closeGrace = 2_000

/**
 * A permanent listener that keeps a late error (a reset after the probe stopped reading) from becoming an
 * unhandled 'error' that ends the process.
 *
 * @internal
 */
export const ignore = (): void => {}

/**
 * Closes a socket. One that got somewhere is closed politely: end() flushes what was written (the TLS Finished,
 * then close_notify) and sends FIN, so a monitored server logs a clean close rather than a reset or a failed
 * handshake on every check. The timer bounds the wait for a peer that never closes; it does not keep the process
 * alive.
 *
 * @internal
 */
export const close = (socket: Net.Socket): void => {
  if (socket.destroyed) return
  if (socket.pending) {
    socket.destroy()
    return
  }
  const timer = setTimeout(() => socket.destroy(), closeGrace).unref()
  socket.once("close", () => clearTimeout(timer))
  socket.end()
}

// Calls back once `socket` emits `event` or fails, whichever is first.
const once = <S extends Net.Socket>(
  socket: S,
  event: "connect" | "secureConnect",
  settle: (error: Error | undefined) => void
): void => {
  const onReady = () => {
    socket.off("error", onError)
    settle(undefined)
  }
  const onError = (error: Error) => {
    socket.off(event, onReady)
    settle(error)
  }
  socket.once(event, onReady)
  socket.once("error", onError)
}

const attempt =
  (address: Address, port: number): Attempt<Connected, string> =>
  (settle) => {
    const socket = Net.connect({ host: address.address, port, noDelay: true }).on("error", ignore)
    once(socket, "connect", (error) =>
      settle(error === undefined ? { ok: true, value: { socket, address } } : { ok: false, error: error.message })
    )
    // An attempt that lost the race, or a dial aborted, closes its socket; the winner's is the caller's.
    return () => close(socket)
  }

/**
 * A connected socket and the address it reached.
 *
 * @internal
 */
export interface Connected {
  readonly socket: Net.Socket
  readonly address: Address
}

// IPv6 first, then the families alternate (RFC 8305 section 4), so one dead family costs one attempt delay.
const interleaved = (addresses: ReadonlyArray<Address>): ReadonlyArray<Address> => {
  const six = addresses.filter((a) => a.family === 6)
  const four = addresses.filter((a) => a.family === 4)
  const order: Array<Address> = []
  for (let i = 0; i < Math.max(six.length, four.length); i++) {
    const a = six[i]
    const b = four[i]
    if (a !== undefined) order.push(a)
    if (b !== undefined) order.push(b)
  }
  return order
}

/**
 * Connects to the first of `addresses` to answer (IPv6 first, 250 ms stagger) and calls `done` once: with the
 * socket, or with every attempt's error message, each named once. Answers how to abort, which closes every socket
 * made and never calls `done`.
 *
 * @internal
 */
export const connect = (
  addresses: ReadonlyArray<Address>,
  port: number,
  done: (raced: Raced<Connected, string>) => void
): (() => void) => {
  // One address (an IP literal, most names on one family) has nothing to race: no stagger, no bookkeeping.
  const only = addresses.length === 1 ? addresses[0] : undefined
  if (only !== undefined) {
    let over = false
    const abort = attempt(
      only,
      port
    )((settled) => {
      over = true
      done(settled.ok ? settled : { ok: false, errors: [settled.error] })
    })
    // Once settled the socket is the caller's: aborting then is harmless, as for a race.
    return () => {
      if (!over) abort()
    }
  }
  return staggered(
    interleaved(addresses).map((address) => attempt(address, port)),
    attemptDelayMs,
    (raced) => done(raced.ok ? raced : { ok: false, errors: [...new Set(raced.errors)] })
  )
}

/**
 * A TLS handshake over `socket`; calls `done` once with the secured socket or the error (its message, without
 * the `tls: ` prefix). Answers how to abort a handshake in flight, which closes the TLS socket and never calls
 * `done`. Once `done` is called the caller owns the TLS socket (and still the plain one under it).
 *
 * @internal
 */
export const handshake = (
  socket: Net.Socket,
  options: Handshake,
  done: (
    outcome: { readonly ok: true; readonly socket: Tls.TLSSocket } | { readonly ok: false; readonly message: string }
  ) => void
): (() => void) => {
  const isAddress = AddressGuard.parseLiteral(options.name) !== undefined
  const secured = Tls.connect({
    socket,
    host: options.name,
    ...(isAddress ? {} : { servername: options.name }),
    rejectUnauthorized: options.verify,
    ...(options.alpn === undefined ? {} : { ALPNProtocols: [...options.alpn] })
  }).on("error", ignore)
  let settled = false
  once(secured, "secureConnect", (error) => {
    if (settled) return
    settled = true
    if (error !== undefined) close(secured)
    done(error === undefined ? { ok: true, socket: secured } : { ok: false, message: error.message })
  })
  return () => {
    if (settled) return
    settled = true
    close(secured)
  }
}

/**
 * undici's connector contract, fed the socket the dial produced. The callback must not run inside the connect
 * call: undici is then inside its own resume loop, which ignores re-entry, and the request would never be written.
 * The socket is handed over once; undici asks again only if the connection died before the request was sent.
 *
 * @internal
 */
export const handOver = (socket: Net.Socket): buildConnector.connector => {
  let available: Net.Socket | undefined = socket
  return (_options, callback) => {
    const given = available
    available = undefined
    process.nextTick(() =>
      given === undefined
        ? callback(new Error("connection closed before the request was sent"), null)
        : callback(null, given)
    )
  }
}
