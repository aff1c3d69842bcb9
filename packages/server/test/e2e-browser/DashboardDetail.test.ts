/// <reference lib="dom" />
/**
 * The monitor detail page (`/monitors/<id>`) in real headless Chromium: an http monitor checked against a service
 * on loopback (state since when, uptime, the latency charts, results filtered and paged with plain links, its
 * incident), and the page's actions through the API (check now, pause and resume, duplicate with its refusal on the
 * field, delete); a heartbeat monitor pinged, its last pings and its URL rotated; a manual monitor set from the page;
 * share links made, refused and revoked; another org's monitor as a 404 page; reading with JavaScript off; an axe
 * audit with screenshots of each kind of page.
 */
import * as NodeHttp from "node:http"
import * as path from "node:path"
import { expect } from "@effect/vitest"
import { ResultPage } from "@signalman/core/api/Results"
import { ManualState } from "@signalman/core/ManualState"
import { MonitorShare } from "@signalman/core/MonitorShare"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import * as Schema from "effect/Schema"
import type * as Scope from "effect/Scope"
import type { Page } from "puppeteer-core"
import * as Dashboard from "../support/Dashboard.js"
import { eventually } from "../support/Eventually.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

/** A service on loopback whose answer the test sets (`code`), counting the requests it got. */
const service: Effect.Effect<{ readonly base: string; code: number; hits: number }, never, Scope.Scope> = Effect.gen(
  function* () {
    const state = { base: "", code: 200, hits: 0 }
    const server = yield* Effect.acquireRelease(
      Effect.promise(
        () =>
          new Promise<NodeHttp.Server>((resolve) => {
            const s = NodeHttp.createServer((_request, response) => {
              state.hits += 1
              response.writeHead(state.code, { "content-type": "text/plain" })
              response.end(state.code === 200 ? "ok" : "broken")
            })
            s.listen(0, "127.0.0.1", () => resolve(s))
          })
      ),
      (s) => Effect.promise(() => new Promise<void>((resolve) => s.close(() => resolve())))
    )
    const address = server.address()
    if (address === null || typeof address === "string") return yield* Effect.dieMessage("no TCP address")
    state.base = `http://127.0.0.1:${address.port}`
    return state
  }
)

const texts = (page: Page, selector: string) =>
  Effect.promise(() =>
    page.$$eval(selector, (nodes) => nodes.map((n) => (n.textContent ?? "").replace(/\s+/g, " ").trim()))
  )

const text = (page: Page, selector: string) =>
  Effect.promise(() => page.$eval(selector, (n) => (n.textContent ?? "").replace(/\s+/g, " ").trim()))

/** Clicks and waits for the navigation it causes (a reload after a write, a redirect). */
const clickAndWait = (page: Page, selector: string) =>
  Effect.promise(() => Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(selector)]))

/** Sets an input's value as typing would, past its `maxlength` (to reach the API's own rule). */
const setValue = (page: Page, selector: string, value: string) =>
  Effect.promise(() =>
    page.$eval(
      selector,
      (input, v) => {
        if (input instanceof HTMLInputElement) input.value = v
      },
      value
    )
  )

/** The error shown on a form's field: its note, whether it is marked invalid, and whether it has the focus. */
const fieldError = (page: Page, selector: string) =>
  Effect.gen(function* () {
    yield* Dashboard.until(
      page,
      `document.querySelector(${JSON.stringify(selector)})?.getAttribute("aria-invalid") === "true"`
    )
    return yield* Effect.promise(() =>
      page.$eval(selector, (field) => {
        const ids = (field.getAttribute("aria-describedby") ?? "").split(" ")
        const note = ids.map((id) => document.getElementById(id)).find((n) => n?.classList.contains("field-error"))
        return { message: note?.textContent ?? "", focused: document.activeElement === field }
      })
    )
  })

const TargetPage = Schema.Struct({ data: Schema.Array(Schema.Struct({ id: Schema.String })) })

const admin = "operator-secret-for-the-detail-page-0123456789"

// Where Dashboard.auditAndCapture writes, for the one picture taken without its audit.
const ARTIFACTS = path.resolve(__dirname, "../../../../test-artifacts/dashboard")

Fixture.describe(
  `dashboard: the monitor detail page (${TestDatabase.kind} database)`,
  {
    env: {
      CHECKER__ALLOW_PRIVATE_TARGETS: "true",
      // The flow test opens the plan to flows and waits for the local region's browser.
      OPERATOR__ADMIN_TOKEN: admin,
      ...(process.env["CHROMIUM_PATH"] === undefined ? {} : { CHECKER__BROWSER_PATH: process.env["CHROMIUM_PATH"] })
    }
  },
  (it) => {
    it.scoped(
      "an http monitor: state, uptime, charts, results filtered and paged, its incident; check now, pause, duplicate, delete; JS off; another org's is 404",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const site = yield* service
          const made = Http.expectOk(
            yield* alice.api("/api/v1/targets", {
              json: {
                name: "Shop <checkout>",
                check: { type: "http", url: `${site.base}/health` },
                interval: 3600,
                alert_confirmations: 2
              }
            }),
            Target,
            201
          )
          const id = made.id
          // Three hours of history from the monitor's region and a second one. A second region needs an agent of its
          // own; these rows stand for what one would have stored.
          yield* server.sql.unsafe(`
            INSERT INTO check_results (target_id, region, checked_at, status, duration_ms, error, details, phases, weight_secs)
            SELECT '${id}', r, now() - g * interval '5 minutes', 'up',
              100 + 20 * sin(g / 5.0) + (CASE WHEN r = 'eu-west' THEN 60 ELSE 0 END),
              NULL, NULL,
              jsonb_build_object('dns_ms', 4, 'connect_ms', 9, 'first_byte_ms', 55, 'total_ms', 80),
              300
            FROM generate_series(1, 36) g, (VALUES ('local'), ('eu-west')) v(r)
          `)
          // Two failures through the API: the monitor's confirmations, so an incident opens.
          site.code = 500
          for (let i = 0; i < 2; i++) {
            const now = yield* alice.api(`/api/v1/targets/${id}/check-now`, { method: "POST" })
            expect(now.status, now.text).toBe(200)
          }
          const incidents = yield* eventually(
            Effect.map(alice.api(`/api/v1/incidents?target_id=${id}`), (reply) => Http.decode(reply, TargetPage).data),
            (list) => list.length > 0
          )
          expect(incidents.length).toBe(1)
          const incidentId = incidents[0]?.id ?? ""

          const context = yield* Dashboard.context
          const page = yield* Dashboard.tab(context, server.baseUrl, alice)
          page.on("dialog", (dialog) => void dialog.accept())
          const refusedByPolicy: Array<string> = []
          page.on("console", (message) => {
            if (message.type() === "error" && /Content Security Policy/i.test(message.text())) {
              refusedByPolicy.push(message.text())
            }
          })
          const detail = `${server.baseUrl}/monitors/${id}`
          expect(yield* Dashboard.visit(page, detail)).toBe(200)
          expect(yield* text(page, "h1")).toBe("Shop <checkout>")
          expect(yield* texts(page, "h1 b, h1 checkout")).toEqual([])
          expect(yield* text(page, ".detail-subject")).toBe(`HTTP GET ${site.base}/health`)
          expect(yield* text(page, ".detail-state-line")).toMatch(/^Down since \d{4}-\d\d-\d\d \d\d:\d\d UTC \(.+\)$/)
          expect(yield* texts(page, ".region-states li strong")).toEqual(["eu-west", "local"])
          expect(yield* texts(page, ".card-title")).toEqual([
            "Last 24 hours",
            "Last 7 days",
            "Last 30 days",
            "Last 90 days"
          ])
          const figures = yield* texts(page, ".card .figure")
          // The day's figure is the API's own (time based: what each result stands for).
          const day = Http.expectOk(
            yield* alice.api(`/api/v1/targets/${id}/uptime`),
            Schema.Struct({ uptime_pct: Schema.NullOr(Schema.Number) })
          ).uptime_pct
          expect(day).not.toBeNull()
          expect(figures[0]).toBe(
            day === null || day >= 100 ? "100 %" : `${(Math.floor(day * 100) / 100).toFixed(2)} %`
          )
          // The free plan keeps 30 days: the 90-day card says where its figure starts.
          expect((yield* texts(page, ".card .note"))[3]).toContain("as far back as your plan keeps")
          // The quantile chart: three lines with points, named in a legend, described in words.
          const chart = yield* Effect.promise(() =>
            page.$eval("#latency ~ svg.chart, section[aria-labelledby=latency] svg.chart", (svg) => ({
              paths: [...svg.querySelectorAll("path.chart-line")].map((p) => p.getAttribute("d") ?? ""),
              labelledBy: svg.getAttribute("aria-labelledby"),
              describedBy: svg.getAttribute("aria-describedby")
            }))
          )
          expect(chart.paths.length).toBe(3)
          for (const d of chart.paths) expect(d).toMatch(/^M\d/)
          expect(chart.labelledBy).toBe("latency")
          expect(yield* text(page, "#latency-desc")).toContain("measured checks")
          expect((yield* texts(page, ".chart-legend li")).slice(0, 3)).toEqual(["p50 (median)", "p95", "p99"])
          expect(yield* texts(page, ".phase-table tbody th")).toEqual([
            "DNS lookup",
            "Connect",
            "TLS handshake",
            "First byte"
          ])
          // Plain HTTP to loopback: no TLS handshake in any result, so that phase has no mean.
          const phases = yield* texts(page, ".phase-table tbody td")
          expect(phases[2]).toBe("–")
          for (const i of [1, 3]) expect(phases[i]).toMatch(/^\d+ ms$/)
          // A series per region, since results came from two.
          expect(yield* text(page, "#regions-title")).toBe("Median by region")
          expect(yield* texts(page, "#regions-title ~ .chart-legend li")).toEqual(["eu-west", "local"])
          // Its incident, linking to its page.
          expect(
            yield* Effect.promise(() =>
              page.$$eval("#incidents ~ .table-wrap a", (as) => as.map((a) => a.getAttribute("href")))
            )
          ).toEqual([`/incidents/${incidentId}`])
          yield* Dashboard.auditAndCapture(page, "monitor-detail-http")

          // Results: the newest first, filtered by status and region with a plain form, paged with plain links.
          // (The monitor's own hourly check may also have run by now, at its phase in the hour.)
          const statuses = yield* texts(page, ".results-table tbody td:nth-child(3)")
          expect(statuses.slice(0, 2)).toEqual(["Down", "Down"])
          expect(statuses.length).toBe(25)
          yield* Effect.promise(() => page.select("#filter-status", "down"))
          yield* clickAndWait(page, ".filters button[type=submit]")
          expect(new URL(page.url()).searchParams.get("status")).toBe("down")
          const downs = yield* texts(page, ".results-table tbody td:nth-child(3)")
          expect(downs.length).toBeGreaterThanOrEqual(2)
          expect(new Set(downs)).toEqual(new Set(["Down"]))
          expect(yield* text(page, ".results-table caption")).toContain("status Down")
          yield* Effect.promise(() => page.select("#filter-status", ""))
          yield* Effect.promise(() => page.select("#filter-region", "eu-west"))
          yield* clickAndWait(page, ".filters button[type=submit]")
          const regions = yield* texts(page, ".results-table tbody td:nth-child(2)")
          expect(new Set(regions)).toEqual(new Set(["eu-west"]))
          expect(yield* text(page, ".pager span")).toBe("1–25 of 36")
          yield* clickAndWait(page, ".pager a[rel=next]")
          expect(new URL(page.url()).searchParams.get("page")).toBe("2")
          expect(yield* text(page, ".pager span")).toBe("26–36 of 36")
          expect((yield* texts(page, ".results-table tbody tr")).length).toBe(11)

          // Check now, from the page: the service is back, the page reloads with the new result on top.
          site.code = 200
          expect(yield* Dashboard.visit(page, detail)).toBe(200)
          const hits = site.hits
          yield* clickAndWait(page, "button[data-action$='/check-now']")
          expect(site.hits).toBeGreaterThan(hits)
          expect((yield* texts(page, ".results-table tbody td:nth-child(3)"))[0]).toBe("Up")
          expect(yield* text(page, ".detail-state-line")).toMatch(/^Up since/)

          // Pause, then resume.
          yield* clickAndWait(page, "button[data-body='{\"enabled\":false}']")
          expect(yield* text(page, ".detail-state-line")).toBe("Paused")
          expect(Http.expectOk(yield* alice.api(`/api/v1/targets/${id}`), Target).enabled).toBe(false)
          yield* clickAndWait(page, "button[data-body='{\"enabled\":true}']")
          expect(Http.expectOk(yield* alice.api(`/api/v1/targets/${id}`), Target).enabled).toBe(true)
          expect(Http.expectOk(yield* alice.api(`/api/v1/targets/${id}`), Target).write_source).toBe("ui")

          // Duplicate: a copy without a name is refused on its field; with one, the page goes to the copy.
          yield* Effect.promise(() => page.click(".duplicate summary"))
          yield* setValue(page, "#copy-name", "")
          yield* Effect.promise(() => page.click(".duplicate button[type=submit]"))
          const nameError = yield* fieldError(page, "#copy-name")
          expect(nameError.message).not.toBe("")
          expect(nameError.focused).toBe(true)
          yield* setValue(page, "#copy-name", "Shop copy")
          yield* clickAndWait(page, ".duplicate button[type=submit]")
          const copyId = new URL(page.url()).pathname.split("/")[2] ?? ""
          expect(copyId).not.toBe(id)
          expect(yield* text(page, "h1")).toBe("Shop copy")
          expect(Http.expectOk(yield* alice.api(`/api/v1/targets/${copyId}`), Target).name).toBe("Shop copy")

          // Delete the copy: confirmed, then back to the monitors.
          yield* clickAndWait(page, `button[data-method=DELETE][data-action$='${copyId}']`)
          expect(new URL(page.url()).pathname).toBe("/")
          expect((yield* alice.api(`/api/v1/targets/${copyId}`)).status).toBe(404)
          expect(refusedByPolicy).toEqual([])

          // Without JavaScript: everything reads, the filters work, the buttons that need the script are not shown.
          const plain = yield* Dashboard.tab(context, server.baseUrl, alice)
          yield* Effect.promise(() => plain.setJavaScriptEnabled(false))
          expect(yield* Dashboard.visit(plain, `${detail}?status=down`)).toBe(200)
          expect(yield* text(plain, "h1")).toBe("Shop <checkout>")
          expect(new Set(yield* texts(plain, ".results-table tbody td:nth-child(3)"))).toEqual(new Set(["Down"]))
          expect((yield* texts(plain, "svg.chart")).length).toBeGreaterThan(0)
          const shown = yield* Effect.promise(() =>
            plain.$$eval("button[data-action]", (buttons) =>
              buttons.filter((b) => getComputedStyle(b).display !== "none").map((b) => b.textContent)
            )
          )
          expect(shown).toEqual([])
          yield* Effect.promise(() => plain.select("#filter-status", "up"))
          yield* clickAndWait(plain, ".filters button[type=submit]")
          expect(new URL(plain.url()).searchParams.get("status")).toBe("up")
          expect(new Set(yield* texts(plain, ".results-table tbody td:nth-child(3)"))).toEqual(new Set(["Up"]))
          // A picture of it for people to look at (the markup is the audited page's, less what script adds).
          yield* Effect.promise(() =>
            plain.screenshot({ path: path.join(ARTIFACTS, "monitor-detail-no-js-light.png"), fullPage: true })
          )

          // Another org's monitor, and a path that is no id, are the API's 404.
          const bob = yield* Fixture.person()
          const stranger = yield* Dashboard.tab(context, server.baseUrl, bob)
          expect(yield* Dashboard.visit(stranger, detail)).toBe(404)
          expect(yield* text(stranger, "h1")).toBe("Not found")
          expect(yield* Effect.promise(() => stranger.content())).not.toContain("Shop")
          expect(yield* Dashboard.visit(stranger, `${server.baseUrl}/monitors/not-an-id`)).toBe(404)
          yield* Dashboard.auditAndCapture(stranger, "monitor-detail-not-found")
        }),
      120_000
    )

    it.scoped(
      "a heartbeat monitor: its ping URL copied, pinged, its last pings, its URL rotated",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const made = Http.expectOk(
            yield* alice.api("/api/v1/targets", {
              json: { name: "Nightly backup", check: { type: "heartbeat", period: 86400, grace: 3600 } }
            }),
            Target,
            201
          )
          const context = yield* Dashboard.context
          const page = yield* Dashboard.tab(context, server.baseUrl, alice)
          page.on("dialog", (dialog) => void dialog.accept())
          const detail = `${server.baseUrl}/monitors/${made.id}`
          expect(yield* Dashboard.visit(page, detail)).toBe(200)
          expect(yield* text(page, ".detail-state-line")).toMatch(/^Pending since/)
          const url = yield* text(page, "#ping-url")
          expect(url).toMatch(/\/ping\/[A-Za-z0-9_-]+$/)
          const local = (pingUrl: string) => `${server.baseUrl}${new URL(pingUrl).pathname}`
          // Each snippet carries the URL; the crontab runs daily, as the period says.
          expect(yield* text(page, "#snippet-curl")).toContain(url)
          expect(yield* text(page, "#snippet-crontab")).toContain(`0 3 * * * /usr/local/bin/your-job && curl`)
          expect(yield* text(page, "#snippet-systemd-timer")).toContain("OnUnitActiveSec=86400s")
          expect(yield* text(page, "#snippet-powershell")).toContain(`Invoke-RestMethod -Uri "${url}/fail"`)
          // Copy: into the clipboard where the browser allows it, else selected, and said in the live region.
          yield* Effect.promise(() => page.click("button[data-copy=ping-url]"))
          yield* Dashboard.until(page, `document.querySelector("#flash")?.hidden === false`)
          const copied = yield* text(page, "#flash")
          if (copied.includes("selected")) {
            expect(yield* Effect.promise(() => page.evaluate(() => window.getSelection()?.toString() ?? ""))).toBe(url)
          } else {
            expect(copied).toBe("Ping URL copied to the clipboard.")
          }

          // The job pings: a start, then its success.
          expect((yield* Http.request(`${local(url)}/start`)).status).toBe(200)
          expect((yield* Http.request(local(url))).status).toBe(200)
          expect(yield* Dashboard.visit(page, detail)).toBe(200)
          expect(yield* texts(page, "#pings ~ .table-wrap tbody td:nth-child(2)")).toEqual(["Success", "Start"])
          expect(yield* text(page, ".detail-state-line")).toMatch(/^Up since/)
          expect(yield* text(page, ".facts")).toContain("Last start")
          yield* Dashboard.auditAndCapture(page, "monitor-detail-heartbeat")

          // Rotate: a new URL, the old one kept for a day, then stopped from the page.
          yield* clickAndWait(page, "button[data-action$='/heartbeat/rotate'][data-body='{}']")
          const rotated = yield* text(page, "#ping-url")
          expect(rotated).not.toBe(url)
          expect(yield* text(page, "#previous-url")).toContain("The previous URL works until")
          expect((yield* Http.request(local(url))).status).toBe(200)
          yield* clickAndWait(page, "button[data-action$='/heartbeat/previous']")
          expect((yield* Http.request(local(url))).status).toBe(404)
          expect((yield* Http.request(local(rotated))).status).toBe(200)
          expect((yield* texts(page, "#previous-url")).length).toBe(0)
        }),
      90_000
    )

    it.scoped(
      "a manual monitor set from the page; share links made, refused on their field, revoked",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const made = Http.expectOk(
            yield* alice.api("/api/v1/targets", { json: { name: "Office uplink", check: { type: "manual" } } }),
            Target,
            201
          )
          const id = made.id
          const context = yield* Dashboard.context
          const page = yield* Dashboard.tab(context, server.baseUrl, alice)
          page.on("dialog", (dialog) => void dialog.accept())
          const detail = `${server.baseUrl}/monitors/${id}`
          expect(yield* Dashboard.visit(page, detail)).toBe(200)
          expect(yield* text(page, ".detail-state-line")).toMatch(/^Up since/)
          // No probe to run: no check-now.
          expect((yield* texts(page, "button[data-action$='/check-now']")).length).toBe(0)

          // A note over 200 characters is the API's refusal, on the note.
          yield* Effect.promise(() => page.click("input[name=status][value=down]"))
          yield* setValue(page, "#manual-note", "x".repeat(201))
          yield* Effect.promise(() => page.click(".manual-form button[type=submit]"))
          const noteError = yield* fieldError(page, "#manual-note")
          expect(noteError.message).toContain("200 characters")
          expect(noteError.focused).toBe(true)
          yield* setValue(page, "#manual-note", "Uplink cut <by the works>")
          yield* clickAndWait(page, ".manual-form button[type=submit]")
          expect(yield* text(page, ".detail-state-line")).toMatch(/^Down since/)
          expect(yield* text(page, ".manual-note")).toBe("Uplink cut <by the works>")
          const state = Http.expectOk(yield* alice.api(`/api/v1/targets/${id}/state`), ManualState)
          expect(state.status).toBe("down")
          expect(state.note).toBe("Uplink cut <by the works>")

          // Share links: a label too long is refused on the label; one with a label and an expiry is made and listed.
          yield* setValue(page, "#share-label", "y".repeat(81))
          yield* Effect.promise(() => page.click(".share-form button[type=submit]"))
          const labelError = yield* fieldError(page, "#share-label")
          expect(labelError.message).toContain("80")
          yield* setValue(page, "#share-label", "For the landlord")
          const tomorrow = yield* Effect.promise(() =>
            page.evaluate(() => {
              const at = new Date(Date.now() + 86_400_000)
              const pad = (n: number) => String(n).padStart(2, "0")
              return `${at.getFullYear()}-${pad(at.getMonth() + 1)}-${pad(at.getDate())}T${pad(at.getHours())}:${pad(at.getMinutes())}`
            })
          )
          yield* setValue(page, "#share-expires", tomorrow)
          yield* clickAndWait(page, ".share-form button[type=submit]")
          expect(yield* texts(page, ".shares-table tbody th")).toEqual(["For the landlord"])
          const listed = Http.expectOk(
            yield* alice.api(`/api/v1/targets/${id}/shares`),
            Schema.Struct({ data: Schema.Array(MonitorShare) })
          ).data
          expect(listed.length).toBe(1)
          const share = listed[0]
          expect(share?.expires_at).not.toBeNull()
          const shareUrl = yield* text(page, ".share-url")
          expect(shareUrl).toBe(share?.url)
          const sharePath = new URL(shareUrl).pathname
          expect((yield* Http.request(`${server.baseUrl}${sharePath}`)).status).toBe(200)
          yield* Dashboard.auditAndCapture(page, "monitor-detail-manual")

          // Revoked from the page: gone from the list, its page 404.
          yield* clickAndWait(page, ".shares-table button[data-method=DELETE]")
          expect((yield* texts(page, ".shares-table")).length).toBe(0)
          expect((yield* Http.request(`${server.baseUrl}${sharePath}`)).status).toBe(404)
        }),
      90_000
    )

    it.scoped(
      "a browser flow: each step's times, and the screenshot its failed run kept",
      () =>
        Effect.gen(function* () {
          const server = yield* Fixture.server
          const alice = yield* Fixture.person()
          const site = yield* service
          const operator = (path: string, init: RequestInit = {}) =>
            Http.request(`${server.baseUrl}/operator${path}`, {
              ...init,
              headers: { authorization: `Bearer ${admin}`, "content-type": "application/json" }
            })
          const opened = yield* operator(`/accounts/${alice.accountId}/overrides`, {
            method: "PUT",
            body: JSON.stringify({ max_flow_checks: 5 })
          })
          expect(opened.status, opened.text).toBe(200)
          // The local region runs flows once the server has found its browser (in the background, at boot).
          const capable = yield* eventually(
            Effect.map(operator("/regions"), (reply) =>
              Http.decode(
                reply,
                Schema.Struct({
                  data: Schema.Array(Schema.Struct({ id: Schema.String, flow_capable: Schema.Boolean }))
                })
              ).data.some((region) => region.id === "local" && region.flow_capable)
            ),
            (yes) => yes,
            { timeoutMs: 40_000 }
          )
          expect(capable).toBe(true)
          const made = Http.expectOk(
            yield* alice.api("/api/v1/targets", {
              json: {
                name: "Sign-in journey",
                check: {
                  type: "flow",
                  start_url: `${site.base}/login`,
                  steps: [
                    { action: "wait_for", selector: "body" },
                    { action: "assert_text", text: "ok" },
                    { action: "assert_text", text: "Welcome back" }
                  ],
                  step_timeout: 1
                },
                regions: ["local"]
              }
            }),
            Target,
            201
          )
          // Its scheduled run, brought forward (a check-now keeps no evidence; the scheduler's runs do), fails at
          // step 3 and keeps a screenshot.
          const due = yield* eventually(
            server.sql`
            UPDATE schedules SET next_run_at = date_trunc('milliseconds', now())
            WHERE target_id = ${made.id} AND leased_by IS NULL RETURNING target_id
          `,
            (rows) => rows.length === 1,
            { intervalMs: 50 }
          )
          expect(due.length).toBe(1)
          const results = yield* eventually(
            Effect.map(alice.api(`/api/v1/targets/${made.id}/results`), (reply) => Http.decode(reply, ResultPage).data),
            (rows) => rows.some((r) => typeof r.details?.["screenshot_url"] === "string"),
            { timeoutMs: 40_000 }
          )
          expect(results[0]?.status).toBe("down")

          const context = yield* Dashboard.context
          const page = yield* Dashboard.tab(context, server.baseUrl, alice)
          expect(yield* Dashboard.visit(page, `${server.baseUrl}/monitors/${made.id}`)).toBe(200)
          expect(yield* text(page, ".detail-subject")).toBe(`Browser flow ${site.base}/login`)
          expect(yield* texts(page, "#flow-steps ~ .table-wrap tbody th")).toEqual([
            "Step 1: wait_for",
            "Step 2: assert_text",
            "Step 3: assert_text"
          ])
          expect(yield* texts(page, "#flow-steps ~ .table-wrap tbody td:nth-child(3)")).toEqual(["0", "0", "1"])
          expect(
            yield* Effect.promise(() =>
              page.$eval(
                "section[aria-labelledby=flow-steps] svg.chart",
                (svg) => svg.querySelectorAll("path.chart-line").length
              )
            )
          ).toBe(3)
          // The screenshot, served by the API to the page's session, shows the page the failing step saw.
          yield* Dashboard.until(
            page,
            `(() => { const img = document.querySelector(".screenshot img"); return img instanceof HTMLImageElement && img.complete && img.naturalWidth > 0 })()`
          )
          expect(yield* Effect.promise(() => page.$eval(".screenshot img", (img) => img.getAttribute("alt")))).toBe(
            "The page at step 3 (assert_text) when the flow failed"
          )
          yield* Dashboard.auditAndCapture(page, "monitor-detail-flow")
        }),
      90_000
    )
  }
)
