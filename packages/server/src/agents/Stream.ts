/**
 * The agents' stream, `GET /api/agent/v1/stream` upgraded to a WebSocket (`ws`, no server of its own: the node
 * listener's `upgrade` event for this path, taken before the platform's, `Liveness.Server.upgradeRoute`, so it shares
 * the API's port). Served by the processes that serve the API.
 *
 * - The upgrade is authenticated like the HTTP routes (`AgentTokens`, the agent's standing read afresh): a refused
 *   one gets a plain HTTP 401 with the error envelope and no WebSocket; a process draining for shutdown answers 503.
 * - Frames are decoded as they come (`Connection`) and handled on two lanes per connection: pulls and the rest one at
 *   a time in order, results apart, every results message waiting taken in as one batch; a pull waits for the
 *   results that came before it to be stored, so the order the agent sent them in holds; while more than
 *   `INBOX_PAUSE_AT` wait, the socket stops being read, so an agent that floods is slowed by TCP rather than by the server's memory. A frame is at
 *   most `server.max_body_bytes`, as a request body.
 * - Every `agents.recheck_ms` one pass over this process's open streams stamps their agents as seen and connected
 *   (one statement for all of them) and learns which are still standing: a stream whose token was revoked meanwhile
 *   (or whose agent went with its region) is closed with code 4401 and a reason, as a 401 would say; a disabled
 *   region's streams stay open and get no jobs until it is enabled again. The same pass pings each socket and
 *   drops one silent for `SILENT_AFTER_TICKS` passes (a peer gone without closing).
 * - One-off runs (a test or check-now in an agent's region) are pushed on these streams, unasked (`OneOffDispatch`):
 *   a pass over the open streams runs when a request of this process asks for one and every
 *   `agents.one_off_poll_ms` for those asked of other processes. A stream whose agent drains, or that has more
 *   than `SEND_BACKLOG_BYTES` of answers unread, is handed none.
 * - On shutdown every stream is closed with 1012 (service restart): the agents reconnect, to this process once it is
 *   back or to another; their leases are theirs by agent, not by connection.
 */
import type * as Http from "node:http"
import type { Duplex } from "node:stream"
import * as ApiError from "@signalman/core/ApiError"
import {
  type AuthenticatedAgent,
  CLOSE_UNAUTHENTICATED,
  type Deliver,
  MAX_RESULTS_PER_BATCH,
  type ServerMessage,
  STREAM_PATH
} from "@signalman/core/api/Agent"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as FiberId from "effect/FiberId"
import * as FiberSet from "effect/FiberSet"
import * as Layer from "effect/Layer"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schedule from "effect/Schedule"
import { type RawData, WebSocket, WebSocketServer } from "ws"
import { AppConfig } from "../config/Config.js"
import type * as Liveness from "../http/Liveness.js"
import { chooseRequestId } from "../http/RequestContext.js"
import { Lifecycle } from "../infra/Lifecycle.js"
import { Wakeups } from "../oneoffs/Wakeups.js"
import * as Connection from "./Connection.js"
import { Ingest } from "./Ingest.js"
import { Leases } from "./Leases.js"
import { OneOffAnswers } from "./OneOffAnswers.js"
import { OneOffDispatch, type Outlet } from "./OneOffDispatch.js"
import { AgentsRepo } from "./Repo.js"
import { AgentTokens, refusalTexts } from "./Tokens.js"

/** Frames waiting to be handled on one connection past which the socket stops being read. */
export const INBOX_PAUSE_AT = 16

/** Rechecks in a row without a frame or a pong from the agent after which its socket is dropped. */
export const SILENT_AFTER_TICKS = 6

/** The close code of a server going away for a restart (RFC 6455 registry): the agent reconnects. */
export const CLOSE_RESTART = 1012

// The reasons a 401 would give (close reasons are at most 123 bytes; these fit).
const closeReasons = refusalTexts

const reasonPhrase: Record<number, string> = { 401: "Unauthorized", 503: "Service Unavailable" }

/** Refuses an upgrade with a plain HTTP answer carrying the error envelope, and closes the socket. */
const refuseUpgrade = (socket: Duplex, request: Http.IncomingMessage, error: ApiError.ApiError) => {
  const header = request.headers["x-request-id"]
  const requestId = chooseRequestId(typeof header === "string" ? header : undefined)
  const body = JSON.stringify(ApiError.toEnvelope(error, requestId))
  socket.end(
    `HTTP/1.1 ${error.status} ${reasonPhrase[error.status] ?? "Error"}\r\n` +
      "content-type: application/json; charset=utf-8\r\n" +
      `content-length: ${Buffer.byteLength(body)}\r\n` +
      `x-request-id: ${requestId}\r\n` +
      "connection: close\r\n\r\n" +
      body
  )
}

const textOf = (data: RawData): string =>
  Array.isArray(data)
    ? Buffer.concat(data).toString("utf8")
    : Buffer.isBuffer(data)
      ? data.toString("utf8")
      : Buffer.from(data).toString("utf8")

/** An open stream as the recheck pass sees it. */
interface Open {
  readonly socket: WebSocket
  readonly connection: Connection.Connection
  /** Rechecks since the agent was last heard (a frame or a pong). */
  silent: number
  /** The agent reported a browser (as of the last recheck). */
  browser: boolean
}

const run = (server: Liveness.Server) =>
  Effect.gen(function* () {
    const tokens = yield* AgentTokens
    const leases = yield* Leases
    const ingest = yield* Ingest
    const oneOffs = yield* OneOffAnswers
    const dispatch = yield* OneOffDispatch
    const wakeups = yield* Wakeups
    const repo = yield* AgentsRepo
    const lifecycle = yield* Lifecycle
    const config = yield* AppConfig
    const recheckMs = config["agents.recheck_ms"]
    const runFork = yield* FiberSet.makeRuntime<never>()
    const sockets = new WebSocketServer({ noServer: true, maxPayload: config["server.max_body_bytes"] })
    // This process's open streams, by agent.
    const open = new Map<string, Set<Open>>()

    const close = (entry: Open, code: number, reason: string) => {
      if (entry.socket.readyState === WebSocket.OPEN || entry.socket.readyState === WebSocket.CONNECTING) {
        entry.socket.close(code, reason)
      }
    }

    // One stream for its life: frames handled in order until the socket closes.
    const serve = (socket: WebSocket, agent: AuthenticatedAgent) =>
      Effect.gen(function* () {
        // Two lanes: pulls, one-off answers and the rest in order on one, results on the other, so handing out
        // jobs never waits behind storing results (a job late out is a check started late), and the results
        // messages waiting are taken in together (`Connection.deliver`).
        const control = yield* Queue.unbounded<{ readonly decoded: Connection.Decoded; readonly after: number }>()
        const results = yield* Queue.unbounded<typeof Deliver.Type>()
        // The lanes keep one order: a pull is answered only once every results message that came before it on this
        // stream is stored, as if one lane took them in turn. Its results free the rows it ran; were a pull answered
        // first, after a reconnect with a buffer of results, it could lease (to this agent or, its lease lapsed, to
        // a sibling) a slot already run, and the slot would run twice.
        let resultsReceived = 0
        let resultsStored = 0
        const storedWaiters: Array<{ readonly upTo: number; readonly done: Deferred.Deferred<void> }> = []
        const storedUpTo = (upTo: number) =>
          Effect.suspend(() => {
            if (resultsStored >= upTo) return Effect.void
            const done = Deferred.unsafeMake<void>(FiberId.none)
            storedWaiters.push({ upTo, done })
            return Deferred.await(done)
          })
        const stored = (count: number) => {
          resultsStored += count
          for (let i = storedWaiters.length - 1; i >= 0; i--) {
            const waiter = storedWaiters[i]
            if (waiter !== undefined && waiter.upTo <= resultsStored) {
              storedWaiters.splice(i, 1)
              Deferred.unsafeDone(waiter.done, Effect.void)
            }
          }
        }
        const closed = yield* Deferred.make<void>()
        let waiting = 0
        const connection = Connection.make(agent, {
          leases,
          ingest,
          oneOffs,
          maxLeased: config["agents.max_leased_per_stream"],
          backlog: () => socket.bufferedAmount
        })
        const entry: Open = { socket, connection, silent: 0, browser: false }
        const taken = (n: number) => {
          waiting -= n
          if (waiting < INBOX_PAUSE_AT) socket.resume()
        }
        socket.on("message", (data, isBinary) => {
          entry.silent = 0
          waiting++
          if (waiting >= INBOX_PAUSE_AT) socket.pause()
          const decoded = connection.decode(isBinary ? { _tag: "Binary" } : { _tag: "Text", text: textOf(data) })
          if (decoded._tag === "Message" && decoded.message._tag === "results") {
            resultsReceived++
            Queue.unsafeOffer(results, decoded.message)
          } else {
            Queue.unsafeOffer(control, { decoded, after: resultsReceived })
          }
        })
        socket.on("pong", () => {
          entry.silent = 0
        })
        socket.on("close", () => Deferred.unsafeDone(closed, Effect.void))
        socket.on("error", () => socket.terminate())

        const mine = open.get(agent.id) ?? new Set<Open>()
        mine.add(entry)
        open.set(agent.id, mine)
        yield* Effect.addFinalizer(() =>
          Effect.gen(function* () {
            mine.delete(entry)
            if (socket.readyState !== WebSocket.CLOSED) socket.terminate()
            if (mine.size === 0) {
              open.delete(agent.id)
              // Only the operator's "connected" flag depends on it, and it lapses on its own within three rechecks.
              yield* repo.streamEnded(agent.id).pipe(Effect.catchAllCause(() => Effect.void))
            }
          })
        )
        // Connected from the first moment, not from the next recheck.
        const standing = yield* repo.streaming([agent.id], (recheckMs * 3) / 1000)
        connection.setRegionEnabled(standing[0]?.region_enabled ?? true)
        entry.browser = standing[0]?.browser ?? false
        yield* Effect.logInfo("Agent connected").pipe(Effect.annotateLogs({ agent_id: agent.id, region: agent.region }))

        const answer = (message: ServerMessage | undefined) =>
          Effect.gen(function* () {
            if (message === undefined || socket.readyState !== WebSocket.OPEN) return
            socket.send(yield* Connection.encode(message))
          })
        const handleControl = Effect.gen(function* () {
          const { decoded, after } = yield* Queue.take(control)
          taken(1)
          if (decoded._tag === "Answer") return yield* answer(decoded.answer)
          if (decoded.message._tag === "pull") yield* storedUpTo(after)
          yield* answer(yield* connection.handle(decoded.message))
        })
        const handleResults = Effect.gen(function* () {
          const first = yield* Queue.take(results)
          const batch = [first]
          let count = first.results.length
          // What else is waiting, up to a batch's worth of results.
          while (count < MAX_RESULTS_PER_BATCH) {
            const next = yield* Queue.poll(results)
            if (Option.isNone(next)) break
            batch.push(next.value)
            count += next.value.results.length
          }
          taken(batch.length)
          const delivered = yield* connection.deliver(batch)
          stored(batch.length)
          yield* answer(delivered.answer)
          // Before the next batch: the lane's pace stays the service's.
          yield* delivered.afterwards
        })
        yield* Effect.raceFirst(
          Effect.all([Effect.forever(handleControl), Effect.forever(handleResults)], { concurrency: 2, discard: true }),
          Deferred.await(closed)
        )
      }).pipe(
        Effect.catchAllCause((cause) =>
          Effect.logError("An agent stream failed", cause).pipe(
            Effect.annotateLogs("agent_id", agent.id),
            Effect.zipRight(Effect.sync(() => socket.terminate()))
          )
        ),
        Effect.scoped,
        Effect.zipRight(Effect.logInfo("Agent disconnected").pipe(Effect.annotateLogs("agent_id", agent.id)))
      )

    // The WebSocket handshake, or none when the peer went away first or the handshake was bad (ws answers 400).
    const handshake = (request: Http.IncomingMessage, socket: Duplex, head: Buffer) =>
      Effect.async<WebSocket | undefined>((resume) => {
        if (socket.destroyed) return resume(Effect.succeed(undefined))
        const gone = () => resume(Effect.succeed(undefined))
        socket.once("close", gone)
        sockets.handleUpgrade(request, socket, head, (ws) => {
          socket.off("close", gone)
          resume(Effect.succeed(ws))
        })
      })

    const upgrade = (request: Http.IncomingMessage, socket: Duplex, head: Buffer) => {
      // A socket that errors before the handshake ends (the peer went away) must not take the process with it.
      socket.on("error", () => socket.destroy())
      if (lifecycle.isDraining()) {
        return refuseUpgrade(socket, request, ApiError.make("NOT_READY", "The server is shutting down; reconnect"))
      }
      runFork(
        tokens.authenticateNow(request.headers["authorization"]).pipe(
          Effect.matchEffect({
            onFailure: (error) => Effect.sync(() => refuseUpgrade(socket, request, error)),
            onSuccess: (agent) =>
              Effect.flatMap(handshake(request, socket, head), (ws) =>
                ws === undefined ? Effect.void : serve(ws, agent)
              )
          })
        )
      )
    }

    // The recheck pass: revoked agents' streams closed, the rest stamped connected, silent sockets dropped.
    const recheck = Effect.gen(function* () {
      const ids = [...open.keys()]
      if (ids.length === 0) return
      const alive = new Map((yield* repo.streaming(ids, (recheckMs * 3) / 1000)).map((row) => [row.id, row]))
      for (const id of ids) {
        const entries = open.get(id) ?? new Set<Open>()
        const standing = alive.get(id)
        if (standing === undefined) {
          const standing = yield* repo.standing(id)
          const reason = standing === undefined ? closeReasons.gone : closeReasons.revoked
          yield* Effect.logInfo("Agent stream closed: the agent may no longer connect").pipe(
            Effect.annotateLogs({ agent_id: id, reason })
          )
          for (const entry of entries) close(entry, CLOSE_UNAUTHENTICATED, reason)
          continue
        }
        for (const entry of entries) {
          entry.connection.setRegionEnabled(standing.region_enabled)
          entry.browser = standing.browser
          entry.silent++
          if (entry.silent > SILENT_AFTER_TICKS) {
            entry.socket.terminate()
          } else if (entry.socket.readyState === WebSocket.OPEN) {
            entry.socket.ping()
          }
        }
      }
    }).pipe(Effect.catchAllCause((cause) => Effect.logWarning("Rechecking agent streams failed", cause)))

    // The streams one-off runs may be handed to now: open, not draining, keeping up with what they are sent.
    const outlets = (): ReadonlyArray<Outlet> =>
      [...open.values()].flatMap((entries) =>
        [...entries].flatMap((entry): ReadonlyArray<Outlet> => {
          const { socket, connection } = entry
          if (socket.readyState !== WebSocket.OPEN || connection.draining()) return []
          return [
            {
              agentId: connection.agent.id,
              region: connection.agent.region,
              browser: entry.browser,
              send: (message) =>
                Effect.flatMap(Connection.encode(message), (text) =>
                  Effect.sync(() => {
                    if (socket.readyState !== WebSocket.OPEN || connection.draining()) return false
                    if (socket.bufferedAmount > Connection.SEND_BACKLOG_BYTES) return false
                    socket.send(text)
                    return true
                  })
                )
            }
          ]
        })
      )
    const oneOffPollMs = config["agents.one_off_poll_ms"]

    const unroute = server.upgradeRoute(STREAM_PATH, upgrade)
    yield* Effect.forkScoped(Effect.repeat(recheck, Schedule.spaced(Duration.millis(recheckMs))))
    yield* Effect.forkScoped(Effect.forever(Effect.zipRight(wakeups.nextAsked(oneOffPollMs), dispatch.drain(outlets))))
    yield* Effect.addFinalizer(() =>
      Effect.sync(() => {
        unroute()
        for (const entries of open.values()) {
          for (const entry of entries) close(entry, CLOSE_RESTART, "server restarting")
        }
        sockets.close()
      })
    )
  })

/** The stream on the process's listener, for the life of the layer. */
export const layer = (server: Liveness.Server) =>
  Layer.scopedDiscard(run(server)).pipe(
    Layer.provide([Leases.Default, Ingest.Default, OneOffAnswers.Default, OneOffDispatch.Default, Wakeups.Default]),
    Layer.provide([AgentTokens.Default, AgentsRepo.Default])
  )
