/**
 * The HTTP half of the agent protocol (`core/src/api/Agent.ts`): `POST /api/agent/v1/hello` and
 * `POST /api/agent/v1/results`, bearer `sm_agent_...`, bodies encoded and answers decoded with the protocol's own
 * schemas. Statuses are read by hand rather than through a client derived from the contract because a 401 must
 * stop the agent whatever its body holds (a proxy in front of the service answers 401 in its own words), and
 * every other failure must become a retry.
 *
 * @since 0.1.0
 */

import { ErrorEnvelope } from "@signalman/core/ApiError"
import * as Agent from "@signalman/core/api/Agent"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Redacted from "effect/Redacted"
import * as Schema from "effect/Schema"
import { TokenRefused, Unreachable } from "./Failures.js"
import * as Skew from "./Skew.js"

/**
 * Where and as whom the agent calls.
 *
 * @since 0.1.0
 * @category models
 */
export interface Target {
  /** `SIGNALMAN_URL`, normalised (no trailing slash). */
  readonly url: string
  readonly token: Redacted.Redacted<string>
  /** The agent's own User-Agent (`signalman-agent/<version>`), not the probes'. */
  readonly userAgent: string
}

/**
 * A hello's answer, with the clock offset its `Date` header shows.
 *
 * @since 0.1.0
 * @category models
 */
export interface Welcomed {
  readonly welcome: Agent.Welcome
  readonly offset: Option.Option<Skew.Offset>
}

interface Answer {
  readonly status: number
  readonly body: string
  readonly date: string | null
  readonly sentAt: number
  readonly receivedAt: number
}

const firstLine = (text: string): string => text.split("\n")[0]?.trim().slice(0, 300) ?? ""

const reason = (cause: unknown): string => {
  if (!(cause instanceof Error)) return String(cause)
  // fetch reports "fetch failed" and keeps the socket's error (ECONNREFUSED, ENOTFOUND) as its cause.
  const inner = cause.cause
  if (inner instanceof Error) {
    const code = "code" in inner && typeof inner.code === "string" ? inner.code : undefined
    return `${cause.message}: ${code ?? firstLine(inner.message)}`
  }
  return firstLine(cause.message)
}

/**
 * The `error.message` of the API's error envelope, else the body's first line, else the status.
 *
 * @since 0.1.0
 * @category constructors
 */
export const messageOf = (status: number, body: string): string => {
  const envelope = Schema.decodeUnknownOption(Schema.parseJson(ErrorEnvelope))(body)
  if (Option.isSome(envelope)) return envelope.value.error.message
  const line = firstLine(body)
  return line === "" ? `HTTP ${status}` : line
}

const post = (
  target: Target,
  path: string,
  body: unknown,
  timeout: Duration.DurationInput
): Effect.Effect<Answer, Unreachable> =>
  Effect.gen(function* () {
    const sentAt = Date.now()
    const response = yield* Effect.tryPromise({
      try: async (signal) => {
        const answer = await fetch(`${target.url}${path}`, {
          method: "POST",
          headers: {
            authorization: `Bearer ${Redacted.value(target.token)}`,
            "content-type": "application/json",
            accept: "application/json",
            "user-agent": target.userAgent
          },
          body: JSON.stringify(body),
          signal
        })
        return { status: answer.status, date: answer.headers.get("date"), body: await answer.text() }
      },
      catch: (cause) => new Unreachable({ message: `POST ${path}: ${reason(cause)}` })
    }).pipe(
      Effect.timeoutFail({
        duration: timeout,
        onTimeout: () =>
          new Unreachable({ message: `POST ${path}: no answer within ${Duration.format(Duration.decode(timeout))}` })
      })
    )
    return { ...response, sentAt, receivedAt: Date.now() }
  })

// 401 stops the agent; any other status but 200 is the service not (yet) able to take the call.
const accepted = <A, I>(
  path: string,
  schema: Schema.Schema<A, I>,
  answer: Answer
): Effect.Effect<A, TokenRefused | Unreachable> => {
  if (answer.status === 401) return Effect.fail(new TokenRefused({ message: messageOf(answer.status, answer.body) }))
  if (answer.status !== 200) {
    return Effect.fail(
      new Unreachable({
        message: `POST ${path}: HTTP ${answer.status}: ${messageOf(answer.status, answer.body)}`,
        status: answer.status
      })
    )
  }
  return Schema.decodeUnknown(Schema.parseJson(schema))(answer.body).pipe(
    Effect.mapError(
      (error) =>
        new Unreachable({ message: `POST ${path}: the answer is not the protocol's: ${firstLine(error.message)}` })
    )
  )
}

const helloPath = "/api/agent/v1/hello"
const resultsPath = "/api/agent/v1/results"

/**
 * Says hello: the agent's version and capabilities. Answers the welcome (region, polling and lease figures) and
 * the clock offset the answer shows.
 *
 * @since 0.1.0
 * @category calls
 */
export const hello = (target: Target, hello: Agent.Hello): Effect.Effect<Welcomed, TokenRefused | Unreachable> =>
  Effect.gen(function* () {
    const payload = yield* Schema.encode(Agent.Hello)(hello).pipe(Effect.orDie)
    const answer = yield* post(target, helloPath, payload, "10 seconds")
    const welcome = yield* accepted(helloPath, Agent.Welcome, answer)
    return { welcome, offset: Skew.fromDateHeader(answer.date, answer.sentAt, answer.receivedAt) }
  })

/**
 * Delivers results over HTTP (the stream is down, or the agent is draining); answers the ids the service now holds.
 *
 * @since 0.1.0
 * @category calls
 */
export const deliver = (
  target: Target,
  results: ReadonlyArray<Agent.Result>
): Effect.Effect<ReadonlyArray<string>, TokenRefused | Unreachable> =>
  Effect.gen(function* () {
    const payload = yield* Schema.encode(Agent.Results)({ results }).pipe(Effect.orDie)
    const answer = yield* post(target, resultsPath, payload, "30 seconds")
    const acknowledged = yield* accepted(resultsPath, Agent.Acknowledged, answer)
    return acknowledged.acknowledged
  })
