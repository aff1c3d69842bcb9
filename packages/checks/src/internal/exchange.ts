/**
 * One HTTP exchange over a fresh connection, as one asynchronous step in plain callback code: connect to the
 * addresses the guard allowed (happy eyeballs), handshake if https, send the request with an undici `Client` over
 * that socket, read the answer (and as much of its body as asked), close everything, call back once.
 *
 * Why not a chain of Effects: the probe benchmark (docs/probes.md) showed a check spending more in the fibers,
 * scopes and steps around its I/O than in the I/O; as one step, the runtime is entered once per hop. Every phase
 * is still timed as it ends and recorded at once, so a check cut off by its deadline reports the phases it
 * finished, and aborting the step (the deadline, an interruption) closes every socket it opened.
 *
 * @internal
 */
import type * as Net from "node:net"
import type { HttpMethod } from "@signalman/core/CheckSpec"
import { Client, type Dispatcher } from "undici"
import { type PhaseTimes, roundMs } from "./probe.js"
import * as Socket from "./socket.js"

/**
 * What to send where.
 *
 * @internal
 */
export interface Exchange {
  readonly addresses: ReadonlyArray<Socket.Address>
  readonly port: number
  /** The handshake for https; undefined for plain http. */
  readonly tls: Socket.Handshake | undefined
  readonly origin: string
  readonly path: string
  readonly method: HttpMethod
  readonly headers: Readonly<Record<string, string>>
  readonly body: string | undefined
  /** Told the status as soon as it arrives, so a check cut off while reading the body still reports it. */
  readonly answered: (statusCode: number) => void
  /** How many bytes of the body to read for an answer with this status and headers; 0 reads none. */
  readonly bodyWanted: (statusCode: number, headers: Dispatcher.ResponseData["headers"]) => number
}

/**
 * How an exchange ended: no connection (`connect`, `tls`: the check's error text), no answer (undici's error), or
 * an answer with the body prefix asked for (text, or why it could not be read).
 *
 * @internal
 */
export type Outcome =
  | { readonly _tag: "DialFailed"; readonly message: string }
  | { readonly _tag: "RequestFailed"; readonly error: unknown }
  | {
      readonly _tag: "Answered"
      readonly statusCode: number
      readonly headers: Dispatcher.ResponseData["headers"]
      readonly body:
        | { readonly ok: true; readonly text: string }
        | { readonly ok: false; readonly error: unknown }
        | undefined
    }

const ignore = (): void => {}

// Why a client is destroyed: one shared error, since undici and the stream it ends read the error's stack, and a
// fresh Error per check (a stack captured and, under source maps, formatted) cost more than the rest of the close.
const finished = new Error("the check is finished with this connection")

// The first `limit` bytes of a body as text; the rest is never read (closing the client discards it).
const readPrefix = async (body: Dispatcher.ResponseData["body"], limit: number): Promise<string> => {
  const chunks: Array<Uint8Array> = []
  let size = 0
  const source: AsyncIterable<unknown> = body
  for await (const chunk of source) {
    if (!(chunk instanceof Uint8Array)) continue
    const piece = chunk.subarray(0, limit - size)
    chunks.push(piece)
    size += piece.length
    if (size >= limit) break
  }
  // Not fatal: a text check on a page with a stray invalid byte (or a character cut at the limit) still runs.
  return new TextDecoder("utf-8").decode(Buffer.concat(chunks))
}

const since = (start: number): number => roundMs(performance.now() - start)

/**
 * Runs `exchange`, recording each phase (`connect_ms`, `tls_ms`, `first_byte_ms`) as it ends, and calls `done`
 * once, after every socket of the hop is closed. Answers how to abort it: everything is closed and `done` is
 * never called.
 *
 * @internal
 */
export const run = (exchange: Exchange, record: (times: PhaseTimes) => void, done: (outcome: Outcome) => void) => {
  let over = false
  let abortDial: (() => void) | undefined
  let plain: Net.Socket | undefined
  let secured: Net.Socket | undefined
  let client: Client | undefined

  // The client first (it ends the request), then the TLS socket, then the one under it.
  const closeAll = (): void => {
    if (client !== undefined) client.destroy(finished).catch(ignore)
    if (secured !== undefined) Socket.close(secured)
    if (plain !== undefined) Socket.close(plain)
  }
  const finish = (outcome: Outcome): void => {
    if (over) return
    over = true
    closeAll()
    done(outcome)
  }

  const request = (socket: Net.Socket): void => {
    // The check's own deadline bounds the exchange, so undici's timers are off.
    const opened = new Client(exchange.origin, { connect: Socket.handOver(socket), headersTimeout: 0, bodyTimeout: 0 })
    client = opened
    const start = performance.now()
    // No abort signal: aborting the step destroys the client, which ends the request.
    opened
      .request({ path: exchange.path, method: exchange.method, headers: exchange.headers, body: exchange.body ?? null })
      .then(
        (response) => {
          if (over) return
          record({ first_byte_ms: since(start) })
          const { statusCode, headers } = response
          exchange.answered(statusCode)
          const limit = exchange.bodyWanted(statusCode, headers)
          if (limit <= 0) return finish({ _tag: "Answered", statusCode, headers, body: undefined })
          readPrefix(response.body, limit).then(
            (text) => finish({ _tag: "Answered", statusCode, headers, body: { ok: true, text } }),
            (error: unknown) => finish({ _tag: "Answered", statusCode, headers, body: { ok: false, error } })
          )
        },
        (error: unknown) => {
          if (over) return
          record({ first_byte_ms: since(start) })
          finish({ _tag: "RequestFailed", error })
        }
      )
  }

  const start = performance.now()
  abortDial = Socket.connect(exchange.addresses, exchange.port, (raced) => {
    abortDial = undefined
    record({ connect_ms: since(start) })
    if (!raced.ok) return finish({ _tag: "DialFailed", message: raced.errors.join("; ") })
    const socket = raced.value.socket
    plain = socket
    const tls = exchange.tls
    if (tls === undefined) return request(socket)
    const handshakeStart = performance.now()
    abortDial = Socket.handshake(socket, tls, (outcome) => {
      abortDial = undefined
      record({ tls_ms: since(handshakeStart) })
      if (!outcome.ok) return finish({ _tag: "DialFailed", message: `tls: ${outcome.message}` })
      secured = outcome.socket
      request(outcome.socket)
    })
  })

  return (): void => {
    if (over) return
    over = true
    abortDial?.()
    closeAll()
  }
}
