/// <reference lib="dom" />
/**
 * The monitors overview (`GET /`) in real headless Chromium: monitors of several kinds in every state with their
 * recent results, uptime and response times; the counts by state; filters and search with script and without;
 * bulk pause, resume, tag and delete through the API with their refusals; the live stream updating a row as a
 * result arrives, without a reload; the empty org and paging; the stream's own refusals. axe and screenshots.
 */
import { expect } from "@effect/vitest"
import { CheckResult } from "@signalman/core/CheckResult"
import { Target } from "@signalman/core/Target"
import * as Effect from "effect/Effect"
import type { Page } from "puppeteer-core"
import * as CountingOrigin from "../support/CountingOrigin.js"
import * as Dashboard from "../support/Dashboard.js"
import * as Fixture from "../support/Fixture.js"
import * as Http from "../support/Http.js"
import * as TestDatabase from "../support/TestDatabase.js"

// An api-only server: no scheduled run or restatement adds results the tests do not expect; check-now, pings and
// manual sets write theirs at once, and the live stream's poller runs in the api process.
const settings = { CHECKER__ALLOW_PRIVATE_TARGETS: "true", ROLE: "api" }

/** A tab wide enough for the overview's columns, as on a laptop. */
const wideTab = (context: Parameters<typeof Dashboard.tab>[0], baseUrl: string, person: Fixture.Person) =>
  Effect.tap(Dashboard.tab(context, baseUrl, person), (page) =>
    Effect.promise(() => page.setViewport({ width: 1280, height: 900 }))
  )

/** The rows of the overview as a person reads them. */
const rowsOf = (page: Page) =>
  Effect.promise(() =>
    page.evaluate(() =>
      [...document.querySelectorAll<HTMLTableRowElement>("tr[data-monitor]")].map((tr) => ({
        id: tr.dataset["monitor"] ?? "",
        name: tr.querySelector("th a")?.textContent ?? "",
        state: tr.querySelector('[data-part="state"] .state')?.textContent ?? "",
        beats: [...tr.querySelectorAll('[data-part="beats"] .beat[role="img"]')].map(
          (b) => b.getAttribute("aria-label") ?? ""
        ),
        day: tr.querySelector('[data-part="uptime-day"]')?.textContent ?? "",
        month: tr.querySelector('[data-part="uptime-month"]')?.textContent ?? "",
        sparkline: tr.querySelector('[data-part="latency"] svg path')?.getAttribute("d") ?? null,
        tags: [...tr.querySelectorAll(".tag")].map((t) => t.textContent ?? "")
      }))
    )
  )

const names = (page: Page) => Effect.map(rowsOf(page), (rows) => rows.map((r) => r.name))

/** Submits the filter form with these fields set, and waits for the page it loads. */
const filter = (page: Page, fields: Readonly<Record<string, string>>) =>
  Effect.promise(async () => {
    await page.evaluate((values: Record<string, string>) => {
      for (const [name, value] of Object.entries(values)) {
        const field = document.querySelector<HTMLInputElement | HTMLSelectElement>(`form.filters [name="${name}"]`)
        if (field !== null) field.value = value
      }
    }, fields)
    await Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click("form.filters button[type=submit]")])
  })

/** Ticks the rows of these monitors. */
const select = (page: Page, ids: ReadonlyArray<string>) =>
  Effect.promise(async () => {
    for (const id of ids) await page.click(`tr[data-monitor="${id}"] input[name=ids]`)
  })

/** Presses a bulk button and waits for the reload that follows success. */
const bulk = (page: Page, action: string) =>
  Effect.promise(() =>
    Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click(`button[data-bulk-action="${action}"]`)])
  )

Fixture.describe(`dashboard monitors overview (${TestDatabase.kind} database)`, { env: settings }, (it) => {
  it.scoped(
    "every monitor with its state, results and figures; counts by state; filters and search with and without script; axe",
    () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const origin = yield* CountingOrigin.make
        const alice = yield* Fixture.person()
        const create = (body: Record<string, unknown>) =>
          Effect.map(alice.api("/api/v1/targets", { json: body }), (reply) => Http.expectOk(reply, Target, 201).id)
        const checkout = yield* create({
          name: "Checkout API",
          check: { type: "http", url: `${origin.base}/checkout` },
          tags: ["prod", "web"],
          group: "Shop"
        })
        const payments = yield* create({
          name: "Payments API",
          check: { type: "http", url: `${origin.base}/status/500` },
          tags: ["prod"]
        })
        const backup = yield* create({ name: "Nightly backup", check: { type: "heartbeat", period: 3600, grace: 300 } })
        const wifi = yield* create({ name: "Office wifi", check: { type: "manual" }, group: "Office" })
        const legacy = yield* create({
          name: "Old site",
          check: { type: "tcp", host: "127.0.0.1", port: 9 },
          enabled: false,
          tags: ["legacy"]
        })
        for (const id of [checkout, payments]) {
          Http.expectOk(yield* alice.api(`/api/v1/targets/${id}/check-now`, { method: "POST" }), CheckResult)
        }
        const set = yield* alice.api(`/api/v1/targets/${wifi}/state`, {
          method: "PUT",
          json: { status: "degraded", note: "slow uplink" }
        })
        expect(set.status, set.text).toBe(200)
        // A day of history for the checkout API: hourly and daily rollups, as the engine would have written them.
        yield* server.sql`
          INSERT INTO result_rollups_hourly (target_id, region, bucket, checks, up, degraded, down, errors, up_secs,
            down_secs, duration_sum, dns_sum, dns_n, connect_sum, connect_n, tls_sum, tls_n, first_byte_sum,
            first_byte_n, histogram)
          SELECT ${checkout}, 'local', date_trunc('hour', now()) - h * interval '1 hour', 60, 59, 0, 1, 0, 3540, 60,
            60 * (90 + 30 * sin(h / 3.0)), 0, 0, 0, 0, 0, 0, 0, 0, '{}'
          FROM generate_series(1, 24) AS h
        `.pipe(Effect.orDie)
        yield* server.sql`
          INSERT INTO result_rollups_daily (target_id, region, bucket, checks, up, degraded, down, errors, up_secs,
            down_secs, duration_sum, dns_sum, dns_n, connect_sum, connect_n, tls_sum, tls_n, first_byte_sum,
            first_byte_n, histogram)
          SELECT ${checkout}, 'local', date_trunc('day', now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC' - d * interval '1 day',
            1440, 1426, 0, 14, 0, 85536, 864, 1440 * 90, 0, 0, 0, 0, 0, 0, 0, 0, '{}'
          FROM generate_series(1, 29) AS d
        `.pipe(Effect.orDie)

        const context = yield* Dashboard.context
        const page = yield* wideTab(context, server.baseUrl, alice)
        expect(yield* Dashboard.visit(page, `${server.baseUrl}/`)).toBe(200)
        const rows = yield* rowsOf(page)
        // By name, each in its state said in words.
        expect(rows.map((r) => [r.name, r.state])).toEqual([
          ["Checkout API", "Up"],
          ["Nightly backup", "Pending"],
          ["Office wifi", "Degraded"],
          ["Old site", "Paused"],
          ["Payments API", "Down"]
        ])
        const byName = new Map(rows.map((r) => [r.name, r]))
        expect(byName.get("Checkout API")?.beats).toHaveLength(1)
        expect(byName.get("Checkout API")?.beats[0]).toMatch(/^Up at \d\d:\d\d:\d\d UTC: \d+ ms$/)
        expect(byName.get("Payments API")?.beats[0]).toMatch(/^Down at .* UTC: .*500/)
        expect(byName.get("Office wifi")?.beats[0]).toMatch(/^Degraded at /)
        expect(byName.get("Nightly backup")?.beats).toEqual([])
        // 59 of every 60 minutes up over the last day (hourly rollups); 99% over the whole days of 30 (daily ones).
        expect(byName.get("Checkout API")?.day).toBe("98.33%")
        expect(byName.get("Checkout API")?.month).toBe("99.00%")
        expect(byName.get("Checkout API")?.sparkline).toMatch(/^M[\d. ]+(L[\d. ]+)+$/)
        expect(byName.get("Payments API")?.day).toContain("No data")
        expect(byName.get("Checkout API")?.tags).toEqual(["prod", "web"])
        const glance = yield* Effect.promise(() =>
          page.evaluate(() =>
            [...document.querySelectorAll(".glance .card")].map((c) => c.textContent?.replace(/\s+/g, " ").trim())
          )
        )
        expect(glance).toEqual(
          expect.arrayContaining(["5 monitors", "1 Down", "0 Error", "1 Degraded", "1 Up", "1 Pending", "1 Paused"])
        )
        const links = yield* Effect.promise(() =>
          page.evaluate(() => ({
            create: document.querySelector<HTMLAnchorElement>('a[href="/monitors/new"]')?.textContent ?? null,
            row: document.querySelector<HTMLAnchorElement>("tr[data-monitor] th a")?.getAttribute("href") ?? null
          }))
        )
        expect(links.create).toBe("New monitor")
        expect(links.row).toBe(`/monitors/${checkout}`)
        yield* Dashboard.auditAndCapture(page, "monitors-overview")

        // Filters and search, with script: the form is a GET whose query the server applies.
        yield* filter(page, { q: "api" })
        expect(new URL(page.url()).searchParams.get("q")).toBe("api")
        expect(yield* names(page)).toEqual(["Checkout API", "Payments API"])
        yield* filter(page, { q: "", state: "down" })
        expect(yield* names(page)).toEqual(["Payments API"])
        yield* filter(page, { state: "", kind: "heartbeat" })
        expect(yield* names(page)).toEqual(["Nightly backup"])
        yield* filter(page, { kind: "", tag: "prod" })
        expect(yield* names(page)).toEqual(["Checkout API", "Payments API"])
        yield* filter(page, { tag: "", group: "Office" })
        expect(yield* names(page)).toEqual(["Office wifi"])
        yield* filter(page, { group: "", q: "nothing like it" })
        const none = yield* Effect.promise(() =>
          page.evaluate(() => ({
            rows: document.querySelectorAll("tr[data-monitor]").length,
            text: document.querySelector("main .empty-state")?.textContent ?? ""
          }))
        )
        expect(none.rows).toBe(0)
        expect(none.text).toContain("No monitor matches these filters")
        // A value that is not a choice is ignored, not refused.
        expect(yield* Dashboard.visit(page, `${server.baseUrl}/?state=sideways&kind=nope&page=-3`)).toBe(200)
        expect(yield* names(page)).toHaveLength(5)

        // Without script: reading and filtering work; the selection and bulk bar are not offered.
        const plain = yield* wideTab(context, server.baseUrl, alice)
        yield* Effect.promise(() => plain.setJavaScriptEnabled(false))
        expect(yield* Dashboard.visit(plain, `${server.baseUrl}/?state=paused`)).toBe(200)
        expect(yield* names(plain)).toEqual(["Old site"])
        const hidden = yield* Effect.promise(() =>
          plain.evaluate(() => {
            const display = (selector: string) => {
              const node = document.querySelector(selector)
              return node === null ? null : getComputedStyle(node).display
            }
            return {
              bar: display(".bulk-bar"),
              box: display("td.select"),
              selected: document.querySelector<HTMLSelectElement>("#filter-state")?.value ?? null
            }
          })
        )
        expect(hidden).toEqual({ bar: "none", box: "none", selected: "paused" })
        yield* filter(plain, { state: "", q: "office" })
        expect(new URL(plain.url()).searchParams.get("q")).toBe("office")
        expect(yield* names(plain)).toEqual(["Office wifi"])
        expect(backup).not.toBe(legacy)
      }),
    120_000
  )

  it.scoped(
    "bulk tag, pause, resume and delete through the API with their refusals; a result arriving changes its row live",
    () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const origin = yield* CountingOrigin.make
        const bob = yield* Fixture.person()
        const create = (body: Record<string, unknown>) =>
          Effect.map(bob.api("/api/v1/targets", { json: body }), (reply) => Http.expectOk(reply, Target, 201).id)
        const alpha = yield* create({ name: "Alpha", check: { type: "manual" } })
        const beta = yield* create({ name: "Beta", check: { type: "http", url: `${origin.base}/beta` } })
        const gamma = yield* create({ name: "Gamma", check: { type: "http", url: `${origin.base}/gamma` } })
        Http.expectOk(yield* bob.api(`/api/v1/targets/${beta}/check-now`, { method: "POST" }), CheckResult)

        const context = yield* Dashboard.context
        const page = yield* wideTab(context, server.baseUrl, bob)
        expect(yield* Dashboard.visit(page, `${server.baseUrl}/`)).toBe(200)
        yield* Dashboard.until(page, `document.querySelector("[data-live-status]")?.textContent === "Live"`)
        // A mark only this load of the page carries: were the page reloaded, it would be gone.
        yield* Effect.promise(() => page.evaluate(() => document.body.setAttribute("data-loaded-once", "yes")))

        // Live: a manual monitor set down and a check run now, each stored by the API, reach their rows.
        const set = yield* bob.api(`/api/v1/targets/${alpha}/state`, { method: "PUT", json: { status: "down" } })
        expect(set.status, set.text).toBe(200)
        yield* Dashboard.until(
          page,
          `document.querySelector('tr[data-monitor="${alpha}"] [data-part="state"] .state')?.textContent === "Down"`
        )
        Http.expectOk(yield* bob.api(`/api/v1/targets/${beta}/check-now`, { method: "POST" }), CheckResult)
        yield* Dashboard.until(
          page,
          `document.querySelectorAll('tr[data-monitor="${beta}"] .beat:not(.beat-none)').length === 2`
        )
        const live = yield* Effect.promise(() =>
          page.evaluate(() => ({
            same: document.body.getAttribute("data-loaded-once"),
            said: document.querySelector("[data-live-announce]")?.textContent ?? "",
            alphaBeats: [...document.querySelectorAll("tr[data-monitor] .beat[role=img]")].map(
              (b) => b.getAttribute("aria-label") ?? ""
            )
          }))
        )
        expect(live.same).toBe("yes")
        expect(live.said).toContain("Alpha: Down")
        expect(live.alphaBeats.some((label) => label.startsWith("Down at "))).toBe(true)

        // Refused before the API: nothing selected.
        yield* Effect.promise(() => page.click('button[data-bulk-action="disable"]'))
        const nothing = yield* Effect.promise(() =>
          page.evaluate(() => document.querySelector("#bulk [data-form-status]")?.textContent ?? "")
        )
        expect(nothing).toBe("Select at least one monitor first.")
        // Refused by the API: tags to add, but none given; the error is on the field the API names.
        yield* select(page, [alpha])
        yield* Effect.promise(() => page.click('button[data-bulk-action="tag-add"]'))
        yield* Dashboard.until(page, `document.querySelector("#bulk .field-error") !== null`)
        const refusal = yield* Effect.promise(() =>
          page.evaluate(() => ({
            invalid: document.querySelector("#bulk-tags")?.getAttribute("aria-invalid") ?? null,
            focused: document.activeElement?.id ?? null,
            note: document.querySelector("#bulk .field-error")?.textContent ?? "",
            count: document.querySelector("[data-bulk-count]")?.textContent ?? ""
          }))
        )
        expect(refusal).toMatchObject({ invalid: "true", focused: "bulk-tags", count: "1" })
        expect(refusal.note).not.toBe("")
        yield* Dashboard.auditAndCapture(page, "monitors-overview-bulk-refused")

        // Tag: the field's values, added to what the monitor has.
        yield* Effect.promise(() => page.type("#bulk-tags", "ops, eu"))
        yield* bulk(page, "tag-add")
        expect((yield* rowsOf(page)).find((r) => r.id === alpha)?.tags).toEqual(["ops", "eu"])
        expect(Http.expectOk(yield* bob.api(`/api/v1/targets/${alpha}`), Target).write_source).toBe("ui")

        // Pause two, then resume everything on the page with select-all.
        yield* select(page, [alpha, beta])
        yield* bulk(page, "disable")
        const paused = yield* rowsOf(page)
        expect(paused.filter((r) => r.state === "Paused").map((r) => r.name)).toEqual(["Alpha", "Beta"])
        expect(Http.expectOk(yield* bob.api(`/api/v1/targets/${beta}`), Target).enabled).toBe(false)
        yield* Effect.promise(() => page.click("input[data-select-all]"))
        expect(
          yield* Effect.promise(() => page.evaluate(() => document.querySelector("[data-bulk-count]")?.textContent))
        ).toBe("3")
        yield* bulk(page, "enable")
        const resumed = yield* rowsOf(page)
        expect(resumed.map((r) => [r.name, r.state])).toEqual([
          ["Alpha", "Down"],
          ["Beta", "Up"],
          ["Gamma", "Pending"]
        ])

        // Delete asks first: declined, nothing happens; accepted, the monitor is gone.
        yield* select(page, [gamma])
        const declined = yield* Effect.promise(async () => {
          const dialog = new Promise<string>((resolve) =>
            page.once("dialog", (d) => {
              resolve(d.message())
              void d.dismiss()
            })
          )
          await page.click('button[data-bulk-action="delete"]')
          return dialog
        })
        expect(declined).toContain("Delete the selected monitors?")
        expect(yield* names(page)).toEqual(["Alpha", "Beta", "Gamma"])
        page.once("dialog", (d) => void d.accept())
        yield* bulk(page, "delete")
        expect(yield* names(page)).toEqual(["Alpha", "Beta"])
        expect((yield* bob.api(`/api/v1/targets/${gamma}`)).status).toBe(404)
      }),
    120_000
  )

  it.scoped(
    "a new org's empty state; 200 monitors a page; the live stream's refusals",
    () =>
      Effect.gen(function* () {
        const server = yield* Fixture.server
        const carol = yield* Fixture.person()
        const context = yield* Dashboard.context
        const page = yield* wideTab(context, server.baseUrl, carol)
        expect(yield* Dashboard.visit(page, `${server.baseUrl}/`)).toBe(200)
        const empty = yield* Effect.promise(() =>
          page.evaluate(() => ({
            title: document.querySelector(".empty-state h2")?.textContent ?? "",
            next: document.querySelector<HTMLAnchorElement>(".empty-state a.button")?.getAttribute("href") ?? "",
            table: document.querySelector("table") !== null
          }))
        )
        expect(empty).toEqual({ title: "No monitors yet", next: "/monitors/new", table: false })
        yield* Dashboard.auditAndCapture(page, "monitors-empty")
        // Where the invitation flows land: a welcome for an org the person is in, a word when an invitation was
        // missed; the slug of an org they are not in says nothing.
        const joined = yield* carol.browser.request(`/?joined=${carol.org.slug}`)
        expect(joined.text).toContain(`Welcome to ${carol.org.name}`)
        expect((yield* carol.browser.request("/?joined=someone-elses")).text).not.toContain("Welcome to")
        expect((yield* carol.browser.request("/?invite=missed")).text).toContain("could not be used")

        // 205 monitors: two pages, the second with the last five by name.
        yield* server.sql`
        INSERT INTO targets (id, org_id, account_id, name, kind, check_spec, interval_secs, enabled, tags, alerts,
          alert_confirmations, notify_recovery, renotify_interval_secs, recovery_period_secs, region_policy, regions,
          write_source)
        SELECT gen_random_uuid(), ${carol.org.id}, ${carol.accountId}, 'svc-' || lpad(n::text, 3, '0'), 'manual',
          '{"type":"manual"}', 60, true, '{}', '[]', 2, true, 3600, 0, '"any"', '{local}', 'api'
        FROM generate_series(1, 205) AS n
      `.pipe(Effect.orDie)
        expect(yield* Dashboard.visit(page, `${server.baseUrl}/`)).toBe(200)
        const first = yield* Effect.promise(() =>
          page.evaluate(() => ({
            rows: document.querySelectorAll("tr[data-monitor]").length,
            caption: document.querySelector("table caption")?.firstChild?.textContent?.trim() ?? "",
            next: document.querySelector<HTMLAnchorElement>('.pager a[rel="next"]')?.getAttribute("href") ?? null
          }))
        )
        expect(first).toEqual({ rows: 200, caption: "Monitors: 1–200 of 205", next: "/?page=2" })
        yield* Effect.promise(() =>
          Promise.all([page.waitForNavigation({ waitUntil: "load" }), page.click('.pager a[rel="next"]')])
        )
        expect(yield* names(page)).toEqual(["svc-201", "svc-202", "svc-203", "svc-204", "svc-205"])

        // The stream: a session and one of the person's orgs, else the API's refusals.
        const cookie = [...carol.browser.cookies].map(([k, v]) => `${k}=${v}`).join("; ")
        const open = (path: string, headers: Record<string, string>) =>
          Effect.promise(async () => {
            const abort = new AbortController()
            const response = await fetch(`${server.baseUrl}${path}`, { headers, signal: abort.signal })
            const text =
              response.status === 200
                ? new TextDecoder().decode((await response.body?.getReader().read())?.value)
                : await response.text()
            abort.abort()
            return { status: response.status, type: response.headers.get("content-type"), text }
          })
        const anonymous = yield* open("/dashboard/events", {})
        expect(anonymous.status).toBe(401)
        expect(anonymous.text).toContain("UNAUTHENTICATED")
        const stranger = yield* open("/dashboard/events?org=someone-elses", { cookie })
        expect(stranger.status).toBe(404)
        expect(JSON.parse(stranger.text)).toMatchObject({ error: { code: "NOT_FOUND", field: "org" } })
        const stream = yield* open(`/dashboard/events?org=${carol.org.slug}`, { cookie, "last-event-id": "1" })
        expect(stream.status).toBe(200)
        expect(stream.type).toBe("text/event-stream; charset=utf-8")
        expect(stream.text.startsWith("retry: 3000\n\n: connected\n\n")).toBe(true)
        // One stream per tab: a session holding 32 open is refused a 33rd.
        const held = new AbortController()
        yield* Effect.promise(() =>
          Promise.all(
            Array.from({ length: 32 }, async () => {
              const response = await fetch(`${server.baseUrl}/dashboard/events`, {
                headers: { cookie },
                signal: held.signal
              })
              await response.body?.getReader().read()
            })
          )
        )
        const over = yield* open("/dashboard/events", { cookie })
        held.abort()
        expect(over.status).toBe(429)
        expect(JSON.parse(over.text)).toMatchObject({ error: { code: "RATE_LIMITED" } })
      }),
    60_000
  )
})
