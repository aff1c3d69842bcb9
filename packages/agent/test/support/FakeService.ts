/**
 * A fake Signalman service speaking the agent protocol on loopback (node:http and a `ws` WebSocket server), every
 * message decoded and encoded with core's own schemas, so the agent is tested against the protocol rather than
 * against the real server (which is built elsewhere). It records what the agent said, hands out the jobs a test
 * queues, stores results once per id, pushes one-off jobs and keeps their answers once per id, and can misbehave
 * on cue: refuse the token, fail hellos, withhold acks, drop the stream, close it with 4401, skew its clock.
 */
import * as Http from "node:http"
import type * as Net from "node:net"
import * as Protocol from "@signalman/core/api/Agent"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { type WebSocket, WebSocketServer } from "ws"

export const TOKEN = "sm_agent_test_0123456789abcdef"
export const REGION = "eu-test"

export interface Delivery {
  readonly via: "stream" | "http"
  readonly at: number
  readonly results: ReadonlyArray<Protocol.Result>
}

export interface Controls {
  /** Tokens accepted; others get 401 UNAUTHENTICATED. */
  readonly tokens: Set<string>
  /** Status of the next hellos (popped one per hello); empty: 200. */
  helloFailures: Array<number>
  /** When set, results on the stream are recorded but not acknowledged. */
  holdAcks: boolean
  /** Added to the `Date` header of HTTP answers: the service's clock ahead of the machine's by this. */
  clockAheadMs: number
  pollMs: number
  /** When set, the stream's upgrade is answered 401 whatever the token. */
  refuseUpgrades: boolean
  /** When cleared, pulls are recorded and left unanswered. */
  answerPulls: boolean
  /** When cleared, the stream answers no ping (a peer that went silent). */
  autoPong: boolean
  /** When set, POST /results answers this status and stores nothing. */
  resultsStatus: number | undefined
}

export interface FakeService extends Controls {
  readonly url: string
  readonly hellos: Array<{ readonly hello: Protocol.Hello; readonly userAgent: string | undefined }>
  /** Every message the agent sent on any stream, decoded, in order. */
  readonly messages: Array<{ readonly at: number; readonly message: Protocol.AgentMessage }>
  readonly deliveries: Array<Delivery>
  /** Results stored, once per id (the first copy). */
  readonly stored: Map<string, Protocol.Result>
  /** One-off answers as they came, with when and whether they were acknowledged. */
  readonly oneOffDeliveries: Array<{ readonly at: number; readonly results: ReadonlyArray<Protocol.OneOffResult> }>
  /** One-off answers kept, once per id (the first copy). */
  readonly answered: Map<string, Protocol.OneOffResult>
  /** Pushes one-off jobs, unasked, on every open stream (raw JSON, so a test may push one the schema refuses). */
  readonly pushOneOff: (...jobs: ReadonlyArray<unknown>) => void
  readonly upgrades: { count: number }
  /** The service's clock. */
  readonly now: () => number
  /** Queues jobs for the next pulls. */
  readonly enqueue: (...jobs: ReadonlyArray<Protocol.Job>) => void
  /** Queues a job as raw JSON (one the protocol's schema may not accept). */
  readonly enqueueRaw: (job: unknown) => void
  /** Every hello request, authorized or not. */
  readonly helloAttempts: { count: number }
  /** Ends every open stream without a close frame (a dropped connection). */
  readonly dropStreams: () => void
  /** Closes every open stream with a code. */
  readonly closeStreams: (code: number, reason: string) => void
  readonly openStreams: () => number
}

const encodeWelcome = Schema.encodeSync(Protocol.Welcome)
const encodeServer = Schema.encodeSync(Protocol.ServerMessage)
const encodeJob = Schema.encodeSync(Protocol.Job)
const encodeOneOff = Schema.encodeSync(Protocol.OneOffJob)
const decodeHello = Schema.decodeUnknownSync(Schema.parseJson(Protocol.Hello))
const decodeResults = Schema.decodeUnknownSync(Schema.parseJson(Protocol.Results))
const decodeMessage = Schema.decodeUnknownSync(Schema.parseJson(Protocol.AgentMessage))

const envelope = (code: string, message: string) =>
  JSON.stringify({ error: { code, message, field: null, details: {}, trace_id: null } })

const readBody = (request: Http.IncomingMessage): Promise<string> =>
  new Promise((resolve, reject) => {
    const chunks: Array<Buffer> = []
    request.on("data", (chunk: Buffer) => chunks.push(chunk))
    request.on("end", () => resolve(Buffer.concat(chunks).toString("utf8")))
    request.on("error", reject)
  })

export const make = (options: Partial<Controls> = {}): Effect.Effect<FakeService, never, Scope.Scope> =>
  Effect.acquireRelease(
    Effect.promise(async () => {
      const queue: Array<unknown> = []
      const sockets = new Set<WebSocket>()
      const connections = new Set<Net.Socket>()
      const service: Omit<FakeService, "url"> & { url: string } = {
        url: "",
        tokens: options.tokens ?? new Set([TOKEN]),
        helloFailures: options.helloFailures ?? [],
        holdAcks: options.holdAcks ?? false,
        clockAheadMs: options.clockAheadMs ?? 0,
        pollMs: options.pollMs ?? 50,
        refuseUpgrades: options.refuseUpgrades ?? false,
        answerPulls: options.answerPulls ?? true,
        autoPong: options.autoPong ?? true,
        resultsStatus: options.resultsStatus,
        hellos: [],
        messages: [],
        deliveries: [],
        stored: new Map(),
        oneOffDeliveries: [],
        answered: new Map(),
        pushOneOff: (...jobs) => {
          const text = JSON.stringify({
            _tag: "one_off",
            jobs: jobs.map((job) => (job instanceof Protocol.OneOffJob ? encodeOneOff(job) : job))
          })
          for (const socket of sockets) socket.send(text)
        },
        upgrades: { count: 0 },
        now: () => Date.now() + service.clockAheadMs,
        enqueue: (...jobs) => queue.push(...jobs.map((job) => encodeJob(job))),
        enqueueRaw: (job) => queue.push(job),
        helloAttempts: { count: 0 },
        dropStreams: () => {
          for (const socket of sockets) socket.terminate()
        },
        closeStreams: (code, reason) => {
          for (const socket of sockets) socket.close(code, reason)
        },
        openStreams: () => sockets.size
      }

      const authorized = (header: string | undefined): boolean =>
        header?.startsWith("Bearer ") === true && service.tokens.has(header.slice("Bearer ".length))

      const store = (via: Delivery["via"], results: ReadonlyArray<Protocol.Result>) => {
        service.deliveries.push({ via, at: Date.now(), results })
        for (const result of results) if (!service.stored.has(result.id)) service.stored.set(result.id, result)
      }

      const server = Http.createServer((request, response) => {
        response.sendDate = false
        response.setHeader("date", new Date(service.now()).toUTCString())
        const answer = (status: number, body: string) => {
          response.writeHead(status, { "content-type": "application/json" })
          response.end(body)
        }
        void readBody(request).then((body) => {
          if (request.url === "/api/agent/v1/hello") service.helloAttempts.count++
          if (!authorized(request.headers.authorization)) {
            return answer(401, envelope("UNAUTHENTICATED", "This agent token is not valid (revoked?)"))
          }
          if (request.method === "POST" && request.url === "/api/agent/v1/hello") {
            const failure = service.helloFailures.shift()
            if (failure !== undefined) return answer(failure, envelope("UNAVAILABLE", "Try again later"))
            service.hellos.push({ hello: decodeHello(body), userAgent: request.headers["user-agent"] })
            return answer(
              200,
              JSON.stringify(
                encodeWelcome(
                  new Protocol.Welcome({
                    agent_id: "5f0c3a52-8d1e-4c59-9b59-2f5a1d7e3c10",
                    name: "test-agent",
                    region: REGION,
                    server_version: "0.1.0",
                    lease_secs: 30,
                    poll_ms: service.pollMs,
                    lookahead_ms: 1000
                  })
                )
              )
            )
          }
          if (request.method === "POST" && request.url === "/api/agent/v1/results") {
            if (service.resultsStatus !== undefined) {
              return answer(service.resultsStatus, envelope("UNAVAILABLE", "Try again later"))
            }
            const { results } = decodeResults(body)
            store("http", results)
            return answer(200, JSON.stringify({ acknowledged: results.map((result) => result.id) }))
          }
          answer(404, envelope("NOT_FOUND", "No such route"))
        })
      })
      server.on("connection", (socket) => {
        connections.add(socket)
        socket.on("close", () => connections.delete(socket))
      })

      const wss = new WebSocketServer({ noServer: true, autoPong: service.autoPong })
      server.on("upgrade", (request, socket, head) => {
        if (
          request.url !== Protocol.STREAM_PATH ||
          !authorized(request.headers.authorization) ||
          service.refuseUpgrades
        ) {
          const body = envelope("UNAUTHENTICATED", "This agent token is not valid (revoked?)")
          socket.end(
            `HTTP/1.1 401 Unauthorized\r\ncontent-type: application/json\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`
          )
          return
        }
        service.upgrades.count++
        wss.handleUpgrade(request, socket, head, (ws) => {
          sockets.add(ws)
          ws.on("close", () => sockets.delete(ws))
          ws.on("message", (data) => {
            const message = decodeMessage(String(data))
            service.messages.push({ at: Date.now(), message })
            const send = (reply: Protocol.ServerMessage) => ws.send(JSON.stringify(encodeServer(reply)))
            switch (message._tag) {
              case "pull":
                if (!service.answerPulls) return
                // Sent raw: a test may queue a job the protocol's schema would refuse to encode.
                return ws.send(JSON.stringify({ _tag: "jobs", jobs: queue.splice(0, message.room) }))
              case "results":
                store("stream", message.results)
                if (!service.holdAcks) {
                  send({ _tag: "ack", acknowledged: message.results.map((result) => result.id) })
                }
                return
              case "one_off_results":
                service.oneOffDeliveries.push({ at: Date.now(), results: message.results })
                for (const result of message.results) {
                  if (!service.answered.has(result.id)) service.answered.set(result.id, result)
                }
                if (!service.holdAcks) {
                  send({ _tag: "ack", acknowledged: message.results.map((result) => result.id) })
                }
                return
              case "draining":
                return
            }
          })
        })
      })

      await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
      const address = server.address()
      if (address === null || typeof address === "string") throw new Error("no port")
      service.url = `http://127.0.0.1:${address.port}`
      const close = async () => {
        for (const socket of sockets) socket.terminate()
        for (const socket of connections) socket.destroy()
        wss.close()
        await new Promise<void>((resolve) => server.close(() => resolve()))
      }
      return { service: service as FakeService, close }
    }),
    ({ close }) => Effect.promise(close)
  ).pipe(Effect.map(({ service }) => service))

let serial = 0

/** A job for `check`, due `inMs` from the service's clock. */
export const job = (
  service: Pick<FakeService, "now">,
  check: Protocol.Job["check"],
  inMs: number,
  extra: Partial<{ readonly error: string; readonly leaseMs: number }> = {}
): Protocol.Job => {
  const dueMs = service.now() + inMs
  serial++
  return new Protocol.Job({
    target_id: `0b9f6a3e-1c2d-4e5f-8a7b-${String(serial).padStart(12, "0")}`,
    org_id: "7d3e1a2b-4c5d-4e6f-9a8b-0c1d2e3f4a5b",
    due: new Date(dueMs).toISOString(),
    due_ms: dueMs,
    deadline_ms: dueMs + (extra.leaseMs ?? 30_000),
    interval_secs: 60,
    check,
    error: extra.error ?? null
  })
}

/** A one-off job for `check`, to be started within `startWithinMs` of the service's clock. */
export const oneOff = (
  service: Pick<FakeService, "now">,
  check: Protocol.OneOffJob["check"],
  startWithinMs = 5_000
): Protocol.OneOffJob =>
  new Protocol.OneOffJob({
    id: crypto.randomUUID(),
    org_id: "7d3e1a2b-4c5d-4e6f-9a8b-0c1d2e3f4a5b",
    deadline_ms: service.now() + startWithinMs,
    check
  })

/** A loopback URL where nothing listens (a port just freed), for connections that must be refused. */
export const nobodyListening: Effect.Effect<string> = Effect.promise(async () => {
  const server = Http.createServer()
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve))
  const address = server.address()
  await new Promise<void>((resolve) => server.close(() => resolve()))
  if (address === null || typeof address === "string") throw new Error("no port")
  return `http://127.0.0.1:${address.port}`
})
