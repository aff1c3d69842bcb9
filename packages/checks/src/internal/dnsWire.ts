/**
 * One DNS exchange with one server: a query over UDP with a random id, retransmitted while the server is silent,
 * retried over TCP when the answer comes back truncated, and accepted only when the response carries the query's
 * id and question.
 *
 * @internal
 */
import { Buffer } from "node:buffer"
import { randomInt } from "node:crypto"
import * as dgram from "node:dgram"
import * as net from "node:net"
import type { DnsRecordType } from "@signalman/core/CheckSpec"
import * as DnsPacket from "dns-packet"
import * as Data from "effect/Data"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Exit from "effect/Exit"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import ipaddr from "ipaddr.js"

/**
 * A DNS server to ask: an address, a port and how to show it (`127.0.0.1:5353`, `[::1]:53`).
 *
 * @internal
 */
export interface Server {
  readonly address: string
  readonly port: number
  readonly family: 4 | 6
  readonly label: string
}

const ipv4 = /^\d{1,3}(\.\d{1,3}){3}$/

const server = (address: string, port: number, family: 4 | 6): Server => ({
  address,
  port,
  family,
  label: family === 6 ? `[${address}]:${port}` : `${address}:${port}`
})

const validV6 = (address: string): boolean => {
  const zone = address.indexOf("%")
  return ipaddr.IPv6.isValid(zone === -1 ? address : address.slice(0, zone))
}

/**
 * A resolver written `ip` or `ip:port`, IPv6 as `[addr]:port` (a bare IPv6 address means port 53). Names are
 * refused: resolving the resolver would need a resolver.
 *
 * @internal
 */
export const parseServer = (input: string): Either.Either<Server, string> => {
  const text = input.trim()
  const refused = Either.left(`"${text}" is not an ip or ip:port (IPv6 as [addr]:port)`)
  const port = (digits: string | undefined): number | undefined => {
    if (digits === undefined) return 53
    const value = /^\d{1,5}$/.test(digits) ? Number.parseInt(digits, 10) : 0
    return value >= 1 && value <= 65535 ? value : undefined
  }
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(text)
  if (bracketed !== null) {
    const p = port(bracketed[2])
    return validV6(bracketed[1]!) && p !== undefined ? Either.right(server(bracketed[1]!, p, 6)) : refused
  }
  if ((text.match(/:/g) ?? []).length >= 2) return validV6(text) ? Either.right(server(text, 53, 6)) : refused
  const [host, digits, ...rest] = text.split(":")
  const p = port(digits)
  if (rest.length > 0 || host === undefined || p === undefined || !ipv4.test(host)) return refused
  return ipaddr.IPv4.isValidFourPartDecimal(host) ? Either.right(server(host, p, 4)) : refused
}

/**
 * The server failed to answer the exchange: a network error, a closed connection, or only responses that were
 * not ours.
 *
 * @internal
 */
export class WireError extends Data.TaggedError("WireError")<{ readonly message: string }> {}

/**
 * What a verified response says: its rcode and its answer section.
 *
 * @internal
 */
export interface Response {
  readonly rcode: string
  readonly truncated: boolean
  readonly answers: ReadonlyArray<DnsPacket.Answer>
}

interface Question {
  readonly name: string
  readonly type: DnsRecordType
}

// 1232 bytes is the EDNS buffer size the DNS flag day 2020 settled on: it avoids IP fragmentation on any path.
const ednsBuffer = 1232

const query = (id: number, question: Question, edns: boolean): DnsPacket.Packet => ({
  type: "query",
  id,
  flags: DnsPacket.RECURSION_DESIRED,
  questions: [{ type: question.type, name: question.name, class: "IN" }],
  additionals: edns
    ? [
        {
          type: "OPT",
          name: ".",
          udpPayloadSize: ednsBuffer,
          extendedRcode: 0,
          ednsVersion: 0,
          flags: 0,
          flag_do: false,
          options: []
        }
      ]
    : []
})

const decode = (bytes: Buffer): DnsPacket.DecodedPacket | undefined => {
  try {
    return DnsPacket.decode(bytes)
  } catch {
    return undefined
  }
}

const rcodeOf = (packet: DnsPacket.DecodedPacket): string => {
  // `rcode` is set by dns-packet's decoder but missing from its type declarations.
  const rcode: unknown = Reflect.get(packet, "rcode")
  return typeof rcode === "string" ? rcode : `RCODE_${(packet.flags ?? 0) & 0x0f}`
}

// A response is ours when it answers our id and repeats our question (names compare case-insensitively: some
// resolvers randomise the case of a query name and echo it back). Servers that predate EDNS may answer FORMERR
// with no question section; with our id that is still ours, and it only leads to asking again without EDNS.
const answers = (packet: DnsPacket.DecodedPacket, id: number, question: Question): boolean => {
  const asked = packet.questions ?? []
  if (packet.type !== "response" || packet.id !== id) return false
  if (asked.length === 0) return rcodeOf(packet) === "FORMERR"
  return (
    asked.length === 1 &&
    asked[0]!.type === question.type &&
    (asked[0]!.class ?? "IN") === "IN" &&
    asked[0]!.name.toLowerCase() === question.name.toLowerCase()
  )
}

const toResponse = (packet: DnsPacket.DecodedPacket): Response => ({
  rcode: rcodeOf(packet),
  truncated: packet.flag_tc,
  answers: packet.answers ?? []
})

const networkError = (target: Server, cause: unknown): WireError => {
  const code = cause instanceof Error && "code" in cause && typeof cause.code === "string" ? cause.code : undefined
  const message = cause instanceof Error ? cause.message : String(cause)
  return new WireError({ message: `dns: ${code ?? message} from ${target.label}` })
}

// Spoofed or stale datagrams are skipped, but only this many: a flood of them ends the exchange.
const maxStrayDatagrams = 64

const udp = (target: Server, question: Question, edns: boolean): Effect.Effect<Response, WireError> =>
  Effect.scoped(
    Effect.gen(function* () {
      const id = randomInt(0, 65536)
      const bytes = DnsPacket.encode(query(id, question, edns))
      const inbox = yield* Queue.dropping<Buffer>(maxStrayDatagrams)
      const failed = yield* Deferred.make<never, WireError>()
      const socket = yield* Effect.acquireRelease(
        Effect.sync(() => {
          const socket = dgram.createSocket(target.family === 6 ? "udp6" : "udp4")
          socket.on("message", (message) => Queue.unsafeOffer(inbox, message))
          // A connected socket reports an ICMP port unreachable as ECONNREFUSED here.
          socket.on("error", (cause) => Deferred.unsafeDone(failed, Exit.fail(networkError(target, cause))))
          return socket
        }),
        (socket) =>
          Effect.sync(() => {
            try {
              socket.close()
            } catch {
              // Already closed by an error: nothing left to release.
            }
          })
      )
      // Connecting filters the kernel's delivery to datagrams from the server's address and port.
      const connect = Effect.async<void>((resume) => {
        socket.connect(target.port, target.address, () => resume(Effect.void))
      })
      const send = Effect.async<void, WireError>((resume) => {
        socket.send(bytes, (cause) => resume(cause ? Effect.fail(networkError(target, cause)) : Effect.void))
      })
      const receive = (left: number): Effect.Effect<Response, WireError> =>
        left === 0
          ? Effect.fail(new WireError({ message: `dns: only mismatched responses from ${target.label}` }))
          : Effect.flatMap(Queue.take(inbox), (message) => {
              const packet = decode(message)
              return packet !== undefined && answers(packet, id, question)
                ? Effect.succeed(toResponse(packet))
                : receive(left - 1)
            })
      // A lost datagram is retransmitted at 1 s and 3 s, as stub resolvers do; the check's timeout ends the wait.
      const sending = send.pipe(
        Effect.repeat(Schedule.intersect(Schedule.exponential("1 second"), Schedule.recurs(2))),
        Effect.zipRight(Effect.never)
      )
      const exchange = Effect.zipRight(connect, Effect.raceFirst(receive(maxStrayDatagrams), sending))
      return yield* Effect.raceFirst(exchange, Deferred.await(failed))
    })
  )

const tcp = (target: Server, question: Question, edns: boolean): Effect.Effect<Response, WireError> =>
  Effect.gen(function* () {
    const id = randomInt(0, 65536)
    const bytes = DnsPacket.streamEncode(query(id, question, edns))
    const message = yield* Effect.async<Buffer, WireError>((resume) => {
      let settled = false
      let received = Buffer.alloc(0)
      const socket = net.createConnection({ host: target.address, port: target.port, family: target.family })
      const settle = (result: Effect.Effect<Buffer, WireError>) => {
        if (settled) return
        settled = true
        socket.destroy()
        resume(result)
      }
      socket.on("connect", () => socket.write(bytes))
      socket.on("data", (chunk) => {
        received = Buffer.concat([received, chunk])
        if (received.length < 2) return
        const length = received.readUInt16BE(0)
        // The length is 16 bits, so the buffer never grows past 65537 bytes before this settles.
        if (received.length >= length + 2) settle(Effect.succeed(received.subarray(2, length + 2)))
      })
      socket.on("error", (cause) => settle(Effect.fail(networkError(target, cause))))
      socket.on("close", () =>
        settle(Effect.fail(new WireError({ message: `dns: ${target.label} closed the TCP connection early` })))
      )
      return Effect.sync(() => {
        settled = true
        socket.destroy()
      })
    })
    const packet = decode(message)
    if (packet === undefined || !answers(packet, id, question)) {
      return yield* Effect.fail(new WireError({ message: `dns: a mismatched TCP response from ${target.label}` }))
    }
    return toResponse(packet)
  })

const attempt = (target: Server, question: Question, edns: boolean): Effect.Effect<Response, WireError> =>
  Effect.flatMap(udp(target, question, edns), (response) =>
    response.truncated ? tcp(target, question, edns) : Effect.succeed(response)
  )

/**
 * Ask one server one question. A FORMERR to a query with EDNS is asked again without it, for servers that
 * predate EDNS.
 *
 * @internal
 */
export const exchange = (target: Server, question: Question): Effect.Effect<Response, WireError> =>
  Effect.flatMap(attempt(target, question, true), (response) =>
    response.rcode === "FORMERR" ? attempt(target, question, false) : Effect.succeed(response)
  )
