/**
 * The pure parts of the monitor detail page: its query read leniently and its links keeping the other choices, the
 * state it says and since when, figures in words (an uptime never rounded up to 100 %), the ping snippets on the
 * monitor's own period, the phase means and range summary of the latency section, and a flow's step totals and the
 * one kind of screenshot URL it shows.
 */
import { describe, expect, it } from "@effect/vitest"
import { CheckResult } from "@signalman/core/CheckResult"
import { OrgId } from "@signalman/core/Identity"
import { Target, TargetId } from "@signalman/core/Target"
import * as DateTime from "effect/DateTime"
import * as DetailFormat from "../src/dashboard/monitors/DetailFormat.js"
import * as DetailHead from "../src/dashboard/monitors/DetailHead.js"
import * as DetailQuery from "../src/dashboard/monitors/DetailQuery.js"
import * as FlowPanel from "../src/dashboard/monitors/FlowPanel.js"
import * as LatencyChart from "../src/dashboard/monitors/LatencyChart.js"
import * as PingSnippets from "../src/dashboard/monitors/PingSnippets.js"

const id = "01900000-0000-7000-8000-0000000000a1"
const created = DateTime.unsafeMake("2026-05-01T00:00:00.000Z")

const target = (check: Record<string, unknown>, enabled = true) =>
  new Target({
    id: TargetId.make(id),
    org_id: OrgId.make("01900000-0000-7000-8000-0000000000b1"),
    created_at: created,
    updated_at: created,
    write_source: "ui",
    managed_by: null,
    name: "Shop",
    check,
    interval: 60,
    enabled,
    tags: [],
    group: null,
    alerts: [],
    alert_confirmations: 2,
    notify_recovery: true,
    renotify_interval_secs: 3600,
    recovery_period_secs: 0,
    region_policy: "majority",
    regions: ["local"],
    advisories: []
  })

const bucket = (
  start: string,
  checks: number,
  p50: number | null,
  phases: Partial<Record<string, number | null>> = {}
) => ({
  start: DateTime.unsafeMake(start),
  checks,
  mean_ms: p50,
  p50_ms: p50,
  p90_ms: p50,
  p95_ms: p50 === null ? null : p50 * 2,
  p99_ms: p50 === null ? null : p50 * 3,
  phases: { dns_ms: null, connect_ms: null, tls_ms: null, first_byte_ms: null, ...phases }
})

describe("monitor detail page", () => {
  it("the query: choices read leniently, anything else its default; links keep the others and leave defaults out", () => {
    const read = (search: string) => DetailQuery.parse(new URLSearchParams(search))
    expect(read("")).toEqual(DetailQuery.defaults)
    expect(read("range=7d&status=down&region=eu-west&page=3")).toEqual({
      range: "7d",
      status: "down",
      region: "eu-west",
      page: 3
    })
    expect(read("range=1y&status=sideways&region=<script>&page=-2")).toEqual(DetailQuery.defaults)
    expect(read("page=2.5").page).toBe(1)
    expect(read("page=99999").page).toBe(DetailQuery.MAX_PAGE)
    const query = read("range=30d&status=up&page=4")
    expect(DetailQuery.href(id, query, { page: 5 }, "#results")).toBe(
      `/monitors/${id}?range=30d&status=up&page=5#results`
    )
    expect(DetailQuery.href(id, query, { range: "24h", page: 1 })).toBe(`/monitors/${id}?status=up`)
    expect(DetailQuery.href(id, DetailQuery.defaults)).toBe(`/monitors/${id}`)
  })

  it("the state: paused first, then a manual set, a heartbeat's wait, the results' worst region since it began", () => {
    const now = Date.parse("2026-05-02T12:00:00.000Z")
    const regions = [
      { region: "eu", status: "up" as const, last_at: new Date(now - 30_000), since: new Date(now - 3_600_000) },
      { region: "us", status: "down" as const, last_at: new Date(now - 10_000), since: new Date(now - 600_000) }
    ]
    const results = {
      status: "down" as const,
      since: new Date(now - 600_000),
      last_at: new Date(now - 10_000),
      regions
    }
    const http = target({ type: "http", url: "https://example.com" })
    const base = { target: http, now, results, heartbeatPending: false, manual: undefined }
    expect(DetailHead.stateOf({ ...base, target: target({ type: "http" }, false) }).status).toBe("paused")
    const down = DetailHead.stateOf(base)
    expect(down).toMatchObject({ status: "down", since: new Date(now - 600_000) })
    expect(down.basis).toBe("The worst of 2 regions; last result 10 s ago.")
    expect(down.regions.map((r) => r.region)).toEqual(["eu", "us"])
    expect(DetailHead.stateOf({ ...base, results: undefined })).toMatchObject({ status: "pending", since: undefined })
    expect(DetailHead.stateOf({ ...base, heartbeatPending: true })).toMatchObject({
      status: "pending",
      since: new Date("2026-05-01T00:00:00.000Z")
    })
    const setAt = new Date(now - 5000)
    expect(DetailHead.stateOf({ ...base, manual: { status: "degraded", since: setAt } })).toMatchObject({
      status: "degraded",
      since: setAt
    })
  })

  it("what a monitor checks, in a line, never more than the redacted check says", () => {
    expect(DetailHead.subject(target({ type: "http", url: "https://example.com/h", method: "POST" }))).toBe(
      "POST https://example.com/h"
    )
    expect(DetailHead.subject(target({ type: "tcp", host: "db.internal", port: 5432 }))).toBe("db.internal:5432")
    expect(DetailHead.subject(target({ type: "dns", domain: "example.com", record_type: "MX" }))).toBe("MX example.com")
    expect(DetailHead.subject(target({ type: "heartbeat", period: 86400, grace: 3600 }))).toBe(
      "expects a ping every 1 d, grace 1 h"
    )
  })

  it("figures in words: uptime floored (a failure never rounds to 100 %), spans in two units, latencies", () => {
    expect(DetailFormat.percent(null)).toBe("No data")
    expect(DetailFormat.percent(100)).toBe("100 %")
    expect(DetailFormat.percent(99.9999)).toBe("99.99 %")
    expect(DetailFormat.percent(97.5)).toBe("97.50 %")
    expect(DetailFormat.span(45_000)).toBe("45 s")
    expect(DetailFormat.span(200_000)).toBe("3 min 20 s")
    expect(DetailFormat.span(7_500_000)).toBe("2 h 5 min")
    expect(DetailFormat.span(86_400_000 * 3)).toBe("3 d")
    expect(DetailFormat.millis(84.4)).toBe("84 ms")
    expect(DetailFormat.millis(1270)).toBe("1.27 s")
    expect(DetailFormat.millis(null)).toBe("–")
    expect(DetailFormat.utc(new Date("2026-05-01T04:05:06.000Z"), true)).toBe("2026-05-01 04:05:06 UTC")
    expect(DetailFormat.status("down").text).toBe(`<span class="state state-down">Down</span>`)
    expect(DetailFormat.status("<x>").text).toBe(`<span class="state state-unknown">&lt;x&gt;</span>`)
  })

  it("snippets: cron on the monitor's own period where cron can say it, each reporting failures too", () => {
    expect(PingSnippets.cronSchedule(60)).toBe("* * * * *")
    expect(PingSnippets.cronSchedule(300)).toBe("*/5 * * * *")
    expect(PingSnippets.cronSchedule(420)).toBeUndefined()
    expect(PingSnippets.cronSchedule(3600)).toBe("0 * * * *")
    expect(PingSnippets.cronSchedule(6 * 3600)).toBe("0 */6 * * *")
    expect(PingSnippets.cronSchedule(5 * 3600)).toBeUndefined()
    expect(PingSnippets.cronSchedule(86400)).toBe("0 3 * * *")
    expect(PingSnippets.cronSchedule(7 * 86400)).toBe("0 3 * * 1")
    expect(PingSnippets.cronSchedule(90)).toBeUndefined()
    const url = "https://sm.example/ping/abc"
    const byKey = new Map(PingSnippets.snippets(url, 300).map((s) => [s.key, s.text]))
    expect([...byKey.keys()]).toEqual(["curl", "crontab", "systemd-service", "systemd-timer", "powershell"])
    expect(byKey.get("crontab")).toContain(`*/5 * * * * /usr/local/bin/your-job && curl`)
    expect(byKey.get("crontab")).toContain(`|| curl -fsS -m 10 --retry 5 -o /dev/null ${url}/fail`)
    expect(byKey.get("curl")).toContain(`${url}/$?`)
    // systemd expands $VAR itself: the shell's variables are written $$.
    expect(byKey.get("systemd-service")).toContain(`"$$SERVICE_RESULT" = success`)
    expect(byKey.get("systemd-service")).toContain(`${url}/$$s`)
    expect(byKey.get("systemd-timer")).toContain("OnUnitActiveSec=300s")
    expect(byKey.get("powershell")).toContain(`Invoke-RestMethod -Uri "${url}/fail" -Method Post`)
    expect(PingSnippets.snippets(url, 420).find((s) => s.key === "crontab")?.text).toContain(
      "cron cannot run exactly every 420 s"
    )
  })

  it("latency: phase means weighted by checks (null where no bucket had the phase); the range in figures", () => {
    const buckets = [
      bucket("2026-05-01T00:00:00.000Z", 1, 100, { dns_ms: 10, first_byte_ms: 50 }),
      bucket("2026-05-01T00:05:00.000Z", 3, 200, { dns_ms: 20 }),
      bucket("2026-05-01T00:10:00.000Z", 2, null)
    ]
    expect(LatencyChart.phaseMeans(buckets)).toEqual({
      dns_ms: 17.5,
      connect_ms: null,
      tls_ms: null,
      first_byte_ms: 50
    })
    expect(LatencyChart.summary(buckets)).toEqual({ checks: 4, mean: 175, p95: 400, p99: 600 })
    expect(LatencyChart.summary([])).toEqual({ checks: 0, mean: null, p95: null, p99: null })
  })

  it("flow: step totals over the range; only the API's own screenshot path is shown", () => {
    const at = DateTime.unsafeMake("2026-05-01T00:00:00.000Z")
    expect(
      FlowPanel.stepTotals([
        { at, count: 2, failures: 1, mean_ms: 100, p95_ms: 150 },
        { at, count: 6, failures: 0, mean_ms: 200, p95_ms: 300 },
        { at, count: 0, failures: 0, mean_ms: null, p95_ms: null }
      ])
    ).toEqual({ runs: 8, failures: 1, mean: 175, p95: 300 })
    const result = (details: Record<string, unknown> | null) =>
      new CheckResult({
        status: "down",
        duration_ms: 10,
        error: "x",
        details,
        phases: null,
        checked_at: at,
        region: "local"
      })
    const path = `/api/v1/targets/${id}/results/01900000-0000-7000-8000-0000000000c1/screenshot`
    expect(FlowPanel.screenshotOf(result({ screenshot_url: path }))).toBe(path)
    expect(FlowPanel.screenshotOf(result({ screenshot_url: "https://evil.example/x.png" }))).toBeUndefined()
    expect(FlowPanel.screenshotOf(result({ screenshot_url: `${path}" onerror="x` }))).toBeUndefined()
    expect(FlowPanel.screenshotOf(result(null))).toBeUndefined()
  })
})
