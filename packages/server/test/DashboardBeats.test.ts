/**
 * The overview's per-monitor figures and its recent-results bar: the batched rows shaped per monitor (latest results
 * oldest first and at most `RECENT`, the hours of the last day with gaps, uptime from up and down seconds), each mark
 * with a text saying what its colour shows, and the bar summed up in a sentence.
 */
import { describe, expect, it } from "@effect/vitest"
import type { CheckStatus } from "@signalman/core/CheckResult"
import * as Beats from "../src/dashboard/monitors/Beats.js"
import * as Rows from "../src/dashboard/monitors/Rows.js"
import * as MonitorFigures from "../src/engine/MonitorFigures.js"
import type { RecentRow, RollupRow } from "../src/engine/Repo.js"

const now = new Date("2026-03-10T12:30:00.000Z")
const A = "01900000-0000-7000-8000-00000000000a"
const B = "01900000-0000-7000-8000-00000000000b"

/** A monitor's latest results as the batched read answers them: parallel arrays, oldest first. */
const recentRow = (
  targetId: string,
  results: ReadonlyArray<{ minutesAgo: number; status: CheckStatus; error?: string }>
): RecentRow => ({
  target_id: targetId,
  at: results.map((r) => now.getTime() - r.minutesAgo * 60_000),
  regions: results.map(() => "local"),
  statuses: results.map((r) => r.status),
  durations: results.map(() => 120),
  errors: results.map((r) => r.error ?? null)
})

const rollupRow = (targetId: string, extra: Partial<RollupRow>): RollupRow => ({
  target_id: targetId,
  starts: [],
  means: [],
  day_up: 0,
  day_down: 0,
  month_up: 0,
  month_down: 0,
  ...extra
})

describe("overview figures", () => {
  it("windows: the day from the hour 24 h ago, 30 days from the hour, whole days from the next UTC midnight", () => {
    const w = MonitorFigures.windows(now)
    expect(w.dayFrom.toISOString()).toBe("2026-03-09T12:00:00.000Z")
    expect(w.monthFrom.toISOString()).toBe("2026-02-08T12:00:00.000Z")
    expect(w.monthDay.toISOString()).toBe("2026-02-09T00:00:00.000Z")
    // On a midnight, the whole days start there.
    expect(MonitorFigures.windows(new Date("2026-03-10T00:10:00Z")).monthDay.toISOString()).toBe(
      "2026-02-08T00:00:00.000Z"
    )
  })

  it("shapes each monitor: latest results oldest first, at most RECENT; every hour with gaps; uptime from seconds", () => {
    const recent = [
      recentRow(
        A,
        Array.from({ length: 35 }, (_, i) => ({ minutesAgo: 35 - i, status: i === 34 ? "down" : "up" }) as const)
      ),
      recentRow(B, [{ minutesAgo: 5, status: "error", error: "blocked: 10.0.0.1" }])
    ]
    const rollups = [
      rollupRow(A, {
        starts: [Date.parse("2026-03-09T12:00:00Z"), Date.parse("2026-03-10T12:00:00Z")],
        means: [100, null],
        day_up: 3000,
        day_down: 600,
        month_up: 90,
        month_down: 10
      })
    ]
    const shaped = MonitorFigures.shape([A, B, "missing"], { recent, rollups }, MonitorFigures.windows(now))
    const a = shaped.get(A)
    expect(a?.recent).toHaveLength(MonitorFigures.RECENT)
    expect(a?.recent.at(-1)).toMatchObject({ status: "down", region: "local", durationMs: 120, error: null })
    expect(a?.recent[0]?.at.getTime()).toBeLessThan(a?.recent[1]?.at.getTime() ?? 0)
    // 25 hours: 12:00 yesterday to the current one; the first measured, the current one's results all errors.
    expect(a?.hours).toHaveLength(25)
    expect(a?.hours[0]).toEqual({ start: new Date("2026-03-09T12:00:00Z"), meanMs: 100 })
    expect(a?.hours.slice(1).every((h) => h.meanMs === null)).toBe(true)
    expect(a?.uptimeDay).toBeCloseTo((100 * 3000) / 3600)
    expect(a?.uptimeMonth).toBe(90)
    expect(shaped.get(B)?.recent).toEqual([
      {
        at: new Date(now.getTime() - 5 * 60_000),
        region: "local",
        status: "error",
        durationMs: 120,
        error: "blocked: 10.0.0.1"
      }
    ])
    expect(shaped.get(B)?.uptimeDay).toBeNull()
    expect(shaped.get(B)?.uptimeMonth).toBeNull()
    expect(shaped.get("missing")).toMatchObject({ recent: [], uptimeDay: null, uptimeMonth: null })
  })
})

describe("recent-results bar", () => {
  const beat = (minutesAgo: number, status: CheckStatus, extra: Partial<MonitorFigures.Beat> = {}) => ({
    at: new Date(now.getTime() - minutesAgo * 60_000),
    region: "local",
    status,
    durationMs: 85,
    error: null,
    ...extra
  })

  it("says each mark's status, time (UTC) and duration or error, in the order given", () => {
    const bar = Beats.bar(
      [
        beat(3, "up"),
        beat(2, "down", { durationMs: 1234, error: "expected 2xx, got 503" }),
        beat(1, "error", { error: "blocked:\n internal address" })
      ],
      now
    )
    expect(bar.marks.map((m) => m.status)).toEqual(["up", "down", "error"])
    expect(bar.marks.map((m) => m.label)).toEqual([
      "Up at 12:27:00 UTC: 85 ms",
      "Down at 12:28:00 UTC: 1.2 s, expected 2xx, got 503",
      "Error at 12:29:00 UTC: blocked: internal address"
    ])
    expect(bar.summary).toBe("Last 3 results, oldest first: 1 up, 1 down, 1 error; latest error at 12:29:00 UTC")
  })

  it("names the region when results come from several; dates results older than a day; cuts long errors", () => {
    const long = "x".repeat(300)
    const bar = Beats.bar(
      [beat(60 * 30, "up", { region: "eu" }), beat(1, "degraded", { region: "us", error: long })],
      now
    )
    expect(bar.marks[0]?.label).toBe("Up at 9 Mar 06:30 UTC from eu: 85 ms")
    expect(bar.marks[1]?.label.startsWith("Degraded at 12:29:00 UTC from us: 85 ms, xxx")).toBe(true)
    expect(bar.marks[1]?.label.endsWith("…")).toBe(true)
    expect(bar.marks[1]?.label.length).toBeLessThan(160)
  })

  it("an empty bar says so", () => {
    expect(Beats.bar([], now)).toEqual({ marks: [], summary: "No recent results" })
  })

  it("a row's parts escape what the monitor holds and say every figure in words", () => {
    const parts = Rows.parts(
      {
        state: { id: A, kind: "http", state: "down", held: true },
        figures: {
          recent: [beat(1, "down", { error: "<script>x</script>" })],
          hours: [],
          uptimeDay: 99.996,
          uptimeMonth: null
        },
        advisories: []
      },
      now
    )
    expect(parts["state"]).toContain(`<span class="state state-down">Down</span>`)
    expect(parts["state"]).toContain("Not running: over the plan")
    expect(parts["beats"]).toContain("&lt;script&gt;")
    expect(parts["beats"]).not.toContain("<script>")
    // Cut, not rounded: a monitor that was down at all never reads 100%.
    expect(parts["uptime-day"]).toBe("99.99%")
    expect(parts["uptime-month"]).toContain("No data")
    expect(parts["latency"]).toContain("85 ms")
    expect(parts["latency"]).not.toContain("<svg")
  })
})
