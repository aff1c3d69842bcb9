/**
 * Heartbeat monitors as the API shows them: the record (`GET /targets/{id}/heartbeat`) and the rotation of the
 * ping URL (`POST .../heartbeat/rotate`, `DELETE .../heartbeat/previous`); and, for the dashboard, the last pings.
 *
 * Rotation rewrites the monitor's rows of `ping_tokens` (the current token, and the previous one while it overlaps)
 * and stamps `rotated_at`; it never touches the machine's state, so incidents, history, shares and page bindings stay
 * as they are and the silence clock is not re-armed. Every token it ends is published as invalidated, so no process
 * keeps resolving it from its cache.
 */
import * as ApiError from "@signalman/core/ApiError"
import type { ActiveOrg } from "@signalman/core/api/Authentication"
import * as CadenceAdvice from "@signalman/core/heartbeat/CadenceAdvice"
import * as HeartbeatMachine from "@signalman/core/heartbeat/HeartbeatMachine"
import * as HeartbeatRecord from "@signalman/core/heartbeat/HeartbeatRecord"
import * as Rotation from "@signalman/core/heartbeat/Rotation"
import * as DateTime from "effect/DateTime"
import * as Duration from "effect/Duration"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import { publicBaseUrl } from "../config/Config.js"
import { Invalidation } from "../infra/Invalidation.js"
import * as PingTokens from "../targets/PingTokens.js"
import { notFound, type TargetRow, Targets } from "../targets/Targets.js"
import { Pings } from "./Pings.js"
import { HeartbeatsRepo } from "./Repo.js"
import * as StateRows from "./StateRows.js"

/** The most successes the record's figures are computed over (a job pinging every second for 14 days has more). */
export const MAX_SUCCESSES = 20_000

/** The period, grace and max_runtime of a stored heartbeat check. */
export const Window = Schema.Struct({
  period: Schema.Number,
  grace: Schema.Number,
  max_runtime: Schema.optional(Schema.Number)
})
export const decodeWindow = Schema.decodeUnknown(Window)

const utc = (at: Date | null): DateTime.Utc | null => (at === null ? null : DateTime.unsafeFromDate(at))

const notHeartbeat = (row: TargetRow) =>
  ApiError.make("NOT_FOUND", `This monitor is a ${row.kind} monitor; only heartbeat monitors have a ping URL`, {
    details: { type: row.kind }
  })

export class Heartbeats extends Effect.Service<Heartbeats>()("Signalman/Heartbeats", {
  effect: Effect.gen(function* () {
    const repo = yield* HeartbeatsRepo
    const targets = yield* Targets
    const pings = yield* Pings
    const invalidation = yield* Invalidation
    const base = yield* publicBaseUrl

    const heartbeat = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        const row = yield* targets.one(org, id)
        if (row === undefined) return yield* Effect.fail(notFound)
        if (row.kind !== "heartbeat") return yield* Effect.fail(notHeartbeat(row))
        return row
      })

    const tokensOf = (targetId: string, now: DateTime.Utc) =>
      repo.tokens(targetId).pipe(
        Effect.flatMap((rows) =>
          Effect.gen(function* () {
            const current = rows.find((r) => r.expires_at === null)
            const previous = rows.find((r) => r.expires_at !== null && r.expires_at.getTime() > now.epochMillis)
            // Every heartbeat is minted a token on create; one without (a row lost by hand) gets one now.
            const token = current?.token ?? PingTokens.mint()
            if (current === undefined) {
              yield* repo.insertToken({ token, target_id: targetId, expires_at: null })
            }
            return {
              current: token,
              previous:
                previous === undefined || previous.expires_at === null
                  ? null
                  : {
                      token: previous.token,
                      expires_at: DateTime.unsafeFromDate(previous.expires_at),
                      last_used_at: utc(previous.last_used_at)
                    }
            }
          })
        )
      )

    const successesOf = (targetId: string, now: DateTime.Utc) =>
      Effect.map(
        repo.successes(
          targetId,
          DateTime.toDateUtc(DateTime.subtractDuration(now, CadenceAdvice.LOOKBACK)),
          MAX_SUCCESSES
        ),
        (ats) => ats.map((at) => DateTime.unsafeFromDate(at))
      )

    const recordOf = (row: TargetRow) =>
      Effect.gen(function* () {
        // This process's queued pings first, so a record read after a ping shows it.
        yield* pings.flush
        const now = DateTime.unsafeMake(Date.now())
        const window = yield* decodeWindow(row.check_spec).pipe(Effect.orDie)
        const tokens = yield* tokensOf(row.id, now)
        const stored = yield* repo.state(row.id)
        const state =
          stored === undefined ? HeartbeatMachine.initial({ enabled: row.enabled }) : StateRows.toState(stored)
        return HeartbeatRecord.derive(
          {
            public_base_url: base,
            token: tokens.current,
            created_at: DateTime.unsafeFromDate(row.created_at),
            window,
            state,
            tokens: { ...tokens, rotated_at: utc(stored?.rotated_at ?? null) },
            successes: yield* successesOf(row.id, now),
            last_failure_output: stored?.last_failure_output ?? null
          },
          now
        )
      })

    const record = (org: ActiveOrg, id: string) => Effect.flatMap(heartbeat(org, id), recordOf)

    const rotate = (org: ActiveOrg, id: string, request: Rotation.RotateRequest) =>
      Effect.gen(function* () {
        const row = yield* heartbeat(org, id)
        const ended = yield* repo.transaction(
          Effect.gen(function* () {
            // Serialises rotations of one monitor: the second sees the first's tokens.
            yield* repo.lockTarget(row.id)
            const now = DateTime.unsafeMake(Date.now())
            const before = yield* tokensOf(row.id, now)
            const after = Rotation.rotate(
              { ...before, rotated_at: null },
              { ...request, token: PingTokens.mint() },
              now,
              Duration.hours(24)
            )
            yield* repo.deleteTokens(row.id)
            yield* repo.insertToken({ token: after.current, target_id: row.id, expires_at: null })
            if (after.previous !== null) {
              yield* repo.insertToken({
                token: after.previous.token,
                target_id: row.id,
                expires_at: DateTime.toDateUtc(after.previous.expires_at)
              })
            }
            yield* repo.markRotated(row.id, !row.enabled, DateTime.toDateUtc(now))
            // Every token the monitor had is now ended or expiring: cached entries of them must go.
            return [before.current, ...(before.previous === null ? [] : [before.previous.token])]
          })
        )
        yield* Effect.forEach(ended, (token) => invalidation.publish(`ping_token:${token}`), { discard: true })
        return yield* recordOf(row)
      })

    const endPrevious = (org: ActiveOrg, id: string) =>
      Effect.gen(function* () {
        const row = yield* heartbeat(org, id)
        const ended = yield* repo.endPrevious(row.id)
        yield* Effect.forEach(ended, (token) => invalidation.publish(`ping_token:${token}`), { discard: true })
      })

    /** The monitor's newest pings (kept 14 days), newest first, at most `limit`; queued pings are written first. */
    const recentPings = (org: ActiveOrg, id: string, limit: number) =>
      Effect.gen(function* () {
        const row = yield* heartbeat(org, id)
        yield* pings.flush
        return yield* repo.recentPings(row.id, limit)
      })

    return { record, recentPings, rotate, endPrevious }
  }),
  dependencies: [HeartbeatsRepo.Default, Pings.Default, Invalidation.Default]
}) {}
