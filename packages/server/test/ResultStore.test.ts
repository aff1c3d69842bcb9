/**
 * The result store's evidence handling, on stand-ins of its two repositories that record what they were asked
 * inside and outside the transaction: a result with a screenshot is stored naming it, the PNG goes in the same
 * transaction, observers never hold the bytes, and a batch without evidence is written as before.
 */
import { describe, expect, it } from "@effect/vitest"
import { CheckResult, type ProbeOutcome } from "@signalman/core/CheckResult"
import * as DateTime from "effect/DateTime"
import * as Effect from "effect/Effect"
import * as Layer from "effect/Layer"
import { type EvidenceRecord, EvidenceRepo } from "../src/engine/EvidenceRepo.js"
import { ResultObservers, type StoredResult } from "../src/engine/ResultObservers.js"
import { isPng, type Pending, ResultStore, screenshotUrl, separate } from "../src/engine/ResultStore.js"
import { type ResultRecord, ResultStoreRepo } from "../src/engine/ResultStoreRepo.js"
import * as Probes from "../src/probes/Probes.js"

const PNG = Uint8Array.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0x49, 0x48, 0x44, 0x52])
const JPEG = Uint8Array.from([0xff, 0xd8, 0xff, 0xe0, 0, 16, 0x4a, 0x46, 0x49, 0x46, 0])
const flowTarget = "01900000-0000-7000-8000-0000000000f1"
const httpTarget = "01900000-0000-7000-8000-0000000000f2"
const org = "01900000-0000-7000-8000-0000000000a1"
const checkedAt = DateTime.unsafeMake("2026-11-20T10:00:00.000Z")

const pending = (targetId: string, extra: Partial<Pending> = {}): Pending => ({
  targetId,
  orgId: org,
  kind: targetId === flowTarget ? "flow" : "http",
  source: "scheduled",
  blocked: false,
  weightSecs: 300,
  result: new CheckResult({
    status: "down",
    duration_ms: 1200,
    error: "step 1 (click): no element matches #go",
    details: {
      steps: [{ index: 0, action: "click", status: "failed", duration_ms: 1200, error: "x" }],
      final_url: "u"
    },
    phases: null,
    checked_at: checkedAt,
    region: "eu-flow"
  }),
  ...extra
})

/** The `screenshot_url` of details as a record holds them (a raw row's details are of no declared type). */
const urlOf = (details: unknown): unknown =>
  typeof details === "object" && details !== null && "screenshot_url" in details ? details.screenshot_url : undefined

const ids = (...values: ReadonlyArray<string>) => {
  let next = 0
  return () => values[next++] ?? "exhausted"
}

/** The store on recording stand-ins: each call is logged with whether it ran inside the transaction. */
const recording = () => {
  const log: Array<string> = []
  const results: Array<ResultRecord> = []
  const evidence: Array<EvidenceRecord> = []
  const observed: Array<StoredResult> = []
  let open = false
  const where = () => (open ? "in" : "out")
  const repos = Layer.mergeAll(
    Layer.succeed(
      ResultStoreRepo,
      ResultStoreRepo.make({
        transaction: (self) =>
          Effect.acquireUseRelease(
            Effect.sync(() => {
              open = true
            }),
            () => self,
            () =>
              Effect.sync(() => {
                open = false
              })
          ),
        insertResults: (records) =>
          Effect.sync(() => {
            log.push(`results ${where()}`)
            results.push(...records)
          }),
        upsertRollups: (table) => Effect.sync(() => void log.push(`${table} ${where()}`))
      })
    ),
    Layer.succeed(
      EvidenceRepo,
      EvidenceRepo.make({
        insert: (records) =>
          Effect.sync(() => {
            log.push(`evidence ${where()}`)
            evidence.push(...records)
          }),
        screenshot: () => Effect.succeed(undefined),
        prune: Effect.succeed(0)
      })
    ),
    Layer.succeed(ResultObservers, {
      observe: (batch) =>
        Effect.sync(() => {
          log.push(`observed ${where()}`)
          observed.push(...batch)
        })
    })
  )
  return { layer: ResultStore.DefaultWithoutDependencies.pipe(Layer.provide(repos)), log, results, evidence, observed }
}

describe("ResultStore evidence", () => {
  it("a batch with no evidence is answered as it came, with no evidence rows (the hot path does no more)", () => {
    const batch = [pending(httpTarget), pending(httpTarget, { evidence: null }), pending(httpTarget)]
    const split = separate(batch, ids())
    expect(split.stored).toBe(batch)
    expect(split.evidence).toEqual([])
    expect(split.rejected).toBe(0)
  })

  it("a result with a PNG is stored naming its evidence row; its other details and its neighbours are untouched", () => {
    const plain = pending(httpTarget)
    const batch = [plain, pending(flowTarget, { evidence: { screenshot_png: PNG } }), plain]
    const split = separate(batch, ids("01900000-0000-7000-8000-00000000e001"))
    expect(split.stored).toHaveLength(3)
    expect(split.stored[0]).toBe(plain)
    expect(split.stored[2]).toBe(plain)
    const named = split.stored[1]!
    expect(named.evidence).toBeUndefined()
    expect(named.result.details).toEqual({
      ...plain.result.details,
      screenshot_url: `/api/v1/targets/${flowTarget}/results/01900000-0000-7000-8000-00000000e001/screenshot`
    })
    expect(named.result).toBeInstanceOf(CheckResult)
    expect(split.evidence).toEqual([
      {
        id: "01900000-0000-7000-8000-00000000e001",
        target_id: flowTarget,
        region: "eu-flow",
        checked_at: "2026-11-20T10:00:00.000Z",
        png: PNG
      }
    ])
  })

  it("evidence that is not a PNG is not kept: its result is stored without a screenshot", () => {
    const split = separate([pending(flowTarget, { evidence: { screenshot_png: JPEG } })], ids("unused"))
    expect(split.rejected).toBe(1)
    expect(split.evidence).toEqual([])
    expect(split.stored[0]!.result.details?.["screenshot_url"]).toBeUndefined()
    expect(split.stored[0]!.evidence).toBeUndefined()
    expect(isPng(PNG)).toBe(true)
    expect(isPng(PNG.subarray(0, 8))).toBe(false)
  })

  it("a result without details gets details holding only its screenshot_url", () => {
    const bare = pending(flowTarget, { evidence: { screenshot_png: PNG } })
    const item = { ...bare, result: new CheckResult({ ...bare.result, details: null }) }
    const split = separate([item], ids("01900000-0000-7000-8000-00000000e002"))
    expect(split.stored[0]!.result.details).toEqual({
      screenshot_url: screenshotUrl(flowTarget, "01900000-0000-7000-8000-00000000e002")
    })
  })

  it.effect("write: the PNG goes in the results' transaction, the stored row names it, observers get no bytes", () =>
    Effect.gen(function* () {
      const store = recording()
      yield* Effect.flatMap(ResultStore, (s) =>
        s.write([pending(httpTarget), pending(flowTarget, { evidence: { screenshot_png: PNG } })])
      ).pipe(Effect.provide(store.layer))
      expect(store.log).toEqual([
        "results in",
        "result_rollups_hourly in",
        "result_rollups_daily in",
        "evidence in",
        "observed out"
      ])
      const [row] = store.evidence
      expect(row?.png).toBe(PNG)
      expect(row?.target_id).toBe(flowTarget)
      // The id is a fresh UUIDv7, and the stored result's URL names it.
      expect(row?.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-7[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/)
      expect(store.results.map((r) => urlOf(r.details))).toEqual([undefined, screenshotUrl(flowTarget, row!.id)])
      expect(store.observed.map((item) => urlOf(item.result.details))).toEqual([
        undefined,
        screenshotUrl(flowTarget, row!.id)
      ])
      expect(store.observed.map((item) => Reflect.get(item, "evidence"))).toEqual([undefined, undefined])
    })
  )

  it.effect("write: a batch with no evidence writes no evidence", () =>
    Effect.gen(function* () {
      const store = recording()
      yield* Effect.flatMap(ResultStore, (s) => s.write([pending(httpTarget)])).pipe(Effect.provide(store.layer))
      expect(store.log).toEqual(["results in", "result_rollups_hourly in", "result_rollups_daily in", "observed out"])
      expect(store.evidence).toEqual([])
    })
  )
})

describe("Probes.stamped", () => {
  it.effect("keeps a run's evidence beside its result, never in it", () =>
    Effect.gen(function* () {
      const outcome: ProbeOutcome = {
        status: "down",
        duration_ms: 10,
        error: "failed",
        details: { steps: [] },
        phases: null,
        evidence: { screenshot_png: PNG }
      }
      const stamped = yield* Probes.stamped(outcome)
      expect(stamped.evidence?.screenshot_png).toBe(PNG)
      expect(stamped.result.region).toBe("local")
      expect(Object.keys(stamped.result)).not.toContain("evidence")
      const none = yield* Probes.stamped({ status: "up", duration_ms: 1, error: null, details: null, phases: null })
      expect(none.evidence).toBeUndefined()
    })
  )
})
