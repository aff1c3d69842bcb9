/**
 * One agent stream's conversation, apart from the socket it runs on (`Stream.ts` carries the frames): each frame
 * decoded with core's schemas (`AgentMessage`), a bad one answered with `refused`; `pull` leases jobs, `results` and
 * `one_off_results` are taken in and acknowledged, `draining` ends the leasing (and the one-off runs handed to it).
 *
 * What one connection may ask is bounded: a pull asks for at most `MAX_PULL` jobs (the schema), and the jobs leased
 * to the connection and not yet answered are at most `agents.max_leased_per_stream` (a job stops counting once it is
 * answered or its lease has run out). A pull gets nothing while the connection drains, while its region is
 * disabled, or while the socket has more than `SEND_BACKLOG_BYTES` of answers the agent has not read: an agent
 * that does not keep up is not handed more work.
 */
import { AgentMessage, type AuthenticatedAgent, type Job, type Result, ServerMessage } from "@signalman/core/api/Agent"
import * as Effect from "effect/Effect"
import * as Either from "effect/Either"
import * as ParseResult from "effect/ParseResult"
import * as Schema from "effect/Schema"
import type { Ingest } from "./Ingest.js"
import type { Leases } from "./Leases.js"
import type { OneOffAnswers } from "./OneOffAnswers.js"

/** Bytes queued on the socket and not yet taken by the agent, past which a pull is answered with no jobs. */
export const SEND_BACKLOG_BYTES = 4 * 1024 * 1024

/** The longest `refused` message: a decode failure's first lines are enough to find the mistake. */
const MAX_REFUSAL_CHARS = 1000

const decodeMessage = Schema.decodeUnknownEither(AgentMessage, { errors: "all" })

const parseJson = (text: string): Either.Either<unknown, undefined> => {
  try {
    return Either.right(JSON.parse(text))
  } catch {
    return Either.left(undefined)
  }
}

/** What the connection needs from the rest of the process. */
export interface Context {
  readonly leases: Leases
  readonly ingest: Ingest
  readonly oneOffs: OneOffAnswers
  /** `agents.max_leased_per_stream`. */
  readonly maxLeased: number
  /** Bytes queued on the socket, not yet sent. */
  readonly backlog: () => number
}

/** A received frame: its text, or none for a binary frame. */
export type Frame = { readonly _tag: "Text"; readonly text: string } | { readonly _tag: "Binary" }

/** A frame decoded: a message to handle, or the refusal to answer it with. */
export type Decoded =
  | { readonly _tag: "Message"; readonly message: AgentMessage }
  | { readonly _tag: "Answer"; readonly answer: ServerMessage }

const refused = (code: string, message: string): ServerMessage => ({
  _tag: "refused",
  code,
  message: message.length > MAX_REFUSAL_CHARS ? `${message.slice(0, MAX_REFUSAL_CHARS)}...` : message
})

const slotKey = (targetId: string, due: string) => `${targetId.toLowerCase()}|${due}`

/** The messages the server sends, as text frames. */
export const encode = (message: ServerMessage): Effect.Effect<string> =>
  Effect.map(Effect.orDie(Schema.encode(ServerMessage)(message)), (encoded) => JSON.stringify(encoded))

/** A stream's state and its answer to each frame (none for `draining`). */
export const make = (agent: AuthenticatedAgent, context: Context) => {
  let draining = false
  let regionEnabled = true
  // The jobs leased on this connection and not answered yet, by slot, with the end of their lease.
  const leased = new Map<string, number>()

  const forget = (now: number) => {
    for (const [key, deadline] of leased) if (deadline < now) leased.delete(key)
  }

  const pull = (room: number): Effect.Effect<ReadonlyArray<Job>> =>
    Effect.gen(function* () {
      if (draining || !regionEnabled || context.backlog() > SEND_BACKLOG_BYTES) return []
      forget(Date.now())
      const jobs = yield* context.leases.lease(agent, Math.min(room, context.maxLeased - leased.size))
      for (const job of jobs) leased.set(slotKey(job.target_id, job.due), job.deadline_ms)
      return jobs
    })

  /** A frame as a message to handle, or the refusal that answers it. */
  const decode = (frame: Frame): Decoded => {
    if (frame._tag === "Binary") {
      return { _tag: "Answer", answer: refused("INVALID_JSON", "The stream takes text frames of JSON only") }
    }
    const json = parseJson(frame.text)
    if (Either.isLeft(json)) return { _tag: "Answer", answer: refused("INVALID_JSON", "The frame is not JSON") }
    const decoded = decodeMessage(json.right)
    if (Either.isLeft(decoded)) {
      return {
        _tag: "Answer",
        answer: refused("VALIDATION_FAILED", ParseResult.TreeFormatter.formatErrorSync(decoded.left))
      }
    }
    return { _tag: "Message", message: decoded.right }
  }

  /**
   * Several `results` messages taken in as one: one ingest (one transaction) and one `ack` naming every id, with
   * what is left to do once the ack is sent (`Ingest.ingestThen`). The stream hands over all the results messages
   * waiting when it gets to them, so the busier the service, the larger its batches and the less each result costs
   * it, instead of a queue of one transaction per message.
   */
  const deliver = (messages: ReadonlyArray<{ readonly results: ReadonlyArray<Result> }>) =>
    Effect.gen(function* () {
      const results = messages.flatMap((m) => m.results)
      const { acknowledged, afterwards } = yield* context.ingest.ingestThen(agent, results)
      for (const result of results) leased.delete(slotKey(result.target_id, result.due))
      return { answer: { _tag: "ack", acknowledged } as const, afterwards }
    })

  const handle = (message: AgentMessage): Effect.Effect<ServerMessage | undefined> =>
    Effect.gen(function* () {
      switch (message._tag) {
        case "pull":
          return { _tag: "jobs", jobs: yield* pull(message.room) } as const
        case "results": {
          const { answer, afterwards } = yield* deliver([message])
          yield* afterwards
          return answer
        }
        case "one_off_results":
          return { _tag: "ack", acknowledged: yield* context.oneOffs.answer(agent, message.results) } as const
        case "draining":
          draining = true
          return undefined
      }
    })

  const receive = (frame: Frame): Effect.Effect<ServerMessage | undefined> => {
    const decoded = decode(frame)
    return decoded._tag === "Answer" ? Effect.succeed(decoded.answer) : handle(decoded.message)
  }

  return {
    agent,
    receive,
    decode,
    handle,
    deliver,
    /** The region was disabled or enabled again: a disabled region's agents stay connected and get no jobs. */
    setRegionEnabled: (enabled: boolean) => {
      regionEnabled = enabled
    },
    /** The agent said it is draining: it gets no more work, one-off runs included. */
    draining: () => draining,
    /** Jobs leased here and not answered (for tests and logs). */
    leased: () => leased.size
  }
}

/** One stream's conversation. */
export type Connection = ReturnType<typeof make>
