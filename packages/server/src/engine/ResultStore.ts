/**
 * Writing results: a batch goes in one transaction (the raw rows into `check_results`, the hourly and daily
 * rollups upserted from the batch's aggregates, the evidence some results keep beside them, and whatever the caller
 * adds, such as the scheduler's lease releases), then to the `ResultObservers`. Rows travel as one JSON parameter
 * per statement, so a batch of any size is three or four round trips, which matters on the embedded database's
 * single connection.
 *
 * Evidence (a failed flow's PNG screenshot) is rare: a batch without any costs one pass that finds none. A result
 * with evidence is stored with `details.screenshot_url` naming the evidence row (results have no id of their own),
 * and the PNG goes into `result_evidence` in the same transaction (docs/engine.md, "Flow results").
 */
import { CheckResult, type Evidence } from "@signalman/core/CheckResult"
import * as LatencyHistogram from "@signalman/core/LatencyHistogram"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import { uuidv7 } from "../infra/Ids.js"
import { Metrics } from "../metrics/Metrics.js"
import { type EvidenceRecord, EvidenceRepo } from "./EvidenceRepo.js"
import { ResultObservers, type StoredResult } from "./ResultObservers.js"
import { type ResultRecord, ResultStoreRepo, type Rollup } from "./ResultStoreRepo.js"

/** A result to store, with the seconds of the timeline it stands for (its interval; 0 for an extra check-now). */
export interface Pending extends StoredResult {
  readonly weightSecs: number
  /**
   * What the run kept beside its result (a failed flow's screenshot), stored with it for the plan's `evidence_days`;
   * null or absent when it kept nothing. The agent protocol's decoded `evidence` fits as it is.
   */
  readonly evidence?: Evidence | null | undefined
}

/** Where a stored screenshot is served: the evidence row's id names it, since results have none. */
export const screenshotUrl = (targetId: string, evidenceId: string): string =>
  `/api/v1/targets/${targetId}/results/${evidenceId}/screenshot`

const PNG_SIGNATURE = [0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a] as const

/** Whether the bytes start as a PNG file does: the route serves them as `image/png`, so nothing else is kept. */
export const isPng = (bytes: Uint8Array): boolean =>
  bytes.length > PNG_SIGNATURE.length && PNG_SIGNATURE.every((b, i) => bytes[i] === b)

/** A batch split for writing: the results as stored (their evidence named) and the evidence rows to write. */
export interface Separated {
  readonly stored: ReadonlyArray<Pending>
  readonly evidence: ReadonlyArray<EvidenceRecord>
  /** Evidence that was not a PNG and was left out (its result is stored without a screenshot). */
  readonly rejected: number
}

const NONE: ReadonlyArray<EvidenceRecord> = []

/**
 * Takes the evidence out of a batch: each result that kept a PNG gets `details.screenshot_url` naming a new
 * evidence row (id from `newId`), and the rows are answered apart. The stored items no longer carry the bytes, so
 * the observers do not hold them. A batch with no evidence is answered as it came, after one pass.
 */
export const separate = (batch: ReadonlyArray<Pending>, newId: () => string): Separated => {
  const first = batch.findIndex((item) => item.evidence != null)
  if (first === -1) return { stored: batch, evidence: NONE, rejected: 0 }
  const stored = batch.slice(0, first)
  const evidence: Array<EvidenceRecord> = []
  let rejected = 0
  for (let i = first; i < batch.length; i++) {
    const item = batch[i]!
    const kept = item.evidence
    if (kept == null) {
      stored.push(item)
      continue
    }
    if (!isPng(kept.screenshot_png)) {
      rejected++
      stored.push({ ...item, evidence: undefined })
      continue
    }
    const id = newId()
    const result = item.result
    stored.push({
      ...item,
      evidence: undefined,
      result: new CheckResult({
        ...result,
        details: { ...result.details, screenshot_url: screenshotUrl(item.targetId, id) }
      })
    })
    evidence.push({
      id,
      target_id: item.targetId,
      region: result.region,
      checked_at: DateTime.formatIso(result.checked_at),
      png: kept.screenshot_png
    })
  }
  return { stored, evidence, rejected }
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
    const evidenceRepo = yield* EvidenceRepo
    const observers = yield* ResultObservers
    const metrics = yield* Metrics

    /**
     * Stores the batch and runs `within` in the same transaction; answers, once it is committed, telling the
     * observers, for the caller to run when it likes (an agent's results are acknowledged first: they are held once
     * committed). An empty batch still runs `within`.
     */
    const store = <E = never, R = never>(batch: ReadonlyArray<Pending>, within?: Effect.Effect<void, E, R>) =>
      Effect.gen(function* () {
        const { stored, evidence, rejected } = separate(batch, uuidv7)
        if (rejected > 0) {
          yield* Effect.logWarning("Evidence that is not a PNG was not kept").pipe(
            Effect.annotateLogs("results", rejected)
          )
        }
        yield* repo.transaction(
          Effect.gen(function* () {
            if (stored.length > 0) {
              yield* repo.insertResults(stored.map(row))
              yield* repo.upsertRollups("result_rollups_hourly", rollups(stored, HOUR))
              yield* repo.upsertRollups("result_rollups_daily", rollups(stored, DAY))
            }
            if (evidence.length > 0) yield* evidenceRepo.insert(evidence)
            if (within !== undefined) yield* within
          })
        )
        // Counted once committed, here where every result is stored (the local scheduler's, agents', check-now's).
        yield* metrics.stored(stored)
        return stored.length === 0
          ? Effect.void
          : observers
              .observe(stored)
              .pipe(Effect.catchAllCause((cause) => Effect.logWarning("A result observer failed", cause)))
      })

    /** Stores the batch and runs `within` in the same transaction, then tells the observers (`store`, then that). */
    const write = <E = never, R = never>(batch: ReadonlyArray<Pending>, within?: Effect.Effect<void, E, R>) =>
      Effect.flatten(store(batch, within))

    return { store, write }
  }),
  dependencies: [ResultStoreRepo.Default, EvidenceRepo.Default]
}) {}
