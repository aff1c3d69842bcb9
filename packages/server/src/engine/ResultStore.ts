/**
 * Writing results: a batch goes in one transaction (the raw rows into `check_results`, the hourly and daily
 * rollups upserted from the batch's aggregates, and whatever the caller adds, such as the scheduler's lease
 * releases), then to the `ResultObservers`. Rows travel as one JSON parameter per statement, so a batch of any size
 * is three or four round trips, which matters on the embedded database's single connection.
 */
import type { CheckResult } from "@signalman/core/CheckResult"
import * as LatencyHistogram from "@signalman/core/LatencyHistogram"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { ResultObservers, type StoredResult } from "./ResultObservers.js"
import { type ResultRecord, ResultStoreRepo, type Rollup } from "./ResultStoreRepo.js"

/** A result to store, with the seconds of the timeline it stands for (its interval; 0 for an extra check-now). */
export interface Pending extends StoredResult {
  readonly weightSecs: number
}

const HOUR = 3_600_000
const DAY = 86_400_000

/** The batch's aggregates per (target, region, bucket of `grain` ms). Errors measured nothing: no latency. */
export const rollups = (batch: ReadonlyArray<Pending>, grain: number): Array<Rollup> => {
  const byKey = new Map<string, Rollup>()
  for (const item of batch) {
    const result = item.result
    const at = DateTime.toEpochMillis(result.checked_at)
    const bucket = new Date(Math.floor(at / grain) * grain).toISOString()
    const key = `${item.targetId}|${result.region}|${bucket}`
    let r = byKey.get(key)
    if (r === undefined) {
      r = {
        target_id: item.targetId,
        region: result.region,
        bucket,
        checks: 0,
        up: 0,
        degraded: 0,
        down: 0,
        errors: 0,
        up_secs: 0,
        down_secs: 0,
        duration_sum: 0,
        dns_sum: 0,
        dns_n: 0,
        connect_sum: 0,
        connect_n: 0,
        tls_sum: 0,
        tls_n: 0,
        first_byte_sum: 0,
        first_byte_n: 0,
        histogram: LatencyHistogram.empty()
      }
      byKey.set(key, r)
    }
    r.checks++
    switch (result.status) {
      case "up":
      case "degraded":
        r[result.status]++
        r.up_secs += item.weightSecs
        break
      case "down":
        r.down++
        r.down_secs += item.weightSecs
        break
      case "error":
        r.errors++
        break
    }
    if (result.status === "error") continue
    r.duration_sum += result.duration_ms
    const b = LatencyHistogram.bucketOf(result.duration_ms)
    r.histogram[b] = (r.histogram[b] ?? 0) + 1
    const phases = result.phases
    if (phases === null) continue
    if (phases.dns_ms !== undefined) {
      r.dns_sum += phases.dns_ms
      r.dns_n++
    }
    if (phases.connect_ms !== undefined) {
      r.connect_sum += phases.connect_ms
      r.connect_n++
    }
    if (phases.tls_ms !== undefined) {
      r.tls_sum += phases.tls_ms
      r.tls_n++
    }
    if (phases.first_byte_ms !== undefined) {
      r.first_byte_sum += phases.first_byte_ms
      r.first_byte_n++
    }
  }
  // One lock order for every writer, so two workers upserting the same rollup rows wait instead of deadlocking.
  return [...byKey.entries()].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)).map(([, r]) => r)
}

const row = (item: Pending): ResultRecord => {
  const result: CheckResult = item.result
  return {
    target_id: item.targetId,
    region: result.region,
    checked_at: DateTime.formatIso(result.checked_at),
    status: result.status,
    duration_ms: result.duration_ms,
    error: result.error,
    details: result.details,
    phases: result.phases,
    weight_secs: item.weightSecs
  }
}

export class ResultStore extends Effect.Service<ResultStore>()("Signalman/ResultStore", {
  effect: Effect.gen(function* () {
    const repo = yield* ResultStoreRepo
    const observers = yield* ResultObservers

    /**
     * Stores the batch and runs `within` in the same transaction, then tells the observers. An empty batch still
     * runs `within`.
     */
    const write = <E = never, R = never>(batch: ReadonlyArray<Pending>, within?: Effect.Effect<void, E, R>) =>
      Effect.gen(function* () {
        yield* repo.transaction(
          Effect.gen(function* () {
            if (batch.length > 0) {
              yield* repo.insertResults(batch.map(row))
              yield* repo.upsertRollups("result_rollups_hourly", rollups(batch, HOUR))
              yield* repo.upsertRollups("result_rollups_daily", rollups(batch, DAY))
            }
            if (within !== undefined) yield* within
          })
        )
        if (batch.length > 0) {
          yield* observers
            .observe(batch)
            .pipe(Effect.catchAllCause((cause) => Effect.logWarning("A result observer failed", cause)))
        }
      })

    return { write }
  }),
  dependencies: [ResultStoreRepo.Default]
}) {}
