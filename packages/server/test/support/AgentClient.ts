/**
 * A small probe agent for tests: the agent surface (`/api/agent/v1/*`) spoken with core's protocol schemas, over
 * `fetch` for the HTTP routes and a `ws` WebSocket for the stream. It runs no checks itself: a test decides what each
 * job's outcome is (or fetches the job's URL), so it can play any agent, a misbehaving one included. Every wait is
 * bounded. Meant to be shared by end-to-end tests of the server's agent side and of the real agent process.
 *
 * ```ts
 * const agent = AgentClient.make(server.baseUrl, token)
 * const welcome = Http.expectOk(yield* agent.hello(), Welcome)
 * const stream = yield* agent.connect  // closed with the scope
 * const jobs = yield* stream.pullUntil((jobs) => jobs.length > 0)
 * const ack = yield* stream.deliver([AgentClient.ran(jobs[0], { status: "up" })])
 * const [oneOff] = yield* stream.nextOneOff        // a one-off check the server pushed, unasked
 * yield* stream.answer([AgentClient.answered(oneOff, AgentClient.outcome("up"))])
 * ```
 *
 * The server's unasked `one_off` messages are kept apart from the answers to what the test sends, so `next`,
 * `pull` and `deliver` read only those answers, in order, whatever one-off checks arrive meanwhile.
 */
import {
  AgentMessage,
  type Hello,
  type Job,
  type OneOffJob,
  OneOffResult,
  type Outcome,
  Result,
  ServerMessage,
  STREAM_PATH
} from "@signalman/core/api/Agent"
import type { CheckStatus } from "@signalman/core/CheckResult"
import * as DateTime from "effect/DateTime"
import * as Deferred from "effect/Deferred"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import type * as Option from "effect/Option"
import * as Queue from "effect/Queue"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import WebSocket from "ws"
import * as Http from "./Http.js"

/** The longest any wait on the stream takes before the test fails. */
export const WAIT_MS = 15_000

/** A hello as a real agent would send it. */
export const defaultHello: typeof Hello.Encoded = { version: "0.1.0-test", browser: null, concurrency: 8 }

/** How a stream ended: the close code and reason the server sent. */
export interface Closed {
  readonly code: number
  readonly reason: string
}

/** An open stream. Messages arrive in order; each `expect...` takes the next one. */
export interface Stream {
  /** Sends a message of the protocol. */
  readonly send: (message: AgentMessage) => Effect.Effect<void>
  /** Sends a text frame as it is (for malformed messages). */
  readonly sendText: (text: string) => Effect.Effect<void>
  /** Sends a binary frame. */
  readonly sendBinary: (bytes: Uint8Array) => Effect.Effect<void>
  /** The next message from the server (fails the test after `WAIT_MS`). */
  readonly next: Effect.Effect<ServerMessage>
  /** Sends `pull` and answers the jobs of the `jobs` message that follows. */
  readonly pull: (room: number) => Effect.Effect<ReadonlyArray<Job>>
  /** Pulls every 50 ms until `done` holds for what came back (or `WAIT_MS` passed): the last jobs answered. */
  readonly pullUntil: (
    done: (jobs: ReadonlyArray<Job>) => boolean,
    options?: { readonly room?: number; readonly timeoutMs?: number }
  ) => Effect.Effect<ReadonlyArray<Job>>
  /** Sends `results` and answers the acknowledged ids of the `ack` that follows. */
  readonly deliver: (results: ReadonlyArray<Result>) => Effect.Effect<ReadonlyArray<string>>
  /** The jobs of the next `one_off` message the server pushed (fails the test after `WAIT_MS`). */
  readonly nextOneOff: Effect.Effect<ReadonlyArray<OneOffJob>>
  /** The jobs of the next `one_off` message within `timeoutMs`, or none when none came. */
  readonly oneOffWithin: (timeoutMs: number) => Effect.Effect<Option.Option<ReadonlyArray<OneOffJob>>>
  /** Sends `one_off_results` and answers the acknowledged ids of the `ack` that follows. */
  readonly answer: (results: ReadonlyArray<OneOffResult>) => Effect.Effect<ReadonlyArray<string>>
  /** Waits for the server to close the stream (at most `timeoutMs`, default `WAIT_MS`); none when it did not. */
  readonly closed: (timeoutMs?: number) => Effect.Effect<Option.Option<Closed>>
  /** Closes the stream from this side. */
  readonly close: Effect.Effect<void>
}

/** The upgrade was refused with a plain HTTP answer. */
export interface Refused {
  readonly _tag: "Refused"
  readonly status: number
  readonly body: Http.Body
}

export interface AgentClient {
  /** `POST /api/agent/v1/hello`. */
  readonly hello: (hello?: typeof Hello.Encoded) => Effect.Effect<Http.Reply>
  /** `POST /api/agent/v1/results`. */
  readonly results: (results: ReadonlyArray<Result>) => Effect.Effect<Http.Reply>
  /** Opens the stream, or answers how the upgrade was refused; the stream closes with the scope. */
  readonly open: Effect.Effect<Stream | Refused, never, Scope.Scope>
  /** Opens the stream; a refused upgrade fails the test. */
  readonly connect: Effect.Effect<Stream, never, Scope.Scope>
}

const encodeMessage = Schema.encodeSync(AgentMessage)
const encodeResults = Schema.encodeSync(Schema.Struct({ results: Schema.Array(Result) }))
const decodeServerMessage = Schema.decodeUnknownSync(Schema.parseJson(ServerMessage))

/** An outcome of a run that ended now (or at `checkedAt`). */
export const outcome = (
  status: CheckStatus,
  options: { readonly checkedAt?: DateTime.Utc; readonly durationMs?: number; readonly error?: string } = {}
): Outcome => ({
  checked_at: options.checkedAt ?? DateTime.unsafeNow(),
  status,
  duration_ms: options.durationMs ?? 12,
  error: options.error ?? null,
  details: null,
  phases: null,
  evidence: null
})

/** The answer to a one-off job. */
export const answered = (job: OneOffJob, run: Outcome): OneOffResult => new OneOffResult({ id: job.id, outcome: run })

/** The result of a job, with a fresh id unless one is given (a resend keeps its id). */
export const ran = (job: Job, run: Outcome | null, id: string = crypto.randomUUID()): Result =>
  new Result({ id, target_id: job.target_id, due: job.due, outcome: run })

const isTagged = <T extends ServerMessage["_tag"]>(
  message: ServerMessage,
  tag: T
): message is Extract<ServerMessage, { _tag: T }> => message._tag === tag

const streamOf = (
  socket: WebSocket,
  inbox: Queue.Queue<ServerMessage>,
  pushed: Queue.Queue<ReadonlyArray<OneOffJob>>,
  ended: Deferred.Deferred<Closed>
): Stream => {
  const send = (text: string | Uint8Array) =>
    Effect.async<void>((resume) => {
      socket.send(text, () => resume(Effect.void))
    })
  const next = Queue.take(inbox).pipe(
    Effect.timeoutFail({
      duration: Duration.millis(WAIT_MS),
      onTimeout: () => new Error(`no message from the server within ${WAIT_MS} ms`)
    }),
    Effect.orDie
  )
  const expectTag = <T extends ServerMessage["_tag"]>(tag: T) =>
    Effect.flatMap(next, (message) =>
      isTagged(message, tag)
        ? Effect.succeed(message)
        : Effect.dieMessage(`expected a ${tag} message, got ${JSON.stringify(message)}`)
    )
  const pull = (room: number) =>
    Effect.zipRight(
      send(JSON.stringify(encodeMessage({ _tag: "pull", room }))),
      Effect.map(expectTag("jobs"), (m) => m.jobs)
    )
  return {
    send: (message) => send(JSON.stringify(encodeMessage(message))),
    sendText: send,
    sendBinary: send,
    next,
    pull,
    pullUntil: (done, options = {}) =>
      Effect.gen(function* () {
        const deadline = Date.now() + (options.timeoutMs ?? WAIT_MS)
        for (;;) {
          const jobs = yield* pull(options.room ?? 10)
          if (done(jobs) || Date.now() > deadline) return jobs
          yield* Effect.sleep("50 millis")
        }
      }),
    deliver: (results) =>
      Effect.zipRight(
        send(JSON.stringify(encodeMessage({ _tag: "results", results }))),
        Effect.map(expectTag("ack"), (m) => m.acknowledged)
      ),
    nextOneOff: Queue.take(pushed).pipe(
      Effect.timeoutFail({
        duration: Duration.millis(WAIT_MS),
        onTimeout: () => new Error(`no one_off message from the server within ${WAIT_MS} ms`)
      }),
      Effect.orDie
    ),
    oneOffWithin: (timeoutMs) => Queue.take(pushed).pipe(Effect.timeoutOption(Duration.millis(timeoutMs))),
    answer: (results) =>
      Effect.zipRight(
        send(JSON.stringify(encodeMessage({ _tag: "one_off_results", results }))),
        Effect.map(expectTag("ack"), (m) => m.acknowledged)
      ),
    closed: (timeoutMs = WAIT_MS) => Deferred.await(ended).pipe(Effect.timeoutOption(Duration.millis(timeoutMs))),
    close: Effect.sync(() => socket.close())
  }
}

/** A client of the agent surface at `baseUrl` with the token `token`. */
export const make = (baseUrl: string, token: string): AgentClient => {
  const headers = { authorization: `Bearer ${token}` }
  const open: Effect.Effect<Stream | Refused, never, Scope.Scope> = Effect.gen(function* () {
    const inbox = yield* Queue.unbounded<ServerMessage>()
    const pushed = yield* Queue.unbounded<ReadonlyArray<OneOffJob>>()
    const ended = yield* Deferred.make<Closed>()
    const url = `${baseUrl.replace(/^http/, "ws")}${STREAM_PATH}`
    const socket = yield* Effect.acquireRelease(
      Effect.sync(() => new WebSocket(url, { headers })),
      (socket) => Effect.sync(() => socket.terminate())
    )
    socket.on("message", (data, isBinary) => {
      if (isBinary) return
      const message = decodeServerMessage(String(data))
      if (message._tag === "one_off") Queue.unsafeOffer(pushed, message.jobs)
      else Queue.unsafeOffer(inbox, message)
    })
    socket.on("close", (code, reason) => Deferred.unsafeDone(ended, Effect.succeed({ code, reason: String(reason) })))
    const opened = yield* Effect.async<Stream | Refused>((resume) => {
      socket.once("open", () => resume(Effect.succeed(streamOf(socket, inbox, pushed, ended))))
      socket.once("unexpected-response", (_request, response) => {
        const chunks: Array<Buffer> = []
        response.on("data", (chunk: Buffer) => chunks.push(chunk))
        response.on("end", () =>
          resume(
            Effect.succeed({
              _tag: "Refused",
              status: response.statusCode ?? 0,
              body: Http.body(response.statusCode ?? 0, Buffer.concat(chunks).toString("utf8"))
            })
          )
        )
      })
      socket.once("error", (error) => resume(Effect.die(error)))
    }).pipe(
      Effect.timeoutFail({
        duration: Duration.millis(WAIT_MS),
        onTimeout: () => new Error(`the stream did not open within ${WAIT_MS} ms`)
      }),
      Effect.orDie
    )
    return opened
  })
  return {
    hello: (hello = defaultHello) => Http.request(`${baseUrl}/api/agent/v1/hello`, { headers, json: hello }),
    results: (results) =>
      Http.request(`${baseUrl}/api/agent/v1/results`, { headers, json: encodeResults({ results }) }),
    open,
    connect: Effect.flatMap(open, (opened) =>
      "_tag" in opened
        ? Effect.dieMessage(`the stream was refused: ${opened.status} ${opened.body.text}`)
        : Effect.succeed(opened)
    )
  }
}
