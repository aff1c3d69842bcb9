/**
 * A small authoritative DNS server on 127.0.0.1 (UDP and TCP on one port) for the dns probe's tests: every record
 * type the check queries, CNAME chains, NXDOMAIN, SERVFAIL, REFUSED, empty answers, wildcard and reverse records,
 * a truncated UDP answer that must be fetched over TCP, a spoofed response ahead of the real one, and a name that
 * answers FORMERR to EDNS. Also a silent server that reads queries and never answers.
 */
import { Buffer } from "node:buffer"
import * as dgram from "node:dgram"
import * as net from "node:net"
import * as DnsPacket from "dns-packet"
import * as Effect from "effect/Effect"
import type * as Scope from "effect/Scope"

export interface Query {
  readonly transport: "udp" | "tcp"
  readonly id: number
  readonly name: string
  readonly type: string
  readonly edns: boolean
}

export interface FakeDnsServer {
  readonly port: number
  /** Every query received, in order. */
  readonly queries: Array<Query>
}

type Rcode = "NOERROR" | "FORMERR" | "SERVFAIL" | "NXDOMAIN" | "REFUSED"

const rcodes: Record<Rcode, number> = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, REFUSED: 5 }

interface Reply {
  readonly rcode: Rcode
  readonly answers: ReadonlyArray<DnsPacket.Answer>
  readonly truncated?: boolean
  /** Leave out the question section, as some servers that predate EDNS do in their FORMERR. */
  readonly withoutQuestion?: boolean
}

const ttl = 300

const a = (name: string, data: string): DnsPacket.Answer => ({ type: "A", name, ttl, data })
const cname = (name: string, data: string): DnsPacket.Answer => ({ type: "CNAME", name, ttl, data })

// Records by owner name (lower-case) and type. Some names answer in mixed case or with odd spellings on purpose.
const zone: Record<string, Partial<Record<string, ReadonlyArray<DnsPacket.Answer>>>> = {
  "example.test": {
    A: [a("example.test", "192.0.2.1"), a("example.test", "192.0.2.2")],
    AAAA: [{ type: "AAAA", name: "example.test", ttl, data: "2001:db8::1" }],
    MX: [
      { type: "MX", name: "example.test", ttl, data: { preference: 10, exchange: "mail.example.test" } },
      { type: "MX", name: "example.test", ttl, data: { preference: 20, exchange: "Backup.Example.TEST" } }
    ],
    NS: [
      { type: "NS", name: "example.test", ttl, data: "ns1.example.test" },
      { type: "NS", name: "example.test", ttl, data: "ns2.example.test" }
    ],
    TXT: [
      { type: "TXT", name: "example.test", ttl, data: ["v=spf1 ", "include:_spf.example.test -all"] },
      { type: "TXT", name: "example.test", ttl, data: ["Google-Site-Verification=AbC"] }
    ],
    SOA: [
      {
        type: "SOA",
        name: "example.test",
        ttl,
        data: {
          mname: "ns1.example.test",
          rname: "hostmaster.example.test",
          serial: 2024010101,
          refresh: 7200,
          retry: 3600,
          expire: 1209600,
          minimum: 300
        }
      }
    ],
    CAA: [
      { type: "CAA", name: "example.test", ttl, data: { flags: 0, tag: "issue", value: "letsencrypt.org" } },
      {
        type: "CAA",
        name: "example.test",
        ttl,
        data: { flags: 128, tag: "iodef", value: "mailto:security@example.test" }
      }
    ]
  },
  "_sip._tcp.example.test": {
    SRV: [
      {
        type: "SRV",
        name: "_sip._tcp.example.test",
        ttl,
        data: { priority: 10, weight: 60, port: 5060, target: "sip.example.test" }
      }
    ]
  },
  "www.example.test": { CNAME: [cname("www.example.test", "edge.example.test")] },
  "edge.example.test": { CNAME: [cname("edge.example.test", "cdn.example.test")] },
  "cdn.example.test": { A: [a("cdn.example.test", "192.0.2.10")] },
  "dangling.example.test": { CNAME: [cname("dangling.example.test", "gone.example.test")] },
  "empty.example.test": { A: [a("empty.example.test", "192.0.2.50")] },
  "*.wild.example.test": { A: [a("*.wild.example.test", "192.0.2.99")] },
  "1.2.0.192.in-addr.arpa": {
    PTR: [{ type: "PTR", name: "1.2.0.192.in-addr.arpa", ttl, data: "host.example.test" }]
  },
  "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa": {
    PTR: [
      {
        type: "PTR",
        name: "1.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.0.8.b.d.0.1.0.0.2.ip6.arpa",
        ttl,
        data: "host6.example.test"
      }
    ]
  },
  "mx2.example.test": {
    MX: [
      { type: "MX", name: "mx2.example.test", ttl, data: { preference: 10, exchange: "mail.example.test" } },
      { type: "MX", name: "mx2.example.test", ttl, data: { preference: 20, exchange: "mail.example.test" } },
      { type: "MX", name: "mx2.example.test", ttl, data: { preference: 30, exchange: "other.example.test" } }
    ]
  },
  "idn.example.test": { CNAME: [cname("idn.example.test", "xn--bcher-kva.example.test")] },
  "spoof.example.test": { A: [a("spoof.example.test", "192.0.2.77")] },
  "legacy.example.test": { A: [a("legacy.example.test", "192.0.2.33")] },
  "big.example.test": {
    TXT: Array.from({ length: 40 }, (_, i) => ({
      type: "TXT" as const,
      name: "big.example.test",
      ttl,
      data: [`record ${i} ${"x".repeat(60)}`]
    }))
  }
}

// The names whose owner exists: a query for another type there is NOERROR with no answer, elsewhere NXDOMAIN.
const owns = (name: string): boolean => name in zone

const lookup = (name: string, type: string): ReadonlyArray<DnsPacket.Answer> | undefined => {
  const exact = zone[name]
  if (exact !== undefined) return exact[type] ?? []
  // Wildcard synthesis (RFC 4592, one level is enough here): the record answers under the queried name.
  const dot = name.indexOf(".")
  const wildcard = dot === -1 ? undefined : zone[`*${name.slice(dot)}`]
  if (wildcard === undefined) return undefined
  return (wildcard[type] ?? []).map((record) => ({ ...record, name }))
}

const answer = (name: string, type: string, transport: "udp" | "tcp", edns: boolean): Reply => {
  if (name === "broken.example.test") return { rcode: "SERVFAIL", answers: [] }
  if (name === "refused.example.test") return { rcode: "REFUSED", answers: [] }
  if (name === "legacy.example.test" && edns) return { rcode: "FORMERR", answers: [], withoutQuestion: true }
  if (name === "big.example.test" && transport === "udp") return { rcode: "NOERROR", answers: [], truncated: true }
  // Follow CNAMEs as a resolver would, so the answer section holds the chain and then the records.
  const answers: Array<DnsPacket.Answer> = []
  let owner = name
  for (let hop = 0; hop < 8; hop++) {
    const records = lookup(owner, type)
    if (records === undefined) return { rcode: "NXDOMAIN", answers }
    if (records.length > 0 || type === "CNAME") return { rcode: "NOERROR", answers: [...answers, ...records] }
    const alias = zone[owner]?.["CNAME"]?.[0]
    if (alias === undefined || alias.type !== "CNAME") return { rcode: owns(owner) ? "NOERROR" : "NXDOMAIN", answers }
    answers.push(alias)
    owner = alias.data
  }
  return { rcode: "SERVFAIL", answers: [] }
}

const encodeReply = (query: DnsPacket.DecodedPacket, reply: Reply, id = query.id): Buffer =>
  DnsPacket.encode({
    type: "response",
    id,
    flags:
      DnsPacket.AUTHORITATIVE_ANSWER |
      (query.flag_rd ? DnsPacket.RECURSION_DESIRED : 0) |
      (reply.truncated === true ? DnsPacket.TRUNCATED_RESPONSE : 0) |
      rcodes[reply.rcode],
    questions: reply.withoutQuestion === true ? [] : (query.questions ?? []),
    answers: [...reply.answers]
  })

const describe = (query: DnsPacket.DecodedPacket, transport: "udp" | "tcp"): Query => ({
  transport,
  id: query.id ?? -1,
  name: (query.questions?.[0]?.name ?? "").toLowerCase(),
  type: query.questions?.[0]?.type ?? "",
  edns: (query.additionals ?? []).some((record) => record.type === "OPT")
})

const listenUdp = (socket: dgram.Socket, port: number): Promise<number> =>
  new Promise((resolve, reject) => {
    socket.once("error", reject)
    socket.bind(port, "127.0.0.1", () => {
      socket.off("error", reject)
      resolve(socket.address().port)
    })
  })

const listenTcp = (server: net.Server, port: number): Promise<void> =>
  new Promise((resolve, reject) => {
    server.once("error", reject)
    server.listen(port, "127.0.0.1", () => {
      server.off("error", reject)
      resolve()
    })
  })

const start = async (): Promise<{ server: FakeDnsServer; close: () => void }> => {
  const queries: Array<Query> = []
  // UDP takes a free port first; TCP then needs the same one, which another process may hold: try a few.
  for (let attempt = 0; attempt < 10; attempt++) {
    const udp = dgram.createSocket("udp4")
    const port = await listenUdp(udp, 0)
    const tcp = net.createServer((socket) => {
      let buffer = Buffer.alloc(0)
      socket.on("data", (chunk) => {
        buffer = Buffer.concat([buffer, chunk])
        if (buffer.length < 2 || buffer.length < buffer.readUInt16BE(0) + 2) return
        const query = DnsPacket.decode(buffer.subarray(2, buffer.readUInt16BE(0) + 2))
        const seen = describe(query, "tcp")
        queries.push(seen)
        const reply = encodeReply(query, answer(seen.name, seen.type, "tcp", seen.edns))
        const length = Buffer.alloc(2)
        length.writeUInt16BE(reply.length)
        socket.end(Buffer.concat([length, reply]))
      })
      socket.on("error", () => {})
    })
    try {
      await listenTcp(tcp, port)
    } catch {
      udp.close()
      continue
    }
    udp.on("message", (message, remote) => {
      const query = DnsPacket.decode(message)
      const seen = describe(query, "udp")
      queries.push(seen)
      const send = (bytes: Buffer) => udp.send(bytes, remote.port, remote.address)
      const reply = answer(seen.name, seen.type, "udp", seen.edns)
      if (seen.name === "spoof.example.test") {
        // Ahead of the real answer: one with another id, one with our id but another question.
        send(encodeReply(query, { rcode: "NOERROR", answers: [a(seen.name, "203.0.113.66")] }, (seen.id + 1) % 65536))
        send(
          DnsPacket.encode({
            type: "response",
            id: seen.id,
            flags: DnsPacket.AUTHORITATIVE_ANSWER,
            questions: [{ type: "A", name: "evil.example.test" }],
            answers: [a("evil.example.test", "203.0.113.67")]
          })
        )
      }
      send(encodeReply(query, reply))
    })
    return {
      server: { port, queries },
      close: () => {
        udp.close()
        tcp.close()
      }
    }
  }
  throw new Error("no port free for both UDP and TCP on 127.0.0.1")
}

/** The fake authoritative server, closed with the scope. */
export const make: Effect.Effect<FakeDnsServer, never, Scope.Scope> = Effect.acquireRelease(
  Effect.promise(start),
  ({ close }) => Effect.sync(close)
).pipe(Effect.map(({ server }) => server))

/** A UDP socket on 127.0.0.1 that counts queries and never answers. */
export const silent: Effect.Effect<{ readonly port: number; readonly received: () => number }, never, Scope.Scope> =
  Effect.acquireRelease(
    Effect.promise(async () => {
      const socket = dgram.createSocket("udp4")
      let received = 0
      socket.on("message", () => {
        received++
      })
      const port = await listenUdp(socket, 0)
      return { socket, port, received: () => received }
    }),
    ({ socket }) => Effect.sync(() => socket.close())
  )

/** A UDP port on 127.0.0.1 with nothing listening: queries to it meet ICMP port unreachable. */
export const closedPort: Effect.Effect<number> = Effect.promise(async () => {
  const socket = dgram.createSocket("udp4")
  const port = await listenUdp(socket, 0)
  await new Promise<void>((resolve) => socket.close(() => resolve()))
  return port
})
