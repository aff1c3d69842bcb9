/**
 * `Idempotency-Key` on the writes that make monitors (create, bulk create, duplicate): a retried request returns
 * the first answer instead of making the monitors twice.
 *
 * The answer is recorded in the same transaction as the rows it describes, under a primary key of (org, user,
 * operation, key). So an answer exists exactly when its rows do; a retry that races the first request waits on
 * that key inside PostgreSQL, finds it taken, rolls back, and replays what the first one committed. A refused
 * request wrote nothing and recorded nothing: it may be retried with the same key once the cause is fixed.
 *
 * Following the IETF Idempotency-Key draft: the same key with another body is 422 `IDEMPOTENCY_KEY_REUSED`; a
 * replay carries `Idempotent-Replayed: true`. Keys are kept 24 hours (see the sweeper).
 */
import { createHash } from "node:crypto"
import * as HttpApp from "@effect/platform/HttpApp"
import * as HttpServerRequest from "@effect/platform/HttpServerRequest"
import * as HttpServerResponse from "@effect/platform/HttpServerResponse"
import * as ApiError from "@signalman/core/ApiError"
import * as Effect from "effect/Effect"
import * as Option from "effect/Option"
import * as Schema from "effect/Schema"
import { IdempotencyRepo } from "./Repo.js"

/** Who may replay an answer, and for which operation: a key is never shared across callers or endpoints. */
export interface Scope {
  readonly orgId: string
  readonly userId: string
  /** The endpoint, with the path parameters that make it a different resource (`targets.duplicate:<id>`). */
  readonly operation: string
}

export interface Claim extends Scope {
  readonly key: string
  readonly fingerprint: string
}

export const HEADER = "idempotency-key"

/** A write's answer and the `Location` it answers with, if any. */
export interface Written<A> {
  readonly answer: A
  readonly location: string | null
}

// A fresh answer's location set on the response; a replay sets the stored one itself.
const located = <A>({ answer, location }: Written<A>) =>
  location === null
    ? Effect.succeed(answer)
    : Effect.as(
        HttpApp.appendPreResponseHandler((_, response) =>
          Effect.succeed(HttpServerResponse.setHeader(response, "location", location))
        ),
        answer
      )

// Printable ASCII without spaces at either end; long enough for a UUID or a client's own composite key.
const wellFormed = /^[\x21-\x7e](?:[\x20-\x7e]{0,253}[\x21-\x7e])?$/

/** The raised error when another request committed the same key first; the caller then replays. */
export class LostRace extends Schema.TaggedError<LostRace>()("LostRace", {}) {}

const keyOf = (claim: Claim) => ({
  org_id: claim.orgId,
  user_id: claim.userId,
  operation: claim.operation,
  key: claim.key
})

// A body is fingerprinted as decoded, so two spellings of the same request (spacing, key order of the JSON the
// client built) are the same request; a different value anywhere is not.
const fingerprintOf = (payload: unknown): string => createHash("sha256").update(canonical(payload)).digest("hex")

const canonical = (value: unknown): string => {
  if (Array.isArray(value)) return `[${value.map(canonical).join(",")}]`
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonical(v)}`).join(",")}}`
  }
  return JSON.stringify(value) ?? "null"
}

export class Idempotency extends Effect.Service<Idempotency>()("Signalman/Idempotency", {
  effect: Effect.gen(function* () {
    const repo = yield* IdempotencyRepo

    /** The request's key as a claim on this scope, or none when the header is absent; a malformed key is 400. */
    const claim = (
      scope: Scope,
      payload: unknown
    ): Effect.Effect<Claim | undefined, ApiError.ApiError, HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function* () {
        const request = yield* HttpServerRequest.HttpServerRequest
        const key = request.headers[HEADER]
        if (key === undefined) return undefined
        if (!wellFormed.test(key)) {
          return yield* Effect.fail(
            ApiError.make("VALIDATION_FAILED", "Idempotency-Key must be 1 to 255 printable ASCII characters", {
              field: "Idempotency-Key"
            })
          )
        }
        return { ...scope, key, fingerprint: fingerprintOf(payload) }
      })

    /** The first answer to this key decoded as `schema`, if there is one; set up as a replay of it. */
    const replay = <A, I>(
      claim: Claim,
      schema: Schema.Schema<A, I>
    ): Effect.Effect<Option.Option<A>, ApiError.ApiError> =>
      Effect.gen(function* () {
        const stored = yield* repo.answer(keyOf(claim))
        if (stored === undefined) return Option.none()
        if (stored.fingerprint !== claim.fingerprint) {
          return yield* Effect.fail(
            ApiError.make(
              "IDEMPOTENCY_KEY_REUSED",
              "This Idempotency-Key was used with a different request body; use a new key for a new request",
              { field: "Idempotency-Key" }
            )
          )
        }
        const answer = yield* Schema.decodeUnknown(schema)(stored.response).pipe(Effect.orDie)
        yield* HttpApp.appendPreResponseHandler((_, response) =>
          Effect.succeed(
            HttpServerResponse.setHeaders(response, {
              "idempotent-replayed": "true",
              ...(stored.location === null ? {} : { location: stored.location })
            })
          )
        )
        return Option.some(answer)
      })

    /**
     * Records the answer; run it inside the transaction that made the rows. Fails with `LostRace` when another
     * request holds the key (its transaction committed first), which rolls this one back.
     */
    const record = <A, I>(
      claim: Claim,
      schema: Schema.Schema<A, I>,
      answer: A,
      location: string | null
    ): Effect.Effect<void, LostRace> =>
      Effect.gen(function* () {
        const response = yield* Schema.encode(schema)(answer).pipe(Effect.orDie)
        // An expired key of the same name is replaced: after 24 hours the key means a new request.
        yield* repo.dropExpired(keyOf(claim))
        const inserted = yield* repo.insert(keyOf(claim), { fingerprint: claim.fingerprint, response, location })
        if (!inserted) return yield* new LostRace()
      })

    /**
     * A write made once per key. Without the header `write` just runs. With it, an earlier answer to the key is
     * replayed; otherwise `write` runs and must call `record` inside the transaction that makes its rows, and a
     * request that loses the race for the key answers what the winner recorded. A fresh answer's `location`
     * becomes the `Location` header, as a replayed one's does.
     */
    const once = <A, I, E, R>(
      scope: Scope,
      payload: unknown,
      schema: Schema.Schema<A, I>,
      write: (
        record: (written: Written<A>) => Effect.Effect<void, LostRace>
      ) => Effect.Effect<Written<A>, E | LostRace, R>
    ): Effect.Effect<A, E | ApiError.ApiError, R | HttpServerRequest.HttpServerRequest> =>
      Effect.gen(function* () {
        const isLostRace = (error: E | LostRace): error is LostRace => error instanceof LostRace
        const held = yield* claim(scope, payload)
        if (held === undefined) {
          return yield* write(() => Effect.void).pipe(
            Effect.flatMap(located),
            Effect.catchIf(isLostRace, () => Effect.dieMessage("an idempotency race without a key"))
          )
        }
        const prior = yield* replay(held, schema)
        if (Option.isSome(prior)) return prior.value
        return yield* write((written) => record(held, schema, written.answer, written.location)).pipe(
          Effect.flatMap(located),
          Effect.catchIf(isLostRace, () =>
            Effect.flatMap(
              replay(held, schema),
              Option.match({
                onNone: () => Effect.dieMessage("the idempotency key holder vanished"),
                onSome: Effect.succeed
              })
            )
          )
        )
      })

    return { claim, replay, record, once }
  }),
  dependencies: [IdempotencyRepo.Default]
}) {}
