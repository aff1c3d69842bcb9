/**
 * The stream half of the agent protocol: a WebSocket (the `ws` package) to `<SIGNALMAN_URL>/api/agent/v1/stream`
 * with the same bearer, carrying JSON messages of the protocol's schemas. Incoming messages are decoded here,
 * jobs (leased and one-off) one by one, so a single job the agent cannot read (a check of a kind newer than the
 * agent) is reported as that job's error instead of costing the whole batch. A ping every `heartbeatMs` with no pong (nor any message)
 * before the next one ends the link: a connection that died without a close (a NAT that forgot it, a server
 * that vanished) is noticed within two heartbeats rather than never.
 *
 * @since 0.1.0
 */
import * as Agent from "@signalman/core/api/Agent"
import * as Deferred from "effect/Deferred"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import { type RawData, WebSocket } from "ws"
import { TokenRefused, Unreachable } from "./Failures.js"
import { messageOf, type Target } from "./HttpCalls.js"

/**
 * A job the agent could not read. When its slot can still be named it is reported as an error result, as the
 * service does for a check it could not make ready.
 *
 * @since 0.1.0
 * @category models
 */
export interface Unreadable {
  readonly slot: Option.Option<{
    readonly target_id: string
    readonly due: string
    readonly due_ms?: number | undefined
  }>
  readonly message: string
}

/**
 * A one-off job the agent could not read; answered with an error when its id can still be named.
 *
 * @since 0.2.0
 * @category models
 */
export interface UnreadableOneOff {
  readonly id: Option.Option<string>
  readonly message: string
}

/**
 * What the service said, decoded.
 *
 * @since 0.1.0
 * @category models
 */
export type Incoming =
  | { readonly _tag: "jobs"; readonly jobs: ReadonlyArray<Either.Either<Agent.Job, Unreadable>> }
  | { readonly _tag: "one_off"; readonly jobs: ReadonlyArray<Either.Either<Agent.OneOffJob, UnreadableOneOff>> }
  | typeof Agent.Ack.Type
  | typeof Agent.Refused.Type
  | { readonly _tag: "garbled"; readonly message: string }

/**
 * How the stream ended: the close frame's code and reason (1006 when the connection dropped without one).
 *
 * @since 0.1.0
 * @category models
 */
export interface Closed {
  readonly code: number
  readonly reason: string
}

/**
 * An open stream.
 *
 * @since 0.1.0
 * @category models
 */
export interface Link {
  /** Sends a message; false when the stream is no longer open (the message is not sent). */
  readonly send: (message: Agent.AgentMessage) => Effect.Effect<boolean>
  readonly incoming: Queue.Dequeue<Incoming>
  /** Completes once, when the stream ends. */
  readonly closed: Deferred.Deferred<Closed>
}

// Jobs are decoded one at a time (below), so the envelope takes them as they come.
const LooseServerMessage = Schema.Union(
  Schema.TaggedStruct("jobs", { jobs: Schema.Array(Schema.Unknown) }),
  Schema.TaggedStruct("one_off", { jobs: Schema.Array(Schema.Unknown) }),
  Agent.Ack,
  Agent.Refused
)

const Slot = Schema.Struct({
  target_id: Schema.String,
  due: Schema.String,
  due_ms: Schema.optional(Schema.Number)
})

const firstLine = (text: string): string => text.split("\n")[0]?.trim().slice(0, 300) ?? ""

const decodeJob = (raw: unknown): Either.Either<Agent.Job, Unreadable> =>
  Schema.decodeUnknownEither(Agent.Job)(raw).pipe(
    Either.mapLeft((error) => ({
      slot: Schema.decodeUnknownOption(Slot)(raw),
      message: `the agent could not read this check (${firstLine(error.message)}); update the agent`
    }))
  )

const OneOffId = Schema.Struct({ id: Schema.String })

const decodeOneOff = (raw: unknown): Either.Either<Agent.OneOffJob, UnreadableOneOff> =>
  Schema.decodeUnknownEither(Agent.OneOffJob)(raw).pipe(
    Either.mapLeft((error) => ({
      id: Option.map(Schema.decodeUnknownOption(OneOffId)(raw), (found) => found.id),
      message: `the agent could not read this check (${firstLine(error.message)}); update the agent`
    }))
  )

/**
 * Decodes one text frame.
 *
 * @since 0.1.0
 * @category constructors
 */
export const decode = (text: string): Incoming =>
  Either.match(Schema.decodeUnknownEither(Schema.parseJson(LooseServerMessage))(text), {
    onLeft: (error) => ({ _tag: "garbled", message: firstLine(error.message) }),
    onRight: (message): Incoming => {
      switch (message._tag) {
        case "jobs":
          return { _tag: "jobs", jobs: message.jobs.map(decodeJob) }
        case "one_off":
          return { _tag: "one_off", jobs: message.jobs.map(decodeOneOff) }
        default:
          return message
      }
    }
  })

const textOf = (data: RawData): string => {
  if (Buffer.isBuffer(data)) return data.toString("utf8")
  if (Array.isArray(data)) return Buffer.concat(data).toString("utf8")
  return Buffer.from(data).toString("utf8")
}

/**
 * The stream's URL for a service URL: `http` becomes `ws`, `https` becomes `wss`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const streamUrl = (serviceUrl: string): string =>
  `${serviceUrl.replace(/^http(s?):/, (_, secure: string) => `ws${secure}:`)}${Agent.STREAM_PATH}`

/**
 * @since 0.1.0
 * @category models
 */
export interface Options {
  readonly heartbeatMs: number
}

/**
 * Opens the stream for the scope; the scope's end closes it. A 401 answer to the upgrade is a refused token;
 * anything else that keeps it from opening is `Unreachable`.
 *
 * @since 0.1.0
 * @category constructors
 */
export const open = (target: Target, options: Options): Effect.Effect<Link, TokenRefused | Unreachable, Scope.Scope> =>
  Effect.gen(function* () {
    const incoming = yield* Queue.unbounded<Incoming>()
    const closed = yield* Deferred.make<Closed>()
    const url = streamUrl(target.url)

    const socket = yield* Effect.acquireRelease(
      Effect.async<WebSocket, TokenRefused | Unreachable>((resume) => {
        let settled = false
        const settle = (effect: Effect.Effect<WebSocket, TokenRefused | Unreachable>) => {
          if (settled) return
          settled = true
          resume(effect)
        }
        const ws = new WebSocket(url, {
          headers: { authorization: `Bearer ${Redacted.value(target.token)}`, "user-agent": target.userAgent },
          handshakeTimeout: 10_000,
          perMessageDeflate: false
        })
        ws.on("message", (data, isBinary) => {
          if (isBinary) {
            Queue.unsafeOffer(incoming, { _tag: "garbled", message: "a binary frame" })
            return
          }
          Queue.unsafeOffer(incoming, decode(textOf(data)))
        })
        ws.on("close", (code, reason) => {
          Deferred.unsafeDone(closed, Effect.succeed({ code, reason: reason.toString("utf8") }))
        })
        ws.once("open", () => settle(Effect.succeed(ws)))
        ws.once("unexpected-response", (request, response) => {
          const chunks: Array<Buffer> = []
          response.on("data", (chunk: Buffer) => chunks.push(chunk))
          response.on("error", () => {})
          response.on("end", () => {
            const status = response.statusCode ?? 0
            const body = Buffer.concat(chunks).toString("utf8")
            settle(
              status === 401
                ? Effect.fail(new TokenRefused({ message: messageOf(status, body) }))
                : Effect.fail(
                    new Unreachable({ message: `stream: HTTP ${status}: ${messageOf(status, body)}`, status })
                  )
            )
            request.destroy()
          })
        })
        ws.on("error", (error) =>
          settle(Effect.fail(new Unreachable({ message: `stream: ${firstLine(error.message)}` })))
        )
        return Effect.sync(() => ws.terminate())
      }),
      (ws) =>
        Effect.sync(() => {
          if (ws.readyState === WebSocket.OPEN) {
            ws.close(1000, "agent closing")
            // A peer that never answers the close would hold the socket; it is cut after a second.
            setTimeout(() => ws.terminate(), 1000).unref()
          } else ws.terminate()
        })
    )

    let alive = true
    socket.on("pong", () => {
      alive = true
    })
    socket.on("message", () => {
      alive = true
    })
    const heartbeat = setInterval(() => {
      if (!alive) {
        socket.terminate()
        return
      }
      alive = false
      socket.ping()
    }, options.heartbeatMs)
    heartbeat.unref()
    yield* Effect.addFinalizer(() => Effect.sync(() => clearInterval(heartbeat)))
    socket.once("close", () => clearInterval(heartbeat))

    const send = (message: Agent.AgentMessage): Effect.Effect<boolean> =>
      Effect.flatMap(Schema.encode(Agent.AgentMessage)(message).pipe(Effect.orDie), (encoded) =>
        Effect.sync(() => {
          if (socket.readyState !== WebSocket.OPEN) return false
          socket.send(JSON.stringify(encoded))
          return true
        })
      )

    return { send, incoming, closed }
  })
